//===- CheckFormats.cpp - the checked mode: validate axes at run time -----===//
//
// Each rule is a loop for the first entry that breaks it (or -1), reported
// by npudev.report_rows with a message naming the axis and the rule. The
// structural rules (indptr's start, order, length and end) run in a first
// launch; the content rules (coordinate range, order within runs) in a
// second, which the executors run only if the first passed, so its loops
// never read past an array. O(axes) to build; at run time one pass over
// every indptr and indices array.
//
//===----------------------------------------------------------------------===//

#include "npu/Conversion/Passes.h"
#include "npu/Dialect/NPUDev/KernelBuilder.h"
#include "npu/Dialect/NPUDev/NPUDevOps.h"
#include "npu/Dialect/Sparse/AxisRuns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace npu {
#define GEN_PASS_DEF_SPARSECHECKFORMATS
#include "npu/Conversion/Passes.h.inc"
} // namespace npu

using namespace mlir;
using namespace npu;
using namespace npu::sparse;

namespace {

/// Builds the checks of one launch, with the kernel-building layer.
class Checker {
public:
  explicit Checker(KernelBuilder &k) : k(k) {}

  Value constant(int64_t v) { return k.index(v); }
  Value count(Value array) { return k.dim(array, 0); }
  Type i64() { return k.builder().getI64Type(); }

  /// The first p in [lo, hi) for which bad(p) holds, as i64, or -1.
  Value firstBad(Value lo, Value hi, function_ref<Value(Value)> bad) {
    Value none = k.constant(i64(), -1);
    return k.forLoop(lo, hi, constant(1), none, [&](Value p, Value first) {
      Value isBad = bad(p);
      Value unset = k.lt(first, k.constant(i64(), 0));
      Value take = k.andI(isBad, unset);
      return k.select(take, k.convert(p, i64()), first);
    });
  }

  /// Fails the kernel with `message` ("{row}": `first`) when first >= 0.
  void report(Value first, const Twine &message) {
    Value rows = k.alloc({1}, i64());
    k.store(first, rows, {constant(0)});
    k.reportRows(rows, message.str());
  }

  /// Fails the kernel with `message` ("{row}": `actual`) unless `actual`
  /// equals `expected`.
  void reportUnlessEqual(Value actual, Value expected, const Twine &message) {
    Value differs = k.builder().create<arith::CmpIOp>(
        k.location(), arith::CmpIPredicate::ne, actual, expected);
    report(k.select(differs, k.convert(actual, i64()), k.constant(i64(), -1)),
           message);
  }

  /// array[p] as an index.
  Value loadIndex(Value array, Value p) {
    return sparse::loadIndex(k.builder(), k.location(), array, p);
  }

  /// The last entry of `array` as an index; 0 for an empty array.
  Value last(Value array) {
    Value n = count(array);
    Value empty = k.builder().create<arith::CmpIOp>(
        k.location(), arith::CmpIPredicate::eq, n, constant(0));
    return k.ifThenElse(
        empty, k.builder().getIndexType(), [&] { return k.index(0); },
        [&] { return loadIndex(array, k.sub(n, k.index(1))); });
  }

  /// All positions of `axis` (for a variable axis, its indptr's last entry;
  /// the structural launch checks that this is right before anything
  /// relies on it).
  Value positions(AxisOp axis) {
    switch (axis.getKind()) {
    case AxisKind::dense_fixed:
      return constant(axis.getLengthValue());
    case AxisKind::sparse_fixed:
      return k.mul(positions(axis.getParentAxis()),
                   constant(axis.getNnzColsValue()));
    default:
      return last(axis.getIndptr());
    }
  }

  /// x (pred) y on integers or indices.
  Value compare(arith::CmpIPredicate pred, Value x, Value y) {
    return k.builder().create<arith::CmpIOp>(k.location(), pred, x, y);
  }

  KernelBuilder &k;
};

std::string describe(AxisOp axis, unsigned number) {
  return ("sparse.axis #" + Twine(number) + " (" +
          stringifyAxisKind(axis.getKind()) + ")")
      .str();
}

void checkStructure(Checker &c, AxisOp axis, unsigned number) {
  std::string name = describe(axis, number);
  KernelBuilder &k = c.k;
  OpBuilder &b = k.builder();
  Location loc = k.location();
  if (axis.isVariable()) {
    Value indptr = axis.getIndptr();
    Value n = c.count(indptr);
    Value upTo1 = b.create<arith::MinUIOp>(loc, n, c.constant(1));
    c.report(c.firstBad(c.constant(0), upTo1,
                        [&](Value p) {
                          return c.compare(arith::CmpIPredicate::ne,
                                           c.loadIndex(indptr, p), k.index(0));
                        }),
             name + ": indptr[{row}] is not 0");
    c.report(c.firstBad(c.constant(1), n,
                        [&](Value p) {
                          Value before = k.sub(p, k.index(1));
                          return c.compare(arith::CmpIPredicate::slt,
                                           c.loadIndex(indptr, p),
                                           c.loadIndex(indptr, before));
                        }),
             name + ": indptr decreases at entry {row}");
    c.reportUnlessEqual(
        n, k.add(c.positions(axis.getParentAxis()), c.constant(1)),
        name + ": indptr has {row} entries, not the parent's positions plus "
               "one");
  }
  if (axis.getKind() == AxisKind::sparse_variable)
    c.reportUnlessEqual(
        c.last(axis.getIndptr()), c.count(axis.getIndices()),
        name + ": indptr ends at {row}, not at the number of indices");
  if (axis.getKind() == AxisKind::dense_variable) {
    Value indptr = axis.getIndptr();
    Value runs =
        k.sub(b.create<arith::MaxUIOp>(loc, c.count(indptr), c.constant(1)),
              c.constant(1));
    Value length = c.constant(axis.getLengthValue());
    c.report(c.firstBad(c.constant(0), runs,
                        [&](Value p) {
                          AxisRun run = getAxisRun(b, loc, axis, p);
                          return c.compare(arith::CmpIPredicate::sgt, run.count,
                                           length);
                        }),
             name + ": run {row} is longer than the axis length " +
                 Twine(axis.getLengthValue()));
  }
  if (axis.getKind() == AxisKind::sparse_fixed)
    c.reportUnlessEqual(c.count(axis.getIndices()), c.positions(axis),
                        name + ": indices has {row} entries, not nnz_cols "
                               "per parent position");
}

void checkContents(Checker &c, AxisOp axis, unsigned number) {
  if (!axis.isSparse())
    return;
  std::string name = describe(axis, number);
  KernelBuilder &k = c.k;
  Value indices = axis.getIndices();
  Value length = c.constant(axis.getLengthValue());
  c.report(c.firstBad(c.constant(0), c.count(indices),
                      [&](Value p) {
                        Value x = c.loadIndex(indices, p);
                        Value low =
                            c.compare(arith::CmpIPredicate::slt, x, k.index(0));
                        Value high =
                            c.compare(arith::CmpIPredicate::sge, x, length);
                        return k.builder().create<arith::OrIOp>(k.location(),
                                                                low, high);
                      }),
           name + ": the coordinate at position {row} is outside [0, " +
               Twine(axis.getLengthValue()) + ")");
  if (!axis.getSorted())
    return;
  // A position is out of order when it is not the first of its run and
  // its coordinate does not exceed the previous one.
  Value none = k.constant(c.i64(), -1);
  Value found = k.forLoop(
      c.constant(0), c.positions(axis.getParentAxis()), c.constant(1), none,
      [&](Value p, Value foundSoFar) {
        AxisRun run = getAxisRun(k.builder(), k.location(), axis, p);
        Value from = k.add(run.start, c.constant(1));
        Value to = k.add(run.start, run.count);
        Value here = c.firstBad(from, to, [&](Value q) {
          Value before = k.sub(q, k.index(1));
          return c.compare(arith::CmpIPredicate::sle, c.loadIndex(indices, q),
                           c.loadIndex(indices, before));
        });
        Value unset = k.lt(foundSoFar, k.constant(c.i64(), 0));
        return k.select(unset, here, foundSoFar);
      });
  c.report(found, name + ": coordinates are not increasing at position "
                         "{row}, but the axis is declared sorted");
}

struct SparseCheckFormatsPass
    : npu::impl::SparseCheckFormatsBase<SparseCheckFormatsPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    SmallVector<AxisOp> axes;
    func.walk([&](AxisOp axis) { axes.push_back(axis); });
    if (llvm::none_of(axes,
                      [](AxisOp a) { return a.getIndptr() || a.getIndices(); }))
      return;
    // Before the first iteration (or launch), after every axis.
    Operation *first = nullptr;
    func.walk([&](Operation *op) {
      if (!first && isa<IterationOp, dev::LaunchOp>(op))
        first = op;
    });
    OpBuilder b(func.getContext());
    b.setInsertionPointAfter(axes.back());
    if (first) {
      if (first->getBlock() != axes.back()->getBlock() ||
          !llvm::all_of(axes, [&](AxisOp axis) {
            return axis->getBlock() == first->getBlock() &&
                   axis->isBeforeInBlock(first);
          })) {
        first->emitOpError("is checked by npu-sparse-check-formats only if "
                           "every sparse.axis is defined before it, in its "
                           "block");
        return signalPassFailure();
      }
      b.setInsertionPoint(first);
    }
    Location loc = func.getLoc();
    for (auto check : {checkStructure, checkContents}) {
      KernelBuilder k(b, loc);
      dev::LaunchOp launch = k.launch(1, [&](Value) {
        Checker c(k);
        for (auto [number, axis] : llvm::enumerate(axes))
          check(c, axis, number);
      });
      b.setInsertionPointAfter(launch);
    }
  }
};

} // namespace
