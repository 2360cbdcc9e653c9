//===- OperatorKernels.h - device kernels of graph operators ----*- C++ -*-===//
//
// Each operator family that lowers to the device provides its kernels
// behind one entry point: given the op, the memrefs of its operands and
// results, emit the npudev kernels at the builder's insertion point.
//
// A result whose row count depends on the data (get_indice_pairs'
// out_indices) is stored at an upper bound of its rows, known from the
// shapes; the kernels write the actual count into a one-element i64 global
// memref beside it.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_LIB_CONVERSION_OPERATORKERNELS_H
#define NPU_LIB_CONVERSION_OPERATORKERNELS_H

#include "npu/Device/DeviceModel.h"

#include "mlir/IR/Builders.h"

namespace npu {

/// Choices the lowering leaves to the user (npu-lower-to-device options).
struct KernelOptions {
  /// get_indice_pairs strategy: "auto", "grid" or "sort".
  std::string sparseConvStrategy = "auto";
};

/// What an op's kernels read and write.
struct KernelOperands {
  /// The op's operands: global memrefs for tensors, scalars as they are.
  mlir::ValueRange operands;
  /// One global memref per result; a dynamic first dimension is stored at
  /// its upper bound.
  llvm::ArrayRef<mlir::Value> results;
  /// Per result, the memref<1xi64> its kernels write the row count into
  /// when the first dimension is dynamic, else null.
  llvm::ArrayRef<mlir::Value> rowCounts;
};

/// Whether `op` has a device lowering.
bool hasDeviceKernels(mlir::Operation *op);

/// Upper bound of the rows of `op`'s result `result`, whose first dimension
/// is dynamic; `indexBound` gives the bound of an index operand when one is
/// known. Fails with a diagnostic naming the op when there is none.
mlir::FailureOr<int64_t> getResultRowBound(
    mlir::Operation *op, unsigned result,
    llvm::function_ref<std::optional<int64_t>(mlir::Value)> indexBound);

/// Builds the kernels of `op` for `device`.
mlir::LogicalResult buildDeviceKernels(mlir::OpBuilder &b, mlir::Operation *op,
                                       const KernelOperands &io,
                                       const DeviceModel &device,
                                       const KernelOptions &options);

/// The MoE dispatch family (MoEKernels.cpp).
bool isMoEOp(mlir::Operation *op);
mlir::LogicalResult buildMoEKernels(mlir::OpBuilder &b, mlir::Operation *op,
                                    mlir::ValueRange operands,
                                    mlir::Value result,
                                    const DeviceModel &device);

/// The sparse convolution family (GetIndicePairsKernels.cpp,
/// SparseConvKernels.cpp).
bool isSparseConvOp(mlir::Operation *op);
mlir::FailureOr<int64_t> getSparseConvRowBound(
    mlir::Operation *op, unsigned result,
    llvm::function_ref<std::optional<int64_t>(mlir::Value)> indexBound);
mlir::LogicalResult buildGetIndicePairsKernels(mlir::OpBuilder &b,
                                               mlir::Operation *op,
                                               const KernelOperands &io,
                                               const DeviceModel &device,
                                               const KernelOptions &options);
mlir::LogicalResult buildSparseConv3dKernels(mlir::OpBuilder &b,
                                             mlir::Operation *op,
                                             const KernelOperands &io,
                                             const DeviceModel &device);

/// FlashAttention (FlashAttentionKernels.cpp).
mlir::LogicalResult buildFlashAttentionKernels(mlir::OpBuilder &b,
                                               mlir::Operation *op,
                                               const KernelOperands &io,
                                               const DeviceModel &device);

} // namespace npu

#endif // NPU_LIB_CONVERSION_OPERATORKERNELS_H
