//===- SparseOps.td - sparse iteration ops -----------------*- tablegen -*-===//

#ifndef SPARSE_OPS_TD
#define SPARSE_OPS_TD

include "sparse/SparseBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class Sparse_Op<string mnemonic, list<Trait> traits = []>
    : Op<Sparse_Dialect, mnemonic, traits>;

def Sparse_IndexArray : MemRefRankOf<[Index, I32, I64], [1]>;

def Sparse_AxisOp : Sparse_Op<"axis", [Pure, AttrSizedOperandSegments]> {
  let summary = "an axis of a sparse format";
  let description = [{
    One level of a sparse or ragged tensor (see the dialect's description
    for the four kinds). `length` bounds the coordinates (a variable
    axis's runs are at most `length` long); `nnz_cols` is a sparse-fixed
    axis's positions per parent position. `indptr` has one entry per
    parent position plus one, non-decreasing from 0; `indices` one per
    position. `sorted` promises strictly increasing coordinates within
    each run, which the lowering uses to find a coordinate's position by
    binary search.

    ```mlir
    %rows = sparse.axis dense_fixed length 4
    %cols = sparse.axis sparse_variable parent %rows length 6
        indptr %indptr : memref<5xi32> indices %indices : memref<?xi32> sorted
    ```
  }];
  let arguments = (ins Sparse_AxisKind:$kind,
                       Optional<Sparse_AxisType>:$parent,
                       I64Attr:$length,
                       OptionalAttr<I64Attr>:$nnz_cols,
                       Optional<Sparse_IndexArray>:$indptr,
                       Optional<Sparse_IndexArray>:$indices,
                       UnitAttr:$sorted);
  let results = (outs Sparse_AxisType:$result);
  let assemblyFormat = [{
    $kind (`parent` $parent^)? `length` $length (`nnz_cols` $nnz_cols^)?
    (`indptr` $indptr^ `:` type($indptr))?
    (`indices` $indices^ `:` type($indices))? (`sorted` $sorted^)? attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// `length` and `nnz_cols` (0 when absent) as signed numbers.
    int64_t getLengthValue() { return getLengthAttr().getInt(); }
    int64_t getNnzColsValue() {
      return getNnzColsAttr() ? getNnzColsAttr().getInt() : 0;
    }
    /// The axis's parent as an op, or null for a dense-fixed axis.
    AxisOp getParentAxis();
    /// Whether the axis has runs of varying length (it has an indptr).
    bool isVariable() {
      return getKind() == AxisKind::dense_variable ||
             getKind() == AxisKind::sparse_variable;
    }
    /// Whether coordinates differ from positions (it has indices).
    bool isSparse() {
      return getKind() == AxisKind::sparse_fixed ||
             getKind() == AxisKind::sparse_variable;
    }
    /// Its ancestors' values, the root first, itself excluded.
    ::llvm::SmallVector<::mlir::Value> getAncestors();
  }];
}

def Sparse_BufferOp : Sparse_Op<"buffer", [Pure]> {
  let summary = "a sparse buffer: flat data over a list of axes";
  let description = [{
    The element at positions (p0, ..., pn-1) of the axes is
    `data[F(n - 1)]` (the dialect's description gives F). An axis with a
    parent must come right after its ancestors, root first, so that the
    flattened position before it is its parent's position; dense-fixed
    axes (blocks) may stand anywhere.

    ```mlir
    %A = sparse.buffer %values [%rows, %cols] : memref<?xf32> -> !sparse.buffer<2 x f32>
    ```
  }];
  let arguments = (ins MemRefRankOf<[AnyType], [1]>:$data,
                       Variadic<Sparse_AxisType>:$axes);
  let results = (outs Sparse_BufferType:$result);
  let assemblyFormat = [{
    $data ` ` `[` $axes `]` attr-dict `:` type($data) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Sparse_YieldOp : Sparse_Op<"yield", [Pure, Terminator,
    ParentOneOf<["IterationOp"]>]> {
  let summary = "ends an iteration's init or body";
  let assemblyFormat = "attr-dict";
}

def Sparse_IterationOp : Sparse_Op<"iteration", [
    SingleBlockImplicitTerminator<"YieldOp">, RecursiveMemoryEffects,
    AttrSizedOperandSegments]> {
  let summary = "runs its body for every coordinate tuple of its axes";
  let description = [{
    The body's arguments are the coordinates of the axes, in order; each
    axis is `spatial` or `reduction` (the role belongs to the iteration,
    not to a loop: two iterations may see one axis in both roles). The
    optional `init` region takes the spatial axes' coordinates and runs
    once for each of their tuples before the body runs for it, even when
    the reduction axes have no position there (an empty row is
    initialised). An axis with a parent needs that parent iterated before
    it (its extent depends on the parent's position), and a spatial axis
    needs a spatial parent (init visits spatial tuples only).

    Two schedule requests, checked by the verifier and carried out by the
    lowering: `loop_order` (a permutation of the axis numbers) nests the
    loops in that order instead of the list's, and `fuse = [a, b]` runs
    axis b and its parent a as one loop over b's positions under a's run
    (the row of each position found by binary search in b's indptr), for
    a and b adjacent in the loop order. Neither may put an axis before
    its parent. `hybrid_ell_width = E` asks npu-sparse-decompose to split
    the second loop's axis, a sparse_variable child of the first, into an
    ELL part (the first E positions of each run, padded) and a CSR
    remainder, one iteration over each.

    `range(%begin, %end)` restricts the outermost loop's axis, which must
    be spatial and have no parent, to positions [begin, end): a task's
    share of the rows when the iteration runs on several cores.

    ```mlir
    sparse.iteration [%rows, %cols] [#sparse.iterator<spatial>, #sparse.iterator<reduction>]
    init {
    ^bb0(%i: index):
      sparse.store %zero, %sum[%i] : !sparse.buffer<1 x f32>
    } do {
    ^bb0(%i: index, %j: index):
      ...
    }
    ```
  }];
  let arguments = (ins Variadic<Sparse_AxisType>:$axes,
                       Sparse_IteratorKindArrayAttr:$iterator_kinds,
                       Optional<Index>:$range_begin,
                       Optional<Index>:$range_end,
                       OptionalAttr<DenseI64ArrayAttr>:$loop_order,
                       OptionalAttr<DenseI64ArrayAttr>:$fuse,
                       OptionalAttr<I64Attr>:$hybrid_ell_width);
  let regions = (region AnyRegion:$init, SizedRegion<1>:$body);
  let assemblyFormat = [{
    ` ` `[` $axes `]` $iterator_kinds
    (`range` `(` $range_begin^ `,` $range_end `)`)?
    (`init` $init^)? `do` $body attr-dict
  }];
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    IteratorKind getIteratorKind(unsigned i) {
      return ::llvm::cast<IteratorKindAttr>(getIteratorKinds()[i]).getValue();
    }
    /// The axis numbers from the outermost loop in: `loop_order`, or the
    /// list's order.
    ::llvm::SmallVector<unsigned> getLoopAxes();
    /// The axis of loop `depth` (of getLoopAxes) as an op.
    AxisOp getLoopAxis(unsigned depth) {
      return getAxes()[getLoopAxes()[depth]].getDefiningOp<AxisOp>();
    }
  }];
}

def Sparse_LoadOp : Sparse_Op<"load", [
    TypesMatchWith<"result is the buffer's element type", "buffer", "value",
                   "::llvm::cast<BufferType>($_self).getElementType()">]> {
  let summary = "reads a sparse buffer at coordinates";
  let description = [{
    Reads the element whose coordinates on the buffer's axes are `coords`.
    A coordinate a sparse axis does not hold (a zero of the sparse
    tensor) reads 0.
  }];
  let arguments = (ins Arg<Sparse_BufferType, "", [MemRead]>:$buffer,
                       Variadic<Index>:$coords);
  let results = (outs AnyType:$value);
  let assemblyFormat = [{
    $buffer `[` $coords `]` attr-dict `:` qualified(type($buffer))
  }];
  let hasVerifier = 1;
}

def Sparse_StoreOp : Sparse_Op<"store", [
    TypesMatchWith<"value is the buffer's element type", "buffer", "value",
                   "::llvm::cast<BufferType>($_self).getElementType()">]> {
  let summary = "writes a sparse buffer at coordinates";
  let description = [{
    Writes the element whose coordinates are `coords`. Writing a
    coordinate a sparse axis does not hold is an error at run time.
  }];
  let arguments = (ins AnyType:$value,
                       Arg<Sparse_BufferType, "", [MemWrite]>:$buffer,
                       Variadic<Index>:$coords);
  let assemblyFormat = [{
    $value `,` $buffer `[` $coords `]` attr-dict `:` qualified(type($buffer))
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Position-level access (after npu-sparse-lower-iterations)
//===----------------------------------------------------------------------===//

def Sparse_PosLoadOp : Sparse_Op<"pos_load", [
    TypesMatchWith<"result is the buffer's element type", "buffer", "value",
                   "::llvm::cast<BufferType>($_self).getElementType()">]> {
  let summary = "reads a sparse buffer at positions";
  let description = [{
    Reads the element at `positions`, one per buffer axis, each the
    position within its run under the previous ones (the dialect's F
    rule). Produced by npu-sparse-lower-iterations from coordinates;
    npu-sparse-lower-buffers turns it into a memref.load of the data.
  }];
  // The effect names the buffer, so that an analysis finds what is read.
  let arguments = (ins Arg<Sparse_BufferType, "", [MemRead]>:$buffer,
                       Variadic<Index>:$positions);
  let results = (outs AnyType:$value);
  let assemblyFormat = [{
    $buffer `[` $positions `]` attr-dict `:` qualified(type($buffer))
  }];
  let hasVerifier = 1;
}

def Sparse_PosStoreOp : Sparse_Op<"pos_store", [
    TypesMatchWith<"value is the buffer's element type", "buffer", "value",
                   "::llvm::cast<BufferType>($_self).getElementType()">]> {
  let summary = "writes a sparse buffer at positions";
  // The effect names the buffer: npu-sparse-stage-runs must see that the
  // buffer's data is written.
  let arguments = (ins AnyType:$value,
                       Arg<Sparse_BufferType, "", [MemWrite]>:$buffer,
                       Variadic<Index>:$positions);
  let assemblyFormat = [{
    $value `,` $buffer `[` $positions `]` attr-dict `:` qualified(type($buffer))
  }];
  let hasVerifier = 1;
}

#endif // SPARSE_OPS_TD
