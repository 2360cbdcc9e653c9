//===- DataMovementKernels.cpp - concat, slice and pad as copies ----------===//
//
// The data movement ops move boxes of elements (buildBoxCopy): concat copies
// each input into its place along the axis, slice copies the box it takes
// (every step-th element), pad fills the result with its value
// (buildFill) and copies the input inside the border. gather, with data
// viewed as [A, N, B] and its result as [A, I, B], copies row (a, index
// i) for each (a, i), the index read by the scalar unit; an index outside
// [-N, N) fails the kernel naming it (npudev.report_rows) instead of
// reading outside the data. A box copy is one
// vector launch over [R, C] tiles of the box's last two dimensions, the
// others fixed per tile, dealt in turn: a strided window in, the same tile
// out, a plain tile loop that npu-pipeline-dma-loops pipelines. Work
// O(elements moved).
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

static int64_t elementBytes(Type type) {
  return llvm::divideCeil(type.getIntOrFloatBitWidth(), 8);
}

int64_t npu::tileElements(const DeviceModel &device, Type element,
                          int64_t copies) {
  int64_t fits = std::max<int64_t>(
      device.vectorBytes / (copies * elementBytes(element)), 1);
  return int64_t(1) << llvm::Log2_64(fits);
}

void npu::buildCopy(KernelBuilder &k, Value src, Value dst, int64_t n,
                    const DeviceModel &device, StringRef strategy) {
  Box box{k.reshape(src, {1, n}),
          k.reshape(dst, {1, n}),
          {0, 0},
          {1, 1},
          {0, 0},
          {1, n}};
  buildBoxCopy(k, box, device, strategy);
}

void npu::buildWholeCopy(KernelBuilder &k, Value src, Value dst,
                         const DeviceModel &device, StringRef strategy) {
  ArrayRef<int64_t> shape = cast<MemRefType>(src.getType()).getShape();
  SmallVector<int64_t> rows(shape);
  if (!shape.empty() && computeProduct(shape) != 0) {
    rows =
        SmallVector<int64_t>{computeProduct(shape.drop_back()), shape.back()};
    src = k.reshape(src, rows);
    dst = k.reshape(dst, rows);
  }
  SmallVector<int64_t> zeros(rows.size(), 0), ones(rows.size(), 1);
  buildBoxCopy(k, Box{src, dst, zeros, ones, zeros, rows}, device, strategy);
}

std::pair<Value, Value> npu::wrapIndex(KernelBuilder &k, Value raw,
                                       int64_t size) {
  Value index = k.toIndex(raw), zero = k.index(0);
  Value wrapped =
      k.select(k.lt(index, zero), k.add(index, k.index(size)), index);
  return {wrapped, k.andI(k.ge(wrapped, zero), k.lt(wrapped, k.index(size)))};
}

FirstBadIndex::FirstBadIndex(KernelBuilder &k) : k(k) {
  bad = k.alloc({1}, k.builder().getI64Type());
  k.vfill(bad, -1);
}

void FirstBadIndex::record(Value position) {
  Type i64 = k.builder().getI64Type();
  Value zero = k.index(0);
  Value first = k.load(bad, {zero});
  Value none = k.lt(first, k.constant(i64, 0));
  Value at =
      k.builder().create<arith::IndexCastOp>(k.location(), i64, position);
  k.store(k.select(none, at, first), bad, {zero});
}

void FirstBadIndex::report(StringRef message) { k.reportRows(bad, message); }

void npu::buildFill(KernelBuilder &k, Value buffer, int64_t n, Value value,
                    const DeviceModel &device, StringRef strategy) {
  Type element = value.getType();
  // As large as fits, but no more than a task's share unless that is
  // under 512 elements (a copy's fixed cost would dominate).
  int64_t cores = device.getNumCores(dev::CoreKind::vector);
  int64_t share = std::max<int64_t>(llvm::divideCeil(n, cores), 512);
  int64_t tile =
      std::min<int64_t>({n, share, tileElements(device, element, 1)});
  int64_t tiles = llvm::divideCeil(n, tile);
  int64_t tasks = std::min(cores, tiles);
  dev::LaunchOp launch = k.launch(tasks, [&](Value task) {
    Value filled = k.alloc({tile}, element);
    k.vfill(filled, value);
    k.forEachItem(task, tasks, tiles, [&](Value t) {
      Value start = k.mul(t, k.index(tile));
      Value size = k.min(k.index(tile), k.sub(k.index(n), start));
      k.dma(k.window(filled, {k.index(0)}, {size}),
            k.window(buffer, {start}, {size}));
    });
  });
  OpBuilder &b = k.builder();
  KernelBuilder::recordTiling(
      launch, {b.getNamedAttr("strategy", b.getStringAttr(strategy)),
               b.getNamedAttr("tile", b.getI64IntegerAttr(tile))});
}

void npu::buildBoxCopy(KernelBuilder &k, const Box &box,
                       const DeviceModel &device, StringRef strategy) {
  int64_t rank = box.sizes.size();
  int64_t total = std::accumulate(box.sizes.begin(), box.sizes.end(),
                                  int64_t(1), std::multiplies<int64_t>());
  if (total == 0)
    return;
  Type element = cast<MemRefType>(box.src.getType()).getElementType();
  if (rank == 0) {
    k.store(k.load(box.src, {}), box.dst, {});
    return;
  }
  // The tile's rows and columns: the box's last two dimensions (a rank-1
  // box is one row).
  int64_t colDim = rank - 1, rowDim = rank >= 2 ? rank - 2 : -1;
  int64_t chunk = tileElements(device, element, 2);
  int64_t cols = std::min(box.sizes[colDim], chunk);
  int64_t rowsOfBox = rowDim >= 0 ? box.sizes[rowDim] : 1;
  int64_t rows = std::min(rowsOfBox, std::max<int64_t>(1, chunk / cols));
  int64_t colTiles = llvm::divideCeil(box.sizes[colDim], cols);
  int64_t planes = total / (box.sizes[colDim] * rowsOfBox);
  // Shorter tiles when the box has fewer than a tile per core, down to 512
  // elements (below that a copy's fixed cost dominates).
  int64_t cores = device.getNumCores(dev::CoreKind::vector);
  if (planes * colTiles < cores) {
    int64_t share = llvm::divideCeil(rowsOfBox * planes * colTiles, cores);
    rows =
        std::min(rows, std::max<int64_t>(share, llvm::divideCeil(512, cols)));
  }
  int64_t rowTiles = llvm::divideCeil(rowsOfBox, rows);
  int64_t tiles = planes * rowTiles * colTiles;
  int64_t tasks = std::min(cores, tiles);
  dev::LaunchOp launch = k.launch(tasks, [&](Value task) {
    Value tile = k.alloc({rows, cols}, element);
    k.forEachItem(task, tasks, tiles, [&](Value t) {
      // Digits: the fixed dimensions outermost first, then the row and the
      // column tile.
      SmallVector<int64_t> radix;
      for (int64_t d = 0; d < rank; ++d)
        if (d != colDim && d != rowDim)
          radix.push_back(box.sizes[d]);
      radix.append({rowTiles, colTiles});
      SmallVector<Value> digits = k.delinearize(t, radix);
      Value c0 = k.mul(digits.pop_back_val(), k.index(cols));
      Value r0 = k.mul(digits.pop_back_val(), k.index(rows));
      Value nc = k.min(k.index(cols), k.sub(k.index(box.sizes[colDim]), c0));
      Value nr = k.min(k.index(rows), k.sub(k.index(rowsOfBox), r0));
      // Per dimension: the box coordinate of the tile's first element.
      SmallVector<Value> at(rank);
      SmallVector<OpFoldResult> sizes(rank, k.builder().getIndexAttr(1));
      SmallVector<unsigned> fixed;
      for (int64_t d = rank - 1; d >= 0; --d) {
        if (d == colDim) {
          at[d] = c0;
          sizes[d] = nc;
        } else if (d == rowDim) {
          at[d] = r0;
          sizes[d] = nr;
        } else {
          at[d] = digits.pop_back_val();
          fixed.push_back(d);
        }
      }
      llvm::sort(fixed);
      SmallVector<Value> srcAt, dstAt;
      for (int64_t d = 0; d < rank; ++d) {
        Value stepped = k.mul(at[d], k.index(box.srcSteps[d]));
        srcAt.push_back(k.add(stepped, k.index(box.srcOffsets[d])));
        dstAt.push_back(k.add(at[d], k.index(box.dstOffsets[d])));
      }
      Value zero = k.index(0);
      Value staged = rowDim >= 0
                         ? k.window(tile, {zero, zero}, {nr, nc})
                         : k.window(tile, {zero, zero},
                                    {k.builder().getIndexAttr(1), nc}, {0});
      k.dma(k.window(box.src, srcAt, sizes, box.srcSteps, fixed), staged);
      k.dma(staged, k.window(box.dst, dstAt, sizes, fixed));
    });
  });
  OpBuilder &b = k.builder();
  KernelBuilder::recordTiling(
      launch, {b.getNamedAttr("strategy", b.getStringAttr(strategy)),
               b.getNamedAttr("tile_rows", b.getI64IntegerAttr(rows)),
               b.getNamedAttr("tile_cols", b.getI64IntegerAttr(cols))});
}

namespace {

SmallVector<int64_t> zeros(int64_t rank) {
  return SmallVector<int64_t>(rank, 0);
}
SmallVector<int64_t> ones(int64_t rank) {
  return SmallVector<int64_t>(rank, 1);
}

ArrayRef<int64_t> shapeOf(Value memref) {
  return cast<MemRefType>(memref.getType()).getShape();
}

struct ConcatKernelModel
    : DeviceKernelOpInterface::ExternalModel<ConcatKernelModel, ConcatOp> {
  bool readsAlignedStorage(Operation *, Value) const { return true; }
  LogicalResult buildDeviceKernels(Operation *op, OpBuilder &b,
                                   const KernelOperands &io,
                                   const DeviceModel &device,
                                   const KernelOptions &) const {
    auto concat = cast<ConcatOp>(op);
    int64_t rank = concat.getOutput().getType().getRank();
    // The verifier admits no negative axis here.
    int64_t axis = concat.getAxis();
    KernelBuilder k(b, op->getLoc());
    int64_t offset = 0;
    for (Value input : io.operands) {
      Box box;
      box.src = input;
      box.dst = io.results[0];
      box.sizes.assign(shapeOf(input).begin(), shapeOf(input).end());
      box.srcOffsets = zeros(rank);
      box.srcSteps = ones(rank);
      box.dstOffsets = zeros(rank);
      box.dstOffsets[axis] = offset;
      offset += box.sizes[axis];
      buildBoxCopy(k, box, device, "concat");
    }
    return success();
  }
};

struct SliceKernelModel
    : DeviceKernelOpInterface::ExternalModel<SliceKernelModel, SliceOp> {
  bool readsAlignedStorage(Operation *, Value) const { return true; }
  LogicalResult buildDeviceKernels(Operation *op, OpBuilder &b,
                                   const KernelOperands &io,
                                   const DeviceModel &device,
                                   const KernelOptions &) const {
    auto slice = cast<SliceOp>(op);
    int64_t rank = slice.getOutput().getType().getRank();
    Box box;
    box.src = io.operands[0];
    box.dst = io.results[0];
    box.sizes.assign(shapeOf(box.dst).begin(), shapeOf(box.dst).end());
    box.srcOffsets.assign(slice.getStart().begin(), slice.getStart().end());
    box.srcSteps = ones(rank);
    if (std::optional<ArrayRef<int64_t>> steps = slice.getStrides())
      box.srcSteps.assign(steps->begin(), steps->end());
    box.dstOffsets = zeros(rank);
    KernelBuilder k(b, op->getLoc());
    buildBoxCopy(k, box, device, "slice");
    return success();
  }
};

struct PadKernelModel
    : DeviceKernelOpInterface::ExternalModel<PadKernelModel, PadOp> {
  /// The input is read in place; the result is filled as one flat run,
  /// which padded rows are not.
  bool readsAlignedStorage(Operation *op, Value value) const {
    return value == op->getOperand(0);
  }

  LogicalResult buildDeviceKernels(Operation *op, OpBuilder &b,
                                   const KernelOperands &io,
                                   const DeviceModel &device,
                                   const KernelOptions &) const {
    auto pad = cast<PadOp>(op);
    auto resultType = pad.getOutput().getType();
    int64_t rank = resultType.getRank(), n = resultType.getNumElements();
    if (n == 0)
      return success();
    Type element = resultType.getElementType();
    KernelBuilder k(b, op->getLoc());
    double padValue = pad.getValue().convertToDouble();
    Value value = isa<FloatType>(element)
                      ? k.floatConstant(element, padValue)
                      : k.constant(element, static_cast<int64_t>(padValue));
    if (rank == 0) {
      k.store(k.load(io.operands[0], {}), io.results[0], {});
      return success();
    }
    Value flat = io.results[0];
    if (rank != 1) {
      ReassociationIndices all(rank);
      std::iota(all.begin(), all.end(), 0);
      flat = k.builder().create<memref::CollapseShapeOp>(
          k.location(), flat, ArrayRef<ReassociationIndices>{all});
    }
    buildFill(k, flat, n, value, device, "pad");
    Box box;
    box.src = io.operands[0];
    box.dst = io.results[0];
    box.sizes.assign(shapeOf(box.src).begin(), shapeOf(box.src).end());
    box.srcOffsets = zeros(rank);
    box.srcSteps = ones(rank);
    box.dstOffsets.assign(pad.getPadLow().begin(), pad.getPadLow().end());
    buildBoxCopy(k, box, device, "pad");
    return success();
  }
};

struct GatherKernelModel
    : DeviceKernelOpInterface::ExternalModel<GatherKernelModel, GatherOp> {
  LogicalResult buildDeviceKernels(Operation *op, OpBuilder &b,
                                   const KernelOperands &io,
                                   const DeviceModel &device,
                                   const KernelOptions &) const {
    auto gather = cast<GatherOp>(op);
    ArrayRef<int64_t> data = gather.getData().getType().getShape();
    int64_t rank = data.size();
    // The attribute is signed (the getter's uint64_t is not).
    int64_t axis = static_cast<int64_t>(gather.getAxis());
    if (axis < 0)
      axis += rank;
    int64_t outer = 1, inner = 1, n = data[axis];
    for (int64_t d = 0; d < rank; ++d)
      (d < axis ? outer : inner) *= d == axis ? 1 : data[d];
    int64_t count = gather.getIndices().getType().getNumElements();
    if (outer * count * inner == 0)
      return success();
    Type element = gather.getData().getType().getElementType();
    int64_t cols = std::min(inner, tileElements(device, element, 2));
    int64_t colTiles = llvm::divideCeil(inner, cols);
    int64_t items = outer * count * colTiles;
    int64_t tasks =
        std::min<int64_t>(device.getNumCores(dev::CoreKind::vector), items);
    KernelBuilder k(b, op->getLoc());
    dev::LaunchOp launch = k.launch(tasks, [&](Value task) {
      Value source = k.reshape(io.operands[0], {outer, n, inner});
      // A rank-0 index is read as it is.
      bool scalarIndex =
          cast<MemRefType>(io.operands[1].getType()).getRank() == 0;
      Value indices =
          scalarIndex ? io.operands[1] : k.reshape(io.operands[1], {count});
      Value result = k.reshape(io.results[0], {outer, count, inner});
      Value tile = k.alloc({cols}, element);
      FirstBadIndex bad(k);
      Value zero = k.index(0);
      k.forEachItem(task, tasks, items, [&](Value t) {
        Value c0 = k.mul(k.rem(t, k.index(colTiles)), k.index(cols));
        Value rest = k.div(t, k.index(colTiles));
        Value i = k.rem(rest, k.index(count));
        Value a = k.div(rest, k.index(count));
        auto [wrapped, inside] = wrapIndex(
            k, k.load(indices, scalarIndex ? ValueRange{} : ValueRange{i}), n);
        Value nc = k.min(k.index(cols), k.sub(k.index(inner), c0));
        k.ifThenElse(
            inside,
            [&] {
              OpFoldResult one = k.builder().getIndexAttr(1);
              Value staged = k.window(tile, {zero}, {nc});
              k.dma(k.window(source, {a, wrapped, c0}, {one, one, nc}, {0, 1}),
                    staged);
              k.dma(staged,
                    k.window(result, {a, i, c0}, {one, one, nc}, {0, 1}));
            },
            [&] { bad.record(i); });
      });
      bad.report(("'npu.gather' index #{row} is outside [-" + Twine(n) + ", " +
                  Twine(n) + ")")
                     .str());
    });
    OpBuilder &builder = k.builder();
    KernelBuilder::recordTiling(
        launch,
        {builder.getNamedAttr("strategy", builder.getStringAttr("gather")),
         builder.getNamedAttr("tile", builder.getI64IntegerAttr(cols))});
    return success();
  }
};

/// channel_norm moves the value between dense and padded rows: a box copy
/// of all of it, whose tiles read rows of one layout and write rows of the
/// other. The padding of an aligned result is left as it was; no kernel
/// reads it.
struct ChannelNormKernelModel
    : DeviceKernelOpInterface::ExternalModel<ChannelNormKernelModel,
                                             ChannelNormOp> {
  bool readsAlignedStorage(Operation *, Value) const { return true; }

  LogicalResult buildDeviceKernels(Operation *op, OpBuilder &b,
                                   const KernelOperands &io,
                                   const DeviceModel &device,
                                   const KernelOptions &) const {
    KernelBuilder k(b, op->getLoc());
    buildWholeCopy(k, io.operands[0], io.results[0], device, "channel_norm");
    return success();
  }
};

} // namespace

void npu::registerDataMovementKernelModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, NPUDialect *) {
    ConcatOp::attachInterface<ConcatKernelModel>(*ctx);
    SliceOp::attachInterface<SliceKernelModel>(*ctx);
    PadOp::attachInterface<PadKernelModel>(*ctx);
    GatherOp::attachInterface<GatherKernelModel>(*ctx);
    ChannelNormOp::attachInterface<ChannelNormKernelModel>(*ctx);
  });
}
