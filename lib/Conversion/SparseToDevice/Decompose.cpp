//===- Decompose.cpp - hybrid ELL + CSR split of a sparse axis ------------===//
//
// An iteration over rows i and a sparse_variable axis j (CSR) asked to be
// split at width E becomes two clones: the first over an ELL axis of E
// slots per row, the second over the CSR remainder, without init. Each
// buffer over [i, j] is copied into both formats by a one-task launch:
// per row, the first min(len, E) positions go to the ELL slots (the rest
// padded with coordinate 0 and value 0), the others to the remainder,
// whose indptr is the running sum of max(len - E, 0). O(rows * E + nnz)
// at run time; O(iterations) to build.
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
#include "mlir/IR/IRMapping.h"

namespace npu {
#define GEN_PASS_DEF_SPARSEDECOMPOSE
#include "npu/Conversion/Passes.h.inc"
} // namespace npu

using namespace mlir;
using namespace npu;
using namespace npu::sparse;

namespace {

/// A buffer over [i, j] and its copies in the two formats.
struct SplitBuffer {
  BufferOp original;
  Value ellValues, restValues;
};

class HybridSplit {
public:
  HybridSplit(IterationOp op, int64_t width)
      : op(op), b(op), loc(op.getLoc()), width(width), rows(op.getLoopAxis(0)),
        cols(op.getLoopAxis(1)) {}

  LogicalResult run();

private:
  Value constant(int64_t v) { return b.create<arith::ConstantIndexOp>(loc, v); }
  /// A buffer in global memory like `like` (1-D), of `size` entries.
  Value allocLike(Value like, Value size) {
    auto type = cast<MemRefType>(like.getType());
    auto result =
        MemRefType::get({ShapedType::kDynamic}, type.getElementType());
    return b.create<memref::AllocOp>(loc, result, ValueRange{size});
  }
  Value castTo(Value v, Type type) {
    return type.isIndex() ? v : b.create<arith::IndexCastOp>(loc, type, v);
  }
  void buildCopies(OpBuilder &nb, Value ellIndices, Value restIndptr,
                   Value restIndices);

  IterationOp op;
  OpBuilder b;
  Location loc;
  int64_t width;
  AxisOp rows, cols;
  SmallVector<SplitBuffer> buffers;
};

LogicalResult HybridSplit::run() {
  Value colsValue = cols.getResult();
  func::FuncOp func = op->getParentOfType<func::FuncOp>();
  func.walk([&](BufferOp buffer) {
    if (llvm::is_contained(buffer.getAxes(), colsValue))
      buffers.push_back({buffer, Value(), Value()});
  });
  for (SplitBuffer &buffer : buffers)
    if (buffer.original.getAxes().size() != 2)
      return buffer.original.emitOpError(
          "is over the axis npu-sparse-decompose splits; it can split "
          "buffers over exactly [rows, columns] only");
  if (cols.getLengthValue() == 0)
    return op.emitOpError("cannot be split into ELL + CSR: its column axis "
                          "has length 0, so there is no coordinate to pad "
                          "with");
  WalkResult stored = op.walk([&](StoreOp store) {
    for (SplitBuffer &buffer : buffers)
      if (store.getBuffer() == buffer.original.getResult()) {
        store.emitOpError("writes a buffer over the axis npu-sparse-"
                          "decompose splits; the parts are copies, so it "
                          "must be read-only");
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  if (stored.wasInterrupted())
    return failure();

  // The arrays of the two formats.
  int64_t rowCount = rows.getLengthValue();
  Value slots = constant(rowCount * width);
  Value nnz = b.create<memref::DimOp>(loc, cols.getIndices(), 0);
  Value ellIndices = allocLike(cols.getIndices(), slots);
  Value restIndptr = allocLike(cols.getIndptr(), constant(rowCount + 1));
  Value restIndices = allocLike(cols.getIndices(), nnz);
  for (SplitBuffer &buffer : buffers) {
    buffer.ellValues = allocLike(buffer.original.getData(), slots);
    buffer.restValues = allocLike(buffer.original.getData(), nnz);
  }
  // The two axes, buffers and iterations.
  auto ell = b.create<AxisOp>(loc, AxisType::get(b.getContext()),
                              AxisKind::sparse_fixed, rows.getResult(),
                              cols.getLengthValue(), b.getI64IntegerAttr(width),
                              Value(), ellIndices, /*sorted=*/false);
  auto rest = b.create<AxisOp>(loc, AxisType::get(b.getContext()),
                               AxisKind::sparse_variable, rows.getResult(),
                               cols.getLengthValue(), IntegerAttr(), restIndptr,
                               restIndices, cols.getSorted());
  // The copies, after every axis (so that a later pass finds the axes
  // defined before the first launch).
  dev::LaunchOp launch = KernelBuilder(b, loc).emptyLaunch(1);
  OpBuilder inside(launch.getBody().front().getTerminator());
  buildCopies(inside, ellIndices, restIndptr, restIndices);
  IRMapping toEll, toRest;
  toEll.map(colsValue, ell.getResult());
  toRest.map(colsValue, rest.getResult());
  for (SplitBuffer &buffer : buffers) {
    Type type = buffer.original.getType();
    toEll.map(
        buffer.original.getResult(),
        b.create<BufferOp>(loc, type, buffer.ellValues,
                           ValueRange{rows.getResult(), ell.getResult()}));
    toRest.map(
        buffer.original.getResult(),
        b.create<BufferOp>(loc, type, buffer.restValues,
                           ValueRange{rows.getResult(), rest.getResult()}));
  }
  for (IRMapping *mapping : {&toEll, &toRest}) {
    auto part = cast<IterationOp>(b.clone(*op, *mapping));
    part.removeHybridEllWidthAttr();
    // The remainder carries on from the ELL part's sums.
    if (mapping == &toRest)
      part.getInit().getBlocks().clear();
  }
  // The copies live as long as the two parts.
  for (Value array : {ellIndices, restIndptr, restIndices})
    b.create<memref::DeallocOp>(loc, array);
  for (SplitBuffer &buffer : buffers)
    for (Value array : {buffer.ellValues, buffer.restValues})
      b.create<memref::DeallocOp>(loc, array);
  op.erase();
  return success();
}

void HybridSplit::buildCopies(OpBuilder &nb, Value ellIndices, Value restIndptr,
                              Value restIndices) {
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(nb.getInsertionBlock(), nb.getInsertionPoint());
  Type ptrType = cast<MemRefType>(restIndptr.getType()).getElementType();
  Type idxType = cast<MemRefType>(restIndices.getType()).getElementType();
  b.create<memref::StoreOp>(loc, castTo(constant(0), ptrType), restIndptr,
                            ValueRange{constant(0)});
  Value w = constant(width);
  auto rowLoop = b.create<scf::ForOp>(
      loc, constant(0), constant(rows.getLengthValue()), constant(1));
  b.setInsertionPointToStart(rowLoop.getBody());
  Value r = rowLoop.getInductionVar();
  AxisRun run = getAxisRun(b, loc, cols, r);
  // ELL slots: copies, then padding.
  auto slotLoop = b.create<scf::ForOp>(loc, constant(0), w, constant(1));
  {
    OpBuilder::InsertionGuard slotGuard(b);
    b.setInsertionPointToStart(slotLoop.getBody());
    Value e = slotLoop.getInductionVar();
    Value slot =
        b.create<arith::AddIOp>(loc, b.create<arith::MulIOp>(loc, r, w), e);
    Value held =
        b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ult, e, run.count);
    b.create<scf::IfOp>(
        loc, held,
        [&](OpBuilder &tb, Location l) {
          Value from = tb.create<arith::AddIOp>(l, run.start, e);
          tb.create<memref::StoreOp>(
              l, tb.create<memref::LoadOp>(l, cols.getIndices(), from),
              ellIndices, slot);
          for (SplitBuffer &buffer : buffers)
            tb.create<memref::StoreOp>(
                l,
                tb.create<memref::LoadOp>(l, buffer.original.getData(), from),
                buffer.ellValues, slot);
          tb.create<scf::YieldOp>(l);
        },
        [&](OpBuilder &eb, Location l) {
          eb.create<memref::StoreOp>(
              l, eb.create<arith::ConstantOp>(l, eb.getZeroAttr(idxType)),
              ellIndices, slot);
          for (SplitBuffer &buffer : buffers) {
            Type element =
                cast<MemRefType>(buffer.ellValues.getType()).getElementType();
            eb.create<memref::StoreOp>(
                l, eb.create<arith::ConstantOp>(l, eb.getZeroAttr(element)),
                buffer.ellValues, slot);
          }
          eb.create<scf::YieldOp>(l);
        });
  }
  // The remainder: positions past E, appended.
  Value past = b.create<arith::SubIOp>(
      loc, b.create<arith::MaxUIOp>(loc, run.count, w), w);
  Value restStart = loadIndex(b, loc, restIndptr, r);
  Value next = b.create<arith::AddIOp>(loc, r, constant(1));
  b.create<memref::StoreOp>(
      loc, castTo(b.create<arith::AddIOp>(loc, restStart, past), ptrType),
      restIndptr, next);
  auto restLoop = b.create<scf::ForOp>(loc, constant(0), past, constant(1));
  b.setInsertionPointToStart(restLoop.getBody());
  Value t = restLoop.getInductionVar();
  Value from = b.create<arith::AddIOp>(
      loc, b.create<arith::AddIOp>(loc, run.start, w), t);
  Value to = b.create<arith::AddIOp>(loc, restStart, t);
  b.create<memref::StoreOp>(
      loc, b.create<memref::LoadOp>(loc, cols.getIndices(), from), restIndices,
      to);
  for (SplitBuffer &buffer : buffers)
    b.create<memref::StoreOp>(
        loc, b.create<memref::LoadOp>(loc, buffer.original.getData(), from),
        buffer.restValues, to);
}

struct SparseDecomposePass
    : npu::impl::SparseDecomposeBase<SparseDecomposePass> {
  void runOnOperation() override {
    SmallVector<IterationOp> requests;
    getOperation().walk([&](IterationOp op) {
      if (op.getHybridEllWidth())
        requests.push_back(op);
    });
    for (IterationOp op : requests)
      if (failed(HybridSplit(op, *op.getHybridEllWidth()).run()))
        return signalPassFailure();
  }
};

} // namespace
