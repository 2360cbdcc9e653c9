//===- DeviceKernelOpInterface.h - graph ops with kernels -------*- C++ -*-===//
//
// The interface npu-lower-to-device builds kernels through, and what it
// hands an op: the memrefs of its operands and results.
//
// A result whose row count depends on the data (get_indice_pairs'
// out_indices) is stored at an upper bound of its rows, known from the
// shapes; the kernels write the actual count into a one-element i64 global
// memref beside it.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_CONVERSION_DEVICEKERNELOPINTERFACE_H
#define NPU_CONVERSION_DEVICEKERNELOPINTERFACE_H

#include "mlir/IR/OpDefinition.h"
#include "llvm/Support/MathExtras.h"

#include <limits>
#include <optional>

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace npu {

struct DeviceModel;

/// Choices the lowering leaves to the user (npu-lower-to-device options).
struct KernelOptions {
  /// get_indice_pairs strategy: "auto", "grid" or "sort".
  std::string sparseConvStrategy = "auto";
};

/// A size known when the kernels are built (`arg` negative: `factor`
/// itself) or `factor` times dimension `dim` of the function's argument
/// `arg`, read at run time.
struct SizeBound {
  int64_t factor = 0;
  int64_t arg = -1;
  unsigned dim = 0;

  static SizeBound get(int64_t size) { return {size, -1, 0}; }
  bool isStatic() const { return arg < 0; }
  /// This bound times `scale` (saturating, as a bound may).
  SizeBound times(int64_t scale) const {
    int64_t product;
    if (llvm::MulOverflow(factor, scale, product))
      product = std::numeric_limits<int64_t>::max();
    return {product, arg, dim};
  }
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

/// Attaches DeviceKernelOpInterface to every graph op that has kernels (the
/// models of each operator family). npu-lower-to-device registers them
/// itself; a tool calls this only to query the interface outside the pass.
void registerDeviceKernelModels(mlir::DialectRegistry &registry);

} // namespace npu

#include "npu/Conversion/DeviceKernelOpInterface.h.inc"

#endif // NPU_CONVERSION_DEVICEKERNELOPINTERFACE_H
