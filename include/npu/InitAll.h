//===- InitAll.h - register npu-mlir with a context -------------*- C++ -*-===//
//
// As upstream's mlir/InitAllDialects.h and InitAllExtensions.h: dialects,
// the external models other libraries attach to them, and passes are
// registered apart. None of these pulls in an executor: a tool that
// simulates registers the simulator's models itself
// (npu::sim::registerSimulatorModels, npu/Simulator/Execution.h).
//
//===----------------------------------------------------------------------===//

#ifndef NPU_INITALL_H
#define NPU_INITALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace npu {

/// Adds the npu, npudev and sparse dialects and the upstream dialects
/// npu-mlir's IR uses (arith, func, math, memref, scf, tensor) to
/// `registry`.
void registerAllDialects(mlir::DialectRegistry &registry);

/// Adds the external models npu-mlir's libraries attach to those dialects:
/// the graph ops' device kernels (DeviceKernelOpInterface).
void registerAllExtensions(mlir::DialectRegistry &registry);

/// Registers every npu-mlir pass and pass pipeline with the global
/// registry.
void registerAllPasses();

} // namespace npu

#endif // NPU_INITALL_H
