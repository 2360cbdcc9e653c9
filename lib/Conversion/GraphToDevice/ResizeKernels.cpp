//===- ResizeKernels.cpp - npu.resize on the vector cores -----------------===//
//
// Resize of H and W of an [N, H, W, C] tensor. Work items (image, output
// row, block of up to tc channels) are dealt to the vector tasks in turn.
// Per item the scalar unit maps the output row back to the input (the
// op's coordinate mode, in f64, as its definition writes it):
//  - nearest: the input row it rounds to is loaded (channels widened to
//    f32), and each output column copies the input column it rounds to;
//  - linear: the two input rows around it are loaded and blended by the
//    row's weight, then each output column blends the two columns around
//    its own coordinate, clamped at the edges.
// The finished output row is rounded to the element type and stored.
// Work O(N OH (W + OW) C); the input rows cross DMA once per output row.
//
//===----------------------------------------------------------------------===//

#include "OperatorKernels.h"
#include "TapWindow.h"

#include "npu/Conversion/DeviceKernelOpInterface.h"
#include "npu/Device/DeviceModel.h"
#include "npu/Dialect/NPU/NPUDialect.h"
#include "npu/Dialect/NPU/NPUOps.h"
#include "npu/Dialect/NPUDev/KernelBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace npu;
using namespace npu::graph;

namespace {

/// Where an output coordinate falls in the input along one axis, computed
/// by the scalar unit in f64.
class AxisMap {
public:
  AxisMap(KernelBuilder &k, ResizeOp op, int64_t in, int64_t out)
      : k(k), op(op), in(in), out(out) {}

  /// The input coordinate of output index `x` (index), unclamped.
  Value coordinate(Value x) {
    double scale = double(out) / double(in);
    Value xf = toF64(x);
    switch (op.getCoordinateMode()) {
    case ResizeCoordinateMode::half_pixel:
      return halfPixel(xf, scale);
    case ResizeCoordinateMode::pytorch_half_pixel:
      return out > 1 ? halfPixel(xf, scale) : f64(0);
    case ResizeCoordinateMode::align_corners:
      return out == 1 ? f64(0)
                      : div(mul(xf, f64(double(in - 1))), f64(double(out - 1)));
    case ResizeCoordinateMode::asymmetric:
      return div(xf, f64(scale));
    }
    llvm_unreachable("unknown coordinate mode");
  }

  /// The input index output index `x` takes in nearest mode, in [0, in).
  Value nearest(Value x) {
    Value c = coordinate(x);
    switch (op.getNearestMode()) {
    case ResizeNearestMode::round_prefer_floor:
      return clampIndex(ceilOf(sub(c, f64(0.5))));
    case ResizeNearestMode::round_prefer_ceil:
      return clampIndex(floorOf(add(c, f64(0.5))));
    case ResizeNearestMode::floor:
      return clampIndex(floorOf(c));
    case ResizeNearestMode::ceil:
      return clampIndex(ceilOf(c));
    }
    llvm_unreachable("unknown nearest mode");
  }

  /// Linear mode: the two input indices around output index `x` and the
  /// weight of the second, the coordinate clamped to [0, in - 1].
  struct Blend {
    Value first, second, weight;
  };
  Blend linear(Value x) {
    Value c = coordinate(x);
    c = k.builder().create<arith::MaximumFOp>(k.location(), c, f64(0));
    c = k.builder().create<arith::MinimumFOp>(k.location(), c,
                                              f64(double(in - 1)));
    Blend blend;
    blend.first = floorOf(c);
    blend.second = k.min(k.add(blend.first, k.index(1)), k.index(in - 1));
    blend.weight = sub(c, toF64(blend.first));
    return blend;
  }

private:
  Value halfPixel(Value xf, double scale) {
    return sub(div(add(xf, f64(0.5)), f64(scale)), f64(0.5));
  }

  /// floor(max(v, 0)) as an index: the only floors a clamped index needs
  /// (a negative coordinate clamps to 0 either way).
  Value floorOf(Value v) {
    OpBuilder &b = k.builder();
    Value positive = b.create<arith::MaximumFOp>(k.location(), v, f64(0));
    Value truncated =
        b.create<arith::FPToSIOp>(k.location(), b.getI64Type(), positive);
    return b.create<arith::IndexCastOp>(k.location(), b.getIndexType(),
                                        truncated);
  }
  /// ceil(max(v, 0)) as an index.
  Value ceilOf(Value v) {
    Value t = floorOf(v);
    Value below = k.builder().create<arith::CmpFOp>(
        k.location(), arith::CmpFPredicate::OLT, toF64(t), v);
    return k.select(below, k.add(t, k.index(1)), t);
  }
  Value clampIndex(Value i) { return k.min(i, k.index(in - 1)); }

  Value f64(double v) { return k.floatConstant(k.builder().getF64Type(), v); }
  Value toF64(Value index) {
    OpBuilder &b = k.builder();
    Value i64 =
        b.create<arith::IndexCastOp>(k.location(), b.getI64Type(), index);
    return b.create<arith::SIToFPOp>(k.location(), b.getF64Type(), i64);
  }
  Value add(Value x, Value y) {
    return k.builder().create<arith::AddFOp>(k.location(), x, y);
  }
  Value sub(Value x, Value y) {
    return k.builder().create<arith::SubFOp>(k.location(), x, y);
  }
  Value mul(Value x, Value y) {
    return k.builder().create<arith::MulFOp>(k.location(), x, y);
  }
  Value div(Value x, Value y) {
    return k.builder().create<arith::DivFOp>(k.location(), x, y);
  }

  KernelBuilder &k;
  ResizeOp op;
  int64_t in, out;
};

class ResizeKernel {
public:
  ResizeKernel(KernelBuilder &k, ResizeOp op, const KernelOperands &io,
               const DeviceModel &device)
      : k(k), op(op), io(io), device(device) {
    in = op.getInput().getType().getShape();
    out = op.getOutput().getType().getShape();
    element = op.getInput().getType().getElementType();
    f32 = k.builder().getF32Type();
    linear = op.getMode() == ResizeMode::linear;
  }

  /// As many channels as fit: per channel the input rows (one, or two for
  /// linear; narrow and widened), the output row (f32 and rounded) and a
  /// column of scratch.
  LogicalResult chooseTiles() {
    if (!element.isF16() && !element.isBF16() && !element.isF32())
      return op.emitOpError("cannot be lowered to the device: resize is "
                            "computed in f32 from f16, bf16 or f32, got ")
             << element;
    int64_t eb = element.getIntOrFloatBitWidth() / 8;
    int64_t wide = element == f32 ? 0 : 4;
    int64_t rows = linear ? 2 : 1;
    int64_t perChannel =
        rows * in[2] * (eb + wide) + out[2] * (4 + (wide ? eb : 0)) + 4;
    if (perChannel > device.vectorBytes)
      return op.emitOpError("cannot be lowered for device '")
             << device.name << "': one channel of an input row of " << in[2]
             << " and an output row of " << out[2] << " needs " << perChannel
             << " bytes of vector memory, the device has "
             << device.vectorBytes;
    tc = std::min<int64_t>(out[3], device.vectorBytes / perChannel);
    return success();
  }

  void build() {
    int64_t cTiles = llvm::divideCeil(out[3], tc);
    int64_t items = out[0] * out[1] * cTiles;
    int64_t tasks =
        std::min<int64_t>(device.getNumCores(dev::CoreKind::vector), items);
    dev::LaunchOp launch = k.launch(tasks, [&](Value task) {
      Buffers buf = allocate();
      k.forEachItem(task, tasks, items, [&](Value t) {
        SmallVector<Value> at = k.delinearize(t, {out[0], out[1], cTiles});
        Value c0 = k.mul(at[2], k.index(tc));
        Value channels = k.min(k.index(tc), k.sub(k.index(out[3]), c0));
        buildRow(buf, at[0], at[1], c0, channels);
      });
    });
    OpBuilder &b = k.builder();
    KernelBuilder::recordTiling(
        launch, {b.getNamedAttr("strategy", b.getStringAttr("resize")),
                 b.getNamedAttr("step", b.getStringAttr(
                                            stringifyResizeMode(op.getMode()))),
                 b.getNamedAttr("tile_channels", b.getI64IntegerAttr(tc))});
  }

private:
  struct Buffers {
    Value narrow[2], wide[2], row, rounded, column;
  };

  Buffers allocate() {
    Buffers buf;
    for (int r = 0, e = linear ? 2 : 1; r < e; ++r) {
      buf.narrow[r] = k.alloc({in[2], tc}, element);
      buf.wide[r] = element == f32 ? buf.narrow[r] : k.alloc({in[2], tc}, f32);
    }
    buf.row = k.alloc({out[2], tc}, f32);
    buf.rounded = element == f32 ? buf.row : k.alloc({out[2], tc}, element);
    buf.column = k.alloc({1, tc}, f32);
    return buf;
  }

  /// Input row `ih` of image `n`, channels [c0, c0 + channels), widened
  /// into buffer `r`: the whole row, as a pool's tap reads its part.
  Value loadRow(const Buffers &buf, int r, Value n, Value ih, Value c0,
                Value channels) {
    Value zero = k.index(0);
    return loadTapRows(k, io.operands[0], n, ih, zero, c0, k.index(in[2]),
                       channels, /*stride=*/1, buf.narrow[r], buf.wide[r],
                       zero);
  }

  /// Row `i` of `rows` ([W, channels]) as a [1, channels] window.
  Value rowOf(Value rows, Value i, Value channels) {
    return k.window(rows, {i, k.index(0)},
                    {k.builder().getIndexAttr(1), channels});
  }

  /// f32 of an f64 scalar.
  Value toF32(Value v) {
    return k.builder().create<arith::TruncFOp>(k.location(), f32, v);
  }

  void buildRow(const Buffers &buf, Value n, Value oh, Value c0,
                Value channels) {
    Value zero = k.index(0), one = k.index(1);
    AxisMap rowsMap(k, op, in[1], out[1]), colsMap(k, op, in[2], out[2]);
    Value row = k.window(buf.row, {zero, zero}, {k.index(out[2]), channels});
    if (!linear) {
      Value source = loadRow(buf, 0, n, rowsMap.nearest(oh), c0, channels);
      k.forLoop(zero, k.index(out[2]), one, [&](Value ow) {
        // 1 * x keeps every x's bits: a copy on the vector unit.
        k.vbinaryScalar(dev::BinaryKind::mul,
                        rowOf(source, colsMap.nearest(ow), channels), k.f32(1),
                        rowOf(row, ow, channels));
      });
    } else {
      AxisMap::Blend y = rowsMap.linear(oh);
      Value top = loadRow(buf, 0, n, y.first, c0, channels);
      Value bottom = loadRow(buf, 1, n, y.second, c0, channels);
      // top = top (1 - wy) + bottom wy.
      Value wy = toF32(y.weight);
      k.vbinaryScalar(
          dev::BinaryKind::mul, top,
          k.builder().create<arith::SubFOp>(k.location(), k.f32(1), wy), top);
      k.vbinaryScalar(dev::BinaryKind::mul, bottom, wy, bottom);
      k.vbinary(dev::BinaryKind::add, top, bottom, top);
      Value scratch = k.window(buf.column, {zero, zero},
                               {k.builder().getIndexAttr(1), channels});
      k.forLoop(zero, k.index(out[2]), one, [&](Value ow) {
        AxisMap::Blend x = colsMap.linear(ow);
        Value wx = toF32(x.weight);
        Value target = rowOf(row, ow, channels);
        k.vbinaryScalar(
            dev::BinaryKind::mul, rowOf(top, x.first, channels),
            k.builder().create<arith::SubFOp>(k.location(), k.f32(1), wx),
            target);
        k.vbinaryScalar(dev::BinaryKind::mul, rowOf(top, x.second, channels),
                        wx, scratch);
        k.vbinary(dev::BinaryKind::add, target, scratch, target);
      });
    }
    Value result = row;
    if (buf.rounded != buf.row) {
      result = k.window(buf.rounded, {zero, zero}, {k.index(out[2]), channels});
      k.vcast(row, result);
    }
    OpFoldResult unit = k.builder().getIndexAttr(1);
    k.dma(result, k.window(io.results[0], {n, oh, zero, c0},
                           {unit, unit, k.index(out[2]), channels}, {0, 1}));
  }

  KernelBuilder &k;
  ResizeOp op;
  const KernelOperands &io;
  const DeviceModel &device;
  ArrayRef<int64_t> in, out;
  Type element, f32;
  bool linear = false;
  int64_t tc = 1;
};

struct ResizeKernelModel
    : DeviceKernelOpInterface::ExternalModel<ResizeKernelModel, ResizeOp> {
  bool readsAlignedStorage(Operation *, Value) const { return true; }

  LogicalResult buildDeviceKernels(Operation *op, OpBuilder &b,
                                   const KernelOperands &io,
                                   const DeviceModel &device,
                                   const KernelOptions &) const {
    auto resize = cast<ResizeOp>(op);
    // An empty result has nothing to compute; an empty input leaves
    // nothing to interpolate from (the verifier keeps N and C).
    if (resize.getOutput().getType().getNumElements() == 0)
      return success();
    if (resize.getInput().getType().getNumElements() == 0)
      return op->emitOpError("cannot be lowered to the device: resizing an "
                             "empty input to a non-empty output");
    KernelBuilder k(b, op->getLoc());
    ResizeKernel kernel(k, resize, io, device);
    if (failed(kernel.chooseTiles()))
      return failure();
    kernel.build();
    return success();
  }
};

} // namespace

void npu::registerResizeKernelModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, NPUDialect *) {
    ResizeOp::attachInterface<ResizeKernelModel>(*ctx);
  });
}
