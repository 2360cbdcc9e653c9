//===- PoolKernels.cpp - max_pool and avg_pool on the vector cores --------===//
//
// 2-D pooling of an [N, H, W, C] tensor. Output tiles of (image, output
// row, up to tow consecutive output columns, up to tc channels) are dealt
// to the vector tasks in turn. Per tile, for each tap (kh, kw) whose input
// row is inside the input, the output columns whose input column is inside
// too (a range computed from the tap, no per-element test) read their input
// rows as one window stepping by the stride, widened to f32, and fold into
// an f32 accumulator (max, or sum); padding never enters. avg_pool then
// divides by the window's size with count_include_pad, else by the count of
// taps that were inside, kept per output column. Work O(N OH OW C KH KW).
//
//===----------------------------------------------------------------------===//

#include "OperatorKernels.h"
#include "TapWindow.h"

#include "npu/Conversion/DeviceKernelOpInterface.h"
#include "npu/Device/DeviceModel.h"
#include "npu/Dialect/NPU/NPUDialect.h"
#include "npu/Dialect/NPU/NPUOps.h"
#include "npu/Dialect/NPUDev/KernelBuilder.h"

#include <limits>
#include <type_traits>

using namespace mlir;
using namespace npu;
using namespace npu::graph;

namespace {

template <typename OpT> class PoolKernel {
public:
  PoolKernel(KernelBuilder &k, OpT op, const KernelOperands &io,
             const DeviceModel &device)
      : k(k), op(op), io(io), device(device) {
    in = op.getInput().getType().getShape();
    out = op.getOutput().getType().getShape();
    kernel = op.getKernel();
    strides = op.getStrides();
    padding = op.getPadding();
    element = op.getInput().getType().getElementType();
    f32 = k.builder().getF32Type();
  }

  /// Tiles of up to 64 output columns and as many channels as fit the
  /// accumulator, the input rows (narrow and wide) and the counts.
  LogicalResult chooseTiles() {
    if (!element.isF16() && !element.isBF16() && !element.isF32())
      return op.emitOpError("cannot be lowered to the device: pools are "
                            "computed in f32 from f16, bf16 or f32, got ")
             << element;
    int64_t eb = element.getIntOrFloatBitWidth() / 8;
    int64_t perElement = 4 + 4 + 2 * eb;
    if (device.vectorBytes < perElement + 4)
      return op.emitOpError("cannot be lowered for device '")
             << device.name << "': it has " << device.vectorBytes
             << " bytes of vector memory, the kernel needs at least "
             << perElement + 4;
    tow = std::min<int64_t>(out[2], 64);
    int64_t fits = device.vectorBytes / (tow * perElement + 4);
    while (fits < 1) {
      tow = llvm::divideCeil(tow, 2);
      fits = device.vectorBytes / (tow * perElement + 4);
    }
    tc = std::min<int64_t>(out[3], fits);
    return success();
  }

  void build() {
    int64_t owTiles = llvm::divideCeil(out[2], tow);
    int64_t cTiles = llvm::divideCeil(out[3], tc);
    int64_t tiles = out[0] * out[1] * owTiles * cTiles;
    int64_t tasks =
        std::min<int64_t>(device.getNumCores(dev::CoreKind::vector), tiles);
    dev::LaunchOp launch = k.launch(tasks, [&](Value task) {
      Buffers buf;
      buf.acc = k.alloc({tow, tc}, f32);
      buf.wide = element == f32 ? Value() : k.alloc({tow, tc}, f32);
      buf.narrow = k.alloc({tow, tc}, element);
      buf.count = k.alloc({tow}, f32);
      k.forEachItem(task, tasks, tiles, [&](Value t) {
        SmallVector<Value> at =
            k.delinearize(t, {out[0], out[1], owTiles, cTiles});
        Tile tile;
        tile.n = at[0];
        tile.oh = at[1];
        tile.ow0 = k.mul(at[2], k.index(tow));
        tile.c0 = k.mul(at[3], k.index(tc));
        tile.cols = k.min(k.index(tow), k.sub(k.index(out[2]), tile.ow0));
        tile.channels = k.min(k.index(tc), k.sub(k.index(out[3]), tile.c0));
        buildTile(buf, tile);
      });
    });
    OpBuilder &b = k.builder();
    KernelBuilder::recordTiling(
        launch, {b.getNamedAttr("strategy", b.getStringAttr("pool")),
                 b.getNamedAttr("tile_cols", b.getI64IntegerAttr(tow)),
                 b.getNamedAttr("tile_channels", b.getI64IntegerAttr(tc))});
  }

private:
  struct Buffers {
    Value acc, wide, narrow, count;
  };
  struct Tile {
    Value n, oh, ow0, c0, cols, channels;
  };

  static constexpr bool isMax = std::is_same_v<OpT, MaxPoolOp>;

  /// Whether avg_pool divides by the count of taps inside the input.
  bool countsInside() {
    if constexpr (isMax)
      return false;
    else
      return !op.getCountIncludePad();
  }

  void buildTile(const Buffers &buf, const Tile &tile) {
    Value zero = k.index(0), one = k.index(1);
    Value acc = k.window(buf.acc, {zero, zero}, {tile.cols, tile.channels});
    double init = isMax ? -std::numeric_limits<double>::infinity() : 0.0;
    k.vfill(acc, k.f32(init));
    Value count = k.window(buf.count, {zero}, {tile.cols});
    if (countsInside())
      k.vfill(count, k.f32(0));
    k.forLoop(zero, k.index(kernel[0]), one, [&](Value kh) {
      Value ih = k.sub(k.add(k.mul(tile.oh, k.index(strides[0])), kh),
                       k.index(padding[0]));
      Value inside = k.andI(k.ge(ih, zero), k.lt(ih, k.index(in[1])));
      k.ifThenElse(inside, [&] {
        k.forLoop(zero, k.index(kernel[1]), one,
                  [&](Value kw) { foldTap(buf, tile, acc, count, ih, kw); });
      });
    });
    if constexpr (!isMax) {
      if (countsInside()) {
        k.vbinaryBroadcast(dev::BinaryKind::div, acc, count, acc, 0);
      } else {
        double size = double(kernel[0] * kernel[1]);
        k.vbinaryScalar(dev::BinaryKind::div, acc, k.f32(size), acc);
      }
    }
    Value result = acc;
    if (element != f32) {
      result = k.window(buf.narrow, {zero, zero}, {tile.cols, tile.channels});
      k.vcast(acc, result);
    }
    OpFoldResult unit = k.builder().getIndexAttr(1);
    k.dma(result, k.window(io.results[0], {tile.n, tile.oh, tile.ow0, tile.c0},
                           {unit, unit, tile.cols, tile.channels}, {0, 1}));
  }

  /// Folds tap (ih, kw) into the tile's output columns whose input column
  /// iw = ow sw - left + kw is inside the input.
  void foldTap(const Buffers &buf, const Tile &tile, Value acc, Value count,
               Value ih, Value kw) {
    Value zero = k.index(0);
    TapColumns c =
        getTapColumns(k, tile.ow0, tile.cols, k.sub(k.index(padding[2]), kw),
                      in[2], strides[1]);
    k.ifThenElse(k.lt(c.lo, c.hi), [&] {
      Value rows = k.sub(c.hi, c.lo);
      Value at = k.sub(c.lo, tile.ow0);
      Value values = loadTapRows(k, io.operands[0], tile.n, ih, c.iw, tile.c0,
                                 rows, tile.channels, strides[1], buf.narrow,
                                 element == f32 ? buf.narrow : buf.wide, at);
      Value part = k.window(acc, {at, zero}, {rows, tile.channels});
      k.vbinary(isMax ? dev::BinaryKind::max : dev::BinaryKind::add, part,
                values, part);
      if (countsInside()) {
        Value counted = k.window(count, {at}, {rows});
        k.vbinaryScalar(dev::BinaryKind::add, counted, k.f32(1), counted);
      }
    });
  }

  KernelBuilder &k;
  OpT op;
  const KernelOperands &io;
  const DeviceModel &device;
  ArrayRef<int64_t> in, out, kernel, strides, padding;
  Type element, f32;
  int64_t tow = 1, tc = 1;
};

template <typename OpT>
struct PoolKernelModel
    : DeviceKernelOpInterface::ExternalModel<PoolKernelModel<OpT>, OpT> {
  bool readsAlignedStorage(Operation *, Value) const { return true; }

  LogicalResult buildDeviceKernels(Operation *op, OpBuilder &b,
                                   const KernelOperands &io,
                                   const DeviceModel &device,
                                   const KernelOptions &) const {
    auto pool = cast<OpT>(op);
    // An empty result has nothing to compute.
    if (pool.getOutput().getType().getNumElements() == 0)
      return success();
    KernelBuilder k(b, op->getLoc());
    PoolKernel<OpT> kernel(k, pool, io, device);
    if (failed(kernel.chooseTiles()))
      return failure();
    kernel.build();
    return success();
  }
};

} // namespace

void npu::registerPoolKernelModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, NPUDialect *) {
    MaxPoolOp::attachInterface<PoolKernelModel<MaxPoolOp>>(*ctx);
    AvgPoolOp::attachInterface<PoolKernelModel<AvgPoolOp>>(*ctx);
  });
}
