//===- TapWindow.cpp - one filter tap's input rows ------------------------===//
//
// The column range is two ceiling divisions and a clamp to the tile, no
// per-element test; the rows are one strided DMA and one widening.
//
//===----------------------------------------------------------------------===//

#include "TapWindow.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace npu;

/// ceil(x / stride) for x > 0, else 0.
static Value ceilOrZero(KernelBuilder &k, Value x, int64_t stride) {
  Value up = k.div(k.add(x, k.index(stride - 1)), k.index(stride));
  return k.select(k.lt(k.index(0), x), up, k.index(0));
}

TapColumns npu::getTapColumns(KernelBuilder &k, Value ow0, Value cols,
                              Value shift, int64_t width, int64_t stride) {
  // iw >= 0: ow stride >= shift; iw < width: ow stride < width + shift.
  TapColumns c;
  c.lo = k.max(ceilOrZero(k, shift, stride), ow0);
  c.hi = k.max(k.min(ceilOrZero(k, k.add(k.index(width), shift), stride),
                     k.add(ow0, cols)),
               c.lo);
  c.iw = k.sub(k.mul(c.lo, k.index(stride)), shift);
  return c;
}

/// The [rows, channels] window of `input` ([N, H, W, C]) at `at`, columns
/// `stride` apart. With one channel, W and C have the same stride, and
/// MLIR's inference of the dimensions a rank-reducing subview drops (from
/// static unit sizes, ties broken by strides) picks the wrong ones once
/// canonicalization makes the channel count static: that window is taken
/// as a column of pixels and expanded to [rows, 1] instead.
static Value tapRows(KernelBuilder &k, Value input, ArrayRef<Value> at,
                     Value rows, Value channels, int64_t stride) {
  OpFoldResult unit = k.builder().getIndexAttr(1);
  if (cast<MemRefType>(input.getType()).getShape().back() != 1)
    return k.window(input, at, {unit, unit, rows, channels}, {1, 1, stride, 1},
                    {0, 1});
  Value column = k.window(input, at, {unit, unit, rows, unit},
                          {1, 1, stride, 1}, {0, 1, 3});
  return k.builder().create<memref::ExpandShapeOp>(
      k.location(), ArrayRef<int64_t>{ShapedType::kDynamic, 1}, column,
      ArrayRef<ReassociationIndices>{{0, 1}},
      ArrayRef<OpFoldResult>{rows, unit});
}

Value npu::loadTapRows(KernelBuilder &k, Value input, Value n, Value ih,
                       Value iw, Value c0, Value rows, Value channels,
                       int64_t stride, Value narrow, Value wide, Value at) {
  Value zero = k.index(0);
  Value staged = k.window(narrow, {at, zero}, {rows, channels});
  k.dma(tapRows(k, input, {n, ih, iw, c0}, rows, channels, stride), staged);
  if (narrow == wide)
    return staged;
  Value widened = k.window(wide, {at, zero}, {rows, channels});
  k.vcast(staged, widened);
  return widened;
}
