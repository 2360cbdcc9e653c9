//===- NPUDevEnums.h - npudev's enums alone ---------------------*- C++ -*-===//
//
// The ODS enums of npudev (op kinds) without the dialect, and the device's
// memory spaces and core kinds under the names npudev code uses for them
// (dev::MemorySpace, dev::CoreKind). Using enum values needs no link with
// the dialect.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_DIALECT_NPUDEV_NPUDEVENUMS_H
#define NPU_DIALECT_NPUDEV_NPUDEVENUMS_H

#include "npu/Device/DeviceEnums.h"

#include "mlir/Support/LLVM.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>

#include "npu/Dialect/NPUDev/NPUDevEnums.h.inc"

namespace npu::dev {
using ::npu::CoreKind;
using ::npu::MemorySpace;
using ::npu::stringifyCoreKind;
using ::npu::stringifyMemorySpace;
using ::npu::symbolizeCoreKind;
using ::npu::symbolizeMemorySpace;
} // namespace npu::dev

#endif // NPU_DIALECT_NPUDEV_NPUDEVENUMS_H
