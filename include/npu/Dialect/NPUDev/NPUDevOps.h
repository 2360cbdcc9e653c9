//===- NPUDevOps.h - ops of the npudev dialect ------------------*- C++ -*-===//

#ifndef NPU_DIALECT_NPUDEV_NPUDEVOPS_H
#define NPU_DIALECT_NPUDEV_NPUDEVOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "npu/Dialect/NPUDev/NPUDevDialect.h"
#include "npu/Dialect/NPUDev/NPUDevTraits.h"

namespace npu::dev {

/// The kernel's error status, which npudev.report_rows writes. Declaring
/// the write is what keeps every pass (dead code elimination, CSE,
/// hoisting) from erasing, merging or moving a runtime check: an op that
/// only reads and has no result is dead to upstream MLIR.
struct KernelStatusResource
    : mlir::SideEffects::Resource::Base<KernelStatusResource> {
  llvm::StringRef getName() final { return "npudev::KernelStatus"; }
};

} // namespace npu::dev

#define GET_OP_CLASSES
#include "npu/Dialect/NPUDev/NPUDevOps.h.inc"

#endif // NPU_DIALECT_NPUDEV_NPUDEVOPS_H
