//===- NPUDataMovementOps.td - layout and data movement ----*- tablegen -*-===//

#ifndef NPU_DATA_MOVEMENT_OPS_TD
#define NPU_DATA_MOVEMENT_OPS_TD

include "npu/NPUOpBase.td"

def NPU_TransposeOp : NPU_GraphOp<"transpose", [NPU_RequiresAlignedLayout]> {
  let summary = "permutes the dimensions of a tensor";
  let description = [{
    `output.shape[i] = input.shape[perms[i]]`; `perms` is a permutation of
    `[0, rank)`.

    Folds: the identity permutation returns the input; a transpose of a
    transpose is one transpose by the composed permutation.
  }];
  let arguments = (ins NPU_Tensor:$input, DenseI64ArrayAttr:$perms);
  let results = (outs NPU_Tensor:$output);
  let assemblyFormat = "$input `,` $perms attr-dict `:` type($input) `->` type($output)";
  let hasFolder = 1;
}

def NPU_ConcatOp : NPU_GraphOp<"concat", [NPU_RequiresAlignedLayout]> {
  let summary = "concatenates tensors along one axis";
  let arguments = (ins Variadic<NPU_Tensor>:$inputs, I64Attr:$axis);
  let results = (outs NPU_Tensor:$output);
  let assemblyFormat = "$inputs attr-dict `:` functional-type(operands, results)";
}

def NPU_ScatterOp : NPU_GraphOp<"scatter", [NPU_RequiresAlignedLayout]> {
  let summary = "scatter of updates into data along an axis (elementwise)";
  let description = [{
    ONNX ScatterElements semantics: `output = data`, then for every index
    tuple `j` of `indices`, `output[j with j[axis] := indices[j]] =
    updates[j]`. `indices` and `updates` have the same shape and the rank of
    `data`.
  }];
  let arguments = (ins NPU_Tensor:$data, NPU_IntTensor:$indices,
                       NPU_Tensor:$updates, I64Attr:$axis);
  let results = (outs NPU_Tensor:$output);
  let assemblyFormat = "$data `,` $indices `,` $updates attr-dict `:` functional-type(operands, results)";
}

def NPU_ScatterNDOp
    : NPU_GraphOp<"scatter_nd", [NPU_RequiresAlignedLayout]> {
  let summary = "scatter of slices of updates into data at index tuples";
  let description = [{
    ONNX ScatterND semantics (no reduction): `indices` is `[..., k]` with
    `k <= rank(data)`, each row an index tuple into the leading `k`
    dimensions of `data`; `updates` has shape `indices.shape[:-1] ++
    data.shape[k:]`. `output = data`, then each slice `output[indices[j]]`
    is replaced by `updates[j]`, in index order.
  }];
  let arguments = (ins NPU_Tensor:$data, NPU_IntTensor:$indices,
                       NPU_Tensor:$updates);
  let results = (outs NPU_Tensor:$output);
  let assemblyFormat = "$data `,` $indices `,` $updates attr-dict `:` functional-type(operands, results)";
}

def NPU_GatherOp : NPU_Op<"gather", [Pure,
    DeclareOpInterfaceMethods<NPU_AlignModeOpInterface, ["getAlignMode"]>,
    NPU_ShapeFunctionVerified, NPU_InferTypeOpAdaptor]> {
  let summary = "gathers slices of data along one axis (ONNX Gather)";
  let description = [{
    `output[a..., i..., b...] = data[a..., indices[i...], b...]` with `a`
    the dimensions before `axis`: the result shape is `data.shape[:axis] ++
    indices.shape ++ data.shape[axis+1:]`. Negative indices count from the
    end. AlignMode: gathering whole rows (any axis but the innermost) works
    in either layout (BOTH); picking single channels out of the innermost
    dimension produces dense data (NALIGN).
  }];
  let arguments = (ins NPU_Tensor:$data, NPU_IntTensor:$indices,
                       I64Attr:$axis);
  let results = (outs NPU_Tensor:$output);
  let assemblyFormat = "$data `,` $indices attr-dict `:` functional-type(operands, results)";
}

def NPU_ExpandOp : NPU_GraphOp<"expand"> {
  let summary = "broadcasts a tensor to a shape (ONNX Expand)";
  let description = [{
    The result shape is the numpy broadcast of the input's shape and
    `shape` (so a dimension of `shape` may be 1 where the input's is not).
  }];
  let arguments = (ins NPU_Tensor:$input, DenseI64ArrayAttr:$shape);
  let results = (outs NPU_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

def NPU_ResizeOp : NPU_GraphOp<"resize", [NPU_RequiresAlignedLayout]> {
  let summary = "resizes the spatial dimensions of an [N, H, W, C] tensor";
  let description = [{
    ONNX Resize of H and W to `size`: each output pixel maps back to input
    coordinates by `coordinate_mode` (x_in = (x_out + 0.5) / scale - 0.5 for
    half_pixel; pytorch_half_pixel the same except 0 when the output extent
    is 1; align_corners x_out * (in - 1) / (out - 1); asymmetric
    x_out / scale) with `scale = out / in`; `nearest` then rounds by
    `nearest_mode`, `linear` interpolates bilinearly between the four
    neighbours (clamped at the edges). Like the pools, its kernel reads
    aligned channels.
  }];
  let arguments = (ins NPU_FloatTensor:$input,
      DenseI64ArrayAttr:$size,
      NPU_ResizeModeAttr:$mode,
      DefaultValuedAttr<NPU_ResizeCoordinateModeAttr,
                        "::npu::graph::ResizeCoordinateMode::half_pixel">:$coordinate_mode,
      DefaultValuedAttr<NPU_ResizeNearestModeAttr,
                        "::npu::graph::ResizeNearestMode::round_prefer_floor">:$nearest_mode);
  let results = (outs NPU_FloatTensor:$output);
  let assemblyFormat = "$input $mode attr-dict `:` type($input) `->` type($output)";
}

def NPU_GridSampleOp : NPU_GraphOp<"grid_sample"> {
  let summary = "samples an [N, H, W, C] tensor bilinearly at grid points";
  let description = [{
    ONNX GridSample (PyTorch's grid_sample) in bilinear mode, channels last:
    output[n, h, w, c] interpolates input[n, :, :, c] at the point
    grid[n, h, w] = (x, y), normalised to [-1, 1] across the input's width
    and height. With `align_corners`, -1 and 1 are the centres of the
    corner pixels (ix = (x + 1) / 2 (W - 1)); without, their outer edges
    (ix = ((x + 1) W - 1) / 2). `padding` says what the four neighbours
    outside the input read: `zeros`, or `border` (the point clamped into
    the input first).
  }];
  let arguments = (ins NPU_FloatTensor:$input, NPU_FloatTensor:$grid,
      DefaultValuedAttr<BoolAttr, "false">:$align_corners,
      DefaultValuedAttr<NPU_GridSamplePaddingAttr,
                        "::npu::graph::GridSamplePadding::zeros">:$padding);
  let results = (outs NPU_FloatTensor:$output);
  let assemblyFormat = [{
    $input `,` $grid attr-dict `:` `(` type($input) `,` type($grid) `)` `->` type($output)
  }];
}

def NPU_PadOp : NPU_GraphOp<"pad", [NPU_RequiresAlignedLayout]> {
  let summary = "pads a tensor with a constant";
  let arguments = (ins NPU_Tensor:$input, DenseI64ArrayAttr:$pad_low,
                       DenseI64ArrayAttr:$pad_high,
                       DefaultValuedAttr<F64Attr, "0.0">:$value);
  let results = (outs NPU_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

def NPU_SliceOp : NPU_Op<"slice", [Pure,
    DeclareOpInterfaceMethods<NPU_AlignModeOpInterface, ["getAlignMode"]>,
    NPU_ShapeFunctionVerified, NPU_InferTypeOpAdaptor]> {
  let summary = "strided slice [start, end) of a tensor";
  let description = [{
    Takes `start[i] <= x < end[i]` with step `strides[i]` (default 1) in every
    dimension; `0 <= start <= end <= dim`. AlignMode: NALIGN when the slice
    starts inside the channel dimension (`start[C] > 0`) and ends on an
    alignment boundary (`end[C] % kChannelAlignment == 0`), ALIGN otherwise.
  }];
  let arguments = (ins NPU_Tensor:$input, DenseI64ArrayAttr:$start,
                       DenseI64ArrayAttr:$end,
                       OptionalAttr<DenseI64ArrayAttr>:$strides);
  let results = (outs NPU_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

def NPU_ReshapeOp : NPU_Op<"reshape", [Pure, NPU_AlignModeOpInterface]> {
  let summary = "reinterprets a tensor with a new shape";
  let description = [{
    The result type is given; it must have the input's element type and
    element count.

    Folds: a reshape to the input's type returns the input; a reshape of a
    reshape reads the inner one's input.
  }];
  let arguments = (ins NPU_Tensor:$input);
  let results = (outs NPU_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def NPU_CastOp : NPU_Op<"cast", [Pure, NPU_AlignModeOpInterface,
                                 NPU_Elementwise]> {
  let summary = "converts the element type of a tensor";
  let arguments = (ins NPU_Tensor:$input);
  let results = (outs NPU_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
}

def NPU_ConstantOp : NPU_GraphOp<"constant", [ConstantLike]> {
  let summary = "a constant tensor (weights)";
  let description = [{
    Weights adapt to their consumer: AlignMode BOTH (NALIGN for rank 1 and 3
    by the rank rule).
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs NPU_Tensor:$output);
  let assemblyFormat = "attr-dict $value `->` type($output)";
  let hasFolder = 1;
}

def NPU_ChannelNormOp : NPU_Op<"channel_norm", [Pure,
    DeclareOpInterfaceMethods<NPU_AlignModeOpInterface, ["getAlignMode"]>,
    NPU_ShapeFunctionVerified, NPU_InferTypeOpAdaptor]> {
  let summary = "converts a tensor between aligned and non-aligned storage";
  let description = [{
    `<to_align>` pads the channel dimension to the alignment unit; its result
    is ALIGN. `<to_nalign>` packs it densely; its result is NALIGN. The
    values are unchanged. The input, when it carries a layout, must be in the
    opposite layout.

    Folds: a conversion of a constant is that constant in the new layout; a
    conversion of a tensor that cannot be stored aligned (rank 0, 1, 3) is
    a no-op; a conversion that undoes the previous one returns its input.
  }];
  let arguments = (ins NPU_ChannelNormDirectionAttr:$direction,
                       NPU_Tensor:$input);
  let results = (outs NPU_Tensor:$output);
  let assemblyFormat = "$direction $input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let extraClassDeclaration = [{
    /// The mode of the result: ALIGN for to_align, NALIGN for to_nalign.
    ::npu::graph::AlignMode getTargetMode() {
      return getDirection() == ::npu::graph::ChannelNormDirection::to_align
                 ? ::npu::graph::AlignMode::ALIGN
                 : ::npu::graph::AlignMode::NALIGN;
    }
  }];
}

#endif // NPU_DATA_MOVEMENT_OPS_TD
