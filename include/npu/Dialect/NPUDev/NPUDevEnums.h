//===- NPUDevEnums.h - npudev's enums alone ---------------------*- C++ -*-===//
//
// The ODS enums of npudev (memory spaces, op kinds) without the dialect, for
// libraries below it: the DeviceModel indexes its capacities by the one
// MemorySpace enum. Using enum values needs no link with the dialect.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_DIALECT_NPUDEV_NPUDEVENUMS_H
#define NPU_DIALECT_NPUDEV_NPUDEVENUMS_H

#include "mlir/Support/LLVM.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>

#include "npu/Dialect/NPUDev/NPUDevEnums.h.inc"

#endif // NPU_DIALECT_NPUDEV_NPUDEVENUMS_H
