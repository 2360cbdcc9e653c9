//===- KernelBuilder.cpp - building npudev kernels ------------------------===//

#include "KernelBuilder.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace npu;

Value KernelBuilder::index(int64_t v) {
  return b.create<arith::ConstantIndexOp>(loc, v);
}
Value KernelBuilder::i32(int64_t v) {
  return b.create<arith::ConstantOp>(loc, b.getI32IntegerAttr(v));
}
Value KernelBuilder::f32(double v) {
  return b.create<arith::ConstantOp>(loc, b.getF32FloatAttr(v));
}
Value KernelBuilder::add(Value x, Value y) {
  return b.create<arith::AddIOp>(loc, x, y);
}
Value KernelBuilder::sub(Value x, Value y) {
  return b.create<arith::SubIOp>(loc, x, y);
}
Value KernelBuilder::mul(Value x, Value y) {
  return b.create<arith::MulIOp>(loc, x, y);
}
Value KernelBuilder::div(Value x, Value y) {
  return b.create<arith::DivSIOp>(loc, x, y);
}
Value KernelBuilder::rem(Value x, Value y) {
  return b.create<arith::RemSIOp>(loc, x, y);
}
Value KernelBuilder::min(Value x, Value y) {
  return b.create<arith::MinSIOp>(loc, x, y);
}
Value KernelBuilder::lt(Value x, Value y) {
  return b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, x, y);
}
Value KernelBuilder::ge(Value x, Value y) {
  return b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sge, x, y);
}
Value KernelBuilder::andI(Value x, Value y) {
  return b.create<arith::AndIOp>(loc, x, y);
}
Value KernelBuilder::select(Value cond, Value x, Value y) {
  return b.create<arith::SelectOp>(loc, cond, x, y);
}
Value KernelBuilder::toIndex(Value v) {
  return b.create<arith::IndexCastOp>(loc, b.getIndexType(), v);
}

Value KernelBuilder::alloc(ArrayRef<int64_t> shape, Type element,
                           dev::MemorySpace space) {
  auto type = MemRefType::get(shape, element, MemRefLayoutAttrInterface(),
                              dev::MemorySpaceAttr::get(b.getContext(), space));
  return b.create<dev::AllocOp>(loc, type);
}

Value KernelBuilder::window(Value memref, ArrayRef<Value> offsets,
                            ArrayRef<OpFoldResult> sizes,
                            ArrayRef<unsigned> drop) {
  auto type = cast<MemRefType>(memref.getType());
  SmallVector<OpFoldResult> mixedOffsets(offsets.begin(), offsets.end());
  SmallVector<OpFoldResult> strides(type.getRank(), b.getIndexAttr(1));
  SmallVector<int64_t> kept;
  for (auto [d, size] : llvm::enumerate(sizes)) {
    if (llvm::is_contained(drop, d))
      continue;
    std::optional<int64_t> constant = getConstantIntValue(size);
    kept.push_back(constant ? *constant : ShapedType::kDynamic);
  }
  auto resultType =
      cast<MemRefType>(memref::SubViewOp::inferRankReducedResultType(
          kept, type, mixedOffsets, sizes, strides));
  return b.create<memref::SubViewOp>(loc, resultType, memref, mixedOffsets,
                                     sizes, strides);
}

Value KernelBuilder::load(Value memref, ValueRange indices) {
  return b.create<memref::LoadOp>(loc, memref, indices);
}
void KernelBuilder::store(Value value, Value memref, ValueRange indices) {
  b.create<memref::StoreOp>(loc, value, memref, indices);
}
void KernelBuilder::dma(Value source, Value target) {
  b.create<dev::DmaOp>(loc, source, target);
}
void KernelBuilder::dmaStart(Value source, Value target) {
  b.create<dev::DmaStartOp>(loc, dev::TokenType::get(b.getContext()), source,
                            target);
}

void KernelBuilder::forLoop(Value lb, Value ub, Value step,
                            function_ref<void(Value)> body) {
  b.create<scf::ForOp>(loc, lb, ub, step, ValueRange{},
                       [&](OpBuilder &nested, Location, Value iv, ValueRange) {
                         OpBuilder::InsertionGuard guard(b);
                         b.setInsertionPoint(nested.getInsertionBlock(),
                                             nested.getInsertionPoint());
                         body(iv);
                         b.create<scf::YieldOp>(loc);
                       });
}

Value KernelBuilder::forLoop(Value lb, Value ub, Value step, Value init,
                             function_ref<Value(Value, Value)> body) {
  auto loop = b.create<scf::ForOp>(
      loc, lb, ub, step, ValueRange{init},
      [&](OpBuilder &nested, Location, Value iv, ValueRange carried) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(nested.getInsertionBlock(),
                            nested.getInsertionPoint());
        b.create<scf::YieldOp>(loc, body(iv, carried.front()));
      });
  return loop.getResult(0);
}

void KernelBuilder::ifThenElse(Value cond, function_ref<void()> thenBody,
                               function_ref<void()> elseBody) {
  auto branch = b.create<scf::IfOp>(loc, cond, /*withElseRegion=*/!!elseBody);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(branch.thenBlock()->getTerminator());
  thenBody();
  if (elseBody) {
    b.setInsertionPoint(branch.elseBlock()->getTerminator());
    elseBody();
  }
}

dev::LaunchOp KernelBuilder::launch(int64_t tasks,
                                    function_ref<void(Value)> body) {
  auto launch = b.create<dev::LaunchOp>(loc, tasks);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(launch.getBody().front().getTerminator());
  body(b.create<dev::TaskIdOp>(loc, b.getIndexType()));
  return launch;
}
