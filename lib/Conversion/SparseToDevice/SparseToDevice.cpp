//===- SparseToDevice.cpp - sparse iterations onto the device's cores -----===//
//
// npu-sparse-to-device, before npu-sparse-lower-iterations: each
// iteration runs in an
// npudev.launch, every task over a contiguous share of the first axis.
// Shares are balanced by work when the second axis is a variable child of
// the first: a row costs its nonzeros plus c (its init, its output, its
// bounds and its staged runs' latency cost something even when it is
// short), so task t begins at the first row r with (indptr[r] -
// indptr[0]) + c r >= t * (nnz + c rows) / T; the last ends at the last
// row, so empty rows at either end still get their init. O(iterations); each
// task does two O(log rows) searches.
//
//===----------------------------------------------------------------------===//

#include "npu/Conversion/Passes.h"
#include "npu/Dialect/NPUDev/DeviceAttr.h"
#include "npu/Dialect/NPUDev/KernelBuilder.h"
#include "npu/Dialect/NPUDev/NPUDevOps.h"
#include "npu/Dialect/Sparse/AxisRuns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace npu {
#define GEN_PASS_DEF_SPARSETODEVICE
#include "npu/Conversion/Passes.h.inc"
} // namespace npu

using namespace mlir;
using namespace npu;
using namespace npu::sparse;

namespace {

/// The first row of task `task` of `tasks` over `rows` rows: by nonzeros
/// plus `rowCost` per row of `indptr` when given, else by rows.
Value buildShareStart(KernelBuilder &k, Value indptr, Value rows, Value task,
                      int64_t tasks, int64_t rowCost) {
  Value count = k.index(tasks);
  if (!indptr)
    return k.divU(k.mul(task, rows), count);
  // Work before row r: indptr[r] - indptr[0] + c r, never decreasing.
  auto entry = [&](Value row) {
    return loadIndex(k.builder(), k.location(), indptr, row);
  };
  // One op per statement: the order of C++ arguments is unspecified, and
  // the IR must not depend on the compiler that built the pass.
  Value base = entry(k.index(0));
  Value cost = k.index(rowCost);
  Value nonzeros = k.sub(entry(rows), base);
  Value work = k.add(nonzeros, k.mul(rows, cost));
  Value share = k.divU(k.mul(task, work), count);
  Value target = k.add(base, share);
  Value start = buildLowerBound(
      k.builder(), k.location(),
      [&](OpBuilder &nb, Location l, Value row) -> Value {
        Value before = loadIndex(nb, l, indptr, row);
        return nb.create<arith::AddIOp>(l, before,
                                        nb.create<arith::MulIOp>(l, row, cost));
      },
      k.index(0), k.add(rows, k.index(1)), target);
  // Task 0 starts at row 0 even when leading rows are empty.
  Value first = k.eq(task, k.index(0));
  return k.select(first, k.index(0), start);
}

struct SparseToDevicePass : npu::impl::SparseToDeviceBase<SparseToDevicePass> {
  using SparseToDeviceBase::SparseToDeviceBase;

  void runOnOperation() override {
    if (rowCost < 0) {
      getOperation().emitError("npu-sparse-to-device: row-cost must not be "
                               "negative, got ")
          << static_cast<int64_t>(rowCost);
      return signalPassFailure();
    }
    FailureOr<DeviceModel> device = dev::lookupDevice(getOperation());
    if (failed(device))
      return signalPassFailure();
    int64_t count = tasks > 0
                        ? int64_t(tasks)
                        : int64_t(device->getNumCores(dev::CoreKind::vector));
    SmallVector<IterationOp> iterations;
    getOperation().walk([&](IterationOp op) {
      if (!op->getParentOfType<dev::LaunchOp>())
        iterations.push_back(op);
    });
    for (IterationOp op : iterations)
      placeOnDevice(op, count);
    if (!iterations.empty())
      placeArraysInGlobalMemory();
  }

  /// The kernel's array arguments live in the device's global memory,
  /// where its DMAs read and write them.
  void placeArraysInGlobalMemory() {
    func::FuncOp func = getOperation();
    auto global =
        dev::MemorySpaceAttr::get(func.getContext(), dev::MemorySpace::global);
    SmallVector<Type> inputs;
    for (BlockArgument arg : func.getArguments()) {
      auto type = dyn_cast<MemRefType>(arg.getType());
      if (type && !type.getMemorySpace())
        arg.setType(MemRefType::get(type.getShape(), type.getElementType(),
                                    type.getLayout(), global));
      inputs.push_back(arg.getType());
    }
    func.setFunctionType(
        FunctionType::get(func.getContext(), inputs, func.getResultTypes()));
  }

  void placeOnDevice(IterationOp op, int64_t count) {
    SmallVector<unsigned> loops = op.getLoopAxes();
    AxisOp first = op.getLoopAxis(0);
    bool split = !first.getParent() &&
                 op.getIteratorKind(loops.front()) == IteratorKind::spatial &&
                 !op.getRangeBegin();
    OpBuilder b(op);
    KernelBuilder k(b, op.getLoc());
    if (!split) {
      dev::LaunchOp launch = k.emptyLaunch(1);
      op->moveBefore(launch.getBody().front().getTerminator());
      return;
    }
    // Balance by the second axis's runs when it hangs off the first.
    Value indptr;
    if (loops.size() > 1) {
      AxisOp second = op.getLoopAxis(1);
      if (second.getParentAxis() == first && second.isVariable())
        indptr = second.getIndptr();
    }
    Value begin, end;
    dev::LaunchOp launch = k.launch(count, [&](Value task) {
      Value rows = k.index(first.getLengthValue());
      begin = buildShareStart(k, indptr, rows, task, count, rowCost);
      Value next = k.add(task, k.index(1));
      Value last = k.eq(next, k.index(count));
      end = k.select(last, rows,
                     buildShareStart(k, indptr, rows, next, count, rowCost));
    });
    op->moveBefore(launch.getBody().front().getTerminator());
    op.getRangeBeginMutable().assign(begin);
    op.getRangeEndMutable().assign(end);
  }
};

} // namespace
