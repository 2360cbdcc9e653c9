//===- PipelineDmaLoops.cpp - tile loops as software pipelines ------------===//
//
// For each scf.for inside a launch whose body loads global memory into
// on-chip buffers with npudev.dma (buffers allocated before the loop and
// used only in it), with a static trip count of at least N:
//   1. each loaded buffer gets N copies, selected by the iteration number
//      modulo N;
//   2. each load becomes npudev.dma_start, with npudev.wait where the load
//      was;
//   3. upstream's scf::pipelineForLoop runs the loads, the selection and the
//      address arithmetic they need in stage 0 and the rest in stage N - 1,
//      so that iteration i + N - 1's loads are in flight while iteration i
//      computes.
// N shrinks while the extra buffers do not fit the launch's on-chip
// capacity (a remark says so). The loop is left alone when it writes
// global memory it loads, or when a load's address depends on anything the
// loop computes from its iter_args or memory. O(ops in the loop) per loop.
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
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace npu::dev {
#define GEN_PASS_DEF_PIPELINEDMALOOPS
#include "npu/Dialect/NPUDev/Passes.h.inc"
} // namespace npu::dev

using namespace mlir;
using namespace npu;
using namespace npu::dev;

namespace {

/// A loop's loads that pipelining can move ahead: npudev.dma from global
/// memory into a buffer allocated before the loop and used only inside it.
struct LoopLoads {
  SmallVector<DmaOp> loads;
  /// The distinct buffers they fill, in order of first load.
  SmallVector<AllocOp> buffers;
};

LoopLoads findLoads(scf::ForOp loop) {
  LoopLoads found;
  for (auto dma : loop.getBody()->getOps<DmaOp>()) {
    auto alloc = dma.getTarget().getDefiningOp<AllocOp>();
    if (!alloc || loop->isAncestor(alloc) ||
        getMemorySpace(dma.getSource().getType()) != MemorySpace::global)
      continue;
    bool onlyInLoop = llvm::all_of(alloc->getUsers(), [&](Operation *user) {
      return loop->isAncestor(user);
    });
    if (!onlyInLoop)
      continue;
    found.loads.push_back(dma);
    if (!llvm::is_contained(found.buffers, alloc))
      found.buffers.push_back(alloc);
  }
  return found;
}

/// Whether the loop writes, anywhere in its body, a memref whose root one
/// of the loads reads.
bool writesWhatItLoads(scf::ForOp loop, const LoopLoads &found) {
  llvm::SmallPtrSet<Value, 4> loaded;
  for (DmaOp load : found.loads)
    loaded.insert(getViewRoot(load.getSource()));
  WalkResult result = loop.getBody()->walk([&](Operation *op) {
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects)
      return WalkResult::advance();
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffects(instances);
    for (const MemoryEffects::EffectInstance &effect : instances)
      if (isa<MemoryEffects::Write>(effect.getEffect()) && effect.getValue() &&
          loaded.contains(getViewRoot(effect.getValue())))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return result.wasInterrupted();
}

/// Adds to `stage0` the ops of the loop body that `value` depends on, if
/// they are pure and depend only on the induction variable and values
/// from outside; returns false otherwise.
bool collectAddressSlice(scf::ForOp loop, Value value,
                         llvm::SetVector<Operation *> &stage0) {
  if (value == loop.getInductionVar())
    return true;
  if (auto arg = dyn_cast<BlockArgument>(value))
    return arg.getOwner() != loop.getBody();
  Operation *def = value.getDefiningOp();
  if (def->getBlock() != loop.getBody())
    return !loop->isAncestor(def);
  if (stage0.contains(def))
    return true;
  if (!isPure(def) || def->getNumRegions() != 0)
    return false;
  for (Value operand : def->getOperands())
    if (!collectAddressSlice(loop, operand, stage0))
      return false;
  stage0.insert(def);
  return true;
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

/// The block of the launch region (npudev.launch or a side of
/// npudev.mixed_launch) that holds `op`.
Block *getLaunchBlock(Operation *op) {
  Block *block = op->getBlock();
  while (!isa<LaunchOp, MixedLaunchOp>(block->getParentOp()))
    block = block->getParentOp()->getBlock();
  return block;
}

/// The most stages (at most `requested`) whose extra buffers fit the
/// launch: its on-chip peak plus (stages - 1) copies of each loaded
/// buffer, per memory space.
unsigned fitStages(const LoopLoads &found, const DeviceModel &device,
                   unsigned requested) {
  OnChipPeaks peaks = getOnChipPeaks(*getLaunchBlock(found.buffers.front()));
  OnChipPeaks perStage = {};
  for (AllocOp alloc : found.buffers) {
    MemRefType type = alloc.getType();
    std::optional<int64_t> bytes = getStaticByteSize(type);
    if (!bytes)
      return 1;
    perStage[static_cast<unsigned>(*getMemorySpace(type))] += *bytes;
  }
  for (unsigned stages = requested; stages >= 2; --stages) {
    bool fits = true;
    for (unsigned s = 1; s < perStage.size(); ++s)
      fits &= perStage[s] == 0 ||
              peaks[s] + (stages - 1) * perStage[s] <=
                  device.getCapacity(static_cast<MemorySpace>(s));
    if (fits)
      return stages;
  }
  return 1;
}

/// Gives each loaded buffer `stages` copies and selects, at the top of the
/// loop body, the one of the current iteration; returns the ops that
/// compute the selection.
SmallVector<Operation *> multiBuffer(RewriterBase &rewriter, scf::ForOp loop,
                                     const LoopLoads &found, unsigned stages) {
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
  for (AllocOp alloc : found.buffers) {
    SmallVector<Value> copies = {alloc};
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointAfter(alloc);
      for (unsigned s = 1; s < stages; ++s)
        copies.push_back(rewriter.clone(*alloc)->getResult(0));
    }
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

/// Pipelines `loop` with at most `requested` stages; a loop it cannot
/// pipeline is left unchanged.
void pipelineLoop(scf::ForOp loop, unsigned requested,
                  const DeviceModel &device) {
  LoopLoads found = findLoads(loop);
  std::optional<int64_t> trips = getStaticTripCount(loop);
  if (found.loads.empty() || !trips || *trips < 2 ||
      writesWhatItLoads(loop, found))
    return;
  llvm::SetVector<Operation *> addresses;
  for (DmaOp load : found.loads)
    if (!collectAddressSlice(loop, load.getSource(), addresses))
      return;
  unsigned stages =
      fitStages(found, device,
                std::min<unsigned>(requested, static_cast<unsigned>(*trips)));
  if (stages < requested)
    loop.emitRemark() << "pipelined with " << stages << " stage"
                      << (stages == 1 ? "" : "s") << " of the " << requested
                      << " asked: more copies of its loaded buffers do not "
                         "fit, or it has fewer iterations";
  if (stages < 2)
    return;

  IRRewriter rewriter(loop.getContext());
  SmallVector<Operation *> selection =
      multiBuffer(rewriter, loop, found, stages);
  llvm::SetVector<Operation *> stage0(selection.begin(), selection.end());
  stage0.insert(addresses.begin(), addresses.end());
  for (DmaOp load : found.loads) {
    rewriter.setInsertionPoint(load);
    auto start = rewriter.create<DmaStartOp>(
        load.getLoc(), TokenType::get(rewriter.getContext()), load.getSource(),
        load.getTarget());
    rewriter.create<WaitOp>(load.getLoc(), start.getToken());
    stage0.insert(start);
    rewriter.eraseOp(load);
  }

  scf::PipeliningOption options;
  options.getScheduleFn =
      [&](scf::ForOp forOp,
          std::vector<std::pair<Operation *, unsigned>> &schedule) {
        for (Operation &op : forOp.getBody()->without_terminator())
          if (stage0.contains(&op))
            schedule.push_back({&op, 0});
        for (Operation &op : forOp.getBody()->without_terminator())
          if (!stage0.contains(&op))
            schedule.push_back({&op, stages - 1});
      };
  rewriter.setInsertionPoint(loop);
  // On failure the loop keeps its copies and waits in place: still right,
  // only not overlapped.
  (void)scf::pipelineForLoop(rewriter, loop, options);
}

struct PipelineDmaLoopsPass
    : dev::impl::PipelineDmaLoopsBase<PipelineDmaLoopsPass> {
  using PipelineDmaLoopsBase::PipelineDmaLoopsBase;

  void runOnOperation() override {
    if (stages < 2 || stages > 4) {
      getOperation().emitError("npu-pipeline-dma-loops: stages must be "
                               "between 2 and 4, got ")
          << stages.getValue();
      return signalPassFailure();
    }
    FailureOr<DeviceModel> device = lookupDevice(getOperation());
    if (failed(device))
      return signalPassFailure();
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) {
      if (loop->getParentOfType<LaunchOp>() ||
          loop->getParentOfType<MixedLaunchOp>())
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops)
      pipelineLoop(loop, stages, *device);
  }
};

} // namespace
