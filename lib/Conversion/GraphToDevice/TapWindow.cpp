//===- TapWindow.cpp - one filter tap's input rows ------------------------===//
//
// The column range is two ceiling divisions and a clamp to the tile, no
// per-element test; the rows are one strided DMA and one widening.
//
//===----------------------------------------------------------------------===//

#include "TapWindow.h"

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

Value npu::loadTapRows(KernelBuilder &k, Value input, Value n, Value ih,
                       Value iw, Value c0, Value rows, Value channels,
                       int64_t stride, Value narrow, Value wide, Value at) {
  Value zero = k.index(0);
  OpFoldResult unit = k.builder().getIndexAttr(1);
  Value staged = k.window(narrow, {at, zero}, {rows, channels});
  k.dma(k.window(input, {n, ih, iw, c0}, {unit, unit, rows, channels},
                 {1, 1, stride, 1}, {0, 1}),
        staged);
  if (narrow == wide)
    return staged;
  Value widened = k.window(wide, {at, zero}, {rows, channels});
  k.vcast(staged, widened);
  return widened;
}
