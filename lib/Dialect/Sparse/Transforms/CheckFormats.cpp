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

#include "AxisRuns.h"
#include "npu/Dialect/NPUDev/NPUDevOps.h"
#include "npu/Dialect/Sparse/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace npu::sparse {
#define GEN_PASS_DEF_SPARSECHECKFORMATS
#include "npu/Dialect/Sparse/Passes.h.inc"
} // namespace npu::sparse

using namespace mlir;
using namespace npu;
using namespace npu::sparse;

namespace {

/// Builds the checks of one launch.
class Checker {
public:
  Checker(OpBuilder &b, Location loc) : b(b), loc(loc) {}

  Value constant(int64_t v) { return b.create<arith::ConstantIndexOp>(loc, v); }
  Value count(Value array) { return b.create<memref::DimOp>(loc, array, 0); }

  /// The first p in [lo, hi) for which bad(p) holds, as i64, or -1.
  Value firstBad(Value lo, Value hi,
                 function_ref<Value(OpBuilder &, Location, Value)> bad) {
    Value none = b.create<arith::ConstantIntOp>(loc, -1, 64);
    auto loop = b.create<scf::ForOp>(
        loc, lo, hi, constant(1), ValueRange{none},
        [&](OpBuilder &nb, Location l, Value p, ValueRange first) {
          Value isBad = bad(nb, l, p);
          Value unset = nb.create<arith::CmpIOp>(
              l, arith::CmpIPredicate::slt, first[0],
              nb.create<arith::ConstantIntOp>(l, 0, 64));
          Value take = nb.create<arith::AndIOp>(l, isBad, unset);
          Value wide = nb.create<arith::IndexCastOp>(l, nb.getI64Type(), p);
          nb.create<scf::YieldOp>(l, ValueRange{nb.create<arith::SelectOp>(
                                         l, take, wide, first[0])});
        });
    return loop.getResult(0);
  }

  /// Fails the kernel with `message` ("{row}": `first`) when first >= 0.
  void report(Value first, const Twine &message) {
    auto type = MemRefType::get(
        {1}, b.getI64Type(), MemRefLayoutAttrInterface(),
        dev::MemorySpaceAttr::get(b.getContext(), dev::MemorySpace::vector));
    Value rows = b.create<dev::AllocOp>(loc, type);
    b.create<memref::StoreOp>(loc, first, rows, ValueRange{constant(0)});
    b.create<dev::ReportRowsOp>(loc, rows, b.getStringAttr(message));
  }

  /// Fails the kernel with `message` ("{row}": `actual`) unless `actual`
  /// equals `expected`.
  void reportUnlessEqual(Value actual, Value expected, const Twine &message) {
    Value differs = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne,
                                            actual, expected);
    report(
        b.create<arith::SelectOp>(loc, differs, index(actual),
                                  b.create<arith::ConstantIntOp>(loc, -1, 64)),
        message);
  }

  /// The last entry of `array` as an index; 0 for an empty array.
  Value last(Value array) {
    Value n = count(array);
    Value empty =
        b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, n, constant(0));
    auto pick = b.create<scf::IfOp>(
        loc, empty,
        [&](OpBuilder &nb, Location l) {
          nb.create<scf::YieldOp>(
              l, ValueRange{nb.create<arith::ConstantIndexOp>(l, 0)});
        },
        [&](OpBuilder &nb, Location l) {
          Value at = nb.create<arith::SubIOp>(
              l, n, nb.create<arith::ConstantIndexOp>(l, 1));
          nb.create<scf::YieldOp>(l, ValueRange{loadIndex(nb, l, array, at)});
        });
    return pick.getResult(0);
  }

  /// All positions of `axis` (for a variable axis, its indptr's last entry;
  /// the structural launch checks that this is right before anything
  /// relies on it).
  Value positions(AxisOp axis) {
    switch (axis.getKind()) {
    case AxisKind::dense_fixed:
      return constant(axis.getLengthValue());
    case AxisKind::sparse_fixed:
      return b.create<arith::MulIOp>(loc, positions(axis.getParentAxis()),
                                     constant(axis.getNnzColsValue()));
    default:
      return last(axis.getIndptr());
    }
  }

  Value index(Value v) {
    return b.create<arith::IndexCastOp>(loc, b.getI64Type(), v);
  }

  OpBuilder &b;
  Location loc;
};

std::string describe(AxisOp axis, unsigned number) {
  return ("sparse.axis #" + Twine(number) + " (" +
          stringifyAxisKind(axis.getKind()) + ")")
      .str();
}

void checkStructure(Checker &c, AxisOp axis, unsigned number) {
  std::string name = describe(axis, number);
  OpBuilder &b = c.b;
  Location loc = c.loc;
  if (axis.isVariable()) {
    Value indptr = axis.getIndptr();
    Value n = c.count(indptr);
    Value upTo1 = b.create<arith::MinUIOp>(loc, n, c.constant(1));
    c.report(c.firstBad(c.constant(0), upTo1,
                        [&](OpBuilder &nb, Location l, Value p) {
                          return nb.create<arith::CmpIOp>(
                              l, arith::CmpIPredicate::ne,
                              loadIndex(nb, l, indptr, p),
                              nb.create<arith::ConstantIndexOp>(l, 0));
                        }),
             name + ": indptr[{row}] is not 0");
    c.report(c.firstBad(c.constant(1), n,
                        [&](OpBuilder &nb, Location l, Value p) {
                          Value before = nb.create<arith::SubIOp>(
                              l, p, nb.create<arith::ConstantIndexOp>(l, 1));
                          return nb.create<arith::CmpIOp>(
                              l, arith::CmpIPredicate::slt,
                              loadIndex(nb, l, indptr, p),
                              loadIndex(nb, l, indptr, before));
                        }),
             name + ": indptr decreases at entry {row}");
    c.reportUnlessEqual(
        n,
        b.create<arith::AddIOp>(loc, c.positions(axis.getParentAxis()),
                                c.constant(1)),
        name + ": indptr has {row} entries, not the parent's positions plus "
               "one");
  }
  if (axis.getKind() == AxisKind::sparse_variable)
    c.reportUnlessEqual(
        c.last(axis.getIndptr()), c.count(axis.getIndices()),
        name + ": indptr ends at {row}, not at the number of indices");
  if (axis.getKind() == AxisKind::dense_variable) {
    Value indptr = axis.getIndptr();
    Value runs = b.create<arith::SubIOp>(
        loc, b.create<arith::MaxUIOp>(loc, c.count(indptr), c.constant(1)),
        c.constant(1));
    Value length = c.constant(axis.getLengthValue());
    c.report(c.firstBad(c.constant(0), runs,
                        [&](OpBuilder &nb, Location l, Value p) {
                          AxisRun run = getAxisRun(nb, l, axis, p);
                          return nb.create<arith::CmpIOp>(
                              l, arith::CmpIPredicate::sgt, run.count, length);
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
  Value indices = axis.getIndices();
  Value length = c.constant(axis.getLengthValue());
  c.report(c.firstBad(c.constant(0), c.count(indices),
                      [&](OpBuilder &nb, Location l, Value p) {
                        Value x = loadIndex(nb, l, indices, p);
                        Value low = nb.create<arith::CmpIOp>(
                            l, arith::CmpIPredicate::slt, x,
                            nb.create<arith::ConstantIndexOp>(l, 0));
                        Value high = nb.create<arith::CmpIOp>(
                            l, arith::CmpIPredicate::sge, x, length);
                        return nb.create<arith::OrIOp>(l, low, high);
                      }),
           name + ": the coordinate at position {row} is outside [0, " +
               Twine(axis.getLengthValue()) + ")");
  if (!axis.getSorted())
    return;
  // A position is out of order when it is not the first of its run and
  // its coordinate does not exceed the previous one.
  OpBuilder &b = c.b;
  Location loc = c.loc;
  Value none = b.create<arith::ConstantIntOp>(loc, -1, 64);
  auto runs = b.create<scf::ForOp>(
      loc, c.constant(0), c.positions(axis.getParentAxis()), c.constant(1),
      ValueRange{none},
      [&](OpBuilder &nb, Location l, Value p, ValueRange found) {
        Checker inner(nb, l);
        AxisRun run = getAxisRun(nb, l, axis, p);
        Value from = nb.create<arith::AddIOp>(l, run.start, inner.constant(1));
        Value to = nb.create<arith::AddIOp>(l, run.start, run.count);
        Value here =
            inner.firstBad(from, to, [&](OpBuilder &ib, Location il, Value q) {
              Value before = ib.create<arith::SubIOp>(
                  il, q, ib.create<arith::ConstantIndexOp>(il, 1));
              return ib.create<arith::CmpIOp>(
                  il, arith::CmpIPredicate::sle, loadIndex(ib, il, indices, q),
                  loadIndex(ib, il, indices, before));
            });
        Value unset =
            nb.create<arith::CmpIOp>(l, arith::CmpIPredicate::slt, found[0],
                                     nb.create<arith::ConstantIntOp>(l, 0, 64));
        nb.create<scf::YieldOp>(l, ValueRange{nb.create<arith::SelectOp>(
                                       l, unset, here, found[0])});
      });
  c.report(runs.getResult(0),
           name + ": coordinates are not increasing at position {row}, but "
                  "the axis is declared sorted");
}

struct SparseCheckFormatsPass
    : npu::sparse::impl::SparseCheckFormatsBase<SparseCheckFormatsPass> {
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
      auto launch = b.create<dev::LaunchOp>(loc, 1, dev::CoreKind::vector);
      OpBuilder inside(launch.getBody().front().getTerminator());
      Checker c(inside, loc);
      for (auto [number, axis] : llvm::enumerate(axes))
        check(c, axis, number);
      b.setInsertionPointAfter(launch);
    }
  }
};

} // namespace
