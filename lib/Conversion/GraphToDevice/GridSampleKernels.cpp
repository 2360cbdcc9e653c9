//===- GridSampleKernels.cpp - npu.grid_sample on the vector cores --------===//
//
// Bilinear sampling of an [N, H, W, C] input at the points of an
// [N, HO, WO, 2] grid. Work items (image, block of up to tp output points)
// are dealt to the vector tasks in turn. Per item the image's whole input
// plane and the block's grid points are copied on chip; the scalar unit maps
// each point to its four neighbours and their weights (in f64, as the
// definition writes it) and sums the neighbours' channels into the output
// block, which is stored once. Work O(N HO WO C); an input plane crosses
// DMA once per block of its points. The plane must fit vector memory beside
// the blocks (RAFT's correlation lookups read planes of at most 16 x 16 x
// 1); a larger one is refused with a diagnostic naming the sizes.
//
//===----------------------------------------------------------------------===//

#include "OperatorKernels.h"

#include "npu/Conversion/DeviceKernelOpInterface.h"
#include "npu/Device/DeviceModel.h"
#include "npu/Dialect/NPU/NPUDialect.h"
#include "npu/Dialect/NPU/NPUOps.h"
#include "npu/Dialect/NPUDev/KernelBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace npu;
using namespace npu::graph;

namespace {

class GridSampleKernel {
public:
  GridSampleKernel(KernelBuilder &k, GridSampleOp op, const KernelOperands &io,
                   const DeviceModel &device)
      : k(k), op(op), io(io), device(device) {
    ArrayRef<int64_t> in = op.getInput().getType().getShape();
    ArrayRef<int64_t> out = op.getOutput().getType().getShape();
    n = in[0];
    h = in[1];
    w = in[2];
    c = in[3];
    points = out[1] * out[2];
    element = op.getInput().getType().getElementType();
    f64 = k.builder().getF64Type();
  }

  /// The points per block: as many as fit beside the plane, at most all.
  LogicalResult chooseBlock() {
    if (!element.isF16() && !element.isBF16() && !element.isF32())
      return op.emitOpError("cannot be lowered to the device: points are "
                            "sampled in f64 from f16, bf16 or f32, got ")
             << element;
    int64_t eb = element.getIntOrFloatBitWidth() / 8;
    int64_t plane = h * w * c * eb, perPoint = (2 + c) * eb;
    int64_t room = device.vectorBytes - plane;
    if (room < perPoint)
      return op.emitOpError("cannot be lowered for device '")
             << device.name << "': an input plane of " << h << " x " << w
             << " x " << c << " takes " << plane
             << " bytes, and with a point's grid and output row it exceeds "
             << device.vectorBytes << " bytes of vector memory";
    tp = std::min(points, room / perPoint);
    return success();
  }

  void build() {
    int64_t blocks = llvm::divideCeil(points, tp), items = n * blocks;
    int64_t tasks =
        std::min<int64_t>(device.getNumCores(dev::CoreKind::vector), items);
    Value planes = k.reshape(io.operands[0], {n, h * w * c});
    Value grid = k.reshape(io.operands[1], {n, points, 2});
    Value result = k.reshape(io.results[0], {n, points, c});
    dev::LaunchOp launch = k.launch(tasks, [&](Value task) {
      Value plane = k.alloc({h * w * c}, element);
      Value at = k.alloc({tp, 2}, element);
      Value sums = k.alloc({tp, c}, element);
      k.forEachItem(task, tasks, items, [&](Value item) {
        Value image = k.div(item, k.index(blocks));
        Value p0 = k.mul(k.rem(item, k.index(blocks)), k.index(tp));
        Value count = k.min(k.index(tp), k.sub(k.index(points), p0));
        Value zero = k.index(0);
        OpFoldResult one = k.builder().getIndexAttr(1);
        k.dma(k.window(planes, {image, zero},
                       {one, k.builder().getIndexAttr(h * w * c)}, {0}),
              plane);
        Value points2 =
            k.window(at, {zero, zero}, {count, k.builder().getIndexAttr(2)});
        k.dma(k.window(grid, {image, p0, zero},
                       {one, count, k.builder().getIndexAttr(2)}, {0}),
              points2);
        k.forLoop(zero, count, k.index(1),
                  [&](Value p) { samplePoint(plane, at, sums, p); });
        OpFoldResult channels = k.builder().getIndexAttr(c);
        k.dma(k.window(sums, {zero, zero}, {count, channels}),
              k.window(result, {image, p0, zero}, {one, count, channels}, {0}));
      });
    });
    OpBuilder &b = k.builder();
    KernelBuilder::recordTiling(
        launch, {b.getNamedAttr("strategy", b.getStringAttr("grid_sample")),
                 b.getNamedAttr("tile_points", b.getI64IntegerAttr(tp))});
  }

private:
  /// One neighbour of a point: its position in the plane (valid even when
  /// the neighbour is outside) and its weight (0 outside).
  struct Neighbour {
    Value offset, weight;
  };

  /// Row `p` of `sums`: the channels at grid point `p` of `at`.
  void samplePoint(Value plane, Value at, Value sums, Value p) {
    Value ix = unnormalize(load(at, {p, k.index(0)}), w);
    Value iy = unnormalize(load(at, {p, k.index(1)}), h);
    if (op.getPadding() == GridSamplePadding::border) {
      ix = clampF(ix, 0, double(w - 1));
      iy = clampF(iy, 0, double(h - 1));
    }
    OpBuilder &b = k.builder();
    Location loc = k.location();
    // Far outside points clamp to two pixels off the edge: every neighbour
    // is then outside, and the conversion to an integer stays defined.
    Value x0 = clampF(b.create<math::FloorOp>(loc, ix), -2, double(w + 1));
    Value y0 = clampF(b.create<math::FloorOp>(loc, iy), -2, double(h + 1));
    Value wx1 = b.create<arith::SubFOp>(loc, ix, x0);
    Value wy1 = b.create<arith::SubFOp>(loc, iy, y0);
    Value wx0 = b.create<arith::SubFOp>(loc, constant(1), wx1);
    Value wy0 = b.create<arith::SubFOp>(loc, constant(1), wy1);
    Value xi = toIndex(x0), yi = toIndex(y0);
    Value x1 = k.add(xi, k.index(1)), y1 = k.add(yi, k.index(1));
    Neighbour corners[] = {
        neighbour(yi, xi, wy0, wx0), neighbour(yi, x1, wy0, wx1),
        neighbour(y1, xi, wy1, wx0), neighbour(y1, x1, wy1, wx1)};
    k.forLoop(k.index(0), k.index(c), k.index(1), [&](Value ch) {
      Value sum = constant(0);
      for (const Neighbour &corner : corners) {
        Value v = load(plane, {k.add(corner.offset, ch)});
        sum = b.create<arith::AddFOp>(
            loc, sum, b.create<arith::MulFOp>(loc, corner.weight, v));
      }
      k.store(b.create<arith::TruncFOp>(loc, element, sum), sums, {p, ch});
    });
  }

  /// The input coordinate of normalised `v` along an axis of `size`.
  Value unnormalize(Value v, int64_t size) {
    OpBuilder &b = k.builder();
    Location loc = k.location();
    Value plusOne = b.create<arith::AddFOp>(loc, v, constant(1));
    if (op.getAlignCorners())
      return b.create<arith::MulFOp>(loc, plusOne,
                                     constant(double(size - 1) / 2));
    Value scaled =
        b.create<arith::MulFOp>(loc, plusOne, constant(double(size)));
    return b.create<arith::MulFOp>(
        loc, b.create<arith::SubFOp>(loc, scaled, constant(1)), constant(0.5));
  }

  Neighbour neighbour(Value y, Value x, Value wy, Value wx) {
    Value zero = k.index(0);
    Value inside = k.andI(k.andI(k.ge(x, zero), k.lt(x, k.index(w))),
                          k.andI(k.ge(y, zero), k.lt(y, k.index(h))));
    Value pixel = k.select(inside, k.add(k.mul(y, k.index(w)), x), zero);
    Value weight = k.builder().create<arith::MulFOp>(k.location(), wy, wx);
    return {k.mul(pixel, k.index(c)), k.select(inside, weight, constant(0))};
  }

  Value load(Value memref, ValueRange indices) {
    return k.builder().create<arith::ExtFOp>(k.location(), f64,
                                             k.load(memref, indices));
  }
  Value constant(double v) { return k.floatConstant(f64, v); }
  /// `v` into [lo, hi]; NaN goes to lo.
  Value clampF(Value v, double lo, double hi) {
    OpBuilder &b = k.builder();
    Value low = b.create<arith::MaxNumFOp>(k.location(), v, constant(lo));
    return b.create<arith::MinNumFOp>(k.location(), low, constant(hi));
  }
  Value toIndex(Value integral) {
    OpBuilder &b = k.builder();
    Value i64 =
        b.create<arith::FPToSIOp>(k.location(), b.getI64Type(), integral);
    return b.create<arith::IndexCastOp>(k.location(), b.getIndexType(), i64);
  }

  KernelBuilder &k;
  GridSampleOp op;
  const KernelOperands &io;
  const DeviceModel &device;
  int64_t n, h, w, c, points, tp = 1;
  Type element, f64;
};

struct GridSampleKernelModel
    : DeviceKernelOpInterface::ExternalModel<GridSampleKernelModel,
                                             GridSampleOp> {
  LogicalResult buildDeviceKernels(Operation *op, OpBuilder &b,
                                   const KernelOperands &io,
                                   const DeviceModel &device,
                                   const KernelOptions &) const {
    auto sample = cast<GridSampleOp>(op);
    // An empty result has nothing to compute.
    if (sample.getOutput().getType().getNumElements() == 0)
      return success();
    KernelBuilder k(b, op->getLoc());
    GridSampleKernel kernel(k, sample, io, device);
    if (failed(kernel.chooseBlock()))
      return failure();
    kernel.build();
    return success();
  }
};

} // namespace

void npu::registerGridSampleKernelModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, NPUDialect *) {
    GridSampleOp::attachInterface<GridSampleKernelModel>(*ctx);
  });
}
