//===- NPUDevDialect.h - the npudev device dialect --------------*- C++ -*-===//

#ifndef NPU_DIALECT_NPUDEV_NPUDEVDIALECT_H
#define NPU_DIALECT_NPUDEV_NPUDEVDIALECT_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"

#include "npu/Dialect/NPUDev/NPUDevDialect.h.inc"
#include "npu/Dialect/NPUDev/NPUDevEnums.h"

#define GET_ATTRDEF_CLASSES
#include "npu/Dialect/NPUDev/NPUDevAttrs.h.inc"
#define GET_TYPEDEF_CLASSES
#include "npu/Dialect/NPUDev/NPUDevTypes.h.inc"

namespace npu::dev {

/// The npudev memory space of `type`, or std::nullopt when it has none.
std::optional<MemorySpace> getMemorySpace(mlir::MemRefType type);

/// Whether `type` lives in one of `spaces`.
bool isInSpace(mlir::MemRefType type,
               std::initializer_list<MemorySpace> spaces);

/// Bytes of one element of `type` (ceil(bits / 8); index is 8).
int64_t getElementBytes(mlir::Type type);

} // namespace npu::dev

#endif // NPU_DIALECT_NPUDEV_NPUDEVDIALECT_H
