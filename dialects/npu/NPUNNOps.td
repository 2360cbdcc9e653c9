//===- NPUNNOps.td - convolution, matmul, pooling, reduce --*- tablegen -*-===//
//
// Heavy ops whose kernels only exist for channel-aligned data. Layout is
// NHWC / NDHWC: channels are the innermost dimension.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_NN_OPS_TD
#define NPU_NN_OPS_TD

include "npu/NPUOpBase.td"

class NPU_ConvOp<string mnemonic, int spatialRank, string layout,
                 string filterLayout>
    : NPU_GraphOp<mnemonic, [NPU_RequiresAlignedLayout]> {
  let summary = spatialRank # "-D convolution (" # layout # ")";
  let description = [{
    Input `}] # layout # [{`, filter `}] # filterLayout # [{` where I is the
    input channel count divided by `groups`, optional bias `[O]`. `padding`
    holds (low, high) pairs per spatial dimension. Output spatial size is
    `(in + low + high - dilation * (k - 1) - 1) / stride + 1`.
  }];
  let arguments = (ins
    NPU_Tensor:$input,
    NPU_Tensor:$filter,
    Optional<NPU_Tensor>:$bias,
    DefaultValuedAttr<DenseI64ArrayAttr, "{" # !interleave(!listsplat("1", spatialRank), ", ") # "}">:$strides,
    DefaultValuedAttr<DenseI64ArrayAttr, "{" # !interleave(!listsplat("0", !mul(2, spatialRank)), ", ") # "}">:$padding,
    DefaultValuedAttr<DenseI64ArrayAttr, "{" # !interleave(!listsplat("1", spatialRank), ", ") # "}">:$dilations,
    DefaultValuedAttr<I64Attr, "1">:$groups
  );
  let results = (outs NPU_Tensor:$output);
  let assemblyFormat = "$input `,` $filter (`,` $bias^)? attr-dict `:` functional-type(operands, results)";
  let extraClassDeclaration = [{
    static constexpr unsigned kSpatialRank = }] # spatialRank # [{;
  }];
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return ::npu::graph::detail::inferConvType(
          loc, getOperationName(), kSpatialRank, adaptor.getInput(),
          adaptor.getFilter(), adaptor.getBias(), adaptor.getStridesAttr(),
          adaptor.getPaddingAttr(), adaptor.getDilationsAttr(),
          adaptor.getGroupsAttr(), types);
    }
  }];
}

def NPU_Conv2DOp : NPU_ConvOp<"conv2d", 2, "[N, H, W, C]", "[O, KH, KW, I]">;
def NPU_Conv3DOp
    : NPU_ConvOp<"conv3d", 3, "[N, D, H, W, C]", "[O, KD, KH, KW, I]">;

def NPU_MatmulOp : NPU_GraphOp<"matmul", [NPU_RequiresAlignedLayout]> {
  let summary = "(batched) matrix multiply with optional bias (gemm)";
  let description = [{
    `lhs [..., M, K] x rhs [..., K, N] (+ bias [N]) -> [..., M, N]`. Batch
    dimensions broadcast numpy-style. `transpose_lhs` / `transpose_rhs` swap
    the two innermost dimensions of an operand before the product.
  }];
  let arguments = (ins NPU_Tensor:$lhs, NPU_Tensor:$rhs,
                       Optional<NPU_Tensor>:$bias,
                       UnitAttr:$transpose_lhs, UnitAttr:$transpose_rhs);
  let results = (outs NPU_Tensor:$output);
  let assemblyFormat = "$lhs `,` $rhs (`,` $bias^)? attr-dict `:` functional-type(operands, results)";
}

class NPU_Pool2DOp<string mnemonic, dag extraArgs = (ins)>
    : NPU_GraphOp<mnemonic, [NPU_RequiresAlignedLayout]> {
  let summary = "2-D " # mnemonic # " over an [N, H, W, C] tensor";
  let arguments = !con((ins
    NPU_Tensor:$input,
    DenseI64ArrayAttr:$kernel,
    DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
    DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$padding
  ), extraArgs);
  let results = (outs NPU_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return ::npu::graph::detail::inferPool2DType(
          loc, getOperationName(), adaptor.getInput(), adaptor.getKernel(),
          adaptor.getStridesAttr(), adaptor.getPaddingAttr(), types);
    }
  }];
}

def NPU_MaxPoolOp : NPU_Pool2DOp<"max_pool">;
def NPU_AvgPoolOp : NPU_Pool2DOp<"avg_pool", (ins UnitAttr:$count_include_pad)>;

def NPU_ReduceOp : NPU_GraphOp<"reduce", [NPU_RequiresAlignedLayout]> {
  let summary = "reduction (sum, max, min, mean) over a set of axes";
  let description = [{
    Reduces `input` over `axes` (distinct, in `[0, rank)`, non-empty). With
    `keepdims` the reduced dimensions stay with size 1; otherwise they are
    removed.
  }];
  let arguments = (ins NPU_ReduceKindAttr:$kind, NPU_Tensor:$input,
                       DenseI64ArrayAttr:$axes, UnitAttr:$keepdims);
  let results = (outs NPU_Tensor:$output);
  let assemblyFormat = "$kind $input attr-dict `:` type($input) `->` type($output)";
}

def NPU_TopKOp : NPU_Op<"topk", [Pure,
    DeclareOpInterfaceMethods<NPU_AlignModeOpInterface, ["getAlignMode"]>,
    NPU_ShapeFunctionVerified, NPU_InferTypeOpAdaptor]> {
  let summary = "the k largest (or smallest) elements along an axis (ONNX TopK)";
  let description = [{
    Along `axis` (in `[0, rank)`), `values` holds the `k` largest elements
    of each row of `input` in descending order (the `k` smallest in
    ascending order when `largest` is false) and `indices` their positions
    in the row. Equal elements are taken lower index first, as ONNX
    specifies; NaNs are taken after every number in either direction.
    `k` is at most the axis' size; both results have the input's shape
    with `k` along `axis`. AlignMode: NALIGN; the kernel sorts dense rows.
  }];
  let arguments = (ins NPU_FloatTensor:$input,
      I64Attr:$k, I64Attr:$axis,
      DefaultValuedAttr<BoolAttr, "true">:$largest);
  let results = (outs NPU_FloatTensor:$values, TensorOf<[I64]>:$indices);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($values) `,` type($indices)";
}

#endif // NPU_NN_OPS_TD
