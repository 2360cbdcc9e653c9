//===- TopKKernels.cpp - npu.topk on the vector cores ---------------------===//
//
// The input is viewed as [A, L, B] around its axis; each of the A x B rows
// of L elements is a work item, dealt to the vector tasks in turn. A row is
// cut into tiles of at most T elements (as many as vector memory holds
// beside the running result). Per tile: copy it on chip (negated when the
// largest are wanted, so that an ascending sort puts them first), number
// its elements with their positions in the row, and sort the keys with
// their numbers (npudev.vsort, stable). The first tile's first k elements
// start the row's running top k; each later tile's sorted prefix is merged
// into it (npudev.vmerge, the running run first, so that equal keys keep
// the lower position first) and the merge's first k kept. Work
// O(A B L log T + A B (L / T) k); every input element crosses DMA once, the
// results once. T must be at least k: a k too large for vector memory is a
// diagnostic naming the sizes.
//
//===----------------------------------------------------------------------===//

#include "OperatorKernels.h"

#include "npu/Conversion/DeviceKernelOpInterface.h"
#include "npu/Device/DeviceModel.h"
#include "npu/Dialect/NPU/NPUDialect.h"
#include "npu/Dialect/NPU/NPUOps.h"
#include "npu/Dialect/NPUDev/KernelBuilder.h"

using namespace mlir;
using namespace npu;
using namespace npu::graph;

namespace {

/// A row's sorted keys and positions: rank-1 on-chip windows of one length.
struct SortedRun {
  Value keys, positions;
};

class TopKKernel {
public:
  TopKKernel(KernelBuilder &k, TopKOp op, const KernelOperands &io,
             const DeviceModel &device)
      : k(k), op(op), io(io), device(device) {
    ArrayRef<int64_t> shape = op.getInput().getType().getShape();
    int64_t axis = op.getAxis();
    outer = product(shape.take_front(axis));
    length = shape[axis];
    inner = product(shape.drop_front(axis + 1));
    topk = op.getK();
    element = op.getInput().getType().getElementType();
    position = k.builder().getI32Type();
  }

  /// One tile per row when it fits beside the staged results, else tiles
  /// as long as vector memory allows beside the running result, all of
  /// one length but the last.
  LogicalResult chooseTile() {
    if (length > std::numeric_limits<int32_t>::max())
      return op.emitOpError("cannot be lowered to the device: rows of ")
             << length << " elements are numbered in i32";
    int64_t eb = element.getIntOrFloatBitWidth() / 8;
    // Per tile element: its copy (when negated), keys, sorted keys and two
    // position buffers. Per result element: the staged value and index;
    // with several tiles also the running result and the merge's output
    // (k + at most k).
    int64_t perElement = (op.getLargest() ? 3 : 2) * eb + 8;
    int64_t staged = topk * (eb + 8), running = 3 * topk * (eb + 4);
    if (length * perElement + staged <= device.vectorBytes) {
      tile = length;
      return success();
    }
    int64_t most = (device.vectorBytes - staged - running) / perElement;
    if (most < topk || most < 1)
      return op.emitOpError("cannot be lowered for device '")
             << device.name << "': k = " << topk << " of rows of " << length
             << " " << element << " elements needs "
             << staged + running + std::max<int64_t>(topk, 1) * perElement
             << " bytes of vector memory, the device has "
             << device.vectorBytes;
    tile = llvm::divideCeil(length, llvm::divideCeil(length, most));
    return success();
  }

  void build() {
    int64_t rows = outer * inner;
    int64_t tasks =
        std::min<int64_t>(device.getNumCores(dev::CoreKind::vector), rows);
    Value input = k.reshape(io.operands[0], {outer, length, inner});
    Value values = k.reshape(io.results[0], {outer, topk, inner});
    Value indices = k.reshape(io.results[1], {outer, topk, inner});
    dev::LaunchOp launch = k.launch(tasks, [&](Value task) {
      allocateBuffers();
      k.forEachItem(task, tasks, rows, [&](Value item) {
        SmallVector<Value> at = k.delinearize(item, {outer, inner});
        SortedRun top = selectRow(rowWindow(input, at, k.index(0), length));
        storeRow(top, rowWindow(values, at, k.index(0), topk),
                 rowWindow(indices, at, k.index(0), topk));
      });
    });
    OpBuilder &b = k.builder();
    KernelBuilder::recordTiling(
        launch,
        {b.getNamedAttr("strategy", b.getStringAttr("topk")),
         b.getNamedAttr("tile", b.getI64IntegerAttr(tile)),
         b.getNamedAttr("tiles_per_row",
                        b.getI64IntegerAttr(llvm::divideCeil(length, tile)))});
  }

private:
  static int64_t product(ArrayRef<int64_t> dims) {
    int64_t p = 1;
    for (int64_t d : dims)
      p *= d;
    return p;
  }

  void allocateBuffers() {
    if (op.getLargest())
      copied = k.alloc({tile}, element);
    keys = k.alloc({tile}, element);
    sortedKeys = k.alloc({tile}, element);
    positions = k.alloc({tile}, position);
    sortedPositions = k.alloc({tile}, position);
    if (tile < length) {
      int64_t merged = topk + std::min(topk, tile);
      run = {k.alloc({topk}, element), k.alloc({topk}, position)};
      mergedRun = {k.alloc({merged}, element), k.alloc({merged}, position)};
    }
    stagedValues = k.alloc({topk}, element);
    stagedIndices = k.alloc({topk}, k.builder().getI64Type());
  }

  /// Elements [start, start + size) of row `at` of an [A, *, B] memref.
  Value rowWindow(Value memref, ArrayRef<Value> at, Value start, int64_t size) {
    OpBuilder &b = k.builder();
    return k.window(
        memref, {at[0], start, at[1]},
        {b.getIndexAttr(1), b.getIndexAttr(size), b.getIndexAttr(1)}, {0, 2});
  }

  /// The first `size` elements of an on-chip buffer.
  Value prefix(Value buffer, int64_t size) {
    return k.window(buffer, {k.index(0)}, {k.builder().getIndexAttr(size)});
  }
  SortedRun prefix(SortedRun run, int64_t size) {
    return {prefix(run.keys, size), prefix(run.positions, size)};
  }

  /// The row's top k, in the order the results take them.
  SortedRun selectRow(Value row) {
    if (tile >= length)
      return prefix(sortTile(row, k.index(0), length), topk);
    SortedRun first = prefix(sortTile(row, k.index(0), tile), topk);
    copyRun(first, run);
    int64_t full = length / tile, rest = length % tile;
    k.forLoop(k.index(1), k.index(full), k.index(1),
              [&](Value t) { mergeTile(row, k.mul(t, k.index(tile)), tile); });
    if (rest)
      mergeTile(row, k.index(full * tile), rest);
    return run;
  }

  /// Sorts elements [start, start + size) of `row` with their positions.
  SortedRun sortTile(Value row, Value start, int64_t size) {
    Value tileKeys = prefix(keys, size);
    Value source = k.window(row, {start}, {k.builder().getIndexAttr(size)});
    if (op.getLargest()) {
      k.dma(source, prefix(copied, size));
      k.vunary(dev::UnaryKind::neg, prefix(copied, size), tileKeys);
    } else {
      k.dma(source, tileKeys);
    }
    k.iota(prefix(positions, size), start);
    SortedRun sorted = {prefix(sortedKeys, size),
                        prefix(sortedPositions, size)};
    k.builder().create<dev::VSortOp>(k.location(), tileKeys, sorted.keys,
                                     prefix(positions, size), sorted.positions);
    return sorted;
  }

  /// Folds a tile into the running top k.
  void mergeTile(Value row, Value start, int64_t size) {
    SortedRun sorted = prefix(sortTile(row, start, size), std::min(topk, size));
    SortedRun out = prefix(mergedRun, topk + std::min(topk, size));
    k.builder().create<dev::VMergeOp>(k.location(), run.keys, sorted.keys,
                                      out.keys, run.positions, sorted.positions,
                                      out.positions);
    copyRun(prefix(out, topk), run);
  }

  /// On-chip copy of k keys and positions (a multiply by one keeps every
  /// float's bits, NaN payloads and the sign of zero included).
  void copyRun(SortedRun from, SortedRun to) {
    k.vbinaryScalar(dev::BinaryKind::mul, from.keys,
                    k.floatConstant(element, 1.0), to.keys);
    k.vbinaryScalar(dev::BinaryKind::add, from.positions,
                    k.constant(position, 0), to.positions);
  }

  /// Writes the row's results: values negated back, positions as i64.
  void storeRow(SortedRun top, Value values, Value indices) {
    Value out = top.keys;
    if (op.getLargest()) {
      k.vunary(dev::UnaryKind::neg, top.keys, stagedValues);
      out = stagedValues;
    }
    k.vcast(top.positions, stagedIndices);
    k.dma(out, values);
    k.dma(stagedIndices, indices);
  }

  KernelBuilder &k;
  TopKOp op;
  const KernelOperands &io;
  const DeviceModel &device;
  int64_t outer, length, inner, topk, tile = 1;
  Type element, position;
  Value copied, keys, sortedKeys, positions, sortedPositions;
  Value stagedValues, stagedIndices;
  SortedRun run, mergedRun;
};

struct TopKKernelModel
    : DeviceKernelOpInterface::ExternalModel<TopKKernelModel, TopKOp> {
  LogicalResult buildDeviceKernels(Operation *op, OpBuilder &b,
                                   const KernelOperands &io,
                                   const DeviceModel &device,
                                   const KernelOptions &) const {
    auto topk = cast<TopKOp>(op);
    // Empty results (k = 0, or no rows) have nothing to compute.
    if (topk.getValues().getType().getNumElements() == 0)
      return success();
    KernelBuilder k(b, op->getLoc());
    TopKKernel kernel(k, topk, io, device);
    if (failed(kernel.chooseTile()))
      return failure();
    kernel.build();
    return success();
  }
};

} // namespace

void npu::registerTopKKernelModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, NPUDialect *) {
    TopKOp::attachInterface<TopKKernelModel>(*ctx);
  });
}
