//===- SparseBase.td - sparse iteration dialect, types -----*- tablegen -*-===//
//
// The sparse iteration layer (after SparseTIR): axes of four kinds that
// form a format tree, sparse buffers over flat data, and iterations over
// axes whose bodies read and write buffers by coordinates. Lowered in
// stages to scf loops over positions, then to flat memrefs, then to the
// device.
//
//===----------------------------------------------------------------------===//

#ifndef SPARSE_BASE_TD
#define SPARSE_BASE_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/OpBase.td"

def Sparse_Dialect : Dialect {
  let name = "sparse";
  let cppNamespace = "::npu::sparse";
  let summary = "sparse iteration: axes, sparse buffers, iterations";
  let description = [{
    An axis (`sparse.axis`) describes one level of a sparse or ragged
    tensor. Each axis but a dense-fixed one has a parent; the parents form
    a tree (the format tree), and an axis has, under each position of its
    parent, a run of positions:

    - `dense_fixed(length)`: `length` positions, coordinate = position; no
      parent.
    - `dense_variable(parent, length, indptr)`: `indptr[p + 1] - indptr[p]`
      positions under parent position `p`, coordinate = position within
      the run, at most `length`.
    - `sparse_fixed(parent, length, nnz_cols, indices)`: `nnz_cols`
      positions under each parent position; position `p * nnz_cols + q` has
      coordinate `indices[p * nnz_cols + q]` in `[0, length)`.
    - `sparse_variable(parent, length, indptr, indices)`: the positions
      `[indptr[p], indptr[p + 1])` under parent position `p`, with
      coordinates `indices[pos]` in `[0, length)`.

    A `sorted` axis has strictly increasing coordinates within each run.
    CSR is (dense_fixed, sparse_variable); BSR adds two dense_fixed block
    axes; ELL is (dense_fixed, sparse_fixed); DCSR and CSF chain sparse
    axes; a ragged tensor uses dense_variable axes.

    A sparse buffer (`sparse.buffer`) binds a list of axes, each after its
    parent, to a flat data memref: the element at positions (p0, ..., pn-1)
    is at offset F(n - 1), where F(-1) = 0 and F(i) = F(i - 1) * n_i + p_i
    for a fixed axis of n_i positions per parent position (length or
    nnz_cols), and F(i) = indptr_i[F(i - 1)] + p_i for a variable one.

    An iteration (`sparse.iteration`) runs its body once for every tuple of
    coordinates of its axes, each axis spatial or reduction; its `init`
    region runs once for every tuple of the spatial axes' coordinates,
    before the body runs for it.
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
}

def Sparse_AxisKind : I32EnumAttr<"AxisKind", "kind of a sparse axis", [
      I32EnumAttrCase<"dense_fixed", 0>, I32EnumAttrCase<"dense_variable", 1>,
      I32EnumAttrCase<"sparse_fixed", 2>, I32EnumAttrCase<"sparse_variable", 3>
    ]> {
  let cppNamespace = "::npu::sparse";
}

def Sparse_IteratorKind
    : I32EnumAttr<"IteratorKind", "role of an axis in an iteration", [
      I32EnumAttrCase<"spatial", 0>, I32EnumAttrCase<"reduction", 1>
    ]> {
  let cppNamespace = "::npu::sparse";
  let genSpecializedAttr = 0;
}
def Sparse_IteratorKindAttr
    : EnumAttr<Sparse_Dialect, Sparse_IteratorKind, "iterator"> {
  let assemblyFormat = "`<` $value `>`";
}
def Sparse_IteratorKindArrayAttr
    : TypedArrayAttrBase<Sparse_IteratorKindAttr, "iterator kinds">;

class Sparse_Type<string name, string typeMnemonic>
    : TypeDef<Sparse_Dialect, name> {
  let mnemonic = typeMnemonic;
}

def Sparse_AxisType : Sparse_Type<"Axis", "axis"> {
  let summary = "an axis of a sparse format";
}

def Sparse_BufferType : Sparse_Type<"Buffer", "buffer"> {
  let summary = "a sparse buffer: flat data over a list of axes";
  let parameters = (ins "unsigned":$rank, "::mlir::Type":$elementType);
  let assemblyFormat = "`<` $rank `x` $elementType `>`";
}

#endif // SPARSE_BASE_TD
