//===- GemmEpilogue.h - after the cube's f32 sums ---------------*- C++ -*-===//
//
// What matmul and conv2d share after their cube launch: a vector launch that
// adds the bias to the f32 sums and rounds them to the result's type (what
// CANN's Fixpipe does on the way out of the cube).
//
//===----------------------------------------------------------------------===//

#ifndef NPU_LIB_CONVERSION_GEMMEPILOGUE_H
#define NPU_LIB_CONVERSION_GEMMEPILOGUE_H

#include "npu/Dialect/NPUDev/KernelBuilder.h"

namespace npu {

struct DeviceModel;

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
  /// The `npudev.tiling` strategy the launch is recorded under.
  llvm::StringRef strategy;
};

/// Whether sums of inputs of `element` need an epilogue: a bias, a result
/// narrower than f32, or no products at all.
bool needsGemmEpilogue(mlir::Type element, bool bias, bool noProducts);

/// Vector memory per element of an epilogue tile: the f32 sum, its
/// rounding, the bias and its widening.
int64_t getGemmEpilogueBytes(mlir::Type element, bool bias);

/// The epilogue's vector launch: tiles of [R, C] of the sums dealt to the
/// vector tasks in turn, each widened bias added along the rows and the
/// tile rounded to the result's type.
void buildGemmEpilogue(KernelBuilder &k, const GemmEpilogue &e,
                       const DeviceModel &device);

} // namespace npu

#endif // NPU_LIB_CONVERSION_GEMMEPILOGUE_H
