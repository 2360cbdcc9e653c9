//===- PipelineDmaLoops.cpp - tile loops as software pipelines ------------===//
//
// First, a copy to global memory out of a buffer that a loop around it
// never writes, into memory nothing else in that loop touches (a zero fill
// of rows from one constant tile), is left in flight, with one
// npudev.wait_all after the outermost such loop: nothing in the loop can
// see it. Then, for each scf.for inside a launch, innermost first:
//   1. the on-chip buffers to multiply are those each iteration writes before
//      it reads (so no data passes between iterations through them), used
//      only in loops of which that holds, and loaded from global memory or
//      stored to it in the loop;
//   2. each such buffer gets N copies, selected by the iteration number
//      modulo N; loops of which neither holds the other share the copies
//      (one runs after the other, and waits for its copies at its end);
//   3. each load into one (nothing before it in the body touching that
//      buffer; nothing in the loop writing what it reads, unless only
//      stores after it into its own window, which moves a whole window
//      per iteration, or, for a copy marked private_window, only writes
//      after it in the body) becomes an npudev.async holding the load and its
//      address arithmetic (pure ops and reads of memory the loop never
//      writes), with npudev.wait where the load was; each store
//      from one is left in flight (npudev.dma_start), and the loop is
//      followed by npudev.wait_all (only if it ran, when it may not: a
//      loop over a long row's chunks inside a pipelined row loop would
//      otherwise drain the row loop's copies issued ahead at every row);
//   4. upstream's scf::pipelineForLoop puts the selection and the asyncs in
//      stage 0 and the rest in stage N - 1, so that iteration i + N - 1's
//      loads are in flight while iteration i computes. A dma_gather into
//      such a buffer whose indices one of those loads brings in (a row's
//      column indices, then the rows they name) is issued the same way
//      one stage later, after waiting for its indices: stage 1. A static trip
//      count peels the last N - 1 iterations; an unknown one predicates stage 0
//      (the async's body runs under scf.if), so 0 .. N - 1 trips are right.
// Stores in flight are safe because a core's copies complete in order: the
// next write to a copy waits for a load started after the store. N comes
// from the device (enough tiles in flight to cover the DMA latency) or the
// `stages` option, and shrinks while the copies do not fit the launch's
// on-chip capacity (a remark says so). O(ops in the launch x loads) per
// loop.
//
//===----------------------------------------------------------------------===//

#include "npu/Dialect/NPUDev/DeviceAttr.h"
#include "npu/Dialect/NPUDev/NPUDevOps.h"
#include "npu/Dialect/NPUDev/Passes.h"
#include "npu/Dialect/NPUDev/Semantics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

namespace npu::dev {
#define GEN_PASS_DEF_PIPELINEDMALOOPS
#include "npu/Dialect/NPUDev/Passes.h.inc"
} // namespace npu::dev

using namespace mlir;
using namespace npu;
using namespace npu::dev;

namespace {

/// The copies pipelining moves and the buffers it multiplies.
struct PipelinePlan {
  /// Loads issued N - 1 iterations ahead.
  SmallVector<DmaOp> loads;
  /// Gathers issued N - 2 iterations ahead, behind the loads of their
  /// indices.
  SmallVector<DmaGatherOp> gathers;
  /// Stores left in flight.
  SmallVector<DmaOp> stores;
  /// The on-chip buffers they fill or drain, one copy per stage.
  SmallVector<AllocOp> buffers;
};

bool isGlobal(Value memref) {
  return getMemorySpace(cast<MemRefType>(memref.getType())) ==
         MemorySpace::global;
}

/// `view` without the casts on it: a cast names the same bytes.
Value stripCasts(Value view) {
  while (auto cast = view.getDefiningOp<memref::CastOp>())
    view = cast.getSource();
  return view;
}

/// `view` without the casts and reshapes on it: each names the same
/// elements (a window of rows written as [rows, columns, channels] and read
/// as the matrix [rows x columns, channels]).
Value stripSameElements(Value view) {
  while (true) {
    view = stripCasts(view);
    Operation *def = view.getDefiningOp();
    if (!isa_and_nonnull<memref::CollapseShapeOp, memref::ExpandShapeOp>(def))
      return view;
    view = def->getOperand(0);
  }
}

/// Whether `op`'s only effects on `view` are writes.
bool writesOnly(Operation *op, Value view) {
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return false;
  SmallVector<MemoryEffects::EffectInstance> onView;
  effects.getEffectsOnValue(view, onView);
  return !onView.empty() &&
         llvm::all_of(onView, [](const MemoryEffects::EffectInstance &e) {
           return isa<MemoryEffects::Write>(e.getEffect());
         });
}

/// Whether the views of `view` leading to `buffer` are all taken inside
/// `loop`, so that giving the loop another copy of the buffer moves them.
bool isViewTakenInside(scf::ForOp loop, Value view, Value buffer) {
  while (view != buffer) {
    auto viewLike = view.getDefiningOp<ViewLikeOpInterface>();
    if (!viewLike || !loop->isAncestor(viewLike))
      return false;
    view = viewLike.getViewSource();
  }
  return true;
}

/// Whether `view` lies within one of the views in `written`: it is one, or
/// is taken from one (a window of a tile the iteration loaded).
bool isWithinWritten(Value view, const llvm::SmallPtrSetImpl<Value> &written) {
  while (true) {
    view = stripSameElements(view);
    if (written.contains(view))
      return true;
    auto viewLike = view.getDefiningOp<ViewLikeOpInterface>();
    if (!viewLike)
      return false;
    view = viewLike.getViewSource();
  }
}

/// Whether every iteration of `loop` writes each view of `buffer` it uses
/// before reading it, in the loop body itself or in a loop nested in it of
/// which the same holds: then the buffer carries nothing from one
/// iteration to the next, nor into or out of the loop.
bool isIterationLocal(scf::ForOp loop, Value buffer) {
  llvm::SmallPtrSet<Value, 8> written;
  WalkResult result =
      loop.getBody()->walk<WalkOrder::PreOrder>([&](Operation *op) {
        if (isa<ViewLikeOpInterface>(op))
          return WalkResult::advance();
        // A nested loop that writes before it reads takes nothing in; what
        // it leaves is read, if at all, through views it wrote, which the
        // walk after it does not count as written.
        if (auto nested = dyn_cast<scf::ForOp>(op))
          if (isIterationLocal(nested, buffer))
            return WalkResult::skip();
        for (Value operand : op->getOperands()) {
          if (!isa<MemRefType>(operand.getType()) ||
              getViewRoot(operand) != buffer ||
              isWithinWritten(operand, written))
            continue;
          if (op->getBlock() != loop.getBody() || !writesOnly(op, operand) ||
              !isViewTakenInside(loop, operand, buffer))
            return WalkResult::interrupt();
          written.insert(stripSameElements(operand));
        }
        return WalkResult::advance();
      });
  return !result.wasInterrupted();
}

/// Answers, once per (loop, buffer), whether a buffer may have a copy per
/// iteration in flight.
class BufferAnalysis {
public:
  /// Whether every access to `buffer` is inside some loop of which it is
  /// iteration-local: no value it holds outlives the iteration that wrote
  /// it, so any of those loops may give it more copies. A buffer that
  /// escapes into a value the analysis cannot follow (a select, a call, a
  /// loop's iter_args) is not.
  bool isMultipliable(AllocOp buffer) {
    auto [it, inserted] = multipliable.try_emplace(buffer, false);
    if (!inserted)
      return it->second;
    Value root = buffer.getResult();
    WalkResult result = getLaunchBlock(buffer)->walk([&](Operation *op) {
      if (isa<ViewLikeOpInterface>(op) ||
          llvm::none_of(op->getOperands(), [&](Value v) {
            return isa<MemRefType>(v.getType()) && getViewRoot(v) == root;
          }))
        return WalkResult::advance();
      if (!isa<MemoryEffectOpInterface>(op))
        return WalkResult::interrupt();
      for (auto loop = op->getParentOfType<scf::ForOp>();
           loop && !loop->isAncestor(buffer);
           loop = loop->getParentOfType<scf::ForOp>())
        if (isLocal(loop, root))
          return WalkResult::advance();
      return WalkResult::interrupt();
    });
    return multipliable[buffer] = !result.wasInterrupted();
  }

  /// The block of the launch region (npudev.launch or a side of
  /// npudev.mixed_launch) that holds `op`.
  static Block *getLaunchBlock(Operation *op) {
    Block *block = op->getBlock();
    while (!isa<LaunchOp, MixedLaunchOp>(block->getParentOp()))
      block = block->getParentOp()->getBlock();
    return block;
  }

private:
  bool isLocal(scf::ForOp loop, Value buffer) {
    auto [it, inserted] =
        local.try_emplace({loop.getOperation(), buffer}, false);
    if (inserted)
      it->second = isIterationLocal(loop, buffer);
    return it->second;
  }

  DenseMap<std::pair<Operation *, Value>, bool> local;
  DenseMap<Operation *, bool> multipliable;
};

/// Whether an op anywhere in the loop body writes memory of `root`, other
/// than the writes `isAllowed` accepts (op, written view).
bool writesRoot(scf::ForOp loop, Value root,
                function_ref<bool(Operation *, Value)> isAllowed = nullptr) {
  WalkResult result = loop.getBody()->walk([&](Operation *op) {
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects)
      return WalkResult::advance();
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffects(instances);
    for (const MemoryEffects::EffectInstance &effect : instances)
      if (isa<MemoryEffects::Write>(effect.getEffect()) && effect.getValue() &&
          getViewRoot(effect.getValue()) == root &&
          !(isAllowed && isAllowed(op, effect.getValue())))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return result.wasInterrupted();
}

/// How many elements `value` grows by per unit of the induction variable,
/// if it is an affine function of it with loop-invariant rest.
std::optional<int64_t> getIvCoefficient(scf::ForOp loop, Value value) {
  if (value == loop.getInductionVar())
    return 1;
  if (loop.isDefinedOutsideOfLoop(value))
    return 0;
  Operation *def = value.getDefiningOp();
  if (!def || def->getNumOperands() != 2)
    return std::nullopt;
  std::optional<int64_t> lhs = getIvCoefficient(loop, def->getOperand(0));
  std::optional<int64_t> rhs = getIvCoefficient(loop, def->getOperand(1));
  if (!lhs || !rhs)
    return std::nullopt;
  if (isa<arith::AddIOp>(def))
    return *lhs + *rhs;
  if (isa<arith::SubIOp>(def))
    return *lhs - *rhs;
  if (auto factor = getConstantIntValue(def->getOperand(1));
      isa<arith::MulIOp>(def) && factor && *rhs == 0)
    return *lhs * *factor;
  return std::nullopt;
}

/// Whether `window`, a subview of a view taken outside the loop, moves
/// each iteration past where it was: its offset in some dimension grows
/// per iteration by at least the elements it spans there. Then no two
/// iterations touch the same elements.
bool isWindowPerIteration(scf::ForOp loop, Value window) {
  auto subview = stripCasts(window).getDefiningOp<memref::SubViewOp>();
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (!subview || !step || !loop.isDefinedOutsideOfLoop(subview.getSource()))
    return false;
  for (auto [offset, size, stride] :
       llvm::zip(subview.getMixedOffsets(), subview.getMixedSizes(),
                 subview.getMixedStrides())) {
    auto value = dyn_cast<Value>(offset);
    std::optional<int64_t> elements = getConstantIntValue(size);
    std::optional<int64_t> apart = getConstantIntValue(stride);
    std::optional<int64_t> coefficient =
        value ? getIvCoefficient(loop, value) : std::nullopt;
    if (elements && apart && coefficient && *coefficient != 0 &&
        std::abs(*coefficient * *step) >= (*elements - 1) * *apart + 1)
      return true;
  }
  return false;
}

/// Whether the loop's iterations can read `source` (by `reader`, an op of
/// the body) ahead of the loop's writes: none writes its root, or the only
/// writes are copies into `source` itself after `reader` in the body, a
/// window that moves past itself every iteration (a row loaded, updated
/// and stored back).
bool isReadableAhead(scf::ForOp loop, Operation *reader, Value source) {
  Value root = getViewRoot(source);
  if (!writesRoot(loop, root))
    return true;
  // A window no other iteration writes (its producer's promise): only
  // this iteration's writes, after the read, may touch it.
  auto dma = dyn_cast<DmaOp>(reader);
  if (dma && dma.getPrivateWindow())
    return !writesRoot(loop, root, [&](Operation *op, Value) {
      Operation *top = loop.getBody()->findAncestorOpInBlock(*op);
      return top && reader->isBeforeInBlock(top);
    });
  return isWindowPerIteration(loop, source) &&
         !writesRoot(loop, root, [&](Operation *op, Value written) {
           return isa<DmaOp>(op) && op->getBlock() == loop.getBody() &&
                  reader->isBeforeInBlock(op) &&
                  stripCasts(written) == stripCasts(source);
         });
}

/// Whether `op`'s only effects are reads of memory the loop never writes:
/// run an iteration ahead, it reads what it would have read in its own.
bool readsOnlyUnwritten(scf::ForOp loop, Operation *op) {
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return false;
  SmallVector<MemoryEffects::EffectInstance> instances;
  effects.getEffects(instances);
  return llvm::all_of(instances, [&](const MemoryEffects::EffectInstance &e) {
    return isa<MemoryEffects::Read>(e.getEffect()) && e.getValue() &&
           !writesRoot(loop, getViewRoot(e.getValue()));
  });
}

/// Adds to `slice` the ops of the loop body that `value` depends on, if
/// they have no effects but reads of memory the loop does not write (an
/// index loaded from a staged table) and depend only on the induction
/// variable, values from outside and `leaves`; returns false otherwise.
bool collectAddressSlice(scf::ForOp loop, Value value,
                         const llvm::SmallPtrSetImpl<Value> &leaves,
                         llvm::SetVector<Operation *> &slice) {
  if (value == loop.getInductionVar() || leaves.contains(value))
    return true;
  if (auto arg = dyn_cast<BlockArgument>(value))
    return arg.getOwner() != loop.getBody();
  Operation *def = value.getDefiningOp();
  if (def->getBlock() != loop.getBody())
    return !loop->isAncestor(def);
  if (slice.contains(def))
    return true;
  if ((!isMemoryEffectFree(def) && !readsOnlyUnwritten(loop, def)) ||
      def->getNumRegions() != 0)
    return false;
  for (Value operand : def->getOperands())
    if (!collectAddressSlice(loop, operand, leaves, slice))
      return false;
  slice.insert(def);
  return true;
}

/// Adds to `roots` the memrefs whose views `op` or an op inside it uses
/// other than to take a view.
void addAccessedRoots(Operation *op, llvm::SmallPtrSetImpl<Value> &roots) {
  op->walk([&](Operation *nested) {
    if (isa<ViewLikeOpInterface>(nested))
      return;
    for (Value v : nested->getOperands())
      if (isa<MemRefType>(v.getType()))
        roots.insert(getViewRoot(v));
  });
}

/// The top-level op of the loop body that holds the first access to a view
/// of `buffer`.
Operation *getFirstAccess(scf::ForOp loop, Value buffer) {
  for (Operation &op : loop.getBody()->without_terminator()) {
    llvm::SmallPtrSet<Value, 8> roots;
    addAccessedRoots(&op, roots);
    if (roots.contains(buffer))
      return &op;
  }
  return nullptr;
}

/// The loads and stores of `loop` that can move, and their buffers.
PipelinePlan planLoop(scf::ForOp loop, BufferAnalysis &buffers) {
  PipelinePlan plan;
  llvm::SmallPtrSet<Value, 4> noLeaves;
  auto bufferOf = [&](Value view) -> AllocOp {
    auto alloc = getViewRoot(view).getDefiningOp<AllocOp>();
    if (!alloc || loop->isAncestor(alloc) || !buffers.isMultipliable(alloc))
      return {};
    return alloc;
  };
  // A copy moves ahead of everything before it in the body: nothing but
  // copies moving with it may touch its buffer there. Its target buffer,
  // when it may be issued ahead: its source read ahead, its addresses
  // (`operands`) computed ahead.
  llvm::SmallPtrSet<Value, 8> touched;
  auto getIssuableTarget = [&](Operation *copy, Value source, Value target,
                               ValueRange operands) -> AllocOp {
    AllocOp buffer = bufferOf(target);
    llvm::SetVector<Operation *> slice;
    if (!buffer || touched.contains(buffer.getResult()) || !isGlobal(source) ||
        !isReadableAhead(loop, copy, source) ||
        llvm::any_of(operands, [&](Value v) {
          return !collectAddressSlice(loop, v, noLeaves, slice);
        }))
      return {};
    return buffer;
  };
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (auto dma = dyn_cast<DmaOp>(op))
      if (AllocOp target = getIssuableTarget(
              dma, dma.getSource(), dma.getTarget(), dma->getOperands())) {
        plan.loads.push_back(dma);
        plan.buffers.push_back(target);
        continue;
      }
    addAccessedRoots(&op, touched);
  }
  if (plan.loads.empty())
    return plan;
  // A gather whose indices a planned load brings in: it reads them after
  // that load's wait, and its rows from memory the loop does not write.
  llvm::SmallPtrSet<Value, 8> loaded;
  for (DmaOp load : plan.loads)
    loaded.insert(getViewRoot(load.getTarget()));
  touched.clear();
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (auto gather = dyn_cast<DmaGatherOp>(op))
      if (loaded.contains(getViewRoot(gather.getIndices())))
        if (AllocOp target =
                getIssuableTarget(gather, gather.getSource(),
                                  gather.getTarget(), gather->getOperands())) {
          plan.gathers.push_back(gather);
          plan.buffers.push_back(target);
          continue;
        }
    if (!isa<DmaOp>(op) || !llvm::is_contained(plan.loads, cast<DmaOp>(op)))
      addAccessedRoots(&op, touched);
  }
  // A store may stay in flight when its buffer is first touched, each
  // iteration, at or after the first load: that load's wait, or the load
  // itself queued behind the store, keeps the next write behind it.
  Operation *firstLoad = plan.loads.front();
  for (auto dma : loop.getBody()->getOps<DmaOp>()) {
    AllocOp source = bufferOf(dma.getSource());
    if (!source || !isGlobal(dma.getTarget()))
      continue;
    Operation *first = getFirstAccess(loop, source.getResult());
    if (first != firstLoad && first->isBeforeInBlock(firstLoad))
      continue;
    plan.stores.push_back(dma);
    plan.buffers.push_back(source);
  }
  llvm::SetVector<AllocOp> unique(plan.buffers.begin(), plan.buffers.end());
  plan.buffers.assign(unique.begin(), unique.end());
  return plan;
}

/// The static trip count of `loop`, if its bounds are constants.
std::optional<int64_t> getStaticTripCount(scf::ForOp loop) {
  std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound());
  std::optional<int64_t> ub = getConstantIntValue(loop.getUpperBound());
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (!lb || !ub || !step || *step <= 0)
    return std::nullopt;
  return *ub <= *lb ? 0 : (*ub - *lb + *step - 1) / *step;
}

/// The extra copies of each buffer made so far, and the loops using them.
/// Loops are named by their index among the planned loops: pipelining
/// replaces them.
class CopyPool {
public:
  /// `nested[i]`: the planned loops that hold loop i or that it holds.
  explicit CopyPool(std::vector<llvm::SmallDenseSet<unsigned>> nested)
      : nested(std::move(nested)) {}

  /// The copies loop `loop` may use: those of loops of which neither it
  /// nor they hold the other (none when one does: an inner loop selecting
  /// among the outer loop's copies would give two of its slots one buffer).
  ArrayRef<Value> getShared(AllocOp alloc, unsigned loop) const {
    auto it = pools.find(alloc);
    if (it == pools.end() || llvm::any_of(it->second.users, [&](unsigned user) {
          return nested[loop].count(user);
        }))
      return {};
    return it->second.copies;
  }

  /// `count` extra copies of `alloc` for loop `loop`: shared ones first,
  /// then new ones after `alloc`.
  SmallVector<Value> take(RewriterBase &rewriter, AllocOp alloc, unsigned loop,
                          unsigned count) {
    ArrayRef<Value> shared = getShared(alloc, loop);
    bool sharing = !shared.empty() || !pools.count(alloc);
    SmallVector<Value> copies(shared.take_front(count));
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointAfter(alloc);
    while (copies.size() < count)
      copies.push_back(rewriter.clone(*alloc)->getResult(0));
    if (sharing) {
      Pool &pool = pools[alloc];
      for (size_t c = pool.copies.size(); c < copies.size(); ++c)
        pool.copies.push_back(copies[c]);
      pool.users.push_back(loop);
    }
    return copies;
  }

private:
  struct Pool {
    SmallVector<Value> copies;
    SmallVector<unsigned> users;
  };
  std::vector<llvm::SmallDenseSet<unsigned>> nested;
  llvm::DenseMap<Operation *, Pool> pools;
};

/// The bytes of the copies of the plan's buffers that `stages` stages of
/// planned loop `loop` add to what `pool` holds, per memory space.
OnChipPeaks getAddedBytes(const PipelinePlan &plan, unsigned loop,
                          unsigned stages, const CopyPool &pool) {
  OnChipPeaks added = {};
  for (AllocOp alloc : plan.buffers) {
    int64_t shared = pool.getShared(alloc, loop).size();
    int64_t missing = std::max<int64_t>(0, int64_t(stages) - 1 - shared);
    MemRefType type = alloc.getType();
    added[static_cast<unsigned>(*getMemorySpace(type))] +=
        missing * getStaticByteSize(type).value_or(0);
  }
  return added;
}

/// The device's choice: enough iterations in flight that the loads of one
/// tile, at the DMA engine's bandwidth, cover the DMA's latency.
unsigned chooseStages(const PipelinePlan &plan, const DeviceModel &device) {
  int64_t loadedBytes = 0;
  for (DmaOp load : plan.loads) {
    Value target = load.getTarget();
    std::optional<int64_t> bytes =
        getStaticByteSize(cast<MemRefType>(target.getType()));
    // A window of dynamic size: at most its whole buffer.
    loadedBytes += bytes.value_or(
        *getStaticByteSize(cast<MemRefType>(getViewRoot(target).getType())));
  }
  if (device.dmaGBps <= 0)
    return 2;
  double transferCycles = loadedBytes / device.dmaGBps * device.clockGHz;
  double tiles =
      std::ceil(device.dmaLatencyCycles / std::max(1.0, transferCycles));
  return static_cast<unsigned>(std::clamp(1.0 + tiles, 2.0, 4.0));
}

/// The most stages (at most `requested`) whose extra copies fit the launch:
/// its on-chip peak plus (stages - 1) copies of each buffer, per space.
unsigned fitStages(const PipelinePlan &plan, unsigned loop,
                   const DeviceModel &device, unsigned requested,
                   const CopyPool &pool) {
  OnChipPeaks peaks =
      getOnChipPeaks(*BufferAnalysis::getLaunchBlock(plan.buffers.front()));
  for (unsigned stages = requested; stages >= 2; --stages) {
    OnChipPeaks added = getAddedBytes(plan, loop, stages, pool);
    bool fits = true;
    for (unsigned s = 1; s < added.size(); ++s)
      fits &=
          added[s] == 0 || peaks[s] + added[s] <=
                               device.getCapacity(static_cast<MemorySpace>(s));
    if (fits)
      return stages;
  }
  return 1;
}

/// Gives each planned buffer `stages` copies (from `pool` where other loops
/// share them) and selects, at the top of the loop body, the one of the
/// current iteration; returns the ops that compute the selection.
SmallVector<Operation *> multiplyBuffers(RewriterBase &rewriter,
                                         scf::ForOp loop, unsigned index,
                                         const PipelinePlan &plan,
                                         unsigned stages, CopyPool &pool) {
  SmallVector<Operation *> selection;
  Location loc = loop.getLoc();
  rewriter.setInsertionPointToStart(loop.getBody());
  auto track = [&](Value v) {
    selection.push_back(v.getDefiningOp());
    return v;
  };
  // slot = ((iv - lb) / step) mod stages
  Value iteration = track(rewriter.create<arith::DivUIOp>(
      loc,
      track(rewriter.create<arith::SubIOp>(loc, loop.getInductionVar(),
                                           loop.getLowerBound())),
      loop.getStep()));
  Value slot = track(rewriter.create<arith::RemUIOp>(
      loc, iteration,
      track(rewriter.create<arith::ConstantIndexOp>(loc, stages))));
  for (AllocOp alloc : plan.buffers) {
    SmallVector<Value> copies = {alloc};
    copies.append(pool.take(rewriter, alloc, index, stages - 1));
    Value chosen = copies.back();
    for (int s = static_cast<int>(stages) - 2; s >= 0; --s) {
      Value isSlot = track(rewriter.create<arith::CmpIOp>(
          loc, arith::CmpIPredicate::eq, slot,
          track(rewriter.create<arith::ConstantIndexOp>(loc, s))));
      chosen = track(
          rewriter.create<arith::SelectOp>(loc, isSlot, copies[s], chosen));
    }
    rewriter.replaceUsesWithIf(alloc.getResult(), chosen, [&](OpOperand &use) {
      return use.getOwner() != chosen.getDefiningOp() &&
             loop->isAncestor(use.getOwner());
    });
  }
  return selection;
}

/// Replaces `load` with an npudev.async holding a copy of the load and of
/// the address arithmetic it needs, and a wait where the load was.
AsyncOp issueAhead(RewriterBase &rewriter, scf::ForOp loop, Operation *copy,
                   const llvm::SmallPtrSetImpl<Value> &selected) {
  llvm::SetVector<Operation *> slice;
  for (Value operand : copy->getOperands())
    (void)collectAddressSlice(loop, operand, selected, slice);
  rewriter.setInsertionPoint(copy);
  auto async = rewriter.create<AsyncOp>(copy->getLoc());
  rewriter.create<WaitOp>(copy->getLoc(), async.getToken());
  {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(async.getBody().front().getTerminator());
    IRMapping mapping;
    for (Operation *op : slice)
      rewriter.clone(*op, mapping);
    rewriter.clone(*copy, mapping);
  }
  rewriter.eraseOp(copy);
  for (Operation *op : llvm::reverse(slice))
    if (op->use_empty())
      rewriter.eraseOp(op);
  return async;
}

Operation *predicateStage0(RewriterBase &rewriter, Operation *op,
                           Value predicate) {
  auto async = dyn_cast<AsyncOp>(op);
  if (!async)
    return op;
  Block &body = async.getBody().front();
  SmallVector<Operation *> issued = llvm::map_to_vector(
      body.without_terminator(), [](Operation &o) { return &o; });
  rewriter.setInsertionPointToStart(&body);
  auto guarded = rewriter.create<scf::IfOp>(op->getLoc(), predicate,
                                            /*withElseRegion=*/false);
  for (Operation *o : issued)
    rewriter.moveOpBefore(o, guarded.thenBlock()->getTerminator());
  return op;
}

/// Whether `store` may stay in flight across `loop`: the loop never writes
/// the buffer it copies from, and nothing in the loop but such copies
/// touches the memory it writes, so nothing in the loop can see it.
bool isUnobservedIn(scf::ForOp loop, DmaOp store) {
  Value source = getViewRoot(store.getSource());
  Value target = getViewRoot(store.getTarget());
  if (writesRoot(loop, source))
    return false;
  WalkResult walk = loop.getBody()->walk([&](Operation *op) {
    if (isa<ViewLikeOpInterface>(op))
      return WalkResult::advance();
    auto other = dyn_cast<DmaOp>(op);
    bool copiesOut = other && getViewRoot(other.getTarget()) == target &&
                     !writesRoot(loop, getViewRoot(other.getSource()));
    bool touches = llvm::any_of(op->getOperands(), [&](Value v) {
      return isa<MemRefType>(v.getType()) && getViewRoot(v) == target;
    });
    return touches && !copiesOut ? WalkResult::interrupt()
                                 : WalkResult::advance();
  });
  return !walk.wasInterrupted();
}

/// Leaves in flight each copy to global memory that the outermost loop
/// around it (inside its launch) for which isUnobservedIn holds cannot
/// see (a zero fill of rows from one constant tile), with one wait_all
/// after that loop.
void leaveUnobservedStoresInFlight(Operation *root) {
  SmallVector<DmaOp> stores;
  // A copy inside npudev.async is what its token waits for: it stays.
  root->walk([&](DmaOp dma) {
    if (isGlobal(dma.getTarget()) && !isGlobal(dma.getSource()) &&
        !dma->getParentOfType<AsyncOp>())
      stores.push_back(dma);
  });
  llvm::SetVector<Operation *> waitAfter;
  IRRewriter rewriter(root->getContext());
  for (DmaOp store : stores) {
    // What a loop writes or touches, its enclosing loops do too: the first
    // loop outward where the copy is seen ends the search.
    scf::ForOp outermost;
    for (auto loop = store->getParentOfType<scf::ForOp>();
         loop &&
         (loop->getParentOfType<LaunchOp>() ||
          loop->getParentOfType<MixedLaunchOp>()) &&
         isUnobservedIn(loop, store);
         loop = loop->getParentOfType<scf::ForOp>())
      outermost = loop;
    if (!outermost)
      continue;
    rewriter.setInsertionPoint(store);
    rewriter.replaceOpWithNewOp<DmaStartOp>(
        store, TokenType::get(rewriter.getContext()), store.getSource(),
        store.getTarget());
    waitAfter.insert(outermost);
  }
  for (Operation *loop : waitAfter) {
    rewriter.setInsertionPointAfter(loop);
    rewriter.create<WaitAllOp>(loop->getLoc());
  }
}

/// Waits after `loop` for the stores it leaves in flight. When the loop may
/// run no iteration, only if it ran one: it then started no copy, and a
/// wait_all would also wait for the copies a pipeline around it issued
/// ahead (a row loop's next rows, around a loop over a long row's chunks).
void waitForStoresAfter(RewriterBase &rewriter, scf::ForOp loop,
                        std::optional<int64_t> trips) {
  Location loc = loop.getLoc();
  rewriter.setInsertionPointAfter(loop);
  if (trips) {
    rewriter.create<WaitAllOp>(loc);
    return;
  }
  Value ran = rewriter.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt,
                                             loop.getLowerBound(),
                                             loop.getUpperBound());
  rewriter.create<scf::IfOp>(loc, ran, [&](OpBuilder &b, Location l) {
    b.create<WaitAllOp>(l);
    b.create<scf::YieldOp>(l);
  });
}

/// Carries out `plan` on `loop`, the `index`-th planned loop, with
/// `requested` stages (0: the device's choice).
void pipelineLoop(scf::ForOp loop, unsigned index, const PipelinePlan &plan,
                  unsigned requested, const DeviceModel &device,
                  CopyPool &pool) {
  std::optional<int64_t> trips = getStaticTripCount(loop);
  unsigned asked = requested ? requested : chooseStages(plan, device);
  unsigned stages = fitStages(
      plan, index, device,
      trips ? std::min<unsigned>(asked, static_cast<unsigned>(*trips)) : asked,
      pool);
  if (stages < asked)
    loop.emitRemark() << "pipelined with " << stages << " stage"
                      << (stages == 1 ? "" : "s") << " of the " << asked
                      << " asked: more copies of its buffers do not fit, or "
                         "it has fewer iterations";
  if (stages < 2)
    return;

  IRRewriter rewriter(loop.getContext());
  SmallVector<Operation *> selection =
      multiplyBuffers(rewriter, loop, index, plan, stages, pool);
  llvm::SetVector<Operation *> stage0(selection.begin(), selection.end());
  llvm::SmallPtrSet<Value, 8> selected;
  for (Operation *op : selection)
    selected.insert(op->getResult(0));
  // The wait of each load a gather reads the indices of, and the gather,
  // go to stage 1.
  llvm::SetVector<Operation *> stage1;
  for (DmaOp load : plan.loads) {
    Value root = getViewRoot(load.getTarget());
    AsyncOp async = issueAhead(rewriter, loop, load, selected);
    stage0.insert(async);
    if (llvm::any_of(plan.gathers, [&](DmaGatherOp gather) {
          return getViewRoot(gather.getIndices()) == root;
        }))
      for (Operation *user : async.getToken().getUsers())
        stage1.insert(user);
  }
  for (DmaGatherOp gather : plan.gathers)
    stage1.insert(issueAhead(rewriter, loop, gather, selected));
  for (DmaOp store : plan.stores) {
    rewriter.setInsertionPoint(store);
    rewriter.replaceOpWithNewOp<DmaStartOp>(
        store, TokenType::get(rewriter.getContext()), store.getSource(),
        store.getTarget());
  }
  if (!plan.stores.empty())
    waitForStoresAfter(rewriter, loop, trips);

  scf::PipeliningOption options;
  options.getScheduleFn =
      [&](scf::ForOp forOp,
          std::vector<std::pair<Operation *, unsigned>> &schedule) {
        unsigned gatherStage = std::min(1u, stages - 1);
        for (Operation &op : forOp.getBody()->without_terminator())
          if (stage0.contains(&op))
            schedule.push_back({&op, 0});
        for (Operation &op : forOp.getBody()->without_terminator())
          if (stage1.contains(&op))
            schedule.push_back({&op, gatherStage});
        for (Operation &op : forOp.getBody()->without_terminator())
          if (!stage0.contains(&op) && !stage1.contains(&op))
            schedule.push_back({&op, stages - 1});
      };
  // A known trip count peels the last iterations; an unknown one runs
  // them in the loop with stage 0 predicated off.
  options.supportDynamicLoops = !trips.has_value();
  options.peelEpilogue = trips.has_value();
  options.predicateFn = predicateStage0;
  rewriter.setInsertionPoint(loop);
  // On failure the loop keeps its copies and waits in place: still right,
  // only not overlapped.
  (void)scf::pipelineForLoop(rewriter, loop, options);
}

struct PipelineDmaLoopsPass
    : dev::impl::PipelineDmaLoopsBase<PipelineDmaLoopsPass> {
  using PipelineDmaLoopsBase::PipelineDmaLoopsBase;

  void runOnOperation() override {
    if (stages == 1 || stages > 4) {
      getOperation().emitError("npu-pipeline-dma-loops: stages must be "
                               "between 2 and 4 (0: the device's choice), "
                               "got ")
          << stages.getValue();
      return signalPassFailure();
    }
    FailureOr<DeviceModel> device = lookupDevice(getOperation());
    if (failed(device))
      return signalPassFailure();
    leaveUnobservedStoresInFlight(getOperation());
    // Every loop is planned on the IR as written, before any is changed:
    // the analysis follows buffers through views, not through the
    // selections pipelining adds.
    BufferAnalysis buffers;
    std::vector<std::pair<scf::ForOp, PipelinePlan>> plans;
    getOperation().walk([&](scf::ForOp loop) {
      std::optional<int64_t> trips = getStaticTripCount(loop);
      if ((!loop->getParentOfType<LaunchOp>() &&
           !loop->getParentOfType<MixedLaunchOp>()) ||
          (trips && *trips < 2))
        return;
      PipelinePlan plan = planLoop(loop, buffers);
      if (!plan.loads.empty())
        plans.emplace_back(loop, std::move(plan));
    });
    std::vector<llvm::SmallDenseSet<unsigned>> nested(plans.size());
    for (unsigned i = 0; i < plans.size(); ++i)
      for (unsigned j = i + 1; j < plans.size(); ++j)
        if (plans[i].first->isAncestor(plans[j].first) ||
            plans[j].first->isAncestor(plans[i].first)) {
          nested[i].insert(j);
          nested[j].insert(i);
        }
    CopyPool pool(std::move(nested));
    for (auto [index, entry] : llvm::enumerate(plans))
      pipelineLoop(entry.first, index, entry.second, stages, *device, pool);
  }
};

} // namespace

void npu::dev::addPipelineDmaLoops(OpPassManager &pm, unsigned stages) {
  pm.addNestedPass<func::FuncOp>(createPipelineDmaLoops({stages}));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}
