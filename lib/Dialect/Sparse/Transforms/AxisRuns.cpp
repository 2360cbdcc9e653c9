//===- AxisRuns.cpp - positions of an axis under a prefix -----------------===//

#include "AxisRuns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace npu::sparse;

Value npu::sparse::loadIndex(OpBuilder &b, Location loc, Value array, Value i) {
  Value v = b.create<memref::LoadOp>(loc, array, i);
  if (v.getType().isIndex())
    return v;
  return b.create<arith::IndexCastOp>(loc, b.getIndexType(), v);
}

AxisRun npu::sparse::getAxisRun(OpBuilder &b, Location loc, AxisOp axis,
                                Value prefix) {
  auto constant = [&](int64_t v) -> Value {
    return b.create<arith::ConstantIndexOp>(loc, v);
  };
  if (axis.isVariable()) {
    Value start = loadIndex(b, loc, axis.getIndptr(), prefix);
    Value next = b.create<arith::AddIOp>(loc, prefix, constant(1));
    Value end = loadIndex(b, loc, axis.getIndptr(), next);
    return {start, b.create<arith::SubIOp>(loc, end, start)};
  }
  Value count = constant(axis.getKind() == AxisKind::sparse_fixed
                             ? axis.getNnzColsValue()
                             : axis.getLengthValue());
  Value start = prefix ? b.create<arith::MulIOp>(loc, prefix, count).getResult()
                       : constant(0);
  return {start, count};
}
