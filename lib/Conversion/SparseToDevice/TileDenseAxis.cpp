//===- TileDenseAxis.cpp - innermost dense loops as tiles and vector ops --===//
//
// npu-sparse-tile-dense-axis, after npu-sparse-lower-iterations. For an
// innermost loop
// k in [0, K) inside a launch whose accesses all run along k as their
// buffer's last axis (so each access is a contiguous slice of the data
// at F(prefix) * K + k), and whose other ops are f32 elementwise
// arithmetic: per chunk of T positions, DMA every read slice into a
// vector-memory tile, run each op as one vector op over the tiles (a
// value fixed outside the loop filled into a tile first), and DMA every
// written tile back. T is the largest chunk with one tile per value in
// the device's vector memory. A loop may carry one f32 sum, acc' = acc +
// v (SDDMM's dot product): v's tile keeps a slot before its positions for
// acc, and one vreduce per chunk adds acc and v's T values in k order, as
// the loop did. O(ops) to rewrite; the same bits, since every element sees
// the same operations in the same order (but for the sign of a sum of
// zeros: vreduce starts from +0.0).
//
//===----------------------------------------------------------------------===//

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
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace npu {
#define GEN_PASS_DEF_SPARSETILEDENSEAXIS
#include "npu/Conversion/Passes.h.inc"
} // namespace npu

using namespace mlir;
using namespace npu;
using namespace npu::sparse;

namespace {

/// The buffer and positions of a sparse.pos_load or sparse.pos_store.
std::pair<Value, ValueRange> getAccessed(Operation *access) {
  if (auto load = dyn_cast<PosLoadOp>(access))
    return {load.getBuffer(), load.getPositions()};
  auto store = cast<PosStoreOp>(access);
  return {store.getBuffer(), store.getPositions()};
}

class LoopTiler {
public:
  LoopTiler(scf::ForOp loop, int64_t vectorBytes)
      : loop(loop), b(loop), loc(loop.getLoc()), k(b, loc),
        vectorBytes(vectorBytes) {}

  /// Whether the loop has the form above; fills `perPosition`.
  bool matches();
  void rewrite();

private:
  /// The chunk's v and the carried acc added in order: acc's slot, then
  /// v's `n` positions.
  Value reduceChunk(Value acc, Value n);
  Value constant(int64_t v) { return k.index(v); }
  /// The buffer's data and the start of the access's slice, F(prefix) * K.
  std::pair<Value, Value> getSlice(Value buffer, ValueRange positions) {
    return {buffer.getDefiningOp<BufferOp>().getData(),
            getBufferRunStart(b, loc, buffer.getDefiningOp<BufferOp>(),
                              positions.drop_back())};
  }
  Value window(Value memref, Value offset, Value size) {
    return b.create<memref::SubViewOp>(loc, memref, OpFoldResult(offset),
                                       OpFoldResult(size),
                                       OpFoldResult(b.getIndexAttr(1)));
  }
  Value allocTile(MemRefType type) {
    return allocTaskTile(b, k, loop, type.getShape(), type.getElementType());
  }
  void findPromotedSlice(int64_t chunk);
  void promoteSlice(MemRefType tileType);
  /// The carried sum's tiles; v writes the positions after acc's slot.
  void allocSumTiles(MemRefType tileType);
  void emitVectorOp(Operation *op, Value n, MemRefType tileType);

  scf::ForOp loop;
  OpBuilder b;
  Location loc;
  /// Builds the npudev ops (DMA, vector ops) of the tiled loop.
  KernelBuilder k;
  int64_t vectorBytes;
  int64_t extent = 0;
  /// The body's values that vary along the loop, in program order.
  SmallVector<Value> perPosition;
  /// Stored values fixed along the loop (an init's constant).
  SmallVector<Value> fixedStored;
  DenseMap<Value, Value> tileOf;
  /// The slice kept on chip across the loop around (an accumulator row):
  /// its accesses, in body order, and the one tile it lives in.
  SmallVector<Operation *> promoted;
  Value promotedTile;
  /// A value fixed along the loop, filled in for a non-commutative op.
  Value fixedTile;
  /// The carried sum's addition (acc' = acc + v), the tile of acc's slot
  /// and v's positions, and the one-element tile its vreduce writes.
  arith::AddFOp sum;
  Value sumTerm, sumTile, sumOut;
};

Value LoopTiler::reduceChunk(Value acc, Value n) {
  Value zero = constant(0);
  k.store(acc, sumTile, {zero});
  k.vreduce(dev::ReduceKind::sum, window(sumTile, zero, k.add(n, constant(1))),
            sumOut);
  return k.load(sumOut, {zero});
}

bool LoopTiler::matches() {
  std::optional<int64_t> lower = getConstantIntValue(loop.getLowerBound());
  std::optional<int64_t> upper = getConstantIntValue(loop.getUpperBound());
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (!lower || *lower != 0 || !upper || *upper <= 0 || !step || *step != 1 ||
      !matchCarriedSum(loop, sum, sumTerm))
    return false;
  extent = *upper;
  // npu-sparse-lower-iterations leaves index arithmetic nothing uses, and
  // constants (an init's zero) in the body: fixed values, so they go before the
  // loop.
  for (Operation &op :
       llvm::make_early_inc_range(llvm::reverse(*loop.getBody()))) {
    if (isOpTriviallyDead(&op))
      op.erase();
    else if (op.hasTrait<OpTrait::ConstantLike>())
      op.moveBefore(loop);
  }
  Value k = loop.getInductionVar();
  auto outside = [&](Value v) {
    return !loop->isAncestor(v.getParentBlock()->getParentOp());
  };
  // An access along k: k its last position, the others fixed, a dense last
  // axis of K positions in f32.
  auto alongK = [&](Value buffer, ValueRange positions) {
    auto def = buffer.getDefiningOp<BufferOp>();
    if (!def || positions.empty() || positions.back() != k ||
        !llvm::all_of(positions.drop_back(), outside))
      return false;
    auto last = def.getAxes().back().getDefiningOp<AxisOp>();
    return last.getKind() == AxisKind::dense_fixed &&
           last.getLengthValue() == extent &&
           cast<BufferType>(buffer.getType()).getElementType().isF32();
  };
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (&op == sum.getOperation())
      continue;
    if (auto load = dyn_cast<PosLoadOp>(op)) {
      if (!alongK(load.getBuffer(), load.getPositions()))
        return false;
      perPosition.push_back(load.getResult());
    } else if (auto store = dyn_cast<PosStoreOp>(op)) {
      Value value = store.getValue();
      if (!alongK(store.getBuffer(), store.getPositions()) ||
          !(llvm::is_contained(perPosition, value) ||
            (outside(value) && value.getType().isF32())))
        return false;
      if (outside(value) && !llvm::is_contained(fixedStored, value))
        fixedStored.push_back(value);
    } else if (dev::getBinaryKind(&op) && op.getResult(0).getType().isF32()) {
      if (llvm::none_of(op.getOperands(), [&](Value v) {
            return llvm::is_contained(perPosition, v);
          }))
        return false;
      for (Value v : op.getOperands())
        if (!llvm::is_contained(perPosition, v) && !outside(v))
          return false;
      perPosition.push_back(op.getResult(0));
    } else {
      return false;
    }
  }
  // A term fixed along the loop, or loaded as it is: no op to write it
  // into the sum's tile.
  if (sum && (!llvm::is_contained(perPosition, sumTerm) ||
              isa<PosLoadOp>(sumTerm.getDefiningOp())))
    return false;
  return !perPosition.empty() || !fixedStored.empty();
}

/// The accesses of one buffer, at the same positions fixed outside the
/// loop around this one, which nothing else in that loop touches (buffers
/// over different data do not overlap), can stay in one tile across it:
/// one DMA in before it, one out after. A store must store a value the
/// body computes, after every read of the old contents, so that the op
/// computing it can write the tile in place.
void LoopTiler::findPromotedSlice(int64_t chunk) {
  auto around = dyn_cast<scf::ForOp>(loop->getParentOp());
  if (!around || chunk != extent)
    return;
  auto fixedAround = [&](Value v) {
    return !around->isAncestor(v.getParentBlock()->getParentOp());
  };
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (!isa<PosLoadOp, PosStoreOp>(op))
      continue;
    auto [buffer, positions] = getAccessed(&op);
    Value data = buffer.getDefiningOp<BufferOp>().getData();
    SmallVector<Operation *> accesses;
    bool onlyHere = true;
    for (Operation *user : data.getUsers()) {
      if (!isa<BufferOp>(user))
        continue;
      for (Operation *access : user->getUsers()) {
        if (!around->isAncestor(access))
          continue;
        bool same = isa<PosLoadOp, PosStoreOp>(access) &&
                    access->getBlock() == loop.getBody();
        if (same) {
          auto [otherBuffer, otherPositions] = getAccessed(access);
          same = otherBuffer == buffer && otherPositions == positions;
        }
        onlyHere &= same;
        accesses.push_back(access);
      }
    }
    if (!onlyHere || !llvm::all_of(positions.drop_back(), fixedAround) ||
        llvm::any_of(data.getUsers(),
                     [&](Operation *u) { return around->isAncestor(u); }))
      continue;
    llvm::sort(accesses, [](Operation *x, Operation *y) {
      return x->isBeforeInBlock(y);
    });
    auto stores = llvm::make_filter_range(
        accesses, [](Operation *a) { return isa<PosStoreOp>(a); });
    int64_t numStores = std::distance(stores.begin(), stores.end());
    if (numStores > 1)
      continue;
    if (numStores == 1) {
      auto store = cast<PosStoreOp>(*stores.begin());
      Operation *def = store.getValue().getDefiningOp();
      if (!def || def->getBlock() != loop.getBody() || isa<PosLoadOp>(def))
        continue;
      // Every read of the old contents comes no later than `def`.
      bool readsBefore = llvm::all_of(accesses, [&](Operation *a) {
        auto load = dyn_cast<PosLoadOp>(a);
        return !load || llvm::all_of(load->getUsers(), [&](Operation *u) {
          return u == def || u->isBeforeInBlock(def);
        });
      });
      if (!readsBefore)
        continue;
    }
    promoted = std::move(accesses);
    return;
  }
}

void LoopTiler::promoteSlice(MemRefType tileType) {
  promotedTile = allocTile(tileType);
  Operation *first = promoted.front();
  auto [buffer, positions] = getAccessed(first);
  auto around = cast<scf::ForOp>(loop->getParentOp());
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(around);
  auto [data, base] = getSlice(buffer, positions);
  Value slice = window(data, base, constant(extent));
  // In even when only written: a loop that runs zero times writes back
  // what was there.
  k.dma(slice, promotedTile);
  for (Operation *access : promoted) {
    if (auto load = dyn_cast<PosLoadOp>(access))
      tileOf[load.getResult()] = promotedTile;
    else
      tileOf[cast<PosStoreOp>(access).getValue()] = promotedTile;
  }
  if (llvm::any_of(promoted, [](Operation *a) { return isa<PosStoreOp>(a); })) {
    b.setInsertionPointAfter(around);
    k.dma(promotedTile, slice);
  }
}

void LoopTiler::allocSumTiles(MemRefType tileType) {
  sumTile = allocTile(
      MemRefType::Builder(tileType).setShape({tileType.getDimSize(0) + 1}));
  sumOut = allocTile(MemRefType::Builder(tileType).setShape({1}));
  // allocTile puts each alloc first in the launch: sumTile follows sumOut.
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointAfterValue(sumTile);
  tileOf[sumTerm] = b.create<memref::SubViewOp>(
      loc, sumTile, ArrayRef<OpFoldResult>{b.getIndexAttr(1)},
      ArrayRef<OpFoldResult>{b.getIndexAttr(tileType.getDimSize(0))},
      ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
}

/// One vector op for an arithmetic op: a fixed right operand (or left, for
/// a commutative op) as its scalar, else filled into a tile.
void LoopTiler::emitVectorOp(Operation *op, Value n, MemRefType tileType) {
  Value zero = constant(0);
  auto part = [&](Value tile) { return window(tile, zero, n); };
  dev::BinaryKind kind = *dev::getBinaryKind(op);
  Value lhs = op->getOperand(0), rhs = op->getOperand(1);
  Value out = part(tileOf[op->getResult(0)]);
  if (!tileOf.count(lhs) && dev::isCommutative(kind))
    std::swap(lhs, rhs);
  if (!tileOf.count(rhs)) {
    k.vbinaryScalar(kind, part(tileOf[lhs]), rhs, out);
    return;
  }
  Value left = tileOf.lookup(lhs);
  if (!left) {
    if (!fixedTile)
      fixedTile = allocTile(tileType);
    k.vfill(part(fixedTile), lhs);
    left = fixedTile;
  }
  k.vbinary(kind, part(left), part(tileOf[rhs]), out);
}

void LoopTiler::rewrite() {
  // One tile per value and one for a fixed operand, of T f32 each, in half
  // the vector memory (other loops of the launch get tiles too).
  int64_t tiles = perPosition.size() + fixedStored.size() + 1;
  int64_t chunk = std::clamp<int64_t>(vectorBytes / 2 / (4 * tiles), 1, extent);
  auto tileType = MemRefType::get(
      {chunk}, b.getF32Type(), MemRefLayoutAttrInterface(),
      dev::MemorySpaceAttr::get(b.getContext(), dev::MemorySpace::vector));
  findPromotedSlice(chunk);
  if (!promoted.empty())
    promoteSlice(tileType);
  if (sum)
    allocSumTiles(tileType);
  for (Value v : llvm::concat<Value>(perPosition, fixedStored))
    if (!tileOf.count(v))
      tileOf[v] = allocTile(tileType);
  // A constant stored (an init's zero) fills its tile once, where the tile
  // is allocated; the tile is only read after, so its copies out need not
  // wait for one another (npu-pipeline-dma-loops leaves them in flight).
  SmallVector<Value> filledPerChunk;
  for (Value v : fixedStored) {
    Operation *constant = v.getDefiningOp();
    if (!constant || !constant->hasTrait<OpTrait::ConstantLike>()) {
      filledPerChunk.push_back(v);
      continue;
    }
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointAfterValue(tileOf[v]);
    k.vfill(tileOf[v], b.clone(*constant)->getResult(0));
  }
  auto chunks = b.create<scf::ForOp>(loc, constant(0), constant(extent),
                                     constant(chunk), loop.getInitArgs());
  b.setInsertionPointToStart(chunks.getBody());
  Value c0 = chunks.getInductionVar();
  // Below, no call takes two builder calls as arguments: their order is
  // the compiler's (gcc and clang differ), and the IR must not depend on it.
  Value left = b.create<arith::SubIOp>(loc, constant(extent), c0);
  Value n = b.create<arith::MinUIOp>(loc, constant(chunk), left);
  Value zero = constant(0);
  auto part = [&](Value tile) { return window(tile, zero, n); };
  for (Value v : filledPerChunk)
    k.vfill(part(tileOf[v]), v);
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (llvm::is_contained(promoted, &op))
      continue;
    if (auto load = dyn_cast<PosLoadOp>(op)) {
      auto [data, base] = getSlice(load.getBuffer(), load.getPositions());
      Value tile = part(tileOf[load.getResult()]);
      k.dma(window(data, k.add(base, c0), n), tile);
    } else if (auto store = dyn_cast<PosStoreOp>(op)) {
      auto [data, base] = getSlice(store.getBuffer(), store.getPositions());
      Value slice = window(data, k.add(base, c0), n);
      k.dma(part(tileOf[store.getValue()]), slice);
    } else if (&op != sum.getOperation()) {
      emitVectorOp(&op, n, tileType);
    }
  }
  if (sum) {
    b.create<scf::YieldOp>(loc, reduceChunk(chunks.getRegionIterArgs()[0], n));
    loop.replaceAllUsesWith(chunks.getResults());
  }
  loop.erase();
}

struct SparseTileDenseAxisPass
    : npu::impl::SparseTileDenseAxisBase<SparseTileDenseAxisPass> {
  void runOnOperation() override {
    FailureOr<DeviceModel> device = dev::lookupDevice(getOperation());
    if (failed(device))
      return signalPassFailure();
    SmallVector<scf::ForOp> innermost;
    getOperation().walk([&](scf::ForOp loop) {
      bool nested = false;
      loop.getBody()->walk(
          [&](Operation *op) { nested |= op->getNumRegions() > 0; });
      if (!nested && loop->getParentOfType<dev::LaunchOp>())
        innermost.push_back(loop);
    });
    for (scf::ForOp loop : innermost) {
      LoopTiler tiler(loop, device->vectorBytes);
      if (tiler.matches())
        tiler.rewrite();
    }
  }
};

} // namespace
