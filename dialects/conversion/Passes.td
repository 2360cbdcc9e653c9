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
    statically shaped tensor argument becomes a
    `memref<..., #npudev.space<global>>`, each result an extra argument
    marked `npudev.output` that the kernels write, intermediate tensors
    global `memref.alloc`s freed at the end. Each op is replaced by the
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
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect"
  ];
}

def LowerDeviceToLoops : Pass<"npu-lower-device-to-loops", "mlir::ModuleOp"> {
  let summary = "Lower npudev kernels to scf/memref/arith/math loops for the JIT";
  let description = [{
    Rewrites every npudev op into upstream dialects with the semantics the
    simulator implements: `npudev.launch` becomes an `scf.parallel` over task
    ids (so that it can run on host threads), on-chip buffers become heap
    `memref.alloc`s freed at the end of their block, DMA becomes an
    element loop nest when rows are contiguous on both sides (LLVM
    vectorizes it; `memref.copy` of a dynamically sized window would call
    the runtime's element-at-a-time `memrefCopy`), else `memref.copy`
    (asynchronous copies complete at once; `npudev.wait` disappears), vector ops become loop nests over their buffers computing
    in the element type (f32 math in f32, reductions and prefix sums in
    index order), `npudev.matmul` a loop nest of fused multiply-adds in f32
    (or multiply-adds in i32), except f32 matmuls, which call the runtime's
    vectorized micro-kernel (`npu_rt_matmul_f32`, same bits), and
    `npudev.vsort` / `npudev.vunique` calls to the runtime
    (`npu_rt_sort_<type>`, `npu_rt_unique_<type>`). Finally every memref
    loses its `#npudev.space`, which the LLVM lowering does not know.

    Before that, copies that only stage data for the host are dropped:
    a matmul reads the global source of a buffer a DMA just filled for it,
    and an elementwise op whose buffer only carries data from one global
    window to another (DMA in, the op in place, DMA out) reads and writes
    those windows (`forward-transits`).
  }];
  let options = [
    Option<"forwardTransits", "forward-transits", "bool", "true",
           "let elementwise ops read and write the global windows their "
           "buffer only carries data between (off: every copy as written)">
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

#endif // NPU_CONVERSION_PASSES_TD
