//===- ScatterKernels.cpp - scatter_nd and scatter (ONNX ScatterElements) -===//
//
// Both copy `data` into the result (one box-copy launch), then write the
// updates over it in a second launch, in index order so that a repeated
// index leaves its last update, as the ops define, and both executors agree.
//
// scatter_nd: the result viewed as [R, S] (R the index tuples' reach, S the
// slice each tuple selects) and the updates as [M, S]. The tasks share S in
// column tiles; each walks the M tuples in order, turning a tuple into its
// row (negative components counted from the end) and copying the update's
// piece through vector memory. O(M S) elements moved, O(M k) index reads per
// column tile.
//
// scatter: result[p with p[axis] := indices[p]] = updates[p] over the
// positions p of `indices`. Positions that differ off the axis never write
// the same element, so the tasks share them; each walks its position's axis
// in order, one element per copy. O(elements of indices) copies.
//
// An index outside its dimension fails the kernel naming the first one a
// task meets (FirstBadIndex).
//
//===----------------------------------------------------------------------===//

#include "CopyKernels.h"
#include "OperatorKernels.h"

#include "npu/Conversion/DeviceKernelOpInterface.h"
#include "npu/Device/DeviceModel.h"
#include "npu/Dialect/NPU/NPUDialect.h"
#include "npu/Dialect/NPU/NPUOps.h"

#include "mlir/Dialect/Utils/IndexingUtils.h"

#include <numeric>

using namespace mlir;
using namespace npu;
using namespace npu::graph;

namespace {

/// The `[-size, size)` range an index must fall in, for messages.
std::string rangeOf(int64_t size) {
  return "[-" + std::to_string(size) + ", " + std::to_string(size) + ")";
}

struct ScatterNDKernelModel
    : DeviceKernelOpInterface::ExternalModel<ScatterNDKernelModel,
                                             ScatterNDOp> {
  LogicalResult buildDeviceKernels(Operation *op, OpBuilder &b,
                                   const KernelOperands &io,
                                   const DeviceModel &device,
                                   const KernelOptions &) const {
    auto scatter = cast<ScatterNDOp>(op);
    ArrayRef<int64_t> data = scatter.getData().getType().getShape();
    ArrayRef<int64_t> indexShape = scatter.getIndices().getType().getShape();
    int64_t depth = indexShape.back();
    int64_t tuples = computeProduct(indexShape.drop_back());
    int64_t rows = computeProduct(data.take_front(depth));
    int64_t slice = computeProduct(data.drop_front(depth));
    KernelBuilder k(b, op->getLoc());
    if (rows * slice == 0)
      return success();
    buildCopy(k, io.operands[0], io.results[0], rows * slice, device,
              "scatter.copy");
    if (tuples * slice == 0)
      return success();
    Type element = scatter.getData().getType().getElementType();
    int64_t cols = std::min(slice, tileElements(device, element, 2));
    int64_t colTiles = llvm::divideCeil(slice, cols);
    int64_t tasks =
        std::min<int64_t>(device.getNumCores(dev::CoreKind::vector), colTiles);
    SmallVector<int64_t> strides = computeSuffixProduct(data.take_front(depth));
    std::string message = "'npu.scatter_nd' index tuple #{row} is outside "
                          "the data's leading dimensions [";
    llvm::interleave(
        data.take_front(depth),
        [&](int64_t d) { message += std::to_string(d); },
        [&] { message += ", "; });
    message += "] (each component c of a dimension of size n needs "
               "-n <= c < n)";
    dev::LaunchOp launch = k.launch(tasks, [&](Value task) {
      Value indices = k.reshape(io.operands[1], {tuples, depth});
      Value updates = k.reshape(io.operands[2], {tuples, slice});
      Value result = k.reshape(io.results[0], {rows, slice});
      Value tile = k.alloc({cols}, element);
      FirstBadIndex bad(k);
      OpFoldResult one = k.builder().getIndexAttr(1);
      k.forEachItem(task, tasks, colTiles, [&](Value t) {
        Value c0 = k.mul(t, k.index(cols));
        Value nc = k.min(k.index(cols), k.sub(k.index(slice), c0));
        k.forLoop(k.index(0), k.index(tuples), k.index(1), [&](Value j) {
          Value row = k.index(0),
                inside = k.constant(k.builder().getI1Type(), 1);
          for (int64_t d = 0; d < depth; ++d) {
            auto [wrapped, ok] =
                wrapIndex(k, k.load(indices, {j, k.index(d)}), data[d]);
            row = k.add(row, k.mul(wrapped, k.index(strides[d])));
            inside = k.andI(inside, ok);
          }
          k.ifThenElse(
              inside,
              [&] {
                Value staged = k.window(tile, {k.index(0)}, {nc});
                k.dma(k.window(updates, {j, c0}, {one, nc}, {0}), staged);
                k.dma(staged, k.window(result, {row, c0}, {one, nc}, {0}));
              },
              [&] { bad.record(j); });
        });
      });
      bad.report(message);
    });
    OpBuilder &builder = k.builder();
    KernelBuilder::recordTiling(
        launch,
        {builder.getNamedAttr("strategy", builder.getStringAttr("scatter_nd")),
         builder.getNamedAttr("tile", builder.getI64IntegerAttr(cols))});
    return success();
  }
};

struct ScatterKernelModel
    : DeviceKernelOpInterface::ExternalModel<ScatterKernelModel, ScatterOp> {
  LogicalResult buildDeviceKernels(Operation *op, OpBuilder &b,
                                   const KernelOperands &io,
                                   const DeviceModel &device,
                                   const KernelOptions &) const {
    auto scatter = cast<ScatterOp>(op);
    ArrayRef<int64_t> data = scatter.getData().getType().getShape();
    ArrayRef<int64_t> shape = scatter.getIndices().getType().getShape();
    int64_t rank = data.size();
    // The attribute is signed (the getter's uint64_t is not).
    int64_t axis = static_cast<int64_t>(scatter.getAxis());
    if (axis < 0)
      axis += rank;
    KernelBuilder k(b, op->getLoc());
    int64_t n = computeProduct(data);
    if (n == 0)
      return success();
    buildCopy(k, io.operands[0], io.results[0], n, device, "scatter.copy");
    int64_t along = shape[axis];
    int64_t positions = computeProduct(shape) / std::max<int64_t>(along, 1);
    if (positions * along == 0)
      return success();
    // Off-axis sizes (the axis as 1) for decoding a position.
    SmallVector<int64_t> offAxis(shape);
    offAxis[axis] = 1;
    Type element = scatter.getData().getType().getElementType();
    int64_t tasks =
        std::min<int64_t>(device.getNumCores(dev::CoreKind::vector), positions);
    std::string message = "'npu.scatter' index #{row} is outside " +
                          rangeOf(data[axis]) + " along axis " +
                          std::to_string(axis);
    dev::LaunchOp launch = k.launch(tasks, [&](Value task) {
      Value staged = k.alloc({1}, element);
      FirstBadIndex bad(k);
      OpFoldResult one = k.builder().getIndexAttr(1);
      // One element, viewed as [1] like the staging buffer.
      SmallVector<OpFoldResult> ones(rank, one);
      SmallVector<unsigned> leading(rank - 1);
      std::iota(leading.begin(), leading.end(), 0);
      SmallVector<int64_t> linear = computeSuffixProduct(shape);
      k.forEachItem(task, tasks, positions, [&](Value p) {
        SmallVector<Value> at = k.delinearize(p, offAxis);
        k.forLoop(k.index(0), k.index(along), k.index(1), [&](Value i) {
          at[axis] = i;
          auto [target, inside] =
              wrapIndex(k, k.load(io.operands[1], at), data[axis]);
          k.ifThenElse(
              inside,
              [&] {
                SmallVector<Value> to(at);
                to[axis] = target;
                k.dma(k.window(io.operands[2], at, ones, leading), staged);
                k.dma(staged, k.window(io.results[0], to, ones, leading));
              },
              [&] {
                Value flat = k.index(0);
                for (int64_t d = 0; d < rank; ++d)
                  flat = k.add(flat, k.mul(at[d], k.index(linear[d])));
                bad.record(flat);
              });
        });
      });
      bad.report(message);
    });
    OpBuilder &builder = k.builder();
    KernelBuilder::recordTiling(
        launch,
        {builder.getNamedAttr("strategy", builder.getStringAttr("scatter"))});
    return success();
  }
};

} // namespace

void npu::registerScatterKernelModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, NPUDialect *) {
    ScatterNDOp::attachInterface<ScatterNDKernelModel>(*ctx);
    ScatterOp::attachInterface<ScatterKernelModel>(*ctx);
  });
}
