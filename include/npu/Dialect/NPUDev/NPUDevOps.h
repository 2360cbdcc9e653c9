//===- NPUDevOps.h - ops of the npudev dialect ------------------*- C++ -*-===//

#ifndef NPU_DIALECT_NPUDEV_NPUDEVOPS_H
#define NPU_DIALECT_NPUDEV_NPUDEVOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "npu/Dialect/NPUDev/NPUDevDialect.h"
#include "npu/Dialect/NPUDev/NPUDevTraits.h"

#define GET_OP_CLASSES
#include "npu/Dialect/NPUDev/NPUDevOps.h.inc"

#endif // NPU_DIALECT_NPUDEV_NPUDEVOPS_H
