//===- OperatorKernels.h - device kernels of graph operators ----*- C++ -*-===//
//
// Each operator family that lowers to the device provides one entry point:
// given the op, its operands and its result as global memrefs, emit the
// npudev kernels at the builder's insertion point.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_LIB_CONVERSION_OPERATORKERNELS_H
#define NPU_LIB_CONVERSION_OPERATORKERNELS_H

#include "npu/Device/DeviceModel.h"

#include "mlir/IR/Builders.h"

namespace npu {

/// Whether `op` has a device lowering.
bool hasDeviceKernels(mlir::Operation *op);

/// The MoE dispatch family (MoEKernels.cpp).
mlir::LogicalResult buildMoEKernels(mlir::OpBuilder &b, mlir::Operation *op,
                                    mlir::ValueRange operands,
                                    mlir::Value result,
                                    const DeviceModel &device);

} // namespace npu

#endif // NPU_LIB_CONVERSION_OPERATORKERNELS_H
