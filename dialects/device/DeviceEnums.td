//===- DeviceEnums.td - what a device is made of -----------*- tablegen -*-===//
//
// The enums the device description (DeviceModel, lib/Device) is indexed
// by: memory spaces and the kinds of core. The device owns them; the
// npudev dialect wraps them in its attributes (#npudev.space, cores).
//
//===----------------------------------------------------------------------===//

#ifndef NPU_DEVICE_ENUMS_TD
#define NPU_DEVICE_ENUMS_TD

include "mlir/IR/EnumAttr.td"

def NPU_MemorySpace : I32EnumAttr<"MemorySpace", "NPU memory space", [
      I32EnumAttrCase<"global", 0>,
      I32EnumAttrCase<"vector", 1>,
      I32EnumAttrCase<"cube", 2>,
      I32EnumAttrCase<"shared", 3>
    ]> {
  let cppNamespace = "::npu";
  let genSpecializedAttr = 0;
}

def NPU_CoreKind : I32EnumAttr<"CoreKind", "the units of a core", [
      I32EnumAttrCase<"unified", 0>,
      I32EnumAttrCase<"vector", 1>,
      I32EnumAttrCase<"cube", 2>
    ]> {
  let cppNamespace = "::npu";
  let genSpecializedAttr = 0;
}

#endif // NPU_DEVICE_ENUMS_TD
