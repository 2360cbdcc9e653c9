//===- DeviceToLoops.h - npudev to upstream loops ---------------*- C++ -*-===//
//
// The patterns of npu-lower-device-to-loops, for a client that builds its
// own pipeline (as upstream's populate*Patterns functions).
//
//===----------------------------------------------------------------------===//

#ifndef NPU_CONVERSION_DEVICETOLOOPS_H
#define NPU_CONVERSION_DEVICETOLOOPS_H

namespace mlir {
class RewritePatternSet;
} // namespace mlir

namespace npu::dev {

/// Adds the patterns that rewrite every npudev op into scf, memref, arith,
/// math and func (runtime calls), with the simulator's semantics.
void populateDeviceToLoopsPatterns(mlir::RewritePatternSet &patterns);

} // namespace npu::dev

#endif // NPU_CONVERSION_DEVICETOLOOPS_H
