//===- LowerIterations.cpp - sparse iterations to position loops ----------===//
//
// npu-sparse-lower-iterations: coordinate space to position space.
// Each sparse.iteration becomes an scf.for nest over positions, one loop
// per axis in the iteration's order, each over its run under its parent's
// position (AxisRuns); a sparse axis's coordinate is indices[global
// position]. The init region gets its own nest over the spatial axes,
// before the main one. The body is cloned into the innermost loop with
// its arguments bound to the coordinates, and each access is rewritten to
// positions: a buffer axis that is the iterated axis of its coordinate
// (under an equally resolved parent) takes the loop's position, a dense
// axis the coordinate, any other sparse axis the result of a lower_bound
// over its sorted run. A search (and the flat prefix it needs) is placed
// at the outermost loop whose values it uses, and shared there; so is a
// load of a buffer the region does not write. An accumulator read and
// written at positions fixed outside the innermost loop is carried through
// it in a register; when the init only fills that buffer with a constant
// at every spatial tuple, the register starts from the constant and the
// init nest goes (SDDMM's zero fill, read back at every nonzero).
//
// Complexity: O(body ops x buffer rank) to rewrite. At run time a search
// costs O(log run) each time the loop it is placed in iterates.
//
//===----------------------------------------------------------------------===//

#include "npu/Dialect/Sparse/AxisRuns.h"
#include "npu/Dialect/Sparse/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace npu::sparse {
#define GEN_PASS_DEF_SPARSELOWERITERATIONS
#include "npu/Dialect/Sparse/Passes.h.inc"
} // namespace npu::sparse

using namespace mlir;
using namespace npu::sparse;

namespace {

/// One iterated axis of a nest and, inside its loop, its position within
/// its run, its global position and its coordinate. Two fused axes share
/// a loop.
struct Level {
  AxisOp axis;
  unsigned loop;
  Value local, global, coord;
};

/// An init that fills one buffer with a constant at its own coordinates.
struct ConstantFill {
  Value buffer;
  TypedAttr value;
};

/// The loop nest of one region (init or body) of an iteration.
class Nest {
public:
  /// `fill`: an accumulator of that buffer kept across the innermost loop
  /// starts from its constant instead of a load.
  /// `reassociate`: the update of an accumulator kept in a register may be
  /// regrouped (fastmath<reassoc>).
  Nest(IterationOp op, OpBuilder &b,
       std::optional<ConstantFill> fill = std::nullopt,
       bool reassociate = false)
      : op(op), b(b), loc(op.getLoc()), fill(fill), reassociate(reassociate) {}

  /// Loops over the iteration's axes `loopAxes` (outermost first; `fused`
  /// runs the pair as one loop) at b's insertion point, `region` cloned
  /// inside with its arguments bound to the coordinates of `argAxes`, and
  /// its accesses lowered to positions.
  LogicalResult build(ArrayRef<unsigned> loopAxes, ArrayRef<unsigned> argAxes,
                      std::optional<std::pair<unsigned, unsigned>> fused,
                      Region &region);

  /// Whether an accumulator started from the fill's constant.
  bool startsFromFill() const { return startedFromFill; }

private:
  void buildLoop(AxisOp axis);
  /// One loop over `child`'s positions under `parent`'s run.
  void buildFusedLoop(AxisOp parent, AxisOp child);
  /// The global position of `axis`'s parent in the nest, or null.
  Value getParentPosition(AxisOp axis);
  /// The first loop's bounds within `run`: the op's range, or the run.
  std::pair<Value, Value> getOuterBounds(AxisRun run);
  void addLevel(AxisOp axis, Value local, Value global, Value coord);
  /// Keeps in a register, across the innermost loop, an element the loop
  /// reads and then writes at positions fixed outside it (a reduction's
  /// accumulator): one load before the loop and one store after.
  void promoteAccumulators();
  LogicalResult lowerAccess(Operation *access);
  /// The coordinate's level if it is `axis`'s own iterated coordinate.
  std::optional<unsigned> getOwnLevel(Value coord, AxisOp axis);
  /// Where a value lives: -1 before the nest, a loop's index, or depth()
  /// for a value the cloned body computes.
  int getLevel(Value v);
  int depth() const { return loops.size(); }
  /// Puts b where code using values up to `level` runs least often.
  void setInsertionPointFor(int level, Operation *access);
  /// F(k) of `buffer` for `positions` (k + 1 of them), placed and shared.
  Value getPrefixOffset(BufferOp buffer, ArrayRef<Value> positions,
                        Operation *access);
  /// The position of `coord` in `axis`'s run under `prefix`, and whether it
  /// is there: lower_bound over the sorted indices. With `guard` (the
  /// earlier axes' searches found their coordinates) the search runs only
  /// when it holds: otherwise `prefix` may lie past the parent's positions.
  std::pair<Value, Value> search(AxisOp axis, Value prefix, Value coord,
                                 Value guard, Operation *access);
  /// The conjunction of `founds` (null for none), placed and shared.
  Value getAllFound(ArrayRef<Value> founds, Operation *access);
  /// The search itself, at b's insertion point.
  std::pair<Value, Value> buildSearch(AxisOp axis, Value prefix, Value coord);
  Value constant(int64_t v) { return b.create<arith::ConstantIndexOp>(loc, v); }

  IterationOp op;
  OpBuilder &b;
  Location loc;
  std::optional<ConstantFill> fill;
  bool reassociate;
  bool startedFromFill = false;
  SmallVector<Level> levels;
  SmallVector<scf::ForOp> loops;
  /// The first cloned op (or the innermost yield): loop-level code goes
  /// before it.
  Operation *bodyStart = nullptr;
  SmallVector<Operation *> cloned;
  DenseMap<Value, int> known;
  DenseMap<std::tuple<Operation *, Value, Value, Value>,
           std::pair<Value, Value>>
      searches;
  DenseMap<std::tuple<Value, Value, Value>, Value> offsets;
  /// The data of buffers the region writes: loads of any other buffer
  /// may move out of inner loops (buffers over distinct data do not
  /// overlap, docs/sparse-iteration.md).
  DenseSet<Value> writtenData;
  /// Loads moved out of inner loops, shared: (buffer, positions, value).
  SmallVector<std::tuple<Value, SmallVector<Value>, Value>> hoistedLoads;
};

Value Nest::getParentPosition(AxisOp axis) {
  if (AxisOp parent = axis.getParentAxis())
    for (const Level &l : levels)
      if (l.axis == parent)
        return l.global;
  return Value();
}

std::pair<Value, Value> Nest::getOuterBounds(AxisRun run) {
  // A task's share of the outermost axis (its run starts at 0).
  if (loops.empty() && op.getRangeBegin())
    return {op.getRangeBegin(), op.getRangeEnd()};
  return {constant(0), run.count};
}

void Nest::addLevel(AxisOp axis, Value local, Value global, Value coord) {
  int loop = depth() - 1;
  levels.push_back({axis, unsigned(loop), local, global, coord});
  for (Value v : {local, global, coord})
    known[v] = loop;
}

void Nest::buildLoop(AxisOp axis) {
  AxisRun run = getAxisRun(b, loc, axis, getParentPosition(axis));
  auto [begin, end] = getOuterBounds(run);
  auto loop = b.create<scf::ForOp>(loc, begin, end, constant(1));
  loops.push_back(loop);
  b.setInsertionPointToStart(loop.getBody());
  Value local = loop.getInductionVar();
  Value global = b.create<arith::AddIOp>(loc, run.start, local);
  Value coord =
      axis.isSparse() ? loadIndex(b, loc, axis.getIndices(), global) : local;
  addLevel(axis, local, global, coord);
}

void Nest::buildFusedLoop(AxisOp parent, AxisOp child) {
  AxisRun rows = getAxisRun(b, loc, parent, getParentPosition(parent));
  auto [begin, end] = getOuterBounds(rows);
  Value firstRow = b.create<arith::AddIOp>(loc, rows.start, begin);
  Value endRow = b.create<arith::AddIOp>(loc, rows.start, end);
  auto loop =
      b.create<scf::ForOp>(loc, getAxisRunStart(b, loc, child, firstRow),
                           getAxisRunStart(b, loc, child, endRow), constant(1));
  loops.push_back(loop);
  b.setInsertionPointToStart(loop.getBody());
  Value position = loop.getInductionVar();
  // The row holding `position`: the last r with start(r) <= position.
  Value row;
  if (child.isVariable()) {
    Value one = constant(1);
    Value next = buildLowerBound(b, loc, child.getIndptr(),
                                 b.create<arith::AddIOp>(loc, firstRow, one),
                                 b.create<arith::AddIOp>(loc, endRow, one),
                                 b.create<arith::AddIOp>(loc, position, one));
    row = b.create<arith::SubIOp>(loc, next, one);
  } else {
    row = b.create<arith::DivUIOp>(loc, position,
                                   constant(child.getNnzColsValue()));
  }
  Value rowLocal = b.create<arith::SubIOp>(loc, row, rows.start);
  Value rowCoord = parent.isSparse()
                       ? loadIndex(b, loc, parent.getIndices(), row)
                       : rowLocal;
  addLevel(parent, rowLocal, row, rowCoord);
  Value local = b.create<arith::SubIOp>(loc, position,
                                        getAxisRunStart(b, loc, child, row));
  Value coord = child.isSparse()
                    ? loadIndex(b, loc, child.getIndices(), position)
                    : local;
  addLevel(child, local, position, coord);
}

LogicalResult Nest::build(ArrayRef<unsigned> loopAxes,
                          ArrayRef<unsigned> argAxes,
                          std::optional<std::pair<unsigned, unsigned>> fused,
                          Region &region) {
  auto axisOf = [&](unsigned i) {
    return op.getAxes()[i].getDefiningOp<AxisOp>();
  };
  for (size_t d = 0; d < loopAxes.size(); ++d) {
    if (fused && loopAxes[d] == fused->first) {
      buildFusedLoop(axisOf(fused->first), axisOf(fused->second));
      ++d;
      continue;
    }
    buildLoop(axisOf(loopAxes[d]));
  }
  Block &block = region.front();
  IRMapping mapping;
  for (auto [arg, i] : llvm::zip(block.getArguments(), argAxes))
    for (const Level &level : levels)
      if (level.axis == axisOf(i))
        mapping.map(arg, level.coord);
  if (!loops.empty())
    b.setInsertionPoint(loops.back().getBody()->getTerminator());
  for (Operation &inner : block.without_terminator())
    cloned.push_back(b.clone(inner, mapping));
  bodyStart = cloned.empty() ? &*b.getInsertionPoint() : cloned.front();
  SmallVector<Operation *> accesses;
  for (Operation *top : cloned)
    top->walk([&](Operation *inner) {
      if (isa<LoadOp, StoreOp>(inner))
        accesses.push_back(inner);
      if (auto store = dyn_cast<StoreOp>(inner))
        if (auto buffer = store.getBuffer().getDefiningOp<BufferOp>())
          writtenData.insert(buffer.getData());
    });
  for (Operation *access : accesses)
    if (failed(lowerAccess(access)))
      return failure();
  // Erased only now: bodyStart may be one of them.
  for (Operation *access : accesses)
    access->erase();
  promoteAccumulators();
  return success();
}

/// Marks `update` reassociable when it is a reduction step of `carried`:
/// carried (+, *, min or max) something. LLVM then may keep partial results
/// in vector lanes. `nsz` too: LLVM regroups a sum it has unrolled only if
/// a zero's sign may change (Instruction::isAssociative), and regrouping
/// is what can change it.
static void allowReassociation(Value update, Value carried) {
  Operation *step = update.getDefiningOp();
  if (!step ||
      !isa<arith::AddFOp, arith::MulFOp, arith::MaximumFOp, arith::MinimumFOp,
           arith::MaxNumFOp, arith::MinNumFOp>(step) ||
      !llvm::is_contained(step->getOperands(), carried))
    return;
  auto fastMath = cast<arith::ArithFastMathInterface>(step);
  arith::FastMathFlags flags = fastMath.getFastMathFlagsAttr().getValue() |
                               arith::FastMathFlags::reassoc |
                               arith::FastMathFlags::nsz;
  step->setAttr(fastMath.getFastMathAttrName(),
                arith::FastMathFlagsAttr::get(step->getContext(), flags));
}

void Nest::promoteAccumulators() {
  if (loops.empty())
    return;
  auto dataOf = [](Value buffer) {
    return buffer.getDefiningOp<BufferOp>().getData();
  };
  SmallVector<PosStoreOp> stores;
  for (Operation &inner : *loops.back().getBody())
    if (auto store = dyn_cast<PosStoreOp>(inner))
      stores.push_back(store);
  for (PosStoreOp store : stores) {
    scf::ForOp loop = loops.back();
    Value data = dataOf(store.getBuffer());
    // Positions fixed outside the loop; the only accesses to that data in
    // the loop are this store and, before it at the top, loads of the same
    // element.
    if (llvm::any_of(store.getPositions(),
                     [&](Value p) { return getLevel(p) >= depth() - 1; }))
      continue;
    SmallVector<PosLoadOp> loads;
    bool alone = true;
    loop.getBody()->walk([&](Operation *inner) {
      Value buffer;
      if (auto load = dyn_cast<PosLoadOp>(inner)) {
        buffer = load.getBuffer();
        if (dataOf(buffer) == data) {
          bool same = load->getBlock() == loop.getBody() &&
                      load->isBeforeInBlock(store) &&
                      load.getBuffer() == store.getBuffer() &&
                      load.getPositions() == store.getPositions();
          alone &= same;
          loads.push_back(load);
        }
      } else if (auto other = dyn_cast<PosStoreOp>(inner)) {
        alone &= other == store || dataOf(other.getBuffer()) != data;
      }
    });
    if (!alone)
      continue;
    IRRewriter rewriter(b.getContext());
    rewriter.setInsertionPoint(loop);
    Type element = store.getValue().getType();
    Value initial;
    if (fill && store.getBuffer() == fill->buffer) {
      initial = rewriter.create<arith::ConstantOp>(loc, fill->value);
      startedFromFill = true;
    } else {
      initial = rewriter.create<PosLoadOp>(loc, element, store.getBuffer(),
                                           store.getPositions());
    }
    Value stored = store.getValue();
    auto promoted = cast<scf::ForOp>(*loop.replaceWithAdditionalYields(
        rewriter, initial, /*replaceInitOperandUsesInLoop=*/false,
        [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
          return SmallVector<Value>{stored};
        }));
    Value carried = promoted.getRegionIterArgs().back();
    for (PosLoadOp load : loads) {
      load.replaceAllUsesWith(carried);
      load->erase();
    }
    if (reassociate)
      allowReassociation(stored, carried);
    rewriter.setInsertionPointAfter(promoted);
    rewriter.create<PosStoreOp>(loc, promoted.getResults().back(),
                                store.getBuffer(), store.getPositions());
    store->erase();
    loops.back() = promoted;
  }
}

int Nest::getLevel(Value v) {
  if (auto it = known.find(v); it != known.end())
    return it->second;
  Operation *at = v.getDefiningOp();
  if (!at)
    at = v.getParentBlock()->getParentOp();
  for (; at; at = at->getParentOp()) {
    if (llvm::is_contained(cloned, at))
      return depth();
    if (!loops.empty() && at == loops.front())
      return depth() - 1;
  }
  return -1;
}

void Nest::setInsertionPointFor(int level, Operation *access) {
  if (level >= depth())
    b.setInsertionPoint(access);
  else if (level == depth() - 1 || loops.empty())
    b.setInsertionPoint(bodyStart);
  else
    b.setInsertionPoint(loops[level + 1]);
}

std::optional<unsigned> Nest::getOwnLevel(Value coord, AxisOp axis) {
  for (auto [i, level] : llvm::enumerate(levels))
    if (level.coord == coord && level.axis == axis)
      return i;
  return std::nullopt;
}

Value Nest::getPrefixOffset(BufferOp buffer, ArrayRef<Value> positions,
                            Operation *access) {
  Value offset;
  for (auto [axis, position] : llvm::zip(buffer.getAxes(), positions)) {
    auto key = std::make_tuple(axis, offset, position);
    if (Value done = offsets.lookup(key)) {
      offset = done;
      continue;
    }
    int level = std::max(offset ? getLevel(offset) : -1, getLevel(position));
    OpBuilder::InsertionGuard guard(b);
    setInsertionPointFor(level, access);
    Value start = getAxisRunStart(b, loc, axis.getDefiningOp<AxisOp>(), offset);
    offset = b.create<arith::AddIOp>(loc, start, position);
    known[offset] = level;
    // Shared only from a loop level, where it dominates the whole body.
    if (level < depth())
      offsets[key] = offset;
  }
  return offset;
}

std::pair<Value, Value> Nest::buildSearch(AxisOp axis, Value prefix,
                                          Value coord) {
  AxisRun run = getAxisRun(b, loc, axis, prefix);
  Value end = b.create<arith::AddIOp>(loc, run.start, run.count);
  Value indices = axis.getIndices();
  Value position = buildLowerBound(b, loc, indices, run.start, end, coord);
  Value inRun =
      b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ult, position, end);
  // Only a position inside the run may be read (an empty run at the end
  // of the indices has none).
  auto check = b.create<scf::IfOp>(
      loc, inRun,
      [&](OpBuilder &nb, Location l) {
        Value at = loadIndex(nb, l, indices, position);
        nb.create<scf::YieldOp>(
            l, ValueRange{nb.create<arith::CmpIOp>(l, arith::CmpIPredicate::eq,
                                                   at, coord)});
      },
      [&](OpBuilder &nb, Location l) {
        nb.create<scf::YieldOp>(
            l, ValueRange{nb.create<arith::ConstantIntOp>(l, 0, 1)});
      });
  Value local = b.create<arith::SubIOp>(loc, position, run.start);
  return {local, check.getResult(0)};
}

std::pair<Value, Value> Nest::search(AxisOp axis, Value prefix, Value coord,
                                     Value guard, Operation *access) {
  auto key = std::make_tuple(axis.getOperation(), prefix, coord, guard);
  if (auto it = searches.find(key); it != searches.end())
    return it->second;
  int level = std::max({prefix ? getLevel(prefix) : -1, getLevel(coord),
                        guard ? getLevel(guard) : -1});
  OpBuilder::InsertionGuard insertion(b);
  setInsertionPointFor(level, access);
  std::pair<Value, Value> result;
  if (!guard) {
    result = buildSearch(axis, prefix, coord);
  } else {
    auto guarded = b.create<scf::IfOp>(
        loc, TypeRange{b.getIndexType(), b.getI1Type()}, guard,
        /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard inThen(b);
      b.setInsertionPointToStart(guarded.thenBlock());
      auto [local, here] = buildSearch(axis, prefix, coord);
      b.create<scf::YieldOp>(loc, ValueRange{local, here});
      b.setInsertionPointToStart(guarded.elseBlock());
      b.create<scf::YieldOp>(
          loc,
          ValueRange{constant(0), b.create<arith::ConstantIntOp>(loc, 0, 1)});
    }
    result = {guarded.getResult(0), guarded.getResult(1)};
  }
  known[result.first] = known[result.second] = level;
  if (level < depth())
    searches[key] = result;
  return result;
}

Value Nest::getAllFound(ArrayRef<Value> founds, Operation *access) {
  Value all;
  for (Value here : founds) {
    if (!all) {
      all = here;
      continue;
    }
    int level = std::max(getLevel(all), getLevel(here));
    OpBuilder::InsertionGuard insertion(b);
    setInsertionPointFor(level, access);
    all = b.create<arith::AndIOp>(loc, all, here);
    known[all] = level;
  }
  return all;
}

LogicalResult Nest::lowerAccess(Operation *access) {
  auto load = dyn_cast<LoadOp>(access);
  auto store = dyn_cast<StoreOp>(access);
  Value bufferValue = load ? load.getBuffer() : store.getBuffer();
  ValueRange coords = load ? load.getCoords() : store.getCoords();
  auto buffer = bufferValue.getDefiningOp<BufferOp>();
  if (!buffer)
    return access->emitOpError("needs its buffer defined by sparse.buffer");
  SmallVector<Value> positions, founds;
  bool parentOwn = true;
  for (auto [k, axisValue, coord] : llvm::enumerate(buffer.getAxes(), coords)) {
    auto axis = axisValue.getDefiningOp<AxisOp>();
    std::optional<unsigned> own = getOwnLevel(coord, axis);
    bool isOwn = own && (!axis.getParent() || parentOwn);
    parentOwn = isOwn;
    if (!axis.isSparse()) {
      positions.push_back(coord);
      continue;
    }
    if (isOwn) {
      positions.push_back(levels[*own].local);
      continue;
    }
    StringRef kind = stringifyAxisKind(axis.getKind());
    if (store)
      return access->emitOpError()
             << "stores at a coordinate of axis #" << k << " (" << kind
             << ") of its buffer that is not that axis's own iterated "
                "coordinate: a store cannot create a nonzero";
    if (!axis.getSorted())
      return access->emitOpError()
             << "looks up a coordinate in axis #" << k << " (" << kind
             << ") of its buffer, which is not declared sorted";
    Value prefix = k ? getPrefixOffset(buffer, positions, access) : Value();
    Value guard = getAllFound(founds, access);
    auto [local, here] = search(axis, prefix, coord, guard, access);
    positions.push_back(local);
    founds.push_back(here);
  }
  if (store) {
    b.setInsertionPoint(access);
    b.create<PosStoreOp>(loc, store.getValue(), bufferValue, positions);
    return success();
  }
  // A load of a buffer the region does not write, unconditional in the
  // innermost body, runs in the outermost loop its positions allow.
  Operation *bodyOwner =
      loops.empty() ? op->getParentOp() : loops.back().getOperation();
  bool hoistable = !writtenData.contains(buffer.getData()) &&
                   access->getParentOp() == bodyOwner;
  int level = depth();
  if (hoistable) {
    level = -1;
    for (Value v : llvm::concat<Value>(positions, founds))
      level = std::max(level, getLevel(v));
    for (auto &[shared, at, value] : hoistedLoads)
      if (shared == bufferValue && at == positions) {
        load.replaceAllUsesWith(value);
        return success();
      }
  }
  setInsertionPointFor(level, access);
  Value found = getAllFound(founds, access);
  Type element = cast<BufferType>(bufferValue.getType()).getElementType();
  Value result;
  if (!found) {
    result = b.create<PosLoadOp>(loc, element, bufferValue, positions);
  } else {
    // A coordinate the sparse axis does not hold reads 0.
    auto guarded = b.create<scf::IfOp>(
        loc, found,
        [&](OpBuilder &nb, Location l) {
          nb.create<scf::YieldOp>(l, ValueRange{nb.create<PosLoadOp>(
                                         l, element, bufferValue, positions)});
        },
        [&](OpBuilder &nb, Location l) {
          nb.create<scf::YieldOp>(l, ValueRange{nb.create<arith::ConstantOp>(
                                         l, nb.getZeroAttr(element))});
        });
    result = guarded.getResult(0);
  }
  load.replaceAllUsesWith(result);
  if (level < depth())
    hoistedLoads.push_back({bufferValue, positions, result});
  known[result] = level;
  return success();
}

struct SparseLowerIterationsPass
    : npu::sparse::impl::SparseLowerIterationsBase<SparseLowerIterationsPass> {
  using SparseLowerIterationsBase::SparseLowerIterationsBase;

  void runOnOperation() override {
    SmallVector<IterationOp> iterations;
    getOperation().walk([&](IterationOp op) { iterations.push_back(op); });
    for (IterationOp op : iterations)
      if (failed(lowerIteration(op)))
        return signalPassFailure();
  }

  LogicalResult lowerIteration(IterationOp op) {
    if (op.getHybridEllWidth())
      return op.emitOpError("asks for a hybrid ELL + CSR split: run "
                            "npu-sparse-decompose first");
    OpBuilder b(op);
    SmallVector<unsigned> loops = op.getLoopAxes(), all, spatial, spatialLoops;
    for (unsigned i = 0, e = op.getAxes().size(); i < e; ++i) {
      all.push_back(i);
      if (op.getIteratorKind(i) == IteratorKind::spatial)
        spatial.push_back(i);
    }
    for (unsigned i : loops)
      if (op.getIteratorKind(i) == IteratorKind::spatial)
        spatialLoops.push_back(i);
    std::optional<std::pair<unsigned, unsigned>> fused;
    if (std::optional<ArrayRef<int64_t>> pair = op.getFuse())
      fused = {unsigned((*pair)[0]), unsigned((*pair)[1])};
    // The main nest first: the init's goes before it, unless the main
    // nest's accumulator starts from the init's constant.
    Operation *before = op->getPrevNode();
    Nest body(op, b, matchConstantFill(op, spatial), reassociateReductions);
    if (failed(body.build(loops, all, fused, op.getBody())))
      return failure();
    if (!op.getInit().empty() && !body.startsFromFill()) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(before ? before->getNextNode()
                                 : &op->getBlock()->front());
      if (failed(Nest(op, b).build(spatialLoops, spatial, std::nullopt,
                                   op.getInit())))
        return failure();
    }
    op.erase();
    return success();
  }

  /// `op`'s init when the main nest may start from it instead: it only
  /// stores one constant into a buffer at its coordinates, every spatial
  /// axis among them; the body accesses that buffer's data only through
  /// the same buffer at the same axes' coordinates; and the loops end in
  /// the one reduction axis, not fused. Then the accumulator kept across
  /// that loop (if it is kept) is stored at every spatial tuple, even
  /// when the loop has no trip, so starting it from the constant gives
  /// what the init and the load would have: the same additions from the
  /// same start.
  static std::optional<ConstantFill>
  matchConstantFill(IterationOp op, ArrayRef<unsigned> spatial) {
    SmallVector<unsigned> loops = op.getLoopAxes();
    if (op.getInit().empty() || op.getFuse() || loops.empty())
      return std::nullopt;
    for (auto [d, axis] : llvm::enumerate(loops))
      if ((op.getIteratorKind(axis) == IteratorKind::reduction) !=
          (d + 1 == loops.size()))
        return std::nullopt;
    Block &init = op.getInit().front();
    StoreOp store;
    for (Operation &inner : init.without_terminator()) {
      if (auto s = dyn_cast<StoreOp>(inner); s && !store)
        store = s;
      else if (!isPure(&inner))
        return std::nullopt;
    }
    TypedAttr value;
    if (!store || !matchPattern(store.getValue(), m_Constant(&value)))
      return std::nullopt;
    // The axis of each coordinate: init's arguments are the spatial axes.
    SmallVector<unsigned> axes;
    for (Value coord : store.getCoords()) {
      auto arg = dyn_cast<BlockArgument>(coord);
      if (!arg || arg.getOwner() != &init)
        return std::nullopt;
      axes.push_back(spatial[arg.getArgNumber()]);
    }
    SmallVector<unsigned> sorted(axes);
    llvm::sort(sorted);
    if (sorted != SmallVector<unsigned>(spatial))
      return std::nullopt;
    // The body's arguments are every axis, in order.
    Block &body = op.getBody().front();
    Value data = store.getBuffer().getDefiningOp<BufferOp>().getData();
    WalkResult walk = body.walk([&](Operation *inner) {
      Value buffer;
      OperandRange coords = inner->getOperands();
      if (auto load = dyn_cast<LoadOp>(inner))
        std::tie(buffer, coords) =
            std::pair(load.getBuffer(), load.getCoords());
      else if (auto other = dyn_cast<StoreOp>(inner))
        std::tie(buffer, coords) =
            std::pair(other.getBuffer(), other.getCoords());
      if (!buffer || buffer.getDefiningOp<BufferOp>().getData() != data)
        return WalkResult::advance();
      bool same = buffer == store.getBuffer() &&
                  llvm::all_of(llvm::zip(coords, axes), [&](auto pair) {
                    auto arg = dyn_cast<BlockArgument>(std::get<0>(pair));
                    return arg && arg.getOwner() == &body &&
                           arg.getArgNumber() == std::get<1>(pair);
                  });
      return same ? WalkResult::advance() : WalkResult::interrupt();
    });
    if (walk.wasInterrupted())
      return std::nullopt;
    return ConstantFill{store.getBuffer(), value};
  }
};

} // namespace
