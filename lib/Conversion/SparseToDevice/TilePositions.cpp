//===- TilePositions.cpp - nonzero loops as gathered 2-D tiles ------------===//
//
// npu-sparse-tile-positions, after npu-sparse-lower-iterations and before
// npu-sparse-tile-dense-axis. It takes a loop over the positions t in
// [0, n) of a sparse axis (a row's nonzeros) whose body holds one loop
// over a dense axis k in [0, F), and turns the pair into a loop over
// chunks of T positions that works on [T, F] tiles:
//   - each array the outer body reads at base + t (the row's column
//     indices, A's values) is copied in by one DMA per chunk;
//   - a buffer the inner body reads at (c(t), k), c(t) a column index read
//     at t, comes in as the chunk's rows by one dma_gather;
//   - a buffer read at (..., k) with every other position fixed outside
//     the loops is one row [F], copied in before the chunks;
//   - each f32 op is one vector op over the chunk's [m, F] tiles, a row
//     broadcast along the tiles' rows, a value read at t along their
//     columns, a value fixed outside the loops as a scalar;
//   - a sum over t into a row fixed outside (SpMM's x[i, :] += a y[j, :])
//     stays in one row tile across the chunks: per chunk, the row above
//     the chunk's terms, one transpose and one vreduce along t;
//   - a sum over k carried by the inner loop from a value read at t to one
//     stored at t (SDDMM's a[p] = sum_k x[i, k] y[j, k]): per chunk, the
//     starts in a column before the terms and one vreduce along k; their
//     copy in is marked private_window (a CSR row's run is its own).
// An empty chunk skips the vector work. The first chunk is emitted in the
// loop around (the row loop), the rest in a loop of their own, so that
// pipelining the row loop brings later rows' chunks in meanwhile.
// vreduce adds in order from +0.0, so each element sees the additions the
// loops made, in their order: the same bits (but for a sum that starts
// from -0.0). Per nonzero this replaces F-element vector ops with a share
// of a few [T, F] ops. O(ops) to rewrite.
//
//===----------------------------------------------------------------------===//

#include "CompactRows.h"
#include "TileSupport.h"
#include "npu/Conversion/Passes.h"
#include "npu/Dialect/NPUDev/DeviceAttr.h"
#include "npu/Dialect/NPUDev/KernelBuilder.h"
#include "npu/Dialect/NPUDev/NPUDevOps.h"
#include "npu/Dialect/NPUDev/Semantics.h"
#include "npu/Dialect/Sparse/AxisRuns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace npu {
#define GEN_PASS_DEF_SPARSETILEPOSITIONS
#include "npu/Conversion/Passes.h.inc"
} // namespace npu

using namespace mlir;
using namespace npu;
using namespace npu::sparse;

namespace {

/// The data of the buffer `value` is a view of.
Value getData(Value value) { return value.getDefiningOp<BufferOp>().getData(); }

/// Rows a compacted row loop lists at a time: the lists take 4 bytes a row
/// per read, and each block's listed rows are one pipeline (filled and
/// drained once).
constexpr int64_t kRowsPerList = 256;

/// How a value of the inner body varies: along t and k (a [T, F] tile),
/// along k only (a row), along t only (a column of the chunk), or not at
/// all (a scalar fixed outside the loops).
enum class Shape { tile, row, column, fixed };

/// An array read at base + t: its global memref, base, and the tile its
/// chunk is copied into.
struct Run {
  Value array, base, tile;
};

class PositionTiler {
public:
  PositionTiler(scf::ForOp outer, int64_t vectorBytes)
      : outer(outer), b(outer), loc(outer.getLoc()), k(b, loc),
        vectorBytes(vectorBytes) {}

  /// Whether the loop pair has the form above.
  bool matches();
  void rewrite();
  /// The loop of rows around, when a row with an empty run does nothing in
  /// it, and the run's length: compactRows' arguments, for after every
  /// tiler ran (it replaces that loop).
  std::optional<std::pair<IdleWhenEmptyRows, Value>> getCompaction() const {
    if (!idleRows)
      return std::nullopt;
    return std::pair(*idleRows, runLength);
  }

private:
  bool isOutside(Value v) const {
    return !outer->isAncestor(v.getParentBlock()->getParentOp());
  }
  /// `index` as base + t with base fixed outside, or null.
  Value matchRunIndex(Value index);
  /// Whether the sum over t's row is its row loop's own: x[i, :] with i
  /// the row loop's variable, so no two rows share it.
  bool isRowOfItsLoop(PosLoadOp load) const;
  bool matchOuterBody();
  bool matchInnerBody();
  /// Whether the inner loop carries nothing, or the sum over k from the
  /// element read at t to the same element stored.
  bool matchSumOverInner();
  /// Whether `load`, in the inner body, reads the sum over t's row: its
  /// only use is acc + v, stored back where it was read, and nothing else
  /// in the loops touches the row's data.
  bool matchSumOverPositions(PosLoadOp load);
  bool isWrittenInLoops(Value data);
  bool isGatherable(BufferOp buffer);
  Value allocTile(ArrayRef<int64_t> shape, Type element);
  /// Column 0 of the terms' tile filled once with the constant start: no
  /// chunk writes it.
  void fillStartColumn();
  /// How `v`, used in the inner body, varies.
  Shape getShape(Value v) const {
    return isOutside(v) ? Shape::fixed : shapeOf.lookup(v);
  }
  /// `op` as one vector op over the chunk's views `chunkOf`.
  void emitOp(Operation *op, const DenseMap<Value, Value> &chunkOf);
  /// The chunk of positions from c0.
  /// `mayBeEmpty`: the chunk may have no position (a row's first chunk,
  /// unless the rows are compacted), so its vector work goes under a check.
  void emitChunk(Value c0, bool mayBeEmpty);
  /// The chunk's vector work: its sum's terms and their reduction.
  void emitVectorWork(Value m, Value starts, Value results,
                      DenseMap<Value, Value> chunkOf);

  scf::ForOp outer, inner;
  OpBuilder b;
  Location loc;
  KernelBuilder k;
  int64_t vectorBytes;
  int64_t features = 0, chunk = 0;

  DenseMap<Value, Shape> shapeOf;
  /// Column indices read at t: the load's result, its run.
  DenseMap<Value, Run> coordinates;
  /// Values read at t (f32): the load's result, its run.
  DenseMap<Value, Run> columns;
  /// Rows read once.
  SmallVector<PosLoadOp> rows;
  /// Buffers gathered at (c(t), k): the load, and the column index c(t).
  SmallVector<std::pair<PosLoadOp, Value>> gathers;
  /// [T, F] tiles of the values computed per (t, k), gathered or not.
  DenseMap<Value, Value> tileOf;
  /// [F] tiles of the rows read once.
  DenseMap<Value, Value> rowTiles;
  /// Where the sum over k's results go, and its starts come from when
  /// they are read (`startLoad`; its tile is theirs).
  Run sumRun;

  /// The sum over t: x[..., k] = x[..., k] + v, kept in `accTile`.
  PosLoadOp accLoad;
  PosStoreOp accStore;
  /// The sum over k carried by the inner loop: acc' = acc + v, from the
  /// value read at t (`startLoad`) or a constant (`startConstant`: an
  /// init's fill that npu-sparse-lower-iterations started from) to the one
  /// stored at t (`resultStore`).
  PosLoadOp startLoad;
  Value startConstant;
  PosStoreOp resultStore;
  arith::AddFOp sum;
  Value sumTerm;
  /// The sum's tiles: the terms (with a row or column for the starts),
  /// their transpose, the running row, the results.
  Value termTile, transposeTile, accTile, resultTile;
  /// The row the sum over t reads and writes back: one view, so that
  /// pipelining sees the copy out write what the copy in read.
  Value accSlice;
  /// The row loop, when it may run at its non-empty rows only, and the
  /// run's length.
  std::optional<IdleWhenEmptyRows> idleRows;
  Value runLength;
};

bool PositionTiler::isRowOfItsLoop(PosLoadOp load) const {
  auto rowLoop = dyn_cast<scf::ForOp>(outer->getParentOp());
  auto buffer = load.getBuffer().getDefiningOp<BufferOp>();
  auto rowAxis = buffer.getAxes()[0].getDefiningOp<AxisOp>();
  return rowLoop && buffer.getAxes().size() == 2 && rowAxis &&
         rowAxis.getKind() == AxisKind::dense_fixed &&
         !rowAxis.getParentAxis() &&
         load.getPositions().front() == rowLoop.getInductionVar();
}

Value PositionTiler::matchRunIndex(Value index) {
  auto add = index.getDefiningOp<arith::AddIOp>();
  if (!add)
    return Value();
  Value t = outer.getInductionVar();
  if (add.getRhs() == t && isOutside(add.getLhs()))
    return add.getLhs();
  if (add.getLhs() == t && isOutside(add.getRhs()))
    return add.getRhs();
  return Value();
}

bool PositionTiler::isWrittenInLoops(Value data) {
  WalkResult walk = outer.getBody()->walk([&](Operation *op) {
    Value written;
    if (auto store = dyn_cast<PosStoreOp>(op))
      written = getData(store.getBuffer());
    else if (auto store = dyn_cast<memref::StoreOp>(op))
      written = store.getMemRef();
    return written == data ? WalkResult::interrupt() : WalkResult::advance();
  });
  return walk.wasInterrupted();
}

bool PositionTiler::isGatherable(BufferOp buffer) {
  // Rows of a dense [C, F] buffer: row c starts at c F.
  if (buffer.getAxes().size() != 2)
    return false;
  auto rowsAxis = buffer.getAxes()[0].getDefiningOp<AxisOp>();
  auto data = dyn_cast<MemRefType>(buffer.getData().getType());
  return rowsAxis && rowsAxis.getKind() == AxisKind::dense_fixed &&
         !rowsAxis.getParentAxis() && data && data.hasStaticShape() &&
         data.getNumElements() == rowsAxis.getLengthValue() * features &&
         !isWrittenInLoops(buffer.getData());
}

bool PositionTiler::matchSumOverInner() {
  if (!matchCarriedSum(inner, sum, sumTerm))
    return false;
  if (!sum)
    return true;
  // From the element read at t, or a constant, to the element stored at t.
  Value start = inner.getInitArgs()[0];
  Value result = inner.getResult(0);
  if (!result.hasOneUse())
    return false;
  resultStore = dyn_cast<PosStoreOp>(*result.getUsers().begin());
  if (!resultStore || resultStore->getBlock() != outer.getBody())
    return false;
  if (matchPattern(start, m_Constant()) && isOutside(start)) {
    startConstant = start;
    return true;
  }
  startLoad = start.getDefiningOp<PosLoadOp>();
  return startLoad && startLoad->hasOneUse() &&
         startLoad->getBlock() == outer.getBody() &&
         resultStore.getBuffer() == startLoad.getBuffer() &&
         resultStore.getPositions() == startLoad.getPositions();
}

bool PositionTiler::matchOuterBody() {
  Value t = outer.getInductionVar();
  for (Operation &op : outer.getBody()->without_terminator()) {
    if (&op == inner.getOperation() || isPure(&op))
      continue;
    if (auto load = dyn_cast<memref::LoadOp>(op)) {
      // A column index: base + t of a global rank-1 integer array, used only
      // as a gathered row (checked with the inner body).
      Value base = load.getIndices().size() == 1
                       ? matchRunIndex(load.getIndices()[0])
                       : Value();
      if (!base || !isOutside(load.getMemRef()) ||
          !isGlobal(load.getMemRef()) ||
          !load.getType().isSignlessInteger(32) || !load->hasOneUse() ||
          isWrittenInLoops(load.getMemRef()))
        return false;
      auto cast = dyn_cast<arith::IndexCastOp>(*load->getUsers().begin());
      if (!cast)
        return false;
      coordinates[cast.getResult()] = {load.getMemRef(), base, Value()};
      continue;
    }
    // A value read at (fixed..., t), or the sum's start or result there.
    Value buffer;
    ValueRange positions;
    if (auto load = dyn_cast<PosLoadOp>(op))
      std::tie(buffer, positions) =
          std::pair(load.getBuffer(), load.getPositions());
    else if (auto store = dyn_cast<PosStoreOp>(op))
      std::tie(buffer, positions) =
          std::pair(store.getBuffer(), store.getPositions());
    if (!buffer || positions.empty() || positions.back() != t ||
        !isGlobal(getData(buffer)) ||
        !llvm::all_of(positions.drop_back(),
                      [&](Value v) { return isOutside(v); }) ||
        !cast<BufferType>(buffer.getType()).getElementType().isF32())
      return false;
    if (&op == startLoad.getOperation() || &op == resultStore.getOperation())
      continue;
    auto load = dyn_cast<PosLoadOp>(op);
    if (!load || isWrittenInLoops(getData(buffer)))
      return false;
    columns[load.getResult()] = {};
    shapeOf[load.getResult()] = Shape::column;
  }
  return true;
}

bool PositionTiler::matchSumOverPositions(PosLoadOp load) {
  if (accLoad || !load->hasOneUse())
    return false;
  auto add = dyn_cast<arith::AddFOp>(*load->getUsers().begin());
  if (!add || !add->hasOneUse())
    return false;
  auto store = dyn_cast<PosStoreOp>(*add->getUsers().begin());
  if (!store || store.getBuffer() != load.getBuffer() ||
      store.getPositions() != load.getPositions())
    return false;
  // Nothing else in the loops touches the sum's data.
  Value data = getData(load.getBuffer());
  WalkResult walk = outer.getBody()->walk([&](Operation *op) {
    if (op == load.getOperation() || op == store.getOperation())
      return WalkResult::advance();
    for (Value operand : op->getOperands())
      if (auto buffer = operand.getDefiningOp<BufferOp>())
        if (buffer.getData() == data)
          return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return false;
  accLoad = load;
  accStore = store;
  sum = add;
  sumTerm = add.getLhs() == load.getResult() ? add.getRhs() : add.getLhs();
  return true;
}

bool PositionTiler::matchInnerBody() {
  Value kIndex = inner.getInductionVar();
  for (Operation &op : inner.getBody()->without_terminator()) {
    if (&op == sum.getOperation() || &op == accStore.getOperation())
      continue;
    if (auto load = dyn_cast<PosLoadOp>(op)) {
      ValueRange positions = load.getPositions();
      auto buffer = load.getBuffer().getDefiningOp<BufferOp>();
      auto last =
          buffer ? buffer.getAxes().back().getDefiningOp<AxisOp>() : AxisOp();
      if (positions.empty() || positions.back() != kIndex || !last ||
          !isGlobal(buffer.getData()) ||
          last.getKind() != AxisKind::dense_fixed ||
          last.getLengthValue() != features || !load.getType().isF32())
        return false;
      ValueRange leading = positions.drop_back();
      if (llvm::all_of(leading, [&](Value v) { return isOutside(v); })) {
        if (isWrittenInLoops(buffer.getData())) {
          if (!matchSumOverPositions(load))
            return false;
          continue;
        }
        rows.push_back(load);
        shapeOf[load.getResult()] = Shape::row;
        continue;
      }
      if (leading.size() != 1 || !coordinates.count(leading[0]) ||
          !isGatherable(buffer))
        return false;
      gathers.push_back({load, leading[0]});
      shapeOf[load.getResult()] = Shape::tile;
      continue;
    }
    std::optional<dev::BinaryKind> kind = dev::getBinaryKind(&op);
    if (!kind || !op.getResult(0).getType().isF32())
      return false;
    // One operand a tile; the other a tile or broadcast on the right.
    for (Value v : op.getOperands())
      if (!isOutside(v) && !shapeOf.count(v))
        return false;
    Shape lhs = getShape(op.getOperand(0)), rhs = getShape(op.getOperand(1));
    if (lhs != Shape::tile &&
        (rhs != Shape::tile || !dev::isCommutative(*kind)))
      return false;
    shapeOf[op.getResult(0)] = Shape::tile;
  }
  // Exactly one sum, of a tile.
  return sum && (accLoad.getOperation() != nullptr) != (!!resultStore) &&
         shapeOf.lookup(sumTerm) == Shape::tile && sumTerm.hasOneUse();
}

bool PositionTiler::matches() {
  std::optional<int64_t> lower = getConstantIntValue(outer.getLowerBound());
  std::optional<int64_t> step = getConstantIntValue(outer.getStep());
  if (!lower || *lower != 0 || !step || *step != 1 ||
      !outer.getInitArgs().empty())
    return false;
  auto loops = outer.getBody()->getOps<scf::ForOp>();
  if (std::distance(loops.begin(), loops.end()) != 1)
    return false;
  inner = *loops.begin();
  // npu-sparse-lower-iterations leaves dead index arithmetic and constants
  // in the bodies.
  for (Block *body : {inner.getBody(), outer.getBody()})
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(*body))) {
      if (isOpTriviallyDead(&op))
        op.erase();
      else if (op.hasTrait<OpTrait::ConstantLike>())
        op.moveBefore(outer);
    }
  std::optional<int64_t> innerLower =
      getConstantIntValue(inner.getLowerBound());
  std::optional<int64_t> upper = getConstantIntValue(inner.getUpperBound());
  std::optional<int64_t> innerStep = getConstantIntValue(inner.getStep());
  if (!innerLower || *innerLower != 0 || !upper || *upper <= 0 || !innerStep ||
      *innerStep != 1 ||
      llvm::any_of(inner.getBody()->getOperations(),
                   [](Operation &op) { return op.getNumRegions() > 0; }))
    return false;
  features = *upper;
  if (!matchSumOverInner() || !matchOuterBody() || !matchInnerBody())
    return false;
  // Every column index is gathered by; every value read at t used only in
  // the inner body.
  for (auto &[coordinate, run] : coordinates)
    if (llvm::any_of(coordinate.getUsers(), [&](Operation *user) {
          return !llvm::any_of(gathers,
                               [&](auto &g) { return g.first == user; });
        }))
      return false;
  for (auto &[value, run] : columns)
    if (llvm::any_of(value.getUsers(), [&](Operation *user) {
          return user->getBlock() != inner.getBody();
        }))
      return false;
  // T: the tiles in half the vector memory (other loops of the launch
  // get tiles too), at most 1024 positions. Per position: a row of F in
  // each of the sum's tiles (at most three) and of each tile in shapeOf
  // (the gathered rows among them), and the runs' scalars.
  int64_t perPosition =
      4 * features * 3 + 4 * (columns.size() + coordinates.size() + 2);
  for (auto &[value, shape] : shapeOf)
    perPosition += shape == Shape::tile ? 4 * features : 0;
  chunk = std::min<int64_t>(1024, (vectorBytes / 2 - 8 * features) /
                                      std::max<int64_t>(1, perPosition));
  if (chunk < 1)
    return false;
  // Rows listed by a loop that reads indptr: their sum's row (or run of
  // starts) must be theirs alone, so that it may be read ahead of the
  // rows before it.
  if (!accLoad || isRowOfItsLoop(accLoad))
    idleRows = matchIdleWhenEmptyRows(outer);
  runLength = outer.getUpperBound();
  return true;
}

Value PositionTiler::allocTile(ArrayRef<int64_t> shape, Type element) {
  return allocTaskTile(b, k, outer, shape, element);
}

void PositionTiler::fillStartColumn() {
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointAfter(termTile.getDefiningOp());
  Value zero = k.index(0);
  Value start = b.clone(*startConstant.getDefiningOp())->getResult(0);
  k.vfill(k.window(termTile, {zero, zero},
                   {b.getIndexAttr(chunk), b.getIndexAttr(1)}, {1}),
          start);
}

void PositionTiler::emitOp(Operation *op,
                           const DenseMap<Value, Value> &chunkOf) {
  dev::BinaryKind kind = *dev::getBinaryKind(op);
  Value lhs = op->getOperand(0), rhs = op->getOperand(1);
  if (getShape(lhs) != Shape::tile)
    std::swap(lhs, rhs);
  Value out = chunkOf.lookup(op->getResult(0));
  Value in = chunkOf.lookup(lhs);
  switch (getShape(rhs)) {
  case Shape::tile:
    k.vbinary(kind, in, chunkOf.lookup(rhs), out);
    return;
  case Shape::row:
    k.vbinaryBroadcast(kind, in, chunkOf.lookup(rhs), out, 1);
    return;
  case Shape::column:
    k.vbinaryBroadcast(kind, in, chunkOf.lookup(rhs), out, 0);
    return;
  case Shape::fixed:
    k.vbinaryScalar(kind, in, rhs, out);
    return;
  }
}

void PositionTiler::emitChunk(Value c0, bool mayBeEmpty) {
  Value zero = k.index(0);
  OpFoldResult f = b.getIndexAttr(features);
  Value m = k.min(k.index(chunk), k.sub(outer.getUpperBound(), c0));
  // One view per chunk of each tile, shared by its copy and its uses, so
  // that pipelining sees the copy fill what they read.
  DenseMap<Value, Value> chunkOf;
  for (auto &[value, tile] : tileOf)
    chunkOf[value] = k.window(tile, {zero, zero}, {m, f});
  auto copyRun = [&](const Run &run, bool privateWindow = false) {
    Value part = k.window(run.tile, {zero}, {m});
    auto copy = b.create<dev::DmaOp>(
        loc, k.window(run.array, {k.add(run.base, c0)}, {m}), part);
    copy.setPrivateWindow(privateWindow);
    return part;
  };
  DenseMap<Value, Value> coordinateTiles;
  for (auto &[coordinate, run] : coordinates)
    coordinateTiles[coordinate] = copyRun(run);
  for (auto &[value, run] : columns)
    chunkOf[value] = copyRun(run);
  for (PosLoadOp load : rows)
    chunkOf[load.getResult()] = rowTiles[load.getResult()];
  // A row's run of the sum's starts is read and written back by that row
  // alone (CSR runs do not overlap): it may be read ahead of earlier rows.
  Value starts = startLoad ? copyRun(sumRun, /*privateWindow=*/true) : Value();
  for (auto [load, coordinate] : gathers) {
    auto buffer = load.getBuffer().getDefiningOp<BufferOp>();
    int64_t rowsOfData =
        cast<MemRefType>(buffer.getData().getType()).getNumElements() /
        features;
    k.dmaGather(k.reshape(buffer.getData(), {rowsOfData, features}),
                coordinateTiles[coordinate], chunkOf[load.getResult()]);
  }
  // The vector work, skipped for an empty chunk (an empty row's: its sum
  // stays as it is, where vreduce would turn -0.0 into +0.0); its copies
  // cost nothing then. Unconditional where no chunk is empty, so that
  // pipelining sees the results written before they are copied out.
  Value results = resultStore ? k.window(resultTile, {zero}, {m}) : Value();
  if (mayBeEmpty)
    k.ifThenElse(k.lt(zero, m),
                 [&] { emitVectorWork(m, starts, results, chunkOf); });
  else
    emitVectorWork(m, starts, results, chunkOf);
  if (resultStore)
    k.dma(results, k.window(sumRun.array, {k.add(sumRun.base, c0)}, {m}));
}

void PositionTiler::emitVectorWork(Value m, Value starts, Value results,
                                   DenseMap<Value, Value> chunkOf) {
  Value zero = k.index(0), one = k.index(1);
  OpFoldResult f = b.getIndexAttr(features);
  // The running values: the starts in column 0 of the terms' tile (sum
  // over k; a constant start is filled there once), or the running row
  // above the terms (sum over t); x 1 copies every value, -0 and NaN
  // included.
  Value one32 = k.f32(1.0);
  if (startLoad)
    k.vbinaryScalar(
        dev::BinaryKind::mul, starts, one32,
        k.window(termTile, {zero, zero}, {m, b.getIndexAttr(1)}, {1}));
  else if (accLoad)
    k.vbinaryScalar(
        dev::BinaryKind::mul, accTile, one32,
        k.window(termTile, {zero, zero}, {b.getIndexAttr(1), f}, {0}));
  chunkOf[sumTerm] = resultStore ? k.window(termTile, {zero, one}, {m, f})
                                 : k.window(termTile, {one, zero}, {m, f});
  for (Operation &op : inner.getBody()->without_terminator())
    if (dev::getBinaryKind(&op) && &op != sum.getOperation())
      emitOp(&op, chunkOf);
  if (resultStore) {
    k.vreduce(
        dev::ReduceKind::sum,
        k.window(termTile, {zero, zero}, {m, b.getIndexAttr(features + 1)}),
        results);
    return;
  }
  Value withRow = k.add(m, one);
  Value transposed = k.window(transposeTile, {zero, zero}, {f, withRow});
  b.create<dev::VTransposeOp>(
      loc, k.window(termTile, {zero, zero}, {withRow, f}), transposed);
  k.vreduce(dev::ReduceKind::sum, transposed, accTile);
}

void PositionTiler::rewrite() {
  Type f32 = b.getF32Type();
  OpFoldResult f = b.getIndexAttr(features);
  b.setInsertionPoint(outer);
  // The run at `positions`, with a tile to copy it into when it is read.
  auto runOf = [&](Value bufferValue, ValueRange positions, bool read) {
    auto buffer = bufferValue.getDefiningOp<BufferOp>();
    return Run{buffer.getData(),
               getBufferRunStart(b, loc, buffer, positions.drop_back()),
               read ? allocTile({chunk}, f32) : Value()};
  };
  for (auto &[coordinate, run] : coordinates)
    run.tile = allocTile({chunk}, b.getI32Type());
  for (auto &[value, run] : columns)
    run = runOf(value.getDefiningOp<PosLoadOp>().getBuffer(),
                value.getDefiningOp<PosLoadOp>().getPositions(),
                /*read=*/true);
  for (auto [load, coordinate] : gathers)
    tileOf[load.getResult()] = allocTile({chunk, features}, f32);
  for (Operation &op : inner.getBody()->without_terminator())
    if (dev::getBinaryKind(&op) && &op != sum.getOperation() &&
        op.getResult(0) != sumTerm)
      tileOf[op.getResult(0)] = allocTile({chunk, features}, f32);
  // Rows: read once, before the chunks.
  auto rowSlice = [&](PosLoadOp load) {
    auto buffer = load.getBuffer().getDefiningOp<BufferOp>();
    Value start =
        getBufferRunStart(b, loc, buffer, load.getPositions().drop_back());
    return k.window(buffer.getData(), {start}, {f});
  };
  for (PosLoadOp load : rows) {
    Value tile = allocTile({features}, f32);
    rowTiles[load.getResult()] = tile;
    k.dma(rowSlice(load), tile);
  }
  // The terms of the sum, with a column (sum over k) or a row (sum over
  // t) for the running values.
  if (resultStore) {
    sumRun = runOf(resultStore.getBuffer(), resultStore.getPositions(),
                   /*read=*/!!startLoad);
    termTile = allocTile({chunk, features + 1}, f32);
    resultTile = allocTile({chunk}, f32);
    if (startConstant)
      fillStartColumn();
  } else {
    termTile = allocTile({chunk + 1, features}, f32);
    transposeTile = allocTile({features, chunk + 1}, f32);
    accTile = allocTile({features}, f32);
    accSlice = rowSlice(accLoad);
    // The row is this row's alone (isRowOfItsLoop): it may be read ahead
    // of earlier rows, which write theirs.
    auto copy = b.create<dev::DmaOp>(loc, accSlice, accTile);
    copy.setPrivateWindow(isRowOfItsLoop(accLoad));
  }
  // The first chunk in the loop around, so that pipelining that loop
  // fetches a row's first chunk while an earlier row computes; the rest
  // (rows longer than a chunk) in a loop of their own.
  Value chunkSize = k.index(chunk);
  emitChunk(k.index(0), /*mayBeEmpty=*/!idleRows);
  auto rest =
      b.create<scf::ForOp>(loc, chunkSize, outer.getUpperBound(), chunkSize);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(rest.getBody());
    emitChunk(rest.getInductionVar(), /*mayBeEmpty=*/false);
  }
  if (accLoad) {
    b.setInsertionPointAfter(rest);
    k.dma(accTile, accSlice);
  }
  outer.erase();
}

struct SparseTilePositionsPass
    : npu::impl::SparseTilePositionsBase<SparseTilePositionsPass> {
  void runOnOperation() override {
    FailureOr<DeviceModel> device = dev::lookupDevice(getOperation());
    if (failed(device))
      return signalPassFailure();
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) {
      if (loop->getParentOfType<dev::LaunchOp>())
        loops.push_back(loop);
    });
    SmallVector<std::pair<IdleWhenEmptyRows, Value>> compactions;
    for (scf::ForOp loop : loops) {
      PositionTiler tiler(loop, device->vectorBytes);
      if (!tiler.matches())
        continue;
      tiler.rewrite();
      if (auto compaction = tiler.getCompaction())
        compactions.push_back(*compaction);
    }
    // After the tilers: a row loop is visited after the loops inside it.
    for (auto &[rows, runLength] : compactions)
      compactRows(rows, runLength, kRowsPerList);
  }
};

} // namespace
