//===- Passes.td - sparse iteration lowering stages ---------*- tablegen -*-===//

#ifndef NPU_SPARSE_PASSES_TD
#define NPU_SPARSE_PASSES_TD

include "mlir/Pass/PassBase.td"

def SparseLowerIterations
    : Pass<"npu-sparse-lower-iterations", "mlir::func::FuncOp"> {
  let summary = "Stage 1: sparse iterations to loops over positions";
  let description = [{
    Each `sparse.iteration` becomes a nest of `scf.for` loops over
    positions, in the iteration's axis order: a dense-fixed axis runs over
    its length, a sparse-fixed one over nnz_cols, a variable one over
    `indptr[p + 1] - indptr[p]` under its parent's position p. A sparse
    axis's coordinate is read as `indices[pos]`. The init region gets a
    nest of its own over the spatial axes, before the main nest.

    Each `sparse.load` / `sparse.store` becomes `sparse.pos_load` /
    `sparse.pos_store`: a buffer axis that is the iterated axis of its
    coordinate (under the same parent) takes the loop's position; a dense
    axis takes the coordinate; any other sparse axis finds the
    coordinate's position by a binary search (lower_bound) over its sorted
    run, placed at the outermost loop whose values it uses and shared by
    the accesses that need the same search. A coordinate not found reads
    0; a store that would need a search is an error (a store cannot create
    a nonzero), as is a search in an axis not declared `sorted`.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::scf::SCFDialect"];
}

def SparseLowerBuffers
    : Pass<"npu-sparse-lower-buffers", "mlir::func::FuncOp"> {
  let summary = "Stage 2: sparse buffers to their flat data memrefs";
  let description = [{
    Each `sparse.pos_load` / `sparse.pos_store` becomes a `memref.load` /
    `memref.store` of the buffer's data at F(n - 1), the prefix rule:
    F(i) = F(i - 1) * n_i + p_i for a fixed axis, indptr_i[F(i - 1)] + p_i
    for a variable one. The sparse.buffer and sparse.axis ops go with their
    last use. Runs after npu-sparse-lower-iterations.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect"];
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
  let summary = "Stage 3: sparse iterations onto the device's cores";
  let description = [{
    Each sparse.iteration not yet in a launch becomes an `npudev.launch`
    of `tasks` tasks on vector cores (0: the vector cores of the device the
    function is compiled for, `npudev.device`, else mlu590), each running
    it over a `range` of its first axis. When the second axis is a
    variable child of the first, the rows are split by work, a row
    weighing its nonzeros plus one: task t starts at the first row r with
    indptr[r] - indptr[0] + r >= t * (nnz + rows) / T (a binary search over
    indptr), so neither a heavy row nor a crowd of light ones loads one
    task with many rows' work; otherwise by equal row counts. An iteration whose
    first axis is a reduction or has a parent runs as one task. Runs before
    npu-sparse-lower-iterations.
  }];
  let options = [
    Option<"tasks", "tasks", "int64_t", /*default=*/"0",
           "Tasks per launch; 0 takes the device's vector cores">
  ];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::scf::SCFDialect",
                           "npu::dev::NPUDevDialect"];
}

def SparseTileDenseAxis
    : Pass<"npu-sparse-tile", "mlir::func::FuncOp"> {
  let summary = "Stage 3: innermost dense loops as DMA'd tiles and vector ops";
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
  let summary = "Stage 3: runs of read-only arrays read by a loop staged on chip";
  let description = [{
    Runs after npu-sparse-tile, before npu-sparse-lower-buffers, on the
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

#endif // NPU_SPARSE_PASSES_TD
