//===- StageRuns.cpp - runs of read-only arrays staged on chip ------------===//
//
// npu-sparse-stage-runs, after npu-sparse-tile-dense-axis. Inside a
// launch, a loop
// q in [lb, ub) step 1 whose body accesses a global array at q + c on
// every iteration (c fixed outside the loop) accesses a contiguous run of
// it: the loop becomes a loop over chunks of C positions, each of which
// starts one DMA per run into a vector-memory copy (their latencies
// overlap), waits for them, runs the old body on positions [0, m) of the
// copies, and copies the runs it stores to back. A scalar access to global
// memory costs the device's global latency; to the copy, a cycle. An
// array the launch writes is staged only when the loop touches it through
// that one run: iteration q then reads and writes only element q + c, and
// no other iteration sees it. A run every iteration stores to and none
// reads is not copied in. Loops are visited innermost first, so a row
// loop stages indptr around a nonzero loop that stages indices and
// values. O(ops in the loop) per loop.
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
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace npu {
#define GEN_PASS_DEF_SPARSESTAGERUNS
#include "npu/Conversion/Passes.h.inc"
} // namespace npu

using namespace mlir;
using namespace npu;
using namespace npu::sparse;

namespace {

/// c in an index q + c: a value fixed outside the loop (or none) plus a
/// constant.
struct Offset {
  Value fixed;
  int64_t constant = 0;
  bool operator==(const Offset &o) const {
    return fixed == o.fixed && constant == o.constant;
  }
};

/// A run of one array that the loop accesses at q + c: by memref.load and
/// memref.store of `array` at q + `offset`, or by the position loads and
/// stores of `buffer` at (`leading`..., q).
struct Run {
  Value array;
  Offset offset;
  Value buffer;
  SmallVector<Value> leading;
  SmallVector<Operation *> accesses;
  /// Whether an access runs on every iteration (so the run's elements
  /// exist), and whether a store does (so the copy needs nothing in).
  bool unconditional = false;
  bool storedAlways = false;
  Value copy;
  /// getFill() as the rewrite found it.
  Operation *fill = nullptr;

  /// The constant every access stores when the run is only ever set to it
  /// (an init's zero fill), else null: its copy is filled once and only
  /// copied out.
  Operation *getFill() const {
    if (reads() || !storedAlways)
      return nullptr;
    Value value = accesses.front()->getOperand(0);
    Operation *constant = value.getDefiningOp();
    bool same = llvm::all_of(
        accesses, [&](Operation *a) { return a->getOperand(0) == value; });
    return same && constant && constant->hasTrait<OpTrait::ConstantLike>()
               ? constant
               : nullptr;
  }

  bool reads() const {
    return llvm::any_of(accesses, [](Operation *a) {
      return isa<memref::LoadOp, PosLoadOp>(a);
    });
  }
  bool writes() const {
    return llvm::any_of(accesses, [](Operation *a) {
      return isa<memref::StoreOp, PosStoreOp>(a);
    });
  }
};

class LoopStager {
public:
  LoopStager(scf::ForOp loop, const DenseSet<Value> &written)
      : loop(loop), written(written) {}

  /// Finds the runs to stage; false when there are none.
  bool analyze();
  /// Bytes of vector memory the copies take at `chunk` positions each.
  int64_t getCopyBytes(int64_t chunk) const;
  void rewrite(int64_t chunk);

private:
  bool isStageable(Value array) const;
  std::optional<Offset> matchOffset(Value index);
  void addAccess(Operation *access, Value array, Offset offset, Value buffer,
                 ValueRange leading);
  /// Whether something in the loop besides `run` touches its array.
  bool isTouchedElsewhere(const Run &run);

  scf::ForOp loop;
  const DenseSet<Value> &written;
  SmallVector<Run> runs;
};

bool LoopStager::isStageable(Value array) const {
  auto type = dyn_cast<MemRefType>(array.getType());
  auto space =
      type ? dyn_cast_or_null<dev::MemorySpaceAttr>(type.getMemorySpace())
           : nullptr;
  return space && space.getValue() == dev::MemorySpace::global &&
         type.getRank() == 1 && type.getLayout().isIdentity() &&
         type.getElementType().isIntOrFloat() &&
         !loop->isAncestor(array.getParentBlock()->getParentOp());
}

bool LoopStager::isTouchedElsewhere(const Run &run) {
  Value root = dev::getViewRoot(run.array);
  auto touches = [&](Value v) {
    if (auto buffer = v.getDefiningOp<BufferOp>())
      v = buffer.getData();
    return isa<MemRefType>(v.getType()) && dev::getViewRoot(v) == root;
  };
  WalkResult walk = loop.getBody()->walk([&](Operation *op) {
    if (!llvm::is_contained(run.accesses, op) &&
        llvm::any_of(op->getOperands(), touches))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return walk.wasInterrupted();
}

/// `index` as q + c, through sums and differences with constants
/// (npu-sparse-lower-iterations puts them inside the loop: the 1 of indptr[i +
/// 1]) and at most one value fixed outside.
std::optional<Offset> LoopStager::matchOffset(Value index) {
  if (index == loop.getInductionVar())
    return Offset();
  // q - c: the checked mode compares each entry with the one before.
  if (auto sub = index.getDefiningOp<arith::SubIOp>()) {
    std::optional<Offset> offset = matchOffset(sub.getLhs());
    std::optional<int64_t> c = getConstantIntValue(sub.getRhs());
    if (!offset || !c)
      return std::nullopt;
    offset->constant -= *c;
    return offset;
  }
  auto add = index.getDefiningOp<arith::AddIOp>();
  if (!add)
    return std::nullopt;
  for (auto [self, other] : {std::pair(add.getLhs(), add.getRhs()),
                             std::pair(add.getRhs(), add.getLhs())}) {
    std::optional<Offset> offset = matchOffset(self);
    if (!offset)
      continue;
    if (std::optional<int64_t> c = getConstantIntValue(other)) {
      offset->constant += *c;
      return offset;
    }
    if (!offset->fixed &&
        !loop->isAncestor(other.getParentBlock()->getParentOp())) {
      offset->fixed = other;
      return offset;
    }
  }
  return std::nullopt;
}

void LoopStager::addAccess(Operation *access, Value array, Offset offset,
                           Value buffer, ValueRange leading) {
  Run *run = llvm::find_if(runs, [&](const Run &r) {
    return r.array == array && r.offset == offset && r.buffer == buffer &&
           ValueRange(r.leading) == leading;
  });
  if (run == runs.end()) {
    runs.push_back({array, offset, buffer, llvm::to_vector(leading), {}});
    run = &runs.back();
  }
  run->accesses.push_back(access);
  bool always = access->getBlock() == loop.getBody();
  run->unconditional |= always;
  run->storedAlways |= always && isa<memref::StoreOp, PosStoreOp>(access);
}

bool LoopStager::analyze() {
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (!step || *step != 1)
    return false;
  Value q = loop.getInductionVar();
  auto outside = [&](Value v) {
    return !loop->isAncestor(v.getParentBlock()->getParentOp());
  };
  auto addElement = [&](Operation *op, Value memref, ValueRange indices) {
    if (indices.size() != 1 || !isStageable(memref))
      return;
    if (std::optional<Offset> offset = matchOffset(indices[0]))
      addAccess(op, memref, *offset, Value(), {});
  };
  auto addPosition = [&](Operation *op, Value bufferValue,
                         ValueRange positions) {
    auto buffer = bufferValue.getDefiningOp<BufferOp>();
    if (buffer && positions.back() == q &&
        llvm::all_of(positions.drop_back(), outside) &&
        isStageable(buffer.getData()))
      addAccess(op, buffer.getData(), Offset(), bufferValue,
                positions.drop_back());
  };
  loop.getBody()->walk([&](Operation *op) {
    if (auto load = dyn_cast<memref::LoadOp>(op))
      addElement(op, load.getMemRef(), load.getIndices());
    else if (auto store = dyn_cast<memref::StoreOp>(op))
      addElement(op, store.getMemRef(), store.getIndices());
    else if (auto load = dyn_cast<PosLoadOp>(op))
      addPosition(op, load.getBuffer(), load.getPositions());
    else if (auto store = dyn_cast<PosStoreOp>(op))
      addPosition(op, store.getBuffer(), store.getPositions());
  });
  // Only runs accessed on every iteration: their elements exist. A run of
  // an array the launch writes, only when the loop touches the array
  // through it alone.
  llvm::erase_if(runs, [&](const Run &r) {
    bool shared = r.writes() || written.contains(dev::getViewRoot(r.array));
    return !r.unconditional || (shared && isTouchedElsewhere(r));
  });
  return !runs.empty();
}

int64_t LoopStager::getCopyBytes(int64_t chunk) const {
  int64_t bytes = 0;
  for (const Run &run : runs)
    bytes +=
        chunk *
        llvm::divideCeil(
            cast<MemRefType>(run.array.getType()).getElementTypeBitWidth(), 8);
  return bytes;
}

void LoopStager::rewrite(int64_t chunk) {
  IRRewriter rewriter(loop.getContext());
  Location loc = loop.getLoc();
  KernelBuilder k(rewriter, loc);
  auto launch = loop->getParentOfType<dev::LaunchOp>();
  rewriter.setInsertionPointToStart(&launch.getBody().front());
  for (Run &run : runs) {
    run.copy = k.alloc({chunk},
                       cast<MemRefType>(run.array.getType()).getElementType());
    run.fill = run.getFill();
    if (run.fill)
      k.vfill(run.copy, rewriter.clone(*run.fill)->getResult(0));
  }
  // Where each run starts, for q = 0.
  rewriter.setInsertionPoint(loop);
  auto index = [&](int64_t v) {
    return rewriter.create<arith::ConstantIndexOp>(loc, v).getResult();
  };
  SmallVector<Value> bases;
  for (Run &run : runs) {
    if (run.buffer) {
      bases.push_back(getBufferRunStart(
          rewriter, loc, run.buffer.getDefiningOp<BufferOp>(), run.leading));
      continue;
    }
    Value base = index(run.offset.constant);
    if (run.offset.fixed)
      base = rewriter.create<arith::AddIOp>(loc, run.offset.fixed, base);
    bases.push_back(base);
  }
  auto window = [&](Value memref, Value offset, Value size) {
    return rewriter.create<memref::SubViewOp>(
        loc, memref, OpFoldResult(offset), OpFoldResult(size),
        OpFoldResult(rewriter.getIndexAttr(1)));
  };
  Value upper = loop.getUpperBound();
  auto chunks = rewriter.create<scf::ForOp>(loc, loop.getLowerBound(), upper,
                                            index(chunk), loop.getInitArgs());
  rewriter.setInsertionPointToStart(chunks.getBody());
  Value c0 = chunks.getInductionVar();
  Value m = rewriter.create<arith::MinUIOp>(
      loc, index(chunk), rewriter.create<arith::SubIOp>(loc, upper, c0));
  SmallVector<Value> tokens, starts;
  for (auto [run, base] : llvm::zip(runs, bases)) {
    starts.push_back(rewriter.create<arith::AddIOp>(loc, base, c0));
    if (run.reads() || !run.storedAlways)
      tokens.push_back(k.dmaStart(window(run.array, starts.back(), m),
                                  window(run.copy, index(0), m)));
  }
  for (Value token : tokens)
    k.wait(token);
  auto positions = rewriter.create<scf::ForOp>(loc, index(0), m, index(1),
                                               chunks.getRegionIterArgs());
  for (auto [run, start] : llvm::zip(runs, starts))
    if (run.writes()) {
      Value slice = window(run.array, start, m);
      k.dma(window(run.copy, index(0), m), slice);
    }
  // Without iter_args, the builder gave the loop its yield already.
  if (!positions.getResults().empty())
    rewriter.create<scf::YieldOp>(loc, positions.getResults());
  // The old body, on q = c0 + q'.
  Block *body = positions.getBody();
  if (!body->empty())
    rewriter.eraseOp(body->getTerminator());
  rewriter.setInsertionPointToStart(body);
  Value q =
      rewriter.create<arith::AddIOp>(loc, c0, positions.getInductionVar());
  SmallVector<Value> arguments = {q};
  llvm::append_range(arguments, positions.getRegionIterArgs());
  rewriter.mergeBlocks(loop.getBody(), body, arguments);
  Value position = positions.getInductionVar();
  for (Run &run : runs)
    for (Operation *access : run.accesses) {
      // The filled copy already holds what the store would write.
      if (run.fill) {
        rewriter.eraseOp(access);
        continue;
      }
      rewriter.setInsertionPoint(access);
      if (isa<memref::LoadOp, PosLoadOp>(access)) {
        rewriter.replaceOpWithNewOp<memref::LoadOp>(access, run.copy,
                                                    ValueRange{position});
        continue;
      }
      rewriter.replaceOpWithNewOp<memref::StoreOp>(
          access, access->getOperand(0), run.copy, ValueRange{position});
    }
  rewriter.replaceOp(loop, chunks.getResults());
}

struct SparseStageRunsPass
    : npu::impl::SparseStageRunsBase<SparseStageRunsPass> {
  using SparseStageRunsBase::SparseStageRunsBase;

  void runOnOperation() override {
    if (chunk < 1) {
      getOperation().emitError("npu-sparse-stage-runs: chunk must be at "
                               "least 1, got ")
          << static_cast<int64_t>(chunk);
      return signalPassFailure();
    }
    FailureOr<DeviceModel> device = dev::lookupDevice(getOperation());
    if (failed(device))
      return signalPassFailure();
    SmallVector<dev::LaunchOp> launches;
    getOperation().walk([&](dev::LaunchOp l) { launches.push_back(l); });
    for (dev::LaunchOp launch : launches) {
      DenseSet<Value> written = getWrittenMemRefs(launch.getBody());
      // The copies live at the top of the launch, through its whole body:
      // the launch verifier's peak plus theirs.
      int64_t used = dev::getOnChipPeaks(
          launch.getBody()
              .front())[static_cast<unsigned>(dev::MemorySpace::vector)];
      // Post-order: inner loops first.
      SmallVector<scf::ForOp> loops;
      launch.getBody().walk([&](scf::ForOp loop) { loops.push_back(loop); });
      for (scf::ForOp loop : loops) {
        LoopStager stager(loop, written);
        if (!stager.analyze() ||
            used + stager.getCopyBytes(chunk) > device->vectorBytes)
          continue;
        stager.rewrite(chunk);
        used += stager.getCopyBytes(chunk);
      }
    }
  }
};

} // namespace
