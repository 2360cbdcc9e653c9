//===- ConvCommon.h - the sizes of a conv2d, its two kernels ----*- C++ -*-===//
//
// conv2d lowers as an implicit GEMM on the cube (ConvKernels.cpp), or, when
// depthwise, as a per-channel sum of taps on the vector unit
// (DepthwiseConvKernels.cpp): a depthwise convolution has one input channel
// per output channel, a contraction of length KH KW that would leave the
// cube's 128-deep products almost empty.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_LIB_CONVERSION_CONVCOMMON_H
#define NPU_LIB_CONVERSION_CONVCOMMON_H

#include "npu/Conversion/DeviceKernelOpInterface.h"
#include "npu/Dialect/NPU/NPUOps.h"
#include "npu/Dialect/NPUDev/KernelBuilder.h"

namespace npu {

struct DeviceModel;

/// The sizes of a conv2d: [N, H, W, C] input, [O, KH, KW, I] filter
/// (I = C / groups), [N, OH, OW, O] output.
struct ConvShape {
  int64_t n, h, w, c, o, kh, kw, i, oh, ow;
  int64_t strideH, strideW, dilationH, dilationW;
  int64_t top, bottom, left, right, groups;
  /// Output channels per group.
  int64_t og;

  bool isPadded() const { return top || bottom || left || right; }
  int64_t paddedH() const { return h + top + bottom; }
  int64_t paddedW() const { return w + left + right; }
  /// One input and one output channel per group: the vector unit's.
  bool isDepthwise() const { return groups == c && i == 1 && og == 1; }
};

ConvShape getConvShape(graph::Conv2DOp op);

/// Builds the vector launch of a depthwise conv2d; a diagnostic at `op`
/// when its tiles do not fit the device.
mlir::LogicalResult buildDepthwiseConv2D(KernelBuilder &k, graph::Conv2DOp op,
                                         const ConvShape &shape,
                                         const KernelOperands &io,
                                         const DeviceModel &device);

} // namespace npu

#endif // NPU_LIB_CONVERSION_CONVCOMMON_H
