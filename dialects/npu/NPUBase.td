//===- NPUBase.td - npu dialect, enums and attributes ------*- tablegen -*-===//
//
// The `npu` dialect describes a network graph at tensor level (value
// semantics). Every op states, through AlignModeOpInterface, whether its data
// must be stored channel-aligned (C padded to the alignment unit).
//
//===----------------------------------------------------------------------===//

#ifndef NPU_BASE_TD
#define NPU_BASE_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/TensorEncoding.td"

def NPU_Dialect : Dialect {
  let name = "npu";
  let cppNamespace = "::npu::graph";
  let summary = "Tensor-level graph dialect for a neural processing unit";
  let description = [{
    Ops of a network graph (convolution, matmul, pooling, reductions, data
    movement, elementwise math) with value semantics. Tensors stored on the
    device are either channel-aligned (the innermost dimension C padded to
    `kChannelAlignment` elements) or not; the `#npu.layout<...>` tensor
    encoding records which, and `npu.channel_norm` converts between the two.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  let hasConstantMaterializer = 1;
  let extraClassDeclaration = [{
    /// The channel alignment unit, in elements: an aligned tensor stores its
    /// innermost (C) dimension padded up to a multiple of this.
    static constexpr int64_t kChannelAlignment = 64;

    /// Discardable attribute that pins an op's AlignMode (the user's choice
    /// overrides every other rule).
    static constexpr ::llvm::StringLiteral getDevInfoAttrName() {
      return "npu.dev_info";
    }
    /// Discardable attribute written by `npu-annotate-align-mode`.
    static constexpr ::llvm::StringLiteral getAlignModeAttrName() {
      return "npu.align_mode";
    }
    /// Module attribute naming the ONNX model an imported module came from
    /// (producer and opset; npu-import-onnx writes it).
    static constexpr ::llvm::StringLiteral getONNXSourceAttrName() {
      return "npu.onnx_source";
    }
    /// Unit argument attribute marking a weight: loaded at run time in
    /// whichever layout the graph wants, so the layout pass chooses it
    /// (BOTH) instead of taking the graph-input mode.
    static constexpr ::llvm::StringLiteral getWeightAttrName() {
      return "npu.weight";
    }
    /// Argument and result attribute: the ONNX name of an imported graph
    /// input, initializer or output.
    static constexpr ::llvm::StringLiteral getONNXNameAttrName() {
      return "npu.onnx_name";
    }
    /// Argument attribute: the permutation of the ONNX dimensions an
    /// imported weight is stored in (OHWI for convolution weights).
    static constexpr ::llvm::StringLiteral getONNXPermAttrName() {
      return "npu.onnx_perm";
    }
  }];
}

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def NPU_AlignMode : I32EnumAttr<"AlignMode",
    "whether a value must be stored channel-aligned", [
      I32EnumAttrCase<"ALIGN", 0, "align">,
      I32EnumAttrCase<"NALIGN", 1, "nalign">,
      I32EnumAttrCase<"BOTH", 2, "both">,
      I32EnumAttrCase<"UNKNOWN", 3, "unknown">
    ]> {
  let cppNamespace = "::npu::graph";
  let genSpecializedAttr = 0;
}

def NPU_AlignModeAttr : EnumAttr<NPU_Dialect, NPU_AlignMode, "align_mode"> {
  let assemblyFormat = "`<` $value `>`";
}

// The LayoutAlignToNPU design describes channel_norm's direction as a bool,
// once as "False for ALIGN->NALIGN, True for NALIGN->ALIGN" and once in code
// as the opposite. A named enum removes the ambiguity: the case says what
// the result is.
def NPU_ChannelNormDirection : I32EnumAttr<"ChannelNormDirection",
    "the layout a channel_norm converts to", [
      I32EnumAttrCase<"to_align", 0>,
      I32EnumAttrCase<"to_nalign", 1>
    ]> {
  let cppNamespace = "::npu::graph";
  let genSpecializedAttr = 0;
}

def NPU_ChannelNormDirectionAttr
    : EnumAttr<NPU_Dialect, NPU_ChannelNormDirection, "direction"> {
  let assemblyFormat = "`<` $value `>`";
}

def NPU_ReduceKind : I32EnumAttr<"ReduceKind", "reduction combiner", [
      I32EnumAttrCase<"sum", 0>,
      I32EnumAttrCase<"max", 1>,
      I32EnumAttrCase<"min", 2>,
      I32EnumAttrCase<"mean", 3>
    ]> {
  let cppNamespace = "::npu::graph";
  let genSpecializedAttr = 0;
}

def NPU_ReduceKindAttr : EnumAttr<NPU_Dialect, NPU_ReduceKind, "reduce_kind"> {
  let assemblyFormat = "`<` $value `>`";
}

// How npu.resize computes its output: the ONNX Resize attributes mode,
// coordinate_transformation_mode and nearest_mode.
def NPU_ResizeMode : I32EnumAttr<"ResizeMode", "resize interpolation", [
      I32EnumAttrCase<"nearest", 0>,
      I32EnumAttrCase<"linear", 1>
    ]> {
  let cppNamespace = "::npu::graph";
  let genSpecializedAttr = 0;
}
def NPU_ResizeModeAttr : EnumAttr<NPU_Dialect, NPU_ResizeMode, "resize_mode"> {
  let assemblyFormat = "`<` $value `>`";
}

def NPU_ResizeCoordinateMode : I32EnumAttr<"ResizeCoordinateMode",
    "how resize maps output coordinates to input coordinates", [
      I32EnumAttrCase<"half_pixel", 0>,
      I32EnumAttrCase<"pytorch_half_pixel", 1>,
      I32EnumAttrCase<"align_corners", 2>,
      I32EnumAttrCase<"asymmetric", 3>
    ]> {
  let cppNamespace = "::npu::graph";
  let genSpecializedAttr = 0;
}
def NPU_ResizeCoordinateModeAttr
    : EnumAttr<NPU_Dialect, NPU_ResizeCoordinateMode, "resize_coordinate_mode"> {
  let assemblyFormat = "`<` $value `>`";
}

def NPU_ResizeNearestMode : I32EnumAttr<"ResizeNearestMode",
    "how nearest-neighbour resize rounds input coordinates", [
      I32EnumAttrCase<"round_prefer_floor", 0>,
      I32EnumAttrCase<"round_prefer_ceil", 1>,
      I32EnumAttrCase<"floor", 2>,
      I32EnumAttrCase<"ceil", 3>
    ]> {
  let cppNamespace = "::npu::graph";
  let genSpecializedAttr = 0;
}
def NPU_ResizeNearestModeAttr
    : EnumAttr<NPU_Dialect, NPU_ResizeNearestMode, "resize_nearest_mode"> {
  let assemblyFormat = "`<` $value `>`";
}

def NPU_GridSamplePadding : I32EnumAttr<"GridSamplePadding",
    "what grid_sample reads outside the input", [
      I32EnumAttrCase<"zeros", 0>,
      I32EnumAttrCase<"border", 1>
    ]> {
  let cppNamespace = "::npu::graph";
  let genSpecializedAttr = 0;
}

def NPU_GridSamplePaddingAttr
    : EnumAttr<NPU_Dialect, NPU_GridSamplePadding, "grid_sample_padding"> {
  let assemblyFormat = "`<` $value `>`";
}

// How attention's query, key and value are laid out: B batch, S sequence,
// N heads, D head size, H = N x D, T the total length of sequences packed
// one after another (with cumulative lengths).
def NPU_AttentionLayout : I32EnumAttr<"AttentionLayout",
    "layout of attention inputs", [
      I32EnumAttrCase<"BSH", 0>,
      I32EnumAttrCase<"SBH", 1>,
      I32EnumAttrCase<"BSND", 2>,
      I32EnumAttrCase<"BNSD", 3>,
      I32EnumAttrCase<"TND", 4>
    ]> {
  let cppNamespace = "::npu::graph";
  let genSpecializedAttr = 0;
}

def NPU_AttentionLayoutAttr
    : EnumAttr<NPU_Dialect, NPU_AttentionLayout, "attention_layout"> {
  let assemblyFormat = "`<` $value `>`";
}

//===----------------------------------------------------------------------===//
// Layout encoding
//===----------------------------------------------------------------------===//

def NPU_LayoutAttr : AttrDef<NPU_Dialect, "Layout",
    [DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let mnemonic = "layout";
  let summary = "storage layout of a tensor: channel-aligned or not";
  let description = [{
    Used as the encoding of a `RankedTensorType`:
    `tensor<1x7x7x3xf16, #npu.layout<align>>` is stored with its innermost
    dimension padded to `kChannelAlignment` elements (3 -> 64), while
    `#npu.layout<nalign>` is stored densely. Only `align` and `nalign` are
    storage layouts. The aligned form needs rank 2, 4 or more, and not 3
    (the device's Cx form); rank 0, 1 and 3 tensors are never aligned.
  }];
  let parameters = (ins EnumParameter<NPU_AlignMode>:$mode);
  let assemblyFormat = "`<` $mode `>`";
  let genVerifyDecl = 1;
}

#endif // NPU_BASE_TD
