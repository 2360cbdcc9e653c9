//===- InitAll.h - register npu-mlir with a context -------------*- C++ -*-===//

#ifndef NPU_INITALL_H
#define NPU_INITALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace npu {

/// Adds the npu and npudev dialects and the upstream dialects npu-mlir's IR
/// uses (arith, func, math, memref, scf, tensor) to `registry`.
void registerAllDialects(mlir::DialectRegistry &registry);

/// Registers every npu-mlir pass with the global pass registry.
void registerAllPasses();

} // namespace npu

#endif // NPU_INITALL_H
