//===- Passes.td - npu-mlir conversions between levels -----*- tablegen -*-===//
//
// Conversions, declared apart from the graph transforms (dialects/npu/
// Passes.td) as upstream keeps mlir/Conversion/Passes.td: a client that only
// lowers device kernels (the JIT) depends on npudev and the upstream loop
// dialects, never on the graph dialect or the layout solver.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_CONVERSION_PASSES_TD
#define NPU_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def LowerGraphToDevice : Pass<"npu-lower-to-device", "mlir::ModuleOp"> {
  let summary = "Lower graph ops that have device kernels to npudev kernels";
  let description = [{
    Turns every function that uses npu graph ops into a device program: each
    tensor argument becomes a `memref<..., #npudev.space<global>>`, each
    result an extra argument marked `npudev.output` that the kernels write,
    intermediate tensors global `memref.alloc`s freed at the end. Each op is replaced by the
    kernels its family builds for the device: the one the module names in
    `npudev.device`, else `device` (a preset name or the path of a JSON
    description), else mlu590; a `device` that disagrees with the module's
    is an error naming both. Tasks come from the core count, tiles from the
    on-chip capacities; each launch records its choice as `npudev.tiling`.
    When anything was lowered, the module gets `npudev.device`, the whole
    device description, which the launch verifier, the simulator and
    npu-run read; a module with no graph ops is left as it is.

    A result whose row count depends on the data (get_indice_pairs'
    out_indices, and what is computed from it) is stored at an upper bound
    of its rows with its actual count in a `memref<1xi64>` beside it;
    `tensor.dim` of it reads that count. Such a function result gets a
    trailing count argument marked `npudev.row_count`, and its output
    argument `npudev.rows = <that argument's number>`; npu-run prints and
    writes only the counted rows. Scalar code (index arithmetic) stays as
    it is.

    A value stored aligned (`#npu.layout<align>`, C not a multiple of 64)
    lives in rows padded to 64 elements and reaches kernels as the strided
    view of its C columns; kernels that cannot read such a view
    (DeviceKernelOpInterface::readsAlignedStorage) get dense copies made by
    `repack` launches. Such a function argument or result is the padded
    buffer, marked `npudev.channels = C`: npu-run pads its rows and cuts
    them back.

    A dynamic size of an argument is read at run time (`memref.dim`), and
    so is a result's that its op reifies as an argument's
    (ReifyRankedShapedTypeOpInterface: the MoE family's number of
    samples); kernels that take such sizes check them against each other
    when they run. A data-dependent row count may be bounded by a multiple
    of such a size (get_indice_pairs' out_indices: K times the sites).
    An output with such sizes gets `npudev.sizes = array<i64: a0, d0, f0,
    a1, d1, f1, ...>`: its k-th dynamic dimension is fk times dimension dk
    of argument ak, so that a caller (npu-run) can allocate it. A launch at
    the function's start fails, naming the argument and the size, when a
    buffer sized from a size read at run time would not fit the device's
    global memory (the rule the lowering applies to static sizes).

    Ops without a device lowering, other dynamic shapes and non-tensor
    values are reported as errors naming the op.
  }];
  let options = [
    Option<"device", "device", "std::string", "\"\"",
           "device preset or JSON description the kernels are built for "
           "(default: the device the module names, else mlu590)">,
    Option<"sparseConvStrategy", "sparse-conv-strategy", "std::string",
           "\"auto\"",
           "get_indice_pairs strategy: auto (grid when its dense grid fits "
           "the device's global-memory budget, else sort), grid or sort">
  ];
  let dependentDialects = [
    "::npu::dev::NPUDevDialect", "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

def LowerDeviceToLoops : Pass<"npu-lower-device-to-loops", "mlir::ModuleOp"> {
  let summary = "Lower npudev kernels to scf/memref/arith/math loops for the JIT";
  let description = [{
    Rewrites every npudev op into upstream dialects with the semantics the
    simulator implements. `npudev.launch` becomes an `scf.parallel` over
    task ids (so that it can run on host threads); each region of an
    `npudev.mixed_launch` is outlined into a function of its own and the
    launch becomes a call that npu-lower-mixed-launch-calls completes,
    with `set_flag` / `wait_flag` runtime calls (`npu_rt_set_flag`,
    `npu_rt_wait_flag`) and `npudev.async` bodies run in place. On-chip
    buffers become heap `memref.alloc`s freed at the end of their block.
    DMA becomes an element loop nest when rows are contiguous on both
    sides (LLVM vectorizes it; `memref.copy` of a dynamically sized window
    would call the runtime's element-at-a-time `memrefCopy`), else
    `memref.copy`; asynchronous copies complete at once (`npudev.wait`
    disappears); `dma_gather` / `dma_scatter` become loops over their
    indices. Vector ops become loop nests over their buffers computing in
    the element type (f16 / bf16 reductions and prefix sums in f32, in
    index order; maximumf / minimumf return the first NaN operand,
    quieted). `npudev.matmul` calls the runtime's vectorized micro-kernel
    for f32, f16 and bf16 inputs (`npu_rt_matmul_<type>`, the same bits
    as the simulator) and is a loop nest of multiply-adds in i32 for
    integers; `vsort`, `vmerge` and `vunique` call the runtime
    (`npu_rt_sort_<type>`, `npu_rt_merge_<type>`, `npu_rt_unique_<type>`;
    names in npu/Runtime/RuntimeABI.h). `npudev.report_rows` becomes
    stores into a status argument that later launches check. Finally
    every memref loses its `#npudev.space`, which the LLVM lowering does
    not know.

    Before that, copies that only stage data for the host are dropped:
    a matmul reads the global source of a buffer a DMA just filled for it,
    and an elementwise op whose buffer only carries data from one global
    window to another (DMA in, the op in place, DMA out) reads and writes
    those windows, and a vector op whose output an `npudev.dma_start`
    consumes (`consumes_source`) writes the DMA's global target
    (`forward-transits`).

    Then each `npudev.launch` moves into a private function of its own,
    `__npu_launch_<n>`, marked `no_inline`, called where it stood
    (`outline-launches`): LLVM's optimizer and code generator grow faster
    than linearly with a function's size, and a network is hundreds of
    launches.
  }];
  let options = [
    Option<"forwardTransits", "forward-transits", "bool", "true",
           "let matmuls read the global sources of their staged inputs, "
           "elementwise ops read and write the global windows their "
           "buffer only carries data between, and vector ops write the "
           "targets of the DMAs that consume their output (off: every "
           "copy as written)">,
    Option<"outlineLaunches", "outline-launches", "bool", "true",
           "move each launch into a function of its own (off: launches "
           "stay where they are, as scf.parallel)">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::func::FuncDialect",
    "::mlir::math::MathDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def GuardMemoryAccesses : Pass<"npu-guard-memory-accesses", "mlir::ModuleOp"> {
  let summary = "Bounds-check every memory access of lowered kernels (the "
                "JIT's checked mode)";
  let description = [{
    Runs on the output of npu-lower-device-to-loops. Every `memref.load`,
    `memref.store` and `memref.atomic_rmw` runs only when each index is
    within its dimension; the views upstream MLIR knows how to check
    (`memref.subview`, `expand_shape`, `collapse_shape`, `reinterpret_cast`,
    `cast`) get upstream's runtime verification (the
    RuntimeVerifiableOpInterface, as `--generate-runtime-verification`),
    whose `cf.assert`s are turned into records instead of aborts. A failed
    check writes its site, and for an index the dimension, the index and
    the size, into the global `@npu_checked_status` (memref<4xi64>: the
    first failure wins, by an atomic compare); from then on every access,
    copy and runtime call is skipped (a load reads 0), so the kernel ends
    without touching memory out of bounds. The module gets
    `npudev.checked_sites`, one [location, op, reason] triple per site, which
    the JIT reads to report the failure as the simulator does, e.g.
    `'memref.load' op index 64 is out of bounds for dimension 0 of size 64`.
    An op lowered from an npudev op whose location is a NameLoc carrying
    that op's name is reported under that name.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::cf::ControlFlowDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect"
  ];
}

//===----------------------------------------------------------------------===//
// npudev kernels to the LLVM dialect (lib/Conversion/DeviceToLLVM)
//===----------------------------------------------------------------------===//

def MathToLibmWherePossible : Pass<"npu-math-to-libm", "mlir::ModuleOp"> {
  let summary = "Call libm for every math op it has a function for";
  let description = [{
    Upstream math-to-libm's patterns, applied greedily rather than as a
    conversion: the upstream pass marks the whole math dialect illegal and
    so fails on ops libm lacks (ctpop, copysign, rsqrt, ...), which
    math-to-llvm lowers afterwards; running math-to-llvm first would expand
    expm1 and friends instead of calling the libm function the simulator
    calls. math.fma is left to math-to-llvm: it is exact, so LLVM's fma
    gives libm's bits in one instruction that vectorizes; an f16 or bf16
    fma is computed in f32 and rounded once, as the simulator does.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::func::FuncDialect"];
}

def MarkDistinctArguments
    : Pass<"npu-mark-distinct-arguments", "mlir::ModuleOp"> {
  let summary = "Promise LLVM that the entry's memref arguments never overlap";
  let description = [{
    In the LLVM dialect, marks `noalias` the aligned pointer of each memref
    argument of the function `entry` (the one a caller invokes, not its
    `_mlir_ciface_` wrapper), so that LLVM vectorizes a loop that reads one
    argument and writes another without first versioning it on a run-time
    overlap test (or, once it has unrolled the loop, not at all). Sound
    only when every caller passes arguments whose memory is disjoint: the
    JIT does (each argument is a HostArray that owns its bytes); other
    functions, which the entry may call with overlapping views, are left
    alone. Memrefs arrive as (allocated, aligned, offset, sizes...,
    strides...) and no scalar argument is a pointer, so an aligned pointer
    is a pointer argument that follows another. O(arguments).
  }];
  let options = [
    Option<"entry", "entry", "std::string", /*default=*/"\"\"",
           "The function whose memref arguments never overlap">
  ];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

def LowerMixedLaunchCalls
    : Pass<"npu-lower-mixed-launch-calls", "mlir::ModuleOp"> {
  let summary = "Hand each mixed launch's regions to the JIT runtime";
  let description = [{
    Completes, once the module is in the LLVM dialect, the calls
    npu-lower-device-to-loops left for mixed launches
    (`__npu_mixed_launch_<n>`): the captured values go into one stack
    struct, each region's function gets an entry taking (task, struct
    pointer), and the call becomes `npu_rt_run_mixed` with `threads` tasks
    running at once.
  }];
  let options = [
    Option<"threads", "threads", "int64_t", /*default=*/"1",
           "Host threads running a mixed launch's tasks">
  ];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

//===----------------------------------------------------------------------===//
// Sparse iterations onto the device (lib/Conversion/SparseToDevice)
//===----------------------------------------------------------------------===//

def SparseCheckFormats
    : Pass<"npu-sparse-check-formats", "mlir::func::FuncOp"> {
  let summary = "Checked mode: validate every axis's indptr and indices";
  let description = [{
    Adds, at the start of the function, two one-task launches that check
    each `sparse.axis` against its definition and fail the kernel through
    `npudev.report_rows`, naming the axis (its kind and its number among
    the function's axes, from 0), the broken rule and the first offending
    entry. The first launch checks the structure: indptr starts at 0,
    never decreases, has the parent's positions plus one entries, ends at
    the number of indices (sparse_variable), runs no longer than the
    length (dense_variable), and a sparse_fixed axis has nnz_cols indices
    per parent position. The second, which runs only if the first passed
    (so it reads only entries that exist), checks the contents:
    coordinates in [0, length), and strictly increasing within each run
    where `sorted` is declared. Run it first, before npu-sparse-decompose
    and npu-sparse-to-device: the JIT stops at a failed launch only
    before later launches.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::scf::SCFDialect",
                           "npu::dev::NPUDevDialect"];
}

def SparseDecompose : Pass<"npu-sparse-decompose", "mlir::func::FuncOp"> {
  let summary = "Format decomposition: hybrid ELL + CSR by row length";
  let description = [{
    Each iteration with `hybrid_ell_width = E` over rows i and a
    sparse_variable axis j under them becomes two: one over an ELL axis
    (the first E positions of every row, padded with coordinate 0 and
    value 0) and one over a CSR remainder (the positions past E), each a
    kernel of its own; the second has no init, so reductions carry on
    from the first, in the same order. Every buffer over [i, j] gets an
    ELL and a remainder copy, filled by a one-task launch before the two
    iterations. Buffers over j must be read-only in the iteration (the
    parts are copies), and the column axis must not be empty. The padded
    slots run the body with coordinate 0 and value 0: right for sums of
    products (SpMM: 0 times a finite operand adds nothing), wrong for a
    body that is not (a maximum, say), which must not be split. Runs
    after npu-sparse-check-formats (which checks the user's arrays; the
    split's own are right by construction) and before
    npu-sparse-to-device.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::scf::SCFDialect",
                           "npu::dev::NPUDevDialect"];
}

def SparseToDevice : Pass<"npu-sparse-to-device", "mlir::func::FuncOp"> {
  let summary = "Sparse iterations onto the device's cores";
  let description = [{
    Each sparse.iteration not yet in a launch becomes an `npudev.launch`
    of `tasks` tasks on vector cores (0: the vector cores of the device the
    function is compiled for, `npudev.device`, else mlu590), each running
    it over a `range` of its first axis. When the second axis is a
    variable child of the first, the rows are split by work, a row
    weighing its nonzeros plus `row-cost`: task t starts at the first row r
    with indptr[r] - indptr[0] + c r >= t * (nnz + c rows) / T (a binary
    search over indptr), so neither a heavy row nor a crowd of light ones
    loads one task with many rows' work; otherwise by equal row counts. An iteration whose
    first axis is a reduction or has a parent runs as one task. Runs before
    npu-sparse-lower-iterations.
  }];
  let options = [
    Option<"tasks", "tasks", "int64_t", /*default=*/"0",
           "Tasks per launch; 0 takes the device's vector cores">,
    Option<"rowCost", "row-cost", "int64_t", /*default=*/"6",
           "What a row costs beyond its nonzeros, in nonzeros (its bounds, "
           "its init, its output, its chunk's vector ops); 6 balances "
           "SpMM and SDDMM on R-MAT rows best on mlu590 "
           "(docs/sparse-iteration.md)">
  ];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::scf::SCFDialect",
                           "npu::dev::NPUDevDialect"];
}

def SparseTilePositions
    : Pass<"npu-sparse-tile-positions", "mlir::func::FuncOp"> {
  let summary = "Nonzero loops around a dense-axis loop as gathered 2-D tiles";
  let description = [{
    Runs between npu-sparse-lower-iterations and npu-sparse-tile-dense-axis,
    on the loops inside launches. A loop over a sparse axis's positions t
    (a row's nonzeros) whose body reads arrays at base + t and holds one
    loop over a dense axis k of F positions becomes a loop over chunks of
    T positions working on [T, F] tiles in vector memory: the column
    indices and values read at t come in by one DMA each, the rows of a
    dense buffer read at (column index, k) by one dma_gather, a row fixed
    outside the loops by one DMA before the chunks, and each f32 add, sub,
    mul, div, maximum or minimum is one vector op (rows and values read at
    t broadcast along the tile). The inner body must end in one sum: into
    a row fixed outside the loops over t (SpMM), reduced per chunk by a
    transpose and a vreduce, or over k from an element read and stored at
    t (SDDMM), reduced per chunk by one vreduce along k. The results are
    the same bits: each sum adds the same terms in the same order. Loops
    that do not match stay as they are.

    When the loop of rows around does nothing for a row whose run is empty
    (it only reads global memory it never writes, besides the run's loop)
    and the sum's row, if any, is x[i, :] of its own row i, the row loop
    runs at the non-empty rows only: per block of 256 rows, a scalar loop
    lists each row and the body's reads at it (indptr[i], indptr[i + 1])
    in vector memory, counting only rows with a non-empty run, and the
    body runs at the listed rows, in their order. The sum's row is read
    with `private_window`, so that pipelining may read it ahead.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::scf::SCFDialect",
                           "npu::dev::NPUDevDialect"];
}

def SparseTileDenseAxis
    : Pass<"npu-sparse-tile-dense-axis", "mlir::func::FuncOp"> {
  let summary = "Innermost dense loops as DMA'd tiles and vector ops";
  let description = [{
    Runs between npu-sparse-lower-iterations and npu-sparse-lower-buffers,
    on the loops inside launches. An innermost loop over a dense axis of K
    positions whose body reads and writes buffers only along that axis
    (their last axis, every other position fixed outside the loop) and
    computes with f32 add, sub, mul, div, maximum and minimum becomes a
    loop over chunks of K: each chunk DMAs the buffers' slices into vector
    memory, runs one vector op per arithmetic op (a value fixed outside
    the loop filled into a tile), and DMAs the written slices back. The
    chunk is the largest that gives each of the loop's values its own
    tile within the device's vector memory. Loops that do not match stay
    as they are. The results are the same bits: each element is computed
    by the same operations in the same order.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::scf::SCFDialect",
                           "npu::dev::NPUDevDialect"];
}

def SparseStageRuns : Pass<"npu-sparse-stage-runs", "mlir::func::FuncOp"> {
  let summary = "Runs of read-only arrays read by a loop staged on chip";
  let description = [{
    Runs after npu-sparse-tile-dense-axis, before npu-sparse-lower-buffers, on the
    loops inside launches. A loop over q in [lb, ub) with step 1 whose body
    reads a read-only global array at q + c on every iteration (c fixed
    outside the loop: indptr[i] and indptr[i + 1] in a row loop, the
    indices and a CSR buffer's values in a loop over a row's nonzeros)
    runs in chunks of `chunk` positions: each chunk starts one DMA per
    such run into vector memory, waits for them together, and runs the
    body on the staged copies. A read at q + c under a condition or in an
    inner loop is staged too when the body reads q + c unconditionally
    (so only elements that exist are copied). An array is read-only when
    nothing in the launch writes it; a loop whose copies would not fit in
    the vector memory beside the launch's other buffers stays as it is.
    The results are the same bits.
  }];
  let options = [
    Option<"chunk", "chunk", "int64_t", /*default=*/"256",
           "Positions staged per chunk">
  ];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::scf::SCFDialect",
                           "npu::dev::NPUDevDialect"];
}

#endif // NPU_CONVERSION_PASSES_TD
