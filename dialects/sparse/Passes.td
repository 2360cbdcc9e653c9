//===- Passes.td - sparse iterations to loops --------------*- tablegen -*-===//
//
// The sparse lowering's passes that stay within sparse and the upstream
// loop dialects; those that emit npudev are conversions
// (dialects/conversion/Passes.td, lib/Conversion/SparseToDevice).
//
//===----------------------------------------------------------------------===//

#ifndef NPU_SPARSE_PASSES_TD
#define NPU_SPARSE_PASSES_TD

include "mlir/Pass/PassBase.td"

def SparseLowerIterations
    : Pass<"npu-sparse-lower-iterations", "mlir::func::FuncOp"> {
  let summary = "Sparse iterations to loops over positions";
  let description = [{
    Each `sparse.iteration` becomes a nest of `scf.for` loops over
    positions, in the iteration's axis order: a dense-fixed axis runs over
    its length, a sparse-fixed one over nnz_cols, a variable one over
    `indptr[p + 1] - indptr[p]` under its parent's position p. A sparse
    axis's coordinate is read as `indices[pos]`. The init region gets a
    nest of its own over the spatial axes, before the main nest; an
    accumulator read and written at positions fixed outside the innermost
    loop is carried through it in a register. When the init only fills a
    buffer with a constant at its coordinates (every spatial axis among
    them), the body reads and writes that buffer only at the same
    coordinates, and the loops end in the one reduction axis, the carried
    accumulator starts from the constant and the init nest goes: every
    spatial tuple stores its sum, even over no reduction position (SDDMM's
    zero fill is neither written nor read back).

    Each `sparse.load` / `sparse.store` becomes `sparse.pos_load` /
    `sparse.pos_store`: a buffer axis that is the iterated axis of its
    coordinate (under the same parent) takes the loop's position; a dense
    axis takes the coordinate; any other sparse axis finds the
    coordinate's position by a binary search (lower_bound) over its sorted
    run, placed at the outermost loop whose values it uses and shared by
    the accesses that need the same search. A coordinate not found reads
    0; a store that would need a search is an error (a store cannot create
    a nonzero), as is a search in an axis not declared `sorted`.

    With `reassociate-reductions`, a carried accumulator's update (an
    `arith.addf`, `mulf` or float min/max of the accumulator and another
    value) gets `fastmath<reassoc, nsz>`: LLVM may then keep partial
    results in vector lanes and combine them at the end, as upstream's
    sparsifier does with `reassociate-fp-reductions` (`nsz` because LLVM
    regroups a fully unrolled sum only if a zero's sign may change). Sums
    are regrouped, so the results may round differently from the order the
    iteration states (and from the simulator, which adds in that order).
  }];
  let options = [
    Option<"reassociateReductions", "reassociate-reductions", "bool",
           /*default=*/"false",
           "Let a carried accumulator be reduced in any order "
           "(fastmath<reassoc, nsz> on its update)">
  ];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::scf::SCFDialect"];
}

def SparseLowerBuffers
    : Pass<"npu-sparse-lower-buffers", "mlir::func::FuncOp"> {
  let summary = "Sparse buffers to their flat data memrefs";
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

#endif // NPU_SPARSE_PASSES_TD
