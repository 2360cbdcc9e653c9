//===- KernelBuilder.cpp - building npudev kernels ------------------------===//

#include "npu/Dialect/NPUDev/KernelBuilder.h"
#include "npu/Dialect/NPUDev/Semantics.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/Support/ErrorHandling.h"

#include <numeric>

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
Value KernelBuilder::floatConstant(Type type, double v) {
  return b.create<arith::ConstantOp>(loc, b.getFloatAttr(type, v));
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
Value KernelBuilder::divU(Value x, Value y) {
  return b.create<arith::DivUIOp>(loc, x, y);
}
Value KernelBuilder::rem(Value x, Value y) {
  return b.create<arith::RemSIOp>(loc, x, y);
}
Value KernelBuilder::min(Value x, Value y) {
  return b.create<arith::MinSIOp>(loc, x, y);
}
Value KernelBuilder::max(Value x, Value y) {
  return b.create<arith::MaxSIOp>(loc, x, y);
}
Value KernelBuilder::lt(Value x, Value y) {
  return b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, x, y);
}
Value KernelBuilder::ge(Value x, Value y) {
  return b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sge, x, y);
}
Value KernelBuilder::eq(Value x, Value y) {
  return b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, x, y);
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
Value KernelBuilder::constant(Type type, int64_t v) {
  if (type.isIndex())
    return index(v);
  return b.create<arith::ConstantOp>(loc, b.getIntegerAttr(type, v));
}
Value KernelBuilder::convert(Value v, Type type) {
  return dev::convertElement(b, loc, v, type);
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
  return window(memref, offsets, sizes, {}, drop);
}

Value KernelBuilder::window(Value memref, ArrayRef<Value> offsets,
                            ArrayRef<OpFoldResult> sizes,
                            ArrayRef<int64_t> steps, ArrayRef<unsigned> drop) {
  auto type = cast<MemRefType>(memref.getType());
  SmallVector<OpFoldResult> mixedOffsets(offsets.begin(), offsets.end());
  SmallVector<OpFoldResult> strides(type.getRank(), b.getIndexAttr(1));
  for (auto [d, step] : llvm::enumerate(steps))
    strides[d] = b.getIndexAttr(step);
  // Sizes that are constants (attributes or constant ops) become static
  // dimensions of the window.
  SmallVector<OpFoldResult> staticSizes;
  SmallVector<int64_t> kept;
  for (auto [d, size] : llvm::enumerate(sizes)) {
    std::optional<int64_t> constant = getConstantIntValue(size);
    staticSizes.push_back(constant ? b.getIndexAttr(*constant) : size);
    if (!llvm::is_contained(drop, d))
      kept.push_back(constant ? *constant : ShapedType::kDynamic);
  }
  auto resultType =
      cast<MemRefType>(memref::SubViewOp::inferRankReducedResultType(
          kept, type, mixedOffsets, staticSizes, strides));
  return b.create<memref::SubViewOp>(loc, resultType, memref, mixedOffsets,
                                     staticSizes, strides);
}

/// The groups of dimensions of `from` and of `to` whose sizes multiply to
/// the same extents, in order: the finest common coarsening of two shapes
/// of as many elements (none of them empty). Unit dimensions join the group
/// before them (the first group when they lead).
static std::pair<SmallVector<ReassociationIndices>,
                 SmallVector<ReassociationIndices>>
groupCommonExtents(ArrayRef<int64_t> from, ArrayRef<int64_t> to) {
  SmallVector<ReassociationIndices> fromGroups, toGroups;
  size_t i = 0, j = 0;
  while (i < from.size() || j < to.size()) {
    ReassociationIndices f, t;
    int64_t p = 1, q = 1;
    auto takeFrom = [&] {
      f.push_back(i);
      p *= from[i++];
    };
    auto takeTo = [&] {
      t.push_back(j);
      q *= to[j++];
    };
    if (i < from.size())
      takeFrom();
    if (j < to.size())
      takeTo();
    while (p != q)
      p < q ? takeFrom() : takeTo();
    // Trailing unit dimensions belong here, not to a group of their own.
    while (i < from.size() && from[i] == 1 && (j == to.size() || to[j] != 1))
      takeFrom();
    while (j < to.size() && to[j] == 1 && (i == from.size() || from[i] != 1))
      takeTo();
    fromGroups.push_back(f);
    toGroups.push_back(t);
  }
  return {fromGroups, toGroups};
}

/// `memref`, a strided view, reshaped without a copy: each group of
/// dimensions collapsed (they must be contiguous with each other), then
/// expanded into the new shape's. A view whose rows are padded keeps its
/// innermost dimension whole or split, never merged with the others.
static Value reshapeStrided(OpBuilder &b, Location loc, Value memref,
                            ArrayRef<int64_t> shape) {
  auto type = cast<MemRefType>(memref.getType());
  auto [fromGroups, toGroups] = groupCommonExtents(type.getShape(), shape);
  if (!memref::CollapseShapeOp::isGuaranteedCollapsible(type, fromGroups))
    llvm::report_fatal_error("KernelBuilder::reshape: the strided view cannot "
                             "take this shape without a copy");
  auto single = [](const ReassociationIndices &g) { return g.size() == 1; };
  Value collapsed =
      llvm::all_of(fromGroups, single)
          ? memref
          : b.create<memref::CollapseShapeOp>(loc, memref, fromGroups);
  if (llvm::all_of(toGroups, single))
    return collapsed;
  return b.create<memref::ExpandShapeOp>(loc, shape, collapsed, toGroups);
}

Value KernelBuilder::reshape(Value memref, ArrayRef<int64_t> shape) {
  auto type = cast<MemRefType>(memref.getType());
  if (type.getShape() == shape)
    return memref;
  if (!type.getLayout().isIdentity() && !shape.empty() && type.getRank() != 0 &&
      type.getNumElements() != 0)
    return reshapeStrided(b, loc, memref, shape);
  // To or from rank 0 (one element): the reassociation is empty.
  if (shape.empty())
    return b.create<memref::CollapseShapeOp>(loc, memref,
                                             ArrayRef<ReassociationIndices>{});
  auto result =
      MemRefType::get(shape, type.getElementType(), MemRefLayoutAttrInterface(),
                      type.getMemorySpace());
  if (type.getRank() == 0)
    return b.create<memref::ExpandShapeOp>(loc, result, memref,
                                           ArrayRef<ReassociationIndices>{});
  Value flat = memref;
  if (type.getRank() != 1) {
    ReassociationIndices all(type.getRank());
    std::iota(all.begin(), all.end(), 0);
    flat = b.create<memref::CollapseShapeOp>(
        loc, memref, ArrayRef<ReassociationIndices>{all});
  }
  if (shape.size() == 1)
    return flat;
  ReassociationIndices group(shape.size());
  std::iota(group.begin(), group.end(), 0);
  return b.create<memref::ExpandShapeOp>(loc, result, flat,
                                         ArrayRef<ReassociationIndices>{group});
}

Value KernelBuilder::dim(Value memref, int64_t d) {
  return b.create<memref::DimOp>(loc, memref, d);
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
Value KernelBuilder::dmaStart(Value source, Value target, bool consumesSource) {
  return b.create<dev::DmaStartOp>(loc, dev::TokenType::get(b.getContext()),
                                   source, target, consumesSource);
}
void KernelBuilder::wait(Value token) { b.create<dev::WaitOp>(loc, token); }
void KernelBuilder::waitAll() { b.create<dev::WaitAllOp>(loc); }
Value KernelBuilder::completedToken() {
  return b.create<dev::AsyncOp>(loc).getToken();
}
void KernelBuilder::dmaGather(Value source, Value indices, Value target) {
  b.create<dev::DmaGatherOp>(loc, source, indices, target);
}
void KernelBuilder::dmaScatter(Value source, Value target, Value indices,
                               bool add) {
  b.create<dev::DmaScatterOp>(loc, source, indices, target, add);
}

static Type elementOf(Value memref) {
  return cast<MemRefType>(memref.getType()).getElementType();
}

void KernelBuilder::vbinary(dev::BinaryKind kind, Value lhs, Value rhs,
                            Value out) {
  b.create<dev::VBinaryOp>(loc, kind, lhs, rhs, out);
}
void KernelBuilder::vbinaryScalar(dev::BinaryKind kind, Value in, Value scalar,
                                  Value out) {
  b.create<dev::VBinaryScalarOp>(loc, kind, in, convert(scalar, elementOf(in)),
                                 out);
}
void KernelBuilder::vcmp(dev::ComparePredicate pred, Value lhs, Value rhs,
                         Value out) {
  b.create<dev::VCompareOp>(loc, pred, lhs, rhs, out);
}
void KernelBuilder::vcmpScalar(dev::ComparePredicate pred, Value in,
                               Value scalar, Value out) {
  b.create<dev::VCompareScalarOp>(loc, pred, in, convert(scalar, elementOf(in)),
                                  out);
}
void KernelBuilder::vselect(Value mask, Value onTrue, Value onFalse,
                            Value out) {
  b.create<dev::VSelectOp>(loc, mask, onTrue, onFalse, out);
}
void KernelBuilder::vfill(Value out, Value value) {
  b.create<dev::VFillOp>(loc, convert(value, elementOf(out)), out);
}
void KernelBuilder::vfill(Value out, int64_t value) {
  b.create<dev::VFillOp>(loc, constant(elementOf(out), value), out);
}
void KernelBuilder::iota(Value out, Value start, int64_t dimension) {
  b.create<dev::IotaOp>(loc, start, out, dimension);
}
void KernelBuilder::vunary(dev::UnaryKind kind, Value in, Value out) {
  b.create<dev::VUnaryOp>(loc, kind, in, out);
}
void KernelBuilder::vbinaryBroadcast(dev::BinaryKind kind, Value lhs, Value rhs,
                                     Value out, int64_t dimension) {
  b.create<dev::VBinaryBroadcastOp>(loc, kind, lhs, rhs, out, dimension);
}
void KernelBuilder::matmul(Value a, Value bMatrix, Value c, bool accumulate,
                           bool transposeB) {
  auto op = b.create<dev::MatmulOp>(loc, a, bMatrix, c, accumulate);
  if (transposeB)
    op.setTransposeB(true);
}
void KernelBuilder::matmulSum(Value a, Value bMatrix, Value c, Value first,
                              bool transposeA, bool transposeB) {
  auto product = [&](bool accumulate) {
    auto op = b.create<dev::MatmulOp>(loc, a, bMatrix, c, accumulate);
    op.setTransposeA(transposeA);
    op.setTransposeB(transposeB);
  };
  ifThenElse(first, [&] { product(false); }, [&] { product(true); });
}
void KernelBuilder::vcast(Value in, Value out) {
  b.create<dev::VCastOp>(loc, in, out);
}
void KernelBuilder::vcumsum(Value in, Value out) {
  b.create<dev::VCumsumOp>(loc, in, out);
}
void KernelBuilder::vreduce(dev::ReduceKind kind, Value in, Value out) {
  b.create<dev::VReduceOp>(loc, kind, in, out);
}
void KernelBuilder::reportRows(Value rows, StringRef message) {
  b.create<dev::ReportRowsOp>(loc, rows, b.getStringAttr(message));
}

dev::LaunchOp KernelBuilder::checkSizes(ArrayRef<SizeCheck> checks) {
  dev::LaunchOp check = launch(1, [&](Value) {
    Type i64 = b.getI64Type();
    Value found = alloc({1}, i64);
    for (const SizeCheck &c : checks) {
      // -1 (no row) when the size is right, else the size.
      Value size = dim(c.memref, c.dim);
      Value holds = c.expected ? eq(size, dim(c.expected, c.expectedDim))
                               : lt(size, index(c.limit + 1));
      Value reported = select(holds, constant(i64, -1),
                              b.create<arith::IndexCastOp>(loc, i64, size));
      vfill(found, reported);
      reportRows(found, c.message);
    }
  });
  recordTiling(check,
               {b.getNamedAttr("strategy", b.getStringAttr("check_sizes"))});
  return check;
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
  return forLoopCarrying(lb, ub, step, init,
                         [&](Value iv, ValueRange carried) {
                           return SmallVector<Value>{body(iv, carried.front())};
                         })
      .front();
}

SmallVector<Value> KernelBuilder::forLoopCarrying(
    Value lb, Value ub, Value step, ValueRange init,
    function_ref<SmallVector<Value>(Value, ValueRange)> body) {
  auto loop = b.create<scf::ForOp>(
      loc, lb, ub, step, init,
      [&](OpBuilder &nested, Location, Value iv, ValueRange carried) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(nested.getInsertionBlock(),
                            nested.getInsertionPoint());
        b.create<scf::YieldOp>(loc, body(iv, carried));
      });
  return SmallVector<Value>(loop.getResults());
}

SmallVector<Value>
KernelBuilder::whileLoop(ValueRange init, function_ref<Value(ValueRange)> cond,
                         function_ref<SmallVector<Value>(ValueRange)> body) {
  auto loop = b.create<scf::WhileOp>(
      loc, init.getTypes(), init,
      [&](OpBuilder &nested, Location, ValueRange state) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(nested.getInsertionBlock(),
                            nested.getInsertionPoint());
        b.create<scf::ConditionOp>(loc, cond(state), state);
      },
      [&](OpBuilder &nested, Location, ValueRange state) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(nested.getInsertionBlock(),
                            nested.getInsertionPoint());
        b.create<scf::YieldOp>(loc, body(state));
      });
  return SmallVector<Value>(loop.getResults());
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

Value KernelBuilder::ifThenElse(Value cond, Type type,
                                function_ref<Value()> thenValue,
                                function_ref<Value()> elseValue) {
  auto branch = b.create<scf::IfOp>(loc, TypeRange{type}, cond,
                                    /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  for (auto [block, value] : {std::make_pair(branch.thenBlock(), thenValue),
                              std::make_pair(branch.elseBlock(), elseValue)}) {
    b.setInsertionPointToEnd(block);
    b.create<scf::YieldOp>(loc, value());
  }
  return branch.getResult(0);
}

dev::LaunchOp KernelBuilder::emptyLaunch(int64_t tasks, dev::CoreKind cores) {
  return b.create<dev::LaunchOp>(loc, tasks, cores);
}

dev::LaunchOp KernelBuilder::launch(int64_t tasks,
                                    function_ref<void(Value)> body,
                                    dev::CoreKind cores) {
  auto launch = b.create<dev::LaunchOp>(loc, tasks, cores);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(launch.getBody().front().getTerminator());
  body(b.create<dev::TaskIdOp>(loc, b.getIndexType()));
  return launch;
}

dev::MixedLaunchOp
KernelBuilder::mixedLaunch(int64_t cubeTasks, int64_t vectorTasks,
                           function_ref<void(Value)> cube,
                           function_ref<void(Value)> vector) {
  auto launch = b.create<dev::MixedLaunchOp>(loc, cubeTasks, vectorTasks);
  OpBuilder::InsertionGuard guard(b);
  for (auto [region, body] :
       {std::pair<Region *, function_ref<void(Value)>>{&launch.getCube(), cube},
        {&launch.getVector(), vector}}) {
    b.setInsertionPoint(region->front().getTerminator());
    body(b.create<dev::TaskIdOp>(loc, b.getIndexType()));
  }
  return launch;
}

void KernelBuilder::setFlag(int64_t flag, dev::CoreKind to, Value task) {
  b.create<dev::SetFlagOp>(loc, flag, to, task);
}

void KernelBuilder::waitFlag(int64_t flag) {
  b.create<dev::WaitFlagOp>(loc, flag);
}

SmallVector<Value> KernelBuilder::delinearize(Value linear,
                                              ArrayRef<int64_t> sizes) {
  SmallVector<Value> digits(sizes.size());
  Value rest = linear;
  for (size_t d = sizes.size(); d-- > 0;) {
    // A digit of radix 1 is 0: a constant, which folds the uses.
    if (sizes[d] == 1) {
      digits[d] = index(0);
    } else if (d == 0) {
      digits[d] = rest;
    } else {
      digits[d] = rem(rest, index(sizes[d]));
      rest = div(rest, index(sizes[d]));
    }
  }
  return digits;
}

void KernelBuilder::forEachItem(Value taskId, int64_t tasks, int64_t items,
                                function_ref<void(Value)> body) {
  forLoop(taskId, index(items), index(tasks), body);
}

void KernelBuilder::forEachItem(Value taskId, int64_t tasks, Value items,
                                function_ref<void(Value)> body) {
  forLoop(taskId, items, index(tasks), body);
}

void KernelBuilder::recordTiling(dev::LaunchOp launch,
                                 ArrayRef<NamedAttribute> choices) {
  launch->setAttr("npudev.tiling",
                  DictionaryAttr::get(launch.getContext(), choices));
}

void KernelBuilder::recordStep(dev::LaunchOp launch, StringRef strategy,
                               StringRef step, StringRef sizeName,
                               int64_t size) {
  Builder b(launch.getContext());
  recordTiling(launch, {b.getNamedAttr("strategy", b.getStringAttr(strategy)),
                        b.getNamedAttr("step", b.getStringAttr(step)),
                        b.getNamedAttr(sizeName, b.getI64IntegerAttr(size))});
}
