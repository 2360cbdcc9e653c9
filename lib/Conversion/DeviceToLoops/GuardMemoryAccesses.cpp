//===- GuardMemoryAccesses.cpp - the JIT's checked mode -------------------===//
//
// Bounds checks for lowered kernels, so that the JIT rejects what the
// simulator rejects instead of reading or writing out of bounds:
//  1. views get upstream's runtime verification (RuntimeVerifiableOpInterface)
//     and its cf.asserts become records of their site;
//  2. each load, store and atomic runs under `in bounds && nothing failed`,
//     recording (site, dimension, index, size) when an index is out;
//  3. copies and runtime calls run only while nothing failed;
//  4. loops around guarded ops stop once something failed (scf.for becomes
//     an scf.while that asks), as the simulator stops at the first failure:
//     a bound read from bad data (an indptr entry of 2^31 - 1) would
//     otherwise run out its billions of skipped iterations.
// A record is a compare-and-swap of the site into @npu_checked_status[0]
// (first failure wins); only the winner writes the details. The sites'
// locations and messages go to the module as `npudev.checked_sites`. One walk,
// O(ops), each access growing by O(rank) ops and each loop by O(1).
//
//===----------------------------------------------------------------------===//

#include "LoopBuilders.h"
#include "npu/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/RuntimeOpVerification.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/RuntimeVerifiableOpInterface.h"

namespace npu {
#define GEN_PASS_DEF_GUARDMEMORYACCESSES
#include "npu/Conversion/Passes.h.inc"
} // namespace npu

using namespace mlir;
using namespace npu::dev::loops;

namespace {

constexpr StringLiteral kStatusName = "npu_checked_status";
/// Marks an op already guarded or verified.
constexpr StringLiteral kCheckedAttr = "npudev.checked";
constexpr StringLiteral kSitesAttr = "npudev.checked_sites";

/// "file:line:col" of `loc`, or "" when it has none.
std::string formatLocation(Location loc) {
  std::string text;
  loc->walk([&](Location inner) {
    auto file = dyn_cast<FileLineColLoc>(inner);
    if (!file)
      return WalkResult::advance();
    text = (file.getFilename().strref() + ":" + Twine(file.getLine()) + ":" +
            Twine(file.getColumn()))
               .str();
    return WalkResult::interrupt();
  });
  return text;
}

/// The op to name for `op`: the npudev op it was lowered from when its
/// location says so (a NameLoc), else `fallback`, else itself.
std::string sourceOpName(Operation *op, StringRef fallback = "") {
  if (auto name = dyn_cast<NameLoc>(op->getLoc()))
    return name.getName().str();
  if (!fallback.empty())
    return fallback.str();
  return op->getName().getStringRef().str();
}

/// The verified op and the reason in an upstream runtime-verification
/// message: the op's generic form ("%0 = \"memref.subview\"(...") on one
/// line, the reason on the line starting "^ ".
std::pair<std::string, std::string> parseUpstreamMessage(StringRef message) {
  std::string op, reason = "fails its runtime verification";
  SmallVector<StringRef> lines;
  message.split(lines, '\n');
  for (StringRef line : lines) {
    if (line.consume_front("^ ")) {
      reason = line.str();
    } else if (op.empty() && line.contains("\"(")) {
      StringRef name = line.split('"').second.split('"').first;
      op = name.str();
    }
  }
  return {op, reason};
}

/// The negation of the i1 `flag`.
Value buildNot(OpBuilder &b, Location loc, Value flag) {
  return b.create<arith::XOrIOp>(loc, flag,
                                 b.create<arith::ConstantIntOp>(loc, 1, 1));
}

class AccessGuard {
public:
  explicit AccessGuard(ModuleOp module) : module(module) {}

  /// Guards every op not guarded yet (the pass runs before the device
  /// lowering, which would erase a dead out-of-bounds load, and after it).
  void run() {
    SmallVector<Operation *> views, accesses, effects;
    module.walk([&](Operation *op) {
      if (op->hasAttr(kCheckedAttr))
        return;
      if (isa<memref::LoadOp, memref::StoreOp, memref::AtomicRMWOp>(op))
        accesses.push_back(op);
      else if (isa<RuntimeVerifiableOpInterface>(op))
        views.push_back(op);
      else if (isa<memref::CopyOp>(op) || isExternalCall(op))
        effects.push_back(op);
    });
    if (views.empty() && accesses.empty() && effects.empty())
      return;
    if (auto old = module->getAttrOfType<ArrayAttr>(kSitesAttr))
      sites.assign(old.begin(), old.end());
    findOrCreateStatus();
    for (Operation *op : views) {
      OpBuilder b(op);
      cast<RuntimeVerifiableOpInterface>(op).generateRuntimeVerification(
          b, op->getLoc());
      markChecked(op);
    }
    SmallVector<cf::AssertOp> asserts;
    module.walk([&](cf::AssertOp op) { asserts.push_back(op); });
    for (cf::AssertOp op : asserts)
      recordAssert(op);
    for (Operation *op : accesses)
      guardAccess(op);
    for (Operation *op : effects)
      guardEffect(op);
    stopLoopsOnFailure();
    module->setAttr(kSitesAttr, ArrayAttr::get(ctx(), sites));
  }

private:
  MLIRContext *ctx() { return module.getContext(); }

  /// Marks `op` as one the next run of the pass leaves alone: guarded
  /// already, or the pass's own access to the status.
  template <typename OpT> static OpT markChecked(OpT op) {
    op->setAttr(kCheckedAttr, UnitAttr::get(op->getContext()));
    return op;
  }

  static bool isExternalCall(Operation *op) {
    auto call = dyn_cast<func::CallOp>(op);
    if (!call)
      return false;
    auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
        op, call.getCalleeAttr());
    return callee && callee.isExternal();
  }

  void findOrCreateStatus() {
    OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
    auto type = MemRefType::get({4}, b.getI64Type());
    statusType = type;
    if (module.lookupSymbol(kStatusName))
      return;
    auto zeros = DenseElementsAttr::get(
        RankedTensorType::get({4}, b.getI64Type()), b.getI64IntegerAttr(0));
    // Public, so that the JIT can find it by name.
    b.create<memref::GlobalOp>(module.getLoc(), kStatusName,
                               /*sym_visibility=*/StringAttr(), type, zeros,
                               /*constant=*/false, /*alignment=*/nullptr);
  }

  Value getStatus(OpBuilder &b, Location loc) {
    return b.create<memref::GetGlobalOp>(loc, statusType, kStatusName);
  }

  /// A new site of `op` (named `name`); its number as an i64 constant
  /// (sites count from 1).
  Value addSite(OpBuilder &b, Operation *op, StringRef name, StringRef reason) {
    sites.push_back(
        b.getStrArrayAttr({formatLocation(op->getLoc()), name, reason}));
    return b.create<arith::ConstantIntOp>(op->getLoc(), sites.size(), 64);
  }

  /// Records `site` unless something failed first; the winner also stores
  /// `details` (dimension, index, size) after it.
  void buildRecord(OpBuilder &b, Location loc, Value site, ValueRange details) {
    Value status = getStatus(b, loc);
    Value zero = zeroOf(b, loc, b.getI64Type());
    Value c0 = indexConst(b, loc, 0);
    auto swap = b.create<memref::GenericAtomicRMWOp>(loc, status, c0);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(swap.getBody());
      Value current = swap.getCurrentValue();
      Value clear =
          b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, current, zero);
      b.create<memref::AtomicYieldOp>(
          loc, b.create<arith::SelectOp>(loc, clear, site, current));
    }
    if (details.empty())
      return;
    Value won = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq,
                                        swap.getResult(), zero);
    b.create<scf::IfOp>(loc, won, [&](OpBuilder &b, Location loc) {
      for (auto [i, value] : llvm::enumerate(details))
        markChecked(b.create<memref::StoreOp>(
            loc, value, status, ValueRange{indexConst(b, loc, i + 1)}));
      b.create<scf::YieldOp>(loc);
    });
  }

  /// Whether nothing has failed so far.
  Value buildNothingFailed(OpBuilder &b, Location loc) {
    Value c0 = indexConst(b, loc, 0);
    Value first =
        markChecked(b.create<memref::LoadOp>(loc, getStatus(b, loc), c0));
    return b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, first,
                                   zeroOf(b, loc, b.getI64Type()));
  }

  /// Upstream aborts on a failed assert; here the failure is recorded and
  /// the accesses after it are skipped.
  void recordAssert(cf::AssertOp op) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    auto [verified, reason] = parseUpstreamMessage(op.getMsg());
    Value site = addSite(b, op, sourceOpName(op, verified), reason);
    Value failed = buildNot(b, loc, op.getArg());
    b.create<scf::IfOp>(loc, failed, [&](OpBuilder &b, Location loc) {
      buildRecord(b, loc, site, {});
      b.create<scf::YieldOp>(loc);
    });
    op.erase();
  }

  static std::pair<Value, ValueRange> getMemRefAndIndices(Operation *op) {
    if (auto load = dyn_cast<memref::LoadOp>(op))
      return {load.getMemRef(), load.getIndices()};
    if (auto store = dyn_cast<memref::StoreOp>(op))
      return {store.getMemRef(), store.getIndices()};
    auto atomic = cast<memref::AtomicRMWOp>(op);
    return {atomic.getMemref(), atomic.getIndices()};
  }

  /// Replaces `op` by `scf.if cond { op } else { onSkip(); 0... }`: a
  /// skipped op's results read as zeros.
  static void runOnlyIf(Operation *op, Value cond,
                        function_ref<void(OpBuilder &)> onSkip) {
    OpBuilder b(op);
    auto guard = b.create<scf::IfOp>(
        op->getLoc(), cond,
        [&](OpBuilder &b, Location loc) {
          b.create<scf::YieldOp>(loc, markChecked(b.clone(*op))->getResults());
        },
        [&](OpBuilder &b, Location loc) {
          onSkip(b);
          SmallVector<Value> zeros;
          for (Type type : op->getResultTypes())
            zeros.push_back(zeroOf(b, loc, type));
          b.create<scf::YieldOp>(loc, zeros);
        });
    op->replaceAllUsesWith(guard.getResults());
    op->erase();
  }

  /// `op` runs when its indices are in bounds and nothing failed; an
  /// out-of-bounds index is recorded with its dimension and size (the
  /// first such dimension wins the record).
  void guardAccess(Operation *op) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    auto [memref, indices] = getMemRefAndIndices(op);
    Value site = addSite(b, op, sourceOpName(op), "");
    SmallVector<Value> inBounds, sizes;
    Value go = buildNothingFailed(b, loc);
    for (auto [d, index] : llvm::enumerate(indices)) {
      sizes.push_back(markChecked(b.create<memref::DimOp>(loc, memref, d)));
      // Unsigned: a negative index is out of bounds too.
      inBounds.push_back(b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ult,
                                                 index, sizes.back()));
      go = b.create<arith::AndIOp>(loc, go, inBounds.back());
    }
    SmallVector<Value> indexList(indices);
    runOnlyIf(op, go, [&](OpBuilder &b) {
      for (size_t d = 0; d < indexList.size(); ++d) {
        Value index = indexList[d], out = buildNot(b, loc, inBounds[d]);
        b.create<scf::IfOp>(loc, out, [&](OpBuilder &b, Location loc) {
          auto asI64 = [&](Value v) -> Value {
            return b.create<arith::IndexCastOp>(loc, b.getI64Type(), v);
          };
          buildRecord(b, loc, site,
                      {b.create<arith::ConstantIntOp>(loc, d, 64), asI64(index),
                       asI64(sizes[d])});
          b.create<scf::YieldOp>(loc);
        });
      }
    });
  }

  /// `op` (a copy or a runtime call) runs only while nothing failed: after
  /// a failed view check, its operands may reach out of bounds.
  void guardEffect(Operation *op) {
    OpBuilder b(op);
    runOnlyIf(op, buildNothingFailed(b, op->getLoc()), [](OpBuilder &) {});
  }

  /// Whether `loop` holds a guarded op and no npudev op (those loops are
  /// taken after the device lowering, by the pass's second run).
  static bool needsExit(Operation *loop) {
    bool guarded = false, device = false;
    loop->walk([&](Operation *op) {
      guarded |= op->hasAttr(kCheckedAttr);
      device |=
          op->getDialect() && op->getDialect()->getNamespace() == "npudev";
    });
    return guarded && !device;
  }

  /// Loops around guarded ops leave once something failed, innermost first.
  void stopLoopsOnFailure() {
    SmallVector<Operation *> loops;
    module.walk([&](Operation *op) {
      if (isa<scf::ForOp, scf::WhileOp>(op) && !op->hasAttr(kCheckedAttr) &&
          needsExit(op))
        loops.push_back(op);
    });
    for (Operation *loop : loops) {
      if (auto whileLoop = dyn_cast<scf::WhileOp>(loop))
        exitWhile(whileLoop);
      else
        exitFor(cast<scf::ForOp>(loop));
    }
  }

  /// scf.condition(%c) becomes scf.condition(%c && nothing failed).
  void exitWhile(scf::WhileOp loop) {
    scf::ConditionOp condition = loop.getConditionOp();
    OpBuilder b(condition);
    Value go =
        b.create<arith::AndIOp>(condition.getLoc(), condition.getCondition(),
                                buildNothingFailed(b, condition.getLoc()));
    condition.getConditionMutable().assign(go);
    markChecked(loop);
  }

  /// for iv = lb to ub step s iter_args(a) becomes a while over (iv, a)
  /// whose condition is iv < ub (signed, as scf.for compares) and nothing
  /// failed, whose body is the for's, yielding (iv + s, yielded).
  void exitFor(scf::ForOp loop) {
    OpBuilder b(loop);
    Location loc = loop.getLoc();
    SmallVector<Value> inits = {loop.getLowerBound()};
    llvm::append_range(inits, loop.getInitArgs());
    SmallVector<Type> types = llvm::to_vector(ValueRange(inits).getTypes());
    SmallVector<Location> locs(types.size(), loc);
    auto whileLoop = b.create<scf::WhileOp>(loc, types, inits);
    markChecked(whileLoop);
    Block *before = b.createBlock(&whileLoop.getBefore(), {}, types, locs);
    Value inRange =
        b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt,
                                before->getArgument(0), loop.getUpperBound());
    Value go =
        b.create<arith::AndIOp>(loc, inRange, buildNothingFailed(b, loc));
    b.create<scf::ConditionOp>(loc, go, before->getArguments());
    Block *after = b.createBlock(&whileLoop.getAfter(), {}, types, locs);
    Block *body = loop.getBody();
    for (auto [from, to] :
         llvm::zip(body->getArguments(), after->getArguments()))
      from.replaceAllUsesWith(to);
    after->getOperations().splice(after->end(), body->getOperations());
    auto yield = cast<scf::YieldOp>(after->getTerminator());
    b.setInsertionPoint(yield);
    SmallVector<Value> next = {
        b.create<arith::AddIOp>(loc, after->getArgument(0), loop.getStep())};
    llvm::append_range(next, yield.getOperands());
    b.create<scf::YieldOp>(loc, next);
    yield.erase();
    loop.replaceAllUsesWith(whileLoop.getResults().drop_front());
    loop.erase();
  }

  ModuleOp module;
  MemRefType statusType;
  SmallVector<Attribute> sites;
};

struct GuardMemoryAccessesPass
    : public npu::impl::GuardMemoryAccessesBase<GuardMemoryAccessesPass> {
  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    memref::registerRuntimeVerifiableOpInterfaceExternalModels(registry);
  }

  void runOnOperation() override { AccessGuard(getOperation()).run(); }
};

} // namespace
