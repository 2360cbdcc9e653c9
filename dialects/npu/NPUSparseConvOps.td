//===- NPUSparseConvOps.td - sparse 3-D convolution --------*- tablegen -*-===//
//
// The sparse convolution of point-cloud detectors (mmcv's sparse_ops, as
// mlu-ops' mluOpGetIndicePairs plans it): get_indice_pairs finds, for every
// kernel offset, which active input site feeds which active output site;
// sparse_conv3d then gathers, multiplies and scatter-adds along those
// pairs. Coordinates are rows (batch, z, y, x) of i32. docs/sparse-conv.md
// states the semantics.
//
// Both ops are NALIGN: their operands are point lists and index tables,
// never channel-aligned feature maps, and a channel_norm between them would
// reorder indices.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_SPARSE_CONV_OPS_TD
#define NPU_SPARSE_CONV_OPS_TD

include "npu/NPUOpBase.td"

defvar NPU_SparseConvAlign =
    DeclareOpInterfaceMethods<NPU_AlignModeOpInterface, ["getAlignMode"]>;

def NPU_GetIndicePairsOp : NPU_Op<"get_indice_pairs", [Pure,
    NPU_SparseConvAlign, NPU_ShapeFunctionVerified, NPU_InferTypeOpAdaptor]> {
  let summary = "input/output site pairs of a sparse 3-D convolution";
  let description = [{
    `indices [L, 4]` lists the active input sites (batch, z, y, x), each
    distinct, batch in `[0, batch_size)` and coordinates inside
    `spatial_shape`. For kernel offset k (row-major over (rz, ry, rx)) an
    input site x reaches output site o, per dimension,
    `o = (x + padding - r * dilation) / stride` when the division is exact
    and `0 <= o < out` (transposed: `o = x * stride - padding + r *
    dilation`). The output spatial shape is
    `(in + 2 * padding - dilation * (k - 1) - 1) / stride + 1`
    (transposed: `(in - 1) * stride - 2 * padding + k + out_padding`).

    Results:
    - `out_indices [num_act_out, 4]`: the distinct reached output sites,
      ascending by `b * V + (z * H + y) * W + x` over the output shape; with
      `subm`, the input sites themselves (so `num_act_out = L`).
    - `indice_pairs [K, 2, L]`: for offset k, row 0 holds the input rows of
      its pairs in ascending order and row 1 the matching output rows; the
      `L - indice_num[k]` unused entries are -1.
    - `indice_num [K]`: the number of pairs of each offset.

    `subm` (submanifold) keeps only pairs whose output site is an active
    input site; it needs stride 1 and an output shape equal to the input
    shape (padding = dilation * (k - 1) / 2).
  }];
  let arguments = (ins RankedTensorOf<[I32]>:$indices,
      ConfinedAttr<I64Attr, [IntPositive]>:$batch_size,
      DenseI64ArrayAttr:$spatial_shape,
      DenseI64ArrayAttr:$kernel_size,
      DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1, 1}">:$stride,
      DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0}">:$padding,
      DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1, 1}">:$dilation,
      DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0}">:$out_padding,
      UnitAttr:$subm, UnitAttr:$transpose);
  let results = (outs RankedTensorOf<[I32]>:$out_indices,
                      RankedTensorOf<[I32]>:$indice_pairs,
                      RankedTensorOf<[I32]>:$indice_num);
  let assemblyFormat = "$indices attr-dict `:` functional-type(operands, results)";
  let extraClassDeclaration = [{
    /// The sizes the op's formulas use (attributes with their defaults).
    ::npu::graph::SparseConvGeometry getGeometry();
  }];
}

def NPU_SparseConv3DOp : NPU_Op<"sparse_conv3d", [Pure,
    NPU_SparseConvAlign]> {
  let summary = "sparse 3-D convolution along indice pairs";
  let description = [{
    `out[o, :] = sum over offsets k and pairs (i, o) of offset k of
    features[i, :] x weights[k]`, offsets in ascending order, the pairs of
    one offset in the order they are listed; output rows no pair reaches
    are 0. `features [L, Cin]`, `weights [K, Cin, Cout]` (RSCK),
    `indice_pairs [K, 2, P]` and `indice_num [K]` from get_indice_pairs;
    `num_act_out` is the number of output rows. With `inverse` the pairs
    are used backwards (gather along row 1, scatter along row 0), as
    mmcv's inverse convolution. With `subm` (pairs of a submanifold
    get_indice_pairs) offset K / 2 is summed first, then the other offsets
    in ascending order, as mmcv does; where the pairs come from a
    get_indice_pairs whose offset K / 2 maps every site to itself (odd
    kernel extents) the lowering takes it as one dense product
    `features x weights[K / 2]`, the same bits.
    Each pair's product row is one matmul row (f32 fused multiply-adds in
    Cin order) added to the output row; sums run in f32 in this fixed
    order, so every executor and thread count gives the same bits.
  }];
  let arguments = (ins RankedTensorOf<[F32, F16, BF16]>:$features,
      RankedTensorOf<[F32, F16, BF16]>:$weights,
      RankedTensorOf<[I32]>:$indice_pairs, RankedTensorOf<[I32]>:$indice_num,
      Index:$num_act_out, UnitAttr:$inverse, UnitAttr:$subm);
  let results = (outs RankedTensorOf<[F32, F16, BF16]>:$output);
  let assemblyFormat = "$features `,` $weights `,` $indice_pairs `,` "
                       "$indice_num `,` $num_act_out attr-dict `:` "
                       "functional-type(operands, results)";
  let hasVerifier = 1;
}

#endif // NPU_SPARSE_CONV_OPS_TD
