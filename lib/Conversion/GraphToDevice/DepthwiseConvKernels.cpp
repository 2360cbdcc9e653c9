//===- DepthwiseConvKernels.cpp - depthwise conv2d on the vector unit -----===//
//
// A depthwise conv2d (groups = C, one input and one output channel per
// group) sums KH KW products per output element, a contraction far too
// short for the cube. One launch of vector tasks over output tiles of
// (image, output row, up to tow consecutive output columns, up to tc
// channels), dealt in turn:
//  1. the tile's filter ([tc, KH KW] as stored) is loaded, widened to f32
//     and turned (vtranspose) so that each tap's weights are a row; the
//     bias, when there is one, starts the f32 accumulator;
//  2. a loop over the taps: the output columns whose input pixel is inside
//     the input (a range computed from the tap, empty when the input row is
//     outside, so padding is never read and never copied) read their input
//     rows as one window stepping by the stride, widened to f32, multiplied
//     by the tap's weights spread over the rows, and added to the
//     accumulator. The loop body is a plain load-compute tile loop, which
//     npu-pipeline-dma-loops pipelines;
//  3. the accumulator, rounded to the result's type, is stored.
// Work O(N OH OW C KH KW); the input crosses DMA once per tap.
//
//===----------------------------------------------------------------------===//

#include "ConvCommon.h"
#include "TapWindow.h"

#include "npu/Device/DeviceModel.h"
#include "npu/Dialect/NPUDev/NPUDevOps.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace npu;
using namespace npu::graph;

namespace {

class DepthwiseConvKernel {
public:
  DepthwiseConvKernel(KernelBuilder &k, Conv2DOp op, const ConvShape &shape,
                      const KernelOperands &io, const DeviceModel &device)
      : k(k), op(op), s(shape), io(io), device(device) {
    element = op.getInput().getType().getElementType();
    f32 = k.builder().getF32Type();
    taps = s.kh * s.kw;
  }

  /// Tiles of up to 64 output columns and as many channels as fit: per
  /// channel the accumulator, the input rows (two copies, narrow, and
  /// widened), the rounded result, the filter (narrow, wide, turned) and
  /// the bias. The result has its own buffer: rounding it into the input
  /// rows' would keep the tap loop from being pipelined.
  LogicalResult chooseTiles() {
    if (!element.isF16() && !element.isBF16() && !element.isF32())
      return op.emitOpError("cannot be lowered to the device: a depthwise "
                            "convolution is computed in f32 from f16, bf16 "
                            "or f32, got ")
             << element;
    int64_t eb = element.getIntOrFloatBitWidth() / 8;
    // Narrower elements are widened into f32 buffers and rounded back.
    int64_t wide = element == f32 ? 0 : 4, rounded = element == f32 ? 0 : eb;
    auto bytesPerChannel = [&](int64_t cols) {
      return cols * (4 + 2 * eb + wide + rounded) + taps * (eb + wide + 4) +
             eb + wide;
    };
    tow = std::min<int64_t>(s.ow, 64);
    while (tow > 1 && bytesPerChannel(tow) > device.vectorBytes)
      tow = llvm::divideCeil(tow, 2);
    if (bytesPerChannel(tow) > device.vectorBytes)
      return op.emitOpError("cannot be lowered for device '")
             << device.name << "': a depthwise tile of one column and one "
             << "channel needs " << bytesPerChannel(tow)
             << " bytes of vector memory, the device has "
             << device.vectorBytes;
    tc = std::min<int64_t>(s.c, device.vectorBytes / bytesPerChannel(tow));
    return success();
  }

  void build() {
    int64_t owTiles = llvm::divideCeil(s.ow, tow);
    int64_t cTiles = llvm::divideCeil(s.c, tc);
    int64_t tiles = s.n * s.oh * owTiles * cTiles;
    int64_t tasks =
        std::min<int64_t>(device.getNumCores(dev::CoreKind::vector), tiles);
    dev::LaunchOp launch = k.launch(tasks, [&](Value task) {
      Buffers buf = allocate();
      k.forEachItem(task, tasks, tiles, [&](Value t) {
        SmallVector<Value> at = k.delinearize(t, {s.n, s.oh, owTiles, cTiles});
        Tile tile;
        tile.n = at[0];
        tile.oh = at[1];
        tile.ow0 = k.mul(at[2], k.index(tow));
        tile.c0 = k.mul(at[3], k.index(tc));
        tile.cols = k.min(k.index(tow), k.sub(k.index(s.ow), tile.ow0));
        tile.channels = k.min(k.index(tc), k.sub(k.index(s.c), tile.c0));
        buildTile(buf, tile);
      });
    });
    OpBuilder &b = k.builder();
    KernelBuilder::recordTiling(
        launch, {b.getNamedAttr("strategy", b.getStringAttr("conv2d")),
                 b.getNamedAttr("step", b.getStringAttr("depthwise")),
                 b.getNamedAttr("tile_cols", b.getI64IntegerAttr(tow)),
                 b.getNamedAttr("tile_channels", b.getI64IntegerAttr(tc))});
  }

private:
  struct Buffers {
    Value acc, rows, wideRows, result, weights, wideWeights, tapWeights, bias,
        wideBias;
  };
  struct Tile {
    Value n, oh, ow0, c0, cols, channels;
  };

  Buffers allocate() {
    bool narrow = element != f32;
    Buffers buf;
    buf.acc = k.alloc({tow, tc}, f32);
    buf.rows = k.alloc({tow, tc}, element);
    buf.wideRows = narrow ? k.alloc({tow, tc}, f32) : buf.rows;
    buf.result = narrow ? k.alloc({tow, tc}, element) : buf.acc;
    buf.weights = k.alloc({tc, taps}, element);
    buf.wideWeights = narrow ? k.alloc({tc, taps}, f32) : buf.weights;
    buf.tapWeights = k.alloc({taps, tc}, f32);
    if (op.getBias()) {
      buf.bias = k.alloc({tc}, element);
      buf.wideBias = narrow ? k.alloc({tc}, f32) : buf.bias;
    }
    return buf;
  }

  /// `narrow` widened into `wide` (the same buffer when the element is
  /// f32).
  void widen(Value narrow, Value wide) {
    if (narrow != wide)
      k.vcast(narrow, wide);
  }

  /// The window [0, sizes) of an on-chip buffer.
  Value head(Value buffer, ArrayRef<Value> sizes) {
    SmallVector<Value> zeros(sizes.size(), k.index(0));
    return k.window(buffer, zeros, getAsOpFoldResult(sizes));
  }

  void buildTile(const Buffers &buf, const Tile &tile) {
    Value taps = k.index(this->taps);
    // The filter [channels, taps] as stored ([C, KH, KW, 1]), each tap's
    // weights turned into a row.
    Value filter = k.reshape(io.operands[1], {s.c, this->taps});
    Value weights = head(buf.weights, {tile.channels, taps});
    k.dma(k.window(filter, {tile.c0, k.index(0)}, {tile.channels, taps}),
          weights);
    Value wideWeights = head(buf.wideWeights, {tile.channels, taps});
    widen(weights, wideWeights);
    Value tapWeights = head(buf.tapWeights, {taps, tile.channels});
    k.builder().create<dev::VTransposeOp>(k.location(), wideWeights,
                                          tapWeights);
    Value acc = head(buf.acc, {tile.cols, tile.channels});
    k.vfill(acc, k.f32(0));
    Value zero = k.index(0), one = k.index(1);
    k.forLoop(zero, taps, one,
              [&](Value tap) { foldTap(buf, tile, acc, tapWeights, tap); });
    if (op.getBias()) {
      Value bias = head(buf.bias, {tile.channels});
      k.dma(k.window(io.operands[2], {tile.c0}, {tile.channels}), bias);
      Value wideBias = head(buf.wideBias, {tile.channels});
      widen(bias, wideBias);
      k.vbinaryBroadcast(dev::BinaryKind::add, acc, wideBias, acc, 1);
    }
    Value result = acc;
    if (element != f32) {
      result = head(buf.result, {tile.cols, tile.channels});
      k.vcast(acc, result);
    }
    OpFoldResult unit = k.builder().getIndexAttr(1);
    k.dma(result, k.window(io.results[0], {tile.n, tile.oh, tile.ow0, tile.c0},
                           {unit, unit, tile.cols, tile.channels}, {0, 1}));
  }

  /// Adds tap (kh, kw)'s products into the tile's output columns whose
  /// input pixel (ih, iw = ow sw - left + kw dw) is inside the input: an
  /// empty range when ih is outside, so that the loop body has no branch.
  void foldTap(const Buffers &buf, const Tile &tile, Value acc,
               Value tapWeights, Value tap) {
    Value zero = k.index(0);
    Value kh = k.div(tap, k.index(s.kw));
    Value kw = k.rem(tap, k.index(s.kw));
    Value ih = k.add(k.mul(tile.oh, k.index(s.strideH)),
                     k.sub(k.mul(kh, k.index(s.dilationH)), k.index(s.top)));
    Value rowInside = k.andI(k.ge(ih, zero), k.lt(ih, k.index(s.h)));
    Value shift = k.sub(k.index(s.left), k.mul(kw, k.index(s.dilationW)));
    TapColumns c = getTapColumns(k, tile.ow0, tile.cols, shift, s.w, s.strideW);
    Value hi = k.select(rowInside, c.hi, c.lo);
    Value rows = k.sub(hi, c.lo);
    Value at = k.sub(c.lo, tile.ow0);
    // An empty range reads row 0 (any row inside) for nothing.
    Value row = k.select(rowInside, ih, zero);
    Value values =
        loadTapRows(k, io.operands[0], tile.n, row, c.iw, tile.c0, rows,
                    tile.channels, s.strideW, buf.rows, buf.wideRows, at);
    Value weights = k.window(tapWeights, {tap, zero},
                             {k.builder().getIndexAttr(1), tile.channels}, {0});
    k.vbinaryBroadcast(dev::BinaryKind::mul, values, weights, values, 1);
    Value part = k.window(acc, {at, zero}, {rows, tile.channels});
    k.vbinary(dev::BinaryKind::add, part, values, part);
  }

  KernelBuilder &k;
  Conv2DOp op;
  const ConvShape &s;
  const KernelOperands &io;
  const DeviceModel &device;
  Type element, f32;
  int64_t taps = 1, tow = 1, tc = 1;
};

} // namespace

LogicalResult npu::buildDepthwiseConv2D(KernelBuilder &k, Conv2DOp op,
                                        const ConvShape &shape,
                                        const KernelOperands &io,
                                        const DeviceModel &device) {
  DepthwiseConvKernel kernel(k, op, shape, io, device);
  if (failed(kernel.chooseTiles()))
    return failure();
  kernel.build();
  return success();
}
