//===- NPUElementwiseOps.td - elementwise, norm ops --------*- tablegen -*-===//
//
// Ops that work on any layout (AlignMode BOTH), except the vector-scalar
// family which follows the producer of its full-size operand.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_ELEMENTWISE_OPS_TD
#define NPU_ELEMENTWISE_OPS_TD

include "npu/NPUOpBase.td"

//===----------------------------------------------------------------------===//
// Unary
//===----------------------------------------------------------------------===//

class NPU_UnaryOp<string mnemonic, string math, Type tensor = NPU_Tensor,
                  dag extraArgs = (ins)>
    : NPU_GraphOp<mnemonic, [NPU_Elementwise]> {
  let summary = "elementwise " # math;
  let arguments = !con((ins tensor:$input), extraArgs);
  let results = (outs tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location>,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      types.push_back(::npu::graph::stripLayout(adaptor.getInput().getType()));
      return ::mlir::success();
    }
  }];
}

def NPU_ReluOp : NPU_UnaryOp<"relu", "max(x, 0)">;
def NPU_NegOp : NPU_UnaryOp<"neg", "-x">;
def NPU_AbsOp : NPU_UnaryOp<"abs", "|x|">;
def NPU_GeluOp : NPU_UnaryOp<"gelu", "x * Phi(x) (tanh approximation)", NPU_FloatTensor>;
def NPU_ExpOp : NPU_UnaryOp<"exp", "e^x", NPU_FloatTensor>;
def NPU_LogOp : NPU_UnaryOp<"log", "natural logarithm", NPU_FloatTensor>;
def NPU_TanhOp : NPU_UnaryOp<"tanh", "hyperbolic tangent", NPU_FloatTensor>;
def NPU_SigmoidOp : NPU_UnaryOp<"sigmoid", "1 / (1 + e^-x)", NPU_FloatTensor>;
def NPU_SqrtOp : NPU_UnaryOp<"sqrt", "square root", NPU_FloatTensor>;
def NPU_RsqrtOp : NPU_UnaryOp<"rsqrt", "reciprocal square root", NPU_FloatTensor>;
def NPU_ErfOp : NPU_UnaryOp<"erf", "Gauss error function", NPU_FloatTensor>;
def NPU_HardSwishOp
    : NPU_UnaryOp<"hard_swish", "x * max(0, min(1, x / 6 + 1 / 2))",
                  NPU_FloatTensor>;
def NPU_HardSigmoidOp
    : NPU_UnaryOp<"hard_sigmoid", "max(0, min(1, alpha * x + beta))",
                  NPU_FloatTensor, (ins DefaultValuedAttr<F64Attr, "0.2">:$alpha,
                                        DefaultValuedAttr<F64Attr, "0.5">:$beta)>;
def NPU_ClipOp
    : NPU_UnaryOp<"clip", "min(max(x, min), max) (relu6 is clip 0, 6)",
                  NPU_Tensor, (ins F64Attr:$min, F64Attr:$max)> {
  let hasVerifier = 1;
}
def NPU_NotOp : NPU_UnaryOp<"not", "logical negation", RankedTensorOf<[I1]>>;

//===----------------------------------------------------------------------===//
// Binary with numpy broadcasting
//===----------------------------------------------------------------------===//

class NPU_BinaryOp<string mnemonic, string math>
    : NPU_GraphOp<mnemonic, [NPU_Elementwise]> {
  let summary = "elementwise " # math # " with numpy broadcasting";
  let arguments = (ins NPU_Tensor:$lhs, NPU_Tensor:$rhs);
  let results = (outs NPU_Tensor:$output);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return ::npu::graph::detail::inferBroadcastType(loc, getOperationName(),
                                               adaptor.getLhs(),
                                               adaptor.getRhs(), types);
    }
  }];
}

def NPU_AddOp : NPU_BinaryOp<"add", "lhs + rhs">;
def NPU_SubOp : NPU_BinaryOp<"sub", "lhs - rhs">;
def NPU_MulOp : NPU_BinaryOp<"mul", "lhs * rhs">;
def NPU_DivOp : NPU_BinaryOp<"div", "lhs / rhs">;
def NPU_MaxOp : NPU_BinaryOp<"max", "max(lhs, rhs)">;
def NPU_MinOp : NPU_BinaryOp<"min", "min(lhs, rhs)">;
def NPU_PowOp : NPU_BinaryOp<"pow", "lhs ^ rhs">;

// Comparisons: an i1 result, false where an operand is NaN.
class NPU_CompareOp<string mnemonic, string math>
    : NPU_GraphOp<mnemonic, [NPU_Elementwise]> {
  let summary = "elementwise " # math # " with numpy broadcasting, as i1";
  let arguments = (ins NPU_Tensor:$lhs, NPU_Tensor:$rhs);
  let results = (outs RankedTensorOf<[I1]>:$output);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return ::npu::graph::detail::inferCompareType(loc, getOperationName(),
                                                    adaptor.getLhs(),
                                                    adaptor.getRhs(), types);
    }
  }];
}

def NPU_EqualOp : NPU_CompareOp<"equal", "lhs == rhs">;
def NPU_LessOp : NPU_CompareOp<"less", "lhs < rhs">;
def NPU_LessEqualOp : NPU_CompareOp<"less_equal", "lhs <= rhs">;
def NPU_GreaterOp : NPU_CompareOp<"greater", "lhs > rhs">;
def NPU_GreaterEqualOp : NPU_CompareOp<"greater_equal", "lhs >= rhs">;

// Logical ops of i1 tensors.
class NPU_LogicalOp<string mnemonic, string math>
    : NPU_BinaryOp<mnemonic, math> {
  let arguments = (ins RankedTensorOf<[I1]>:$lhs, RankedTensorOf<[I1]>:$rhs);
  let results = (outs RankedTensorOf<[I1]>:$output);
}

def NPU_AndOp : NPU_LogicalOp<"and", "lhs and rhs">;
def NPU_OrOp : NPU_LogicalOp<"or", "lhs or rhs">;

def NPU_SelectOp : NPU_GraphOp<"select", [NPU_Elementwise]> {
  let summary = "elementwise cond ? lhs : rhs with numpy broadcasting";
  let description = [{
    ONNX Where: the three operands broadcast to one shape; the result has
    the element type of `lhs` and `rhs`.
  }];
  let arguments = (ins RankedTensorOf<[I1]>:$cond, NPU_Tensor:$lhs,
                       NPU_Tensor:$rhs);
  let results = (outs NPU_Tensor:$output);
  let assemblyFormat = "$cond `,` $lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Vector-scalar broadcast family (V_VS_*)
//===----------------------------------------------------------------------===//

class NPU_VectorScalarOp<string mnemonic, string math>
    : NPU_GraphOp<mnemonic, [NPU_BroadcastsSecondOperand, NPU_Elementwise]> {
  let summary = "elementwise " # math # ", broadcasting `scalar` onto `input`";
  let description = [{
    `input` is full size; `scalar` (usually rank 1 of size C, or a single
    element) broadcasts onto it numpy-style without changing its shape. The
    op follows the AlignMode of `input`'s producer: a rank-1 operand fits
    either layout, and any channel_norm on it is removed later.
  }];
  let arguments = (ins NPU_Tensor:$input, NPU_Tensor:$scalar);
  let results = (outs NPU_Tensor:$output);
  let assemblyFormat = "$input `,` $scalar attr-dict `:` functional-type(operands, results)";
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return ::npu::graph::detail::inferVectorScalarType(
          loc, getOperationName(), adaptor.getInput(), adaptor.getScalar(),
          types);
    }
  }];
}

def NPU_VSAddOp : NPU_VectorScalarOp<"vs_add", "input + scalar">;
def NPU_VSSubOp : NPU_VectorScalarOp<"vs_sub", "input - scalar">;
def NPU_VSMulOp : NPU_VectorScalarOp<"vs_mul", "input * scalar">;
def NPU_VSDivOp : NPU_VectorScalarOp<"vs_div", "input / scalar">;
def NPU_VSMaxOp : NPU_VectorScalarOp<"vs_max", "max(input, scalar)">;
def NPU_VSMinOp : NPU_VectorScalarOp<"vs_min", "min(input, scalar)">;

//===----------------------------------------------------------------------===//
// Normalisation
//===----------------------------------------------------------------------===//

def NPU_SoftmaxOp : NPU_GraphOp<"softmax"> {
  let summary = "softmax along one axis";
  let arguments = (ins NPU_FloatTensor:$input,
                       DefaultValuedAttr<I64Attr, "-1">:$axis);
  let results = (outs NPU_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

def NPU_LayerNormOp : NPU_GraphOp<"layer_norm"> {
  let summary = "layer normalisation over the trailing dimensions";
  let description = [{
    Normalises over dimensions `[axis, rank)`; `gamma` and `beta` have the
    shape of those dimensions. `axis` may be negative (counted from the end).
  }];
  let arguments = (ins NPU_FloatTensor:$input, NPU_FloatTensor:$gamma,
                       NPU_FloatTensor:$beta,
                       DefaultValuedAttr<I64Attr, "-1">:$axis,
                       DefaultValuedAttr<F32Attr, "1.0e-5">:$epsilon);
  let results = (outs NPU_FloatTensor:$output);
  let assemblyFormat = "$input `,` $gamma `,` $beta attr-dict `:` functional-type(operands, results)";
}

#endif // NPU_ELEMENTWISE_OPS_TD
