//===- NPUDevEnums.td - the kinds of npudev's ops ----------*- tablegen -*-===//
//
// npudev's own enums: how tasks map to cores and the kinds of vector ops.
// Memory spaces and core kinds belong to the device (device/DeviceEnums.td).
//
//===----------------------------------------------------------------------===//

#ifndef NPUDEV_ENUMS_TD
#define NPUDEV_ENUMS_TD

include "mlir/IR/EnumAttr.td"

def NPUDev_TaskType : I32EnumAttr<"TaskType", "how tasks map to cores", [
      I32EnumAttrCase<"block", 0>,
      I32EnumAttrCase<"union1", 1>,
      I32EnumAttrCase<"union2", 2>,
      I32EnumAttrCase<"union4", 4>
    ]> {
  let cppNamespace = "::npu::dev";
  let genSpecializedAttr = 0;
}

def NPUDev_BinaryKind : I32EnumAttr<"BinaryKind", "elementwise binary op", [
      I32EnumAttrCase<"add", 0>, I32EnumAttrCase<"sub", 1>,
      I32EnumAttrCase<"mul", 2>, I32EnumAttrCase<"div", 3>,
      I32EnumAttrCase<"max", 4>, I32EnumAttrCase<"min", 5>,
      I32EnumAttrCase<"And", 6, "and">, I32EnumAttrCase<"Or", 7, "or">,
      I32EnumAttrCase<"Xor", 8, "xor">, I32EnumAttrCase<"rem", 9>,
      I32EnumAttrCase<"shl", 10>, I32EnumAttrCase<"shrs", 11>,
      I32EnumAttrCase<"shru", 12>
    ]> {
  let cppNamespace = "::npu::dev";
  let genSpecializedAttr = 0;
}

def NPUDev_UnaryKind : I32EnumAttr<"UnaryKind", "elementwise unary op", [
      I32EnumAttrCase<"abs", 0>, I32EnumAttrCase<"neg", 1>,
      I32EnumAttrCase<"relu", 2>, I32EnumAttrCase<"exp", 3>,
      I32EnumAttrCase<"log", 4>, I32EnumAttrCase<"sqrt", 5>,
      I32EnumAttrCase<"rsqrt", 6>, I32EnumAttrCase<"recip", 7>,
      I32EnumAttrCase<"tanh", 8>, I32EnumAttrCase<"sigmoid", 9>,
      I32EnumAttrCase<"erf", 10>
    ]> {
  let cppNamespace = "::npu::dev";
  let genSpecializedAttr = 0;
}

def NPUDev_ComparePredicate
    : I32EnumAttr<"ComparePredicate", "elementwise comparison", [
      I32EnumAttrCase<"eq", 0>, I32EnumAttrCase<"ne", 1>,
      I32EnumAttrCase<"lt", 2>, I32EnumAttrCase<"le", 3>,
      I32EnumAttrCase<"gt", 4>, I32EnumAttrCase<"ge", 5>
    ]> {
  let cppNamespace = "::npu::dev";
  let genSpecializedAttr = 0;
}

def NPUDev_ReduceKind : I32EnumAttr<"ReduceKind", "reduction", [
      I32EnumAttrCase<"sum", 0>, I32EnumAttrCase<"max", 1>,
      I32EnumAttrCase<"min", 2>
    ]> {
  let cppNamespace = "::npu::dev";
  let genSpecializedAttr = 0;
}

#endif // NPUDEV_ENUMS_TD
