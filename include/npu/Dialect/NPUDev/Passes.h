//===- Passes.h - npudev to npudev transforms -------------------*- C++ -*-===//

#ifndef NPU_DIALECT_NPUDEV_PASSES_H
#define NPU_DIALECT_NPUDEV_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace npu::dev {

#define GEN_PASS_DECL
#include "npu/Dialect/NPUDev/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "npu/Dialect/NPUDev/Passes.h.inc"

/// npu-pipeline-dma-loops with `stages` on every function, then
/// canonicalize and cse: the pipelined loops' slot selection and index
/// arithmetic, shared and hoisted, cost the scalar unit half as much.
void addPipelineDmaLoops(mlir::OpPassManager &pm, unsigned stages);

} // namespace npu::dev

#endif // NPU_DIALECT_NPUDEV_PASSES_H
