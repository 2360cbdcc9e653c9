//===- AxisRuns.cpp - positions of an axis under a prefix -----------------===//

#include "npu/Dialect/Sparse/AxisRuns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace npu::sparse;

Value npu::sparse::loadIndex(OpBuilder &b, Location loc, Value array, Value i) {
  Value v = b.create<memref::LoadOp>(loc, array, i);
  if (v.getType().isIndex())
    return v;
  return b.create<arith::IndexCastOp>(loc, b.getIndexType(), v);
}

/// Positions per parent position of a fixed axis: its length (dense) or
/// nnz_cols (sparse).
static int64_t getFixedCount(AxisOp axis) {
  return axis.getKind() == AxisKind::sparse_fixed ? axis.getNnzColsValue()
                                                  : axis.getLengthValue();
}

AxisRun npu::sparse::getAxisRun(OpBuilder &b, Location loc, AxisOp axis,
                                Value prefix) {
  Value start = getAxisRunStart(b, loc, axis, prefix);
  if (!axis.isVariable())
    return {start, b.create<arith::ConstantIndexOp>(loc, getFixedCount(axis))};
  Value next = b.create<arith::AddIOp>(
      loc, prefix, b.create<arith::ConstantIndexOp>(loc, 1));
  Value end = loadIndex(b, loc, axis.getIndptr(), next);
  return {start, b.create<arith::SubIOp>(loc, end, start)};
}

Value npu::sparse::getAxisRunStart(OpBuilder &b, Location loc, AxisOp axis,
                                   Value prefix) {
  if (axis.isVariable())
    return loadIndex(b, loc, axis.getIndptr(), prefix);
  if (!prefix)
    return b.create<arith::ConstantIndexOp>(loc, 0);
  return b.create<arith::MulIOp>(
      loc, prefix, b.create<arith::ConstantIndexOp>(loc, getFixedCount(axis)));
}

Value npu::sparse::getBufferRunStart(OpBuilder &b, Location loc,
                                     BufferOp buffer, ValueRange leading) {
  Value offset;
  for (auto [axis, position] : llvm::zip(buffer.getAxes(), leading)) {
    Value start = getAxisRunStart(b, loc, axis.getDefiningOp<AxisOp>(), offset);
    offset = b.create<arith::AddIOp>(loc, start, position);
  }
  return getAxisRunStart(
      b, loc, buffer.getAxes().back().getDefiningOp<AxisOp>(), offset);
}

Value npu::sparse::buildLowerBound(OpBuilder &b, Location loc, Value array,
                                   Value lo, Value hi, Value value) {
  return buildLowerBound(
      b, loc,
      [&](OpBuilder &nb, Location l, Value at) {
        return loadIndex(nb, l, array, at);
      },
      lo, hi, value);
}

Value npu::sparse::buildLowerBound(
    OpBuilder &b, Location loc,
    function_ref<Value(OpBuilder &, Location, Value)> keyAt, Value lo, Value hi,
    Value value) {
  Type index = b.getIndexType();
  auto loop = b.create<scf::WhileOp>(
      loc, TypeRange{index, index}, ValueRange{lo, hi},
      [&](OpBuilder &nb, Location l, ValueRange range) {
        Value more = nb.create<arith::CmpIOp>(l, arith::CmpIPredicate::ult,
                                              range[0], range[1]);
        nb.create<scf::ConditionOp>(l, more, range);
      },
      [&](OpBuilder &nb, Location l, ValueRange range) {
        Value one = nb.create<arith::ConstantIndexOp>(l, 1);
        Value sum = nb.create<arith::AddIOp>(l, range[0], range[1]);
        Value mid = nb.create<arith::ShRUIOp>(l, sum, one);
        Value at = keyAt(nb, l, mid);
        Value below =
            nb.create<arith::CmpIOp>(l, arith::CmpIPredicate::ult, at, value);
        Value next = nb.create<arith::AddIOp>(l, mid, one);
        nb.create<scf::YieldOp>(
            l, ValueRange{nb.create<arith::SelectOp>(l, below, next, range[0]),
                          nb.create<arith::SelectOp>(l, below, range[1], mid)});
      });
  return loop.getResult(0);
}
