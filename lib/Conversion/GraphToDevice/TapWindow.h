//===- TapWindow.h - one filter tap's input rows, for pools and depthwise -===//
//
// A pool and a depthwise convolution both fold, tap by tap, the input
// pixels under a tile of consecutive output columns: the columns whose
// input pixel lies inside the input, read as one window stepping by the
// stride and widened to f32. Padding is never read: the range leaves it
// out. Resize loads its whole input rows through the same copy.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_LIB_CONVERSION_TAPWINDOW_H
#define NPU_LIB_CONVERSION_TAPWINDOW_H

#include "npu/Dialect/NPUDev/KernelBuilder.h"

namespace npu {

/// The output columns [lo, hi) of the tile [ow0, ow0 + cols) whose input
/// column iw = ow stride - shift (shift = left padding - the tap's column
/// offset) lies in [0, width), and iw at lo. lo <= hi; an empty range is
/// possible.
struct TapColumns {
  mlir::Value lo, hi, iw;
};
TapColumns getTapColumns(KernelBuilder &k, mlir::Value ow0, mlir::Value cols,
                         mlir::Value shift, int64_t width, int64_t stride);

/// Copies the input rows of image `n`, input row `ih`, columns from `iw`
/// stepping by `stride`, channels [c0, c0 + channels), for `rows` output
/// columns into rows [at, at + rows) of the on-chip `narrow` buffer, and
/// returns them widened to f32 in the same rows of `wide` (`narrow` itself
/// when the two are one buffer: f32 input).
mlir::Value loadTapRows(KernelBuilder &k, mlir::Value input, mlir::Value n,
                        mlir::Value ih, mlir::Value iw, mlir::Value c0,
                        mlir::Value rows, mlir::Value channels, int64_t stride,
                        mlir::Value narrow, mlir::Value wide, mlir::Value at);

} // namespace npu

#endif // NPU_LIB_CONVERSION_TAPWINDOW_H
