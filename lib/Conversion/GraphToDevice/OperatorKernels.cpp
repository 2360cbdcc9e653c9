//===- OperatorKernels.cpp - which family lowers an op --------------------===//
//
// Dispatches a graph op to the kernel builder of its family. O(1).
//
//===----------------------------------------------------------------------===//

#include "OperatorKernels.h"
#include "npu/Dialect/NPU/NPUOps.h"

using namespace mlir;
using namespace npu;

bool npu::hasDeviceKernels(Operation *op) {
  return isMoEOp(op) || isSparseConvOp(op) ||
         isa<FlashAttentionOp, FlashAttentionGradOp>(op);
}

FailureOr<int64_t>
npu::getResultRowBound(Operation *op, unsigned result,
                       function_ref<std::optional<int64_t>(Value)> indexBound) {
  if (isSparseConvOp(op))
    return getSparseConvRowBound(op, result, indexBound);
  return op->emitOpError("cannot be lowered to the device: result #")
         << result << " has a dynamic shape";
}

LogicalResult npu::buildDeviceKernels(OpBuilder &b, Operation *op,
                                      const KernelOperands &io,
                                      const DeviceModel &device,
                                      const KernelOptions &options) {
  if (isa<GetIndicePairsOp>(op))
    return buildGetIndicePairsKernels(b, op, io, device, options);
  if (isa<SparseConv3DOp>(op))
    return buildSparseConv3dKernels(b, op, io, device);
  if (isa<FlashAttentionOp, FlashAttentionGradOp>(op))
    return buildFlashAttentionKernels(b, op, io, device);
  return buildMoEKernels(b, op, io.operands, io.results.front(), device);
}
