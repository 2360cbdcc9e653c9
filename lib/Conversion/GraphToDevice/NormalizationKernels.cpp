//===- NormalizationKernels.cpp - softmax and layer_norm on the vector cores
//===//
//
// Both normalise rows: softmax over its axis (the last; [.., L] viewed as
// [rows, L]), layer_norm over its trailing dimensions [axis, rank). One
// launch of vector tasks over tiles of R whole rows, dealt in turn; per
// tile the rows are copied in (widened to f32), normalised with row
// reductions (vreduce, in order) and broadcasts, rounded and copied out: a
// plain tile loop, which npu-pipeline-dma-loops pipelines.
//   softmax:    y = exp(x - max(x)) / sum(exp(x - max(x)))
//   layer_norm: d = x - sum(x) / L, y = d rsqrt(sum(d d) / L + eps) gamma
//               + beta, gamma and beta widened once per task
// A row must fit vector memory (with its tiles' copies): a longer one is a
// diagnostic naming the row length and the memory. Work O(elements).
//
//===----------------------------------------------------------------------===//

#include "OperatorKernels.h"

#include "npu/Conversion/DeviceKernelOpInterface.h"
#include "npu/Device/DeviceModel.h"
#include "npu/Dialect/NPU/NPUDialect.h"
#include "npu/Dialect/NPU/NPUOps.h"
#include "npu/Dialect/NPUDev/KernelBuilder.h"

#include "mlir/Dialect/Utils/IndexingUtils.h"

using namespace mlir;
using namespace npu;
using namespace npu::graph;

namespace {

/// The rows an op normalises: the tensor as [rows, length].
struct RowShape {
  int64_t rows, length;
};

FailureOr<RowShape> getRowShape(Operation *op) {
  auto type = cast<RankedTensorType>(op->getOperand(0).getType());
  int64_t rank = type.getRank();
  Type element = type.getElementType();
  if (!element.isF16() && !element.isBF16() && !element.isF32())
    return op->emitOpError("cannot be lowered to the device: rows are "
                           "normalised in f32 from f16, bf16 or f32, got ")
           << element;
  bool isSoftmax = isa<SoftmaxOp>(op);
  int64_t axisAttr = isSoftmax ? cast<SoftmaxOp>(op).getAxis()
                               : cast<LayerNormOp>(op).getAxis();
  int64_t axis = axisAttr < 0 ? axisAttr + rank : axisAttr;
  if (rank == 0 || axis < 0 || axis >= rank)
    return op->emitOpError("cannot be lowered to the device: axis ")
           << axisAttr << " is not a dimension of " << type;
  // softmax normalises one axis; only the last one is a row.
  if (isSoftmax && axis != rank - 1)
    return op->emitOpError("cannot be lowered to the device: softmax over "
                           "axis ")
           << axisAttr << " of " << type << " (only the last axis is lowered)";
  ArrayRef<int64_t> shape = type.getShape();
  return RowShape{computeProduct(shape.take_front(axis)),
                  computeProduct(shape.drop_front(axis))};
}

class RowKernel {
public:
  RowKernel(KernelBuilder &k, Operation *op, const KernelOperands &io,
            RowShape shape, const DeviceModel &device)
      : k(k), op(op), io(io), s(shape), device(device) {
    element = cast<MemRefType>(io.results[0].getType()).getElementType();
    f32 = Float32Type::get(op->getContext());
  }

  /// Rows per tile: as many as fit beside the per-task buffers, with two
  /// copies of the tiles the pipeline multiplies (those copied in and
  /// out), but no more than leave each task two tiles to overlap; fails
  /// with a diagnostic when one row does not fit.
  LogicalResult chooseTiles() {
    int64_t eb = element.getIntOrFloatBitWidth() / 8;
    // f32: the rows in and the rows out, two copies each; narrower: the
    // narrow rows in and out, two copies each, and the f32 rows and
    // scratch. Two f32 statistics per row.
    int64_t perElement = element == f32 ? 16 : 8 + 4 * eb;
    int64_t perRow = s.length * perElement + 8;
    int64_t perTask = isa<LayerNormOp>(op) ? 8 * s.length : 0;
    int64_t room = device.vectorBytes - perTask;
    if (room < perRow)
      return op->emitOpError("cannot be lowered for device '")
             << device.name << "': a row of " << s.length << " elements needs "
             << perRow + perTask << " bytes of vector memory, the device has "
             << device.vectorBytes;
    int64_t tasks = device.getNumCores(dev::CoreKind::vector);
    tileRows =
        std::min({s.rows, room / perRow,
                  std::max<int64_t>(1, llvm::divideCeil(s.rows, 2 * tasks))});
    return success();
  }

  void build() {
    int64_t tiles = llvm::divideCeil(s.rows, tileRows);
    int64_t tasks =
        std::min<int64_t>(device.getNumCores(dev::CoreKind::vector), tiles);
    dev::LaunchOp launch = k.launch(tasks, [&](Value task) {
      Buffers buf = allocBuffers();
      k.forEachItem(task, tasks, tiles, [&](Value t) { buildTile(buf, t); });
    });
    OpBuilder &b = k.builder();
    KernelBuilder::recordTiling(
        launch, {b.getNamedAttr("strategy", b.getStringAttr("rows")),
                 b.getNamedAttr("tile_rows", b.getI64IntegerAttr(tileRows))});
  }

private:
  struct Buffers {
    /// [R, L]: the rows in f32, scratch, and the narrow rows in and out.
    Value rows, scratch, narrowIn, narrowOut;
    /// [R]: per-row statistics.
    Value stat, stat2;
    /// [L] in f32: layer_norm's gamma and beta.
    Value gamma, beta;
    /// The input and result as [rows, L].
    Value in, out;
  };

  Buffers allocBuffers() {
    Buffers buf;
    buf.in = k.reshape(io.operands[0], {s.rows, s.length});
    buf.out = k.reshape(io.results[0], {s.rows, s.length});
    buf.rows = k.alloc({tileRows, s.length}, f32);
    buf.scratch = k.alloc({tileRows, s.length}, f32);
    if (element != f32) {
      buf.narrowIn = k.alloc({tileRows, s.length}, element);
      buf.narrowOut = k.alloc({tileRows, s.length}, element);
    }
    buf.stat = k.alloc({tileRows}, f32);
    buf.stat2 = k.alloc({tileRows}, f32);
    if (isa<LayerNormOp>(op)) {
      buf.gamma = loadWide(io.operands[1]);
      buf.beta = loadWide(io.operands[2]);
    }
    return buf;
  }

  /// A per-task copy of `memref` (L elements) in f32.
  Value loadWide(Value memref) {
    Value flat = k.reshape(memref, {s.length});
    Value wide = k.alloc({s.length}, f32);
    if (element == f32) {
      k.dma(flat, wide);
      return wide;
    }
    Value narrow = k.alloc({s.length}, element);
    k.dma(flat, narrow);
    k.vcast(narrow, wide);
    return wide;
  }

  void buildTile(const Buffers &buf, Value t) {
    Value zero = k.index(0);
    Value r0 = k.mul(t, k.index(tileRows));
    Value nr = k.min(k.index(tileRows), k.sub(k.index(s.rows), r0));
    OpFoldResult length = k.builder().getIndexAttr(s.length);
    auto tile = [&](Value buffer) {
      return k.window(buffer, {zero, zero}, {nr, length});
    };
    Value source = k.window(buf.in, {r0, zero}, {nr, length});
    Value x = tile(buf.rows);
    if (element == f32) {
      k.dma(source, x);
    } else {
      Value narrow = tile(buf.narrowIn);
      k.dma(source, narrow);
      k.vcast(narrow, x);
    }
    Value stat = k.window(buf.stat, {zero}, {nr});
    Value stat2 = k.window(buf.stat2, {zero}, {nr});
    Value y = tile(buf.scratch);
    if (isa<SoftmaxOp>(op))
      softmax(x, y, stat, stat2);
    else
      layerNorm(buf, x, y, stat, stat2);
    Value result = y;
    if (element != f32) {
      result = tile(buf.narrowOut);
      k.vcast(y, result);
    }
    k.dma(result, k.window(buf.out, {r0, zero}, {nr, length}));
  }

  /// y = exp(x - max) / sum, row by row.
  void softmax(Value x, Value y, Value max, Value sum) {
    using BK = dev::BinaryKind;
    k.vreduce(dev::ReduceKind::max, x, max);
    k.vbinaryBroadcast(BK::sub, x, max, y, 0);
    k.vunary(dev::UnaryKind::exp, y, y);
    k.vreduce(dev::ReduceKind::sum, y, sum);
    k.vbinaryBroadcast(BK::div, y, sum, y, 0);
  }

  /// y = (x - mean) rsqrt(var + eps) gamma + beta, row by row.
  void layerNorm(const Buffers &buf, Value x, Value y, Value mean,
                 Value scale) {
    using BK = dev::BinaryKind;
    Value length = k.f32(static_cast<double>(s.length));
    k.vreduce(dev::ReduceKind::sum, x, mean);
    k.vbinaryScalar(BK::div, mean, length, mean);
    k.vbinaryBroadcast(BK::sub, x, mean, x, 0);
    k.vbinary(BK::mul, x, x, y);
    k.vreduce(dev::ReduceKind::sum, y, scale);
    k.vbinaryScalar(BK::div, scale, length, scale);
    double epsilon = cast<LayerNormOp>(op).getEpsilon().convertToFloat();
    k.vbinaryScalar(BK::add, scale, k.f32(epsilon), scale);
    k.vunary(dev::UnaryKind::rsqrt, scale, scale);
    k.vbinaryBroadcast(BK::mul, x, scale, y, 0);
    k.vbinaryBroadcast(BK::mul, y, buf.gamma, y, 1);
    k.vbinaryBroadcast(BK::add, y, buf.beta, y, 1);
  }

  KernelBuilder &k;
  Operation *op;
  const KernelOperands &io;
  RowShape s;
  const DeviceModel &device;
  Type element, f32;
  int64_t tileRows = 1;
};

template <typename OpT>
struct RowKernelModel
    : DeviceKernelOpInterface::ExternalModel<RowKernelModel<OpT>, OpT> {
  /// Rows over the last axis are padded rows read in place; a layer_norm
  /// over more axes merges C with others, so it reads dense copies.
  bool readsAlignedStorage(Operation *op, Value) const {
    int64_t rank =
        cast<RankedTensorType>(op->getOperand(0).getType()).getRank();
    int64_t axis = isa<SoftmaxOp>(op) ? cast<SoftmaxOp>(op).getAxis()
                                      : cast<LayerNormOp>(op).getAxis();
    return axis == -1 || axis == rank - 1;
  }

  LogicalResult buildDeviceKernels(Operation *op, OpBuilder &b,
                                   const KernelOperands &io,
                                   const DeviceModel &device,
                                   const KernelOptions &) const {
    FailureOr<RowShape> shape = getRowShape(op);
    if (failed(shape))
      return failure();
    // No rows, or rows of nothing: nothing to write.
    if (shape->rows * shape->length == 0)
      return success();
    KernelBuilder k(b, op->getLoc());
    RowKernel kernel(k, op, io, *shape, device);
    if (failed(kernel.chooseTiles()))
      return failure();
    kernel.build();
    return success();
  }
};

} // namespace

void npu::registerNormalizationKernelModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, NPUDialect *) {
    SoftmaxOp::attachInterface<RowKernelModel<SoftmaxOp>>(*ctx);
    LayerNormOp::attachInterface<RowKernelModel<LayerNormOp>>(*ctx);
  });
}
