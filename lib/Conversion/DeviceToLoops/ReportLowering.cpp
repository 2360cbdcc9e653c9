//===- ReportLowering.cpp - npudev.report_rows for the JIT ----------------===//
//
// The simulator fails a launch whose reports fired; compiled code cannot
// stop mid-way, so it keeps a status buffer instead. A function with n
// reports gets a trailing argument memref<(n + 1) x i64>, which the caller
// fills with 0 and then INT64_MAX: status[0] becomes 1 once any report
// fired, status[1 + i] is the smallest row report i (program order,
// getRowReports) found. Each report becomes a loop taking the minimum of
// its non-negative rows, stored by atomic min and exchange (tasks run on
// threads), and each launch, plain or mixed, runs only while status[0] is
// 0, so the kernel stops after the failed launch as the simulator does: a
// kernel after a failed size check never reads past its buffers. O(ops).
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"
#include "npu/Dialect/NPUDev/Semantics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace npu::dev;
using namespace npu::dev::loops;

namespace {

constexpr int64_t kNoRow = std::numeric_limits<int64_t>::max();

/// Replaces `report` by its minimum loop and the atomic stores into its
/// slot `slot` of `status`.
void lowerReport(ReportRowsOp report, Value status, int64_t slot) {
  OpBuilder b(report);
  Location loc = report.getLoc();
  Type i64 = b.getI64Type();
  Value none = b.create<arith::ConstantIntOp>(loc, kNoRow, i64);
  buildRowScan(
      b, loc, report.getRows(), none,
      [&](OpBuilder &b, Location l, Value acc, Value x, ValueRange, Value) {
        if (x.getType() != i64)
          x = b.create<arith::ExtSIOp>(l, i64, x);
        Value isRow = b.create<arith::CmpIOp>(l, arith::CmpIPredicate::sge, x,
                                              zeroOf(b, l, i64));
        Value row = b.create<arith::SelectOp>(l, isRow, x, none);
        return b.create<arith::MinSIOp>(l, acc, row);
      },
      [&](OpBuilder &b, Location l, Value smallest, ValueRange) {
        Value fired = b.create<arith::CmpIOp>(l, arith::CmpIPredicate::ne,
                                              smallest, none);
        b.create<scf::IfOp>(l, fired, [&](OpBuilder &b, Location l) {
          b.create<memref::AtomicRMWOp>(l, arith::AtomicRMWKind::mins, smallest,
                                        status,
                                        ValueRange{indexConst(b, l, slot)});
          b.create<memref::AtomicRMWOp>(
              l, arith::AtomicRMWKind::assign,
              b.create<arith::ConstantIntOp>(l, 1, i64), status,
              ValueRange{indexConst(b, l, 0)});
          b.create<scf::YieldOp>(l);
        });
      });
  report.erase();
}

/// Runs `launch` (npudev.launch or npudev.mixed_launch) only while no
/// report has fired.
void guardLaunch(Operation *launch, Value status) {
  OpBuilder b(launch);
  Location loc = launch->getLoc();
  Value failed =
      b.create<memref::LoadOp>(loc, status, ValueRange{indexConst(b, loc, 0)});
  Value clear = b.create<arith::CmpIOp>(
      loc, arith::CmpIPredicate::eq, failed,
      b.create<arith::ConstantIntOp>(loc, 0, b.getI64Type()));
  auto guard = b.create<scf::IfOp>(loc, clear, /*withElseRegion=*/false);
  launch->moveBefore(guard.thenBlock()->getTerminator());
}

} // namespace

void npu::dev::lowerRowReports(ModuleOp module) {
  for (auto func : module.getOps<func::FuncOp>()) {
    SmallVector<Operation *> reports = getRowReports(func);
    if (reports.empty())
      continue;
    auto type = MemRefType::get({static_cast<int64_t>(reports.size()) + 1},
                                IntegerType::get(module.getContext(), 64));
    func.insertArgument(func.getNumArguments(), type, DictionaryAttr(),
                        func.getLoc());
    Value status = func.getArguments().back();
    for (auto [i, report] : llvm::enumerate(reports))
      lowerReport(cast<ReportRowsOp>(report), status, i + 1);
    SmallVector<Operation *> launches;
    func.walk([&](Operation *op) {
      if (isa<LaunchOp, MixedLaunchOp>(op))
        launches.push_back(op);
    });
    for (Operation *launch : launches)
      guardLaunch(launch, status);
  }
}
