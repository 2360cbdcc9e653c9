//===- DeviceEnums.h - memory spaces and core kinds -------------*- C++ -*-===//
//
// What a device is made of (dialects/device/DeviceEnums.td): the memory
// spaces a DeviceModel gives capacities for and the kinds of core it
// counts. The npudev dialect's attributes wrap these.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_DEVICE_DEVICEENUMS_H
#define NPU_DEVICE_DEVICEENUMS_H

#include "mlir/Support/LLVM.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>

#include "npu/Device/DeviceEnums.h.inc"

#endif // NPU_DEVICE_DEVICEENUMS_H
