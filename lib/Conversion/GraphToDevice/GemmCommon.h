//===- GemmCommon.h - what matmul and conv2d share --------------*- C++ -*-===//
//
// The cube tiles of a GEMM sized to cube memory, and the vector launch after
// the cube's f32 sums that adds the bias and rounds them to the result's
// type (what CANN's Fixpipe does on the way out of the cube).
//
//===----------------------------------------------------------------------===//

#ifndef NPU_LIB_CONVERSION_GEMMCOMMON_H
#define NPU_LIB_CONVERSION_GEMMCOMMON_H

#include "npu/Dialect/NPUDev/KernelBuilder.h"

namespace npu {

struct DeviceModel;

/// The tile of an output [m, n] summed over k on the cube.
struct CubeTiles {
  int64_t m = 1, n = 1, k = 1;
};

/// Fails with a diagnostic at `op` unless the cube multiplies `element`
/// (f16, bf16, f32: float inputs, f32 sums).
mlir::LogicalResult checkCubeElement(mlir::Operation *op, mlir::Type element);

/// Tiles of up to 128 in each of m, n and k whose A and B (two copies each,
/// for the pipeline) and f32 sums fit cube memory, the largest halved until
/// they do; a diagnostic at `op` when one element of each does not.
mlir::FailureOr<CubeTiles> chooseCubeTiles(mlir::Operation *op, int64_t m,
                                           int64_t n, int64_t k,
                                           mlir::Type element,
                                           const DeviceModel &device);

/// Fails with a diagnostic at `op` when `bytes` of vector memory do not
/// fit the device.
mlir::LogicalResult checkVectorBytes(mlir::Operation *op, int64_t bytes,
                                     const DeviceModel &device);

/// The epilogue of sums viewed as [rows, width].
struct GemmEpilogue {
  /// f32 sums, contiguous, `width` their last dimension; null when there
  /// are no products (an empty contraction): the sums are zero.
  mlir::Value sums;
  /// [width], or null.
  mlir::Value bias;
  /// Contiguous, `width` its last dimension.
  mlir::Value result;
  int64_t rows = 0, width = 0;
  /// Partial sums of a contraction split over cores: `sums` holds `splits`
  /// of them, [splits, rows, width], which the epilogue adds in order.
  int64_t splits = 1;
  /// The `npudev.tiling` strategy the launch is recorded under.
  llvm::StringRef strategy;
};

/// Whether sums of inputs of `element` need an epilogue: a bias, a result
/// narrower than f32, or no products at all.
bool needsGemmEpilogue(mlir::Type element, bool bias, bool noProducts);

/// Vector memory per element of an epilogue tile: the f32 sum, its
/// rounding, the bias and its widening, and a partial sum when the sums
/// come in `splits`.
int64_t getGemmEpilogueBytes(mlir::Type element, bool bias, int64_t splits = 1);

/// The epilogue's vector launch: tiles of [R, C] of the sums dealt to the
/// vector tasks in turn, each widened bias added along the rows and the
/// tile rounded to the result's type.
void buildGemmEpilogue(KernelBuilder &k, const GemmEpilogue &e,
                       const DeviceModel &device);

} // namespace npu

#endif // NPU_LIB_CONVERSION_GEMMCOMMON_H
