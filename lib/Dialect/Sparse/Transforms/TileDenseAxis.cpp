//===- TileDenseAxis.cpp - innermost dense loops as tiles and vector ops --===//
//
// Stage 3 of the sparse lowering, its second step. For an innermost loop
// k in [0, K) inside a launch whose accesses all run along k as their
// buffer's last axis (so each access is a contiguous slice of the data
// at F(prefix) * K + k), and whose other ops are f32 elementwise
// arithmetic: per chunk of T positions, DMA every read slice into a
// vector-memory tile, run each op as one vector op over the tiles (a
// value fixed outside the loop filled into a tile first), and DMA every
// written tile back. T is the largest chunk with one tile per value in
// the device's vector memory. O(ops) to rewrite; the same bits, since
// every element sees the same operations in the same order.
//
//===----------------------------------------------------------------------===//

#include "AxisRuns.h"
#include "npu/Dialect/NPUDev/DeviceAttr.h"
#include "npu/Dialect/NPUDev/NPUDevOps.h"
#include "npu/Dialect/Sparse/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace npu::sparse {
#define GEN_PASS_DEF_SPARSETILEDENSEAXIS
#include "npu/Dialect/Sparse/Passes.h.inc"
} // namespace npu::sparse

using namespace mlir;
using namespace npu;
using namespace npu::sparse;

namespace {

/// The vector op of an f32 arithmetic op, if it has one.
std::optional<dev::BinaryKind> getVectorKind(Operation *op) {
  if (isa<arith::AddFOp>(op))
    return dev::BinaryKind::add;
  if (isa<arith::SubFOp>(op))
    return dev::BinaryKind::sub;
  if (isa<arith::MulFOp>(op))
    return dev::BinaryKind::mul;
  if (isa<arith::DivFOp>(op))
    return dev::BinaryKind::div;
  if (isa<arith::MaximumFOp>(op))
    return dev::BinaryKind::max;
  if (isa<arith::MinimumFOp>(op))
    return dev::BinaryKind::min;
  return std::nullopt;
}

class LoopTiler {
public:
  LoopTiler(scf::ForOp loop, int64_t vectorBytes)
      : loop(loop), b(loop), loc(loop.getLoc()), vectorBytes(vectorBytes) {}

  /// Whether the loop has the form above; fills `perPosition`.
  bool matches();
  void rewrite();

private:
  Value constant(int64_t v) { return b.create<arith::ConstantIndexOp>(loc, v); }
  /// The buffer's data and the start of the access's slice, F(prefix) * K.
  std::pair<Value, Value> getSlice(Value buffer, ValueRange positions);
  Value window(Value memref, Value offset, Value size) {
    return b.create<memref::SubViewOp>(loc, memref, OpFoldResult(offset),
                                       OpFoldResult(size),
                                       OpFoldResult(b.getIndexAttr(1)));
  }

  scf::ForOp loop;
  OpBuilder b;
  Location loc;
  int64_t vectorBytes;
  int64_t extent = 0;
  /// The body's values that vary along the loop, in program order.
  SmallVector<Value> perPosition;
};

bool LoopTiler::matches() {
  std::optional<int64_t> lower = getConstantIntValue(loop.getLowerBound());
  std::optional<int64_t> upper = getConstantIntValue(loop.getUpperBound());
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (!lower || *lower != 0 || !upper || *upper <= 0 || !step || *step != 1 ||
      !loop.getInitArgs().empty())
    return false;
  extent = *upper;
  // Stage 1 leaves index arithmetic nothing uses.
  for (Operation &op :
       llvm::make_early_inc_range(llvm::reverse(*loop.getBody())))
    if (isOpTriviallyDead(&op))
      op.erase();
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
    if (auto load = dyn_cast<PosLoadOp>(op)) {
      if (!alongK(load.getBuffer(), load.getPositions()))
        return false;
      perPosition.push_back(load.getResult());
    } else if (auto store = dyn_cast<PosStoreOp>(op)) {
      if (!alongK(store.getBuffer(), store.getPositions()) ||
          !llvm::is_contained(perPosition, store.getValue()))
        return false;
    } else if (getVectorKind(&op) && op.getResult(0).getType().isF32()) {
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
  return !perPosition.empty();
}

std::pair<Value, Value> LoopTiler::getSlice(Value buffer,
                                            ValueRange positions) {
  auto def = buffer.getDefiningOp<BufferOp>();
  Value offset;
  for (auto [axis, position] :
       llvm::zip(def.getAxes().drop_back(), positions.drop_back())) {
    Value start = getAxisRunStart(b, loc, axis.getDefiningOp<AxisOp>(), offset);
    offset = b.create<arith::AddIOp>(loc, start, position);
  }
  Value base =
      offset
          ? b.create<arith::MulIOp>(loc, offset, constant(extent)).getResult()
          : constant(0);
  return {def.getData(), base};
}

void LoopTiler::rewrite() {
  // One tile per value and one for a fixed operand, of T f32 each, in half
  // the vector memory (other loops of the launch get tiles too).
  int64_t tiles = perPosition.size() + 1;
  int64_t chunk = std::clamp<int64_t>(vectorBytes / 2 / (4 * tiles), 1, extent);
  auto tileType = MemRefType::get(
      {chunk}, b.getF32Type(), MemRefLayoutAttrInterface(),
      dev::MemorySpaceAttr::get(b.getContext(), dev::MemorySpace::vector));
  // Allocated once per task, at the top of the launch, not per iteration
  // of the loops around (each alloc lives to the end of its block).
  DenseMap<Value, Value> tileOf;
  Value fixed;
  {
    OpBuilder::InsertionGuard guard(b);
    auto launch = loop->getParentOfType<dev::LaunchOp>();
    b.setInsertionPointToStart(&launch.getBody().front());
    for (Value v : perPosition)
      tileOf[v] = b.create<dev::AllocOp>(loc, tileType);
    fixed = b.create<dev::AllocOp>(loc, tileType);
  }
  auto chunks =
      b.create<scf::ForOp>(loc, constant(0), constant(extent), constant(chunk));
  b.setInsertionPointToStart(chunks.getBody());
  Value c0 = chunks.getInductionVar();
  Value n = b.create<arith::MinUIOp>(
      loc, constant(chunk), b.create<arith::SubIOp>(loc, constant(extent), c0));
  Value zero = constant(0);
  auto part = [&](Value tile) { return window(tile, zero, n); };
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (auto load = dyn_cast<PosLoadOp>(op)) {
      auto [data, base] = getSlice(load.getBuffer(), load.getPositions());
      b.create<dev::DmaOp>(
          loc, window(data, b.create<arith::AddIOp>(loc, base, c0), n),
          part(tileOf[load.getResult()]));
    } else if (auto store = dyn_cast<PosStoreOp>(op)) {
      auto [data, base] = getSlice(store.getBuffer(), store.getPositions());
      b.create<dev::DmaOp>(
          loc, part(tileOf[store.getValue()]),
          window(data, b.create<arith::AddIOp>(loc, base, c0), n));
    } else {
      SmallVector<Value, 2> operands;
      for (Value v : op.getOperands()) {
        if (Value tile = tileOf.lookup(v)) {
          operands.push_back(part(tile));
          continue;
        }
        // Fixed along the loop: the same value in every lane.
        b.create<dev::VFillOp>(loc, v, part(fixed));
        operands.push_back(part(fixed));
      }
      b.create<dev::VBinaryOp>(loc, *getVectorKind(&op), operands[0],
                               operands[1], part(tileOf[op.getResult(0)]));
    }
  }
  loop.erase();
}

struct SparseTileDenseAxisPass
    : npu::sparse::impl::SparseTileDenseAxisBase<SparseTileDenseAxisPass> {
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
