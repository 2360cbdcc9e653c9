//===- GemmCommon.cpp - cube tiles, bias and rounding after the sums ------===//
//
// Cube tiles: the largest of m, n, k halved until A, B and the sums fit.
// The epilogue: one vector launch over [R, C] tiles of the f32 sums viewed
// as [rows, width]: copy in (or zeros when there were no products), add the
// other partial sums of a split contraction in order, add the bias widened
// to f32 along the rows, round to the result's type, copy out; a plain tile
// loop that npu-pipeline-dma-loops pipelines. O(splits x rows x width).
//
//===----------------------------------------------------------------------===//

#include "GemmCommon.h"

#include "npu/Device/DeviceModel.h"

using namespace mlir;
using namespace npu;

LogicalResult npu::checkCubeElement(Operation *op, Type element) {
  if (element.isF16() || element.isBF16() || element.isF32())
    return success();
  return op->emitOpError("cannot be lowered to the device: the cube "
                         "multiplies f16, bf16 or f32, got ")
         << element;
}

FailureOr<CubeTiles> npu::chooseCubeTiles(Operation *op, int64_t m, int64_t n,
                                          int64_t k, Type element,
                                          const DeviceModel &device) {
  int64_t eb = element.getIntOrFloatBitWidth() / 8;
  CubeTiles t;
  t.m = std::clamp<int64_t>(m, 1, 128);
  t.n = std::clamp<int64_t>(n, 1, 128);
  t.k = std::clamp<int64_t>(k, 1, 128);
  auto bytes = [&] { return 2 * (t.m * t.k + t.k * t.n) * eb + t.m * t.n * 4; };
  while (bytes() > device.cubeBytes && (t.m > 1 || t.n > 1 || t.k > 1)) {
    int64_t &largest = t.k >= t.m && t.k >= t.n ? t.k : t.m >= t.n ? t.m : t.n;
    largest = llvm::divideCeil(largest, 2);
  }
  if (bytes() > device.cubeBytes)
    return op->emitOpError("cannot be lowered for device '")
           << device.name << "': it has " << device.cubeBytes
           << " bytes of cube memory, the kernel needs at least " << bytes();
  return t;
}

LogicalResult npu::checkVectorBytes(Operation *op, int64_t bytes,
                                    const DeviceModel &device) {
  if (bytes <= device.vectorBytes)
    return success();
  return op->emitOpError("cannot be lowered for device '")
         << device.name << "': it has " << device.vectorBytes
         << " bytes of vector memory, the kernel needs at least " << bytes;
}

bool npu::needsGemmEpilogue(Type element, bool bias, bool noProducts) {
  return !element.isF32() || bias || noProducts;
}

int64_t npu::getGemmEpilogueBytes(Type element, bool bias, int64_t splits) {
  int64_t eb = element.getIntOrFloatBitWidth() / 8;
  int64_t narrow = element.isF32() ? 0 : eb;
  int64_t biasBytes = bias ? eb + (element.isF32() ? 0 : 4) : 0;
  int64_t partial = splits > 1 ? 4 : 0;
  return 4 + narrow + biasBytes + partial;
}

void npu::buildGemmEpilogue(KernelBuilder &k, const GemmEpilogue &e,
                            const DeviceModel &device) {
  if (e.rows * e.width == 0)
    return;
  Type element = cast<MemRefType>(e.result.getType()).getElementType();
  Type f32 = k.builder().getF32Type();
  // Two copies of each tile, for the pipeline.
  int64_t budget = device.vectorBytes /
                   (2 * getGemmEpilogueBytes(element, bool(e.bias), e.splits));
  int64_t chunk = int64_t(1) << llvm::Log2_64(std::max<int64_t>(budget, 1));
  int64_t cols = std::min(e.width, chunk);
  int64_t tileRows = std::min(e.rows, std::max<int64_t>(1, chunk / cols));
  int64_t colTiles = llvm::divideCeil(e.width, cols);
  int64_t tiles = llvm::divideCeil(e.rows, tileRows) * colTiles;
  int64_t tasks =
      std::min<int64_t>(device.getNumCores(dev::CoreKind::vector), tiles);
  dev::LaunchOp launch = k.launch(tasks, [&](Value task) {
    Value sumView =
        e.sums ? k.reshape(e.sums, {e.splits * e.rows, e.width}) : Value();
    Value outView = k.reshape(e.result, {e.rows, e.width});
    Value wide = k.alloc({tileRows, cols}, f32);
    Value partial = e.splits > 1 ? k.alloc({tileRows, cols}, f32) : Value();
    Value narrow =
        element == f32 ? Value() : k.alloc({tileRows, cols}, element);
    Value biasIn = e.bias ? k.alloc({cols}, element) : Value();
    Value biasWide = e.bias && element != f32 ? k.alloc({cols}, f32) : biasIn;
    k.forEachItem(task, tasks, tiles, [&](Value t) {
      Value zero = k.index(0);
      Value r0 = k.mul(k.div(t, k.index(colTiles)), k.index(tileRows));
      Value c0 = k.mul(k.rem(t, k.index(colTiles)), k.index(cols));
      Value nr = k.min(k.index(tileRows), k.sub(k.index(e.rows), r0));
      Value nc = k.min(k.index(cols), k.sub(k.index(e.width), c0));
      Value sum = k.window(wide, {zero, zero}, {nr, nc});
      if (sumView)
        k.dma(k.window(sumView, {r0, c0}, {nr, nc}), sum);
      else
        k.vfill(sum, k.f32(0));
      // The other splits' partial sums, added in order.
      for (int64_t split = 1; sumView && split < e.splits; ++split) {
        Value part = k.window(partial, {zero, zero}, {nr, nc});
        Value row = k.add(r0, k.index(split * e.rows));
        k.dma(k.window(sumView, {row, c0}, {nr, nc}), part);
        k.vbinary(dev::BinaryKind::add, sum, part, sum);
      }
      if (e.bias) {
        Value in = k.window(biasIn, {zero}, {nc});
        k.dma(k.window(e.bias, {c0}, {nc}), in);
        Value w = in;
        if (biasWide != biasIn) {
          w = k.window(biasWide, {zero}, {nc});
          k.vcast(in, w);
        }
        k.vbinaryBroadcast(dev::BinaryKind::add, sum, w, sum, 1);
      }
      Value out = sum;
      if (narrow) {
        out = k.window(narrow, {zero, zero}, {nr, nc});
        k.vcast(sum, out);
      }
      k.dma(out, k.window(outView, {r0, c0}, {nr, nc}));
    });
  });
  OpBuilder &b = k.builder();
  SmallVector<NamedAttribute> choices = {
      b.getNamedAttr("strategy", b.getStringAttr(e.strategy)),
      b.getNamedAttr("step", b.getStringAttr("epilogue")),
      b.getNamedAttr("tile_rows", b.getI64IntegerAttr(tileRows)),
      b.getNamedAttr("tile_cols", b.getI64IntegerAttr(cols))};
  if (e.splits > 1)
    choices.push_back(b.getNamedAttr("splits", b.getI64IntegerAttr(e.splits)));
  KernelBuilder::recordTiling(launch, choices);
}
