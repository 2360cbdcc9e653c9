//===- LowerDeviceToLoops.cpp - npudev to scf/memref/arith/math -----------===//
//
// One rewrite pattern per npudev op, each replacing the op by upstream IR
// with the simulator's semantics (lib/Simulator/VectorOps.cpp): elementwise
// ops become a loop nest over their buffers, reductions and prefix sums a
// sequential inner loop, matmul an (i, j, k) nest, sort and unique runtime
// calls, DMA memref.copy, the launch an scf.parallel over tasks. Then one
// walk strips the #npudev.space of every type. Linear in the IR size.
//
//===----------------------------------------------------------------------===//

#include "npu/Dialect/NPUDev/NPUDevOps.h"
#include "npu/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace npu {
#define GEN_PASS_DEF_LOWERDEVICETOLOOPS
#include "npu/Conversion/Passes.h.inc"
} // namespace npu

using namespace mlir;

using namespace npu::dev;

namespace {

//===----------------------------------------------------------------------===//
// Scalar semantics
//===----------------------------------------------------------------------===//

Value indexConst(OpBuilder &b, Location loc, int64_t v) {
  return b.create<arith::ConstantIndexOp>(loc, v);
}

Value floatConst(OpBuilder &b, Location loc, Type type, double v) {
  return b.create<arith::ConstantOp>(loc, b.getFloatAttr(type, v));
}

Value intConst(OpBuilder &b, Location loc, Type type, const APInt &v) {
  return b.create<arith::ConstantOp>(loc, b.getIntegerAttr(type, v));
}

Value zeroOf(OpBuilder &b, Location loc, Type type) {
  return b.create<arith::ConstantOp>(loc, b.getZeroAttr(type));
}

Value buildBinary(OpBuilder &b, Location loc, BinaryKind kind, Value x,
                  Value y) {
  if (isa<FloatType>(x.getType())) {
    switch (kind) {
    case BinaryKind::add:
      return b.create<arith::AddFOp>(loc, x, y);
    case BinaryKind::sub:
      return b.create<arith::SubFOp>(loc, x, y);
    case BinaryKind::mul:
      return b.create<arith::MulFOp>(loc, x, y);
    case BinaryKind::div:
      return b.create<arith::DivFOp>(loc, x, y);
    case BinaryKind::max:
      return b.create<arith::MaximumFOp>(loc, x, y);
    case BinaryKind::min:
      return b.create<arith::MinimumFOp>(loc, x, y);
    default:
      llvm_unreachable("bitwise op on floats (rejected by the verifier)");
    }
  }
  switch (kind) {
  case BinaryKind::add:
    return b.create<arith::AddIOp>(loc, x, y);
  case BinaryKind::sub:
    return b.create<arith::SubIOp>(loc, x, y);
  case BinaryKind::mul:
    return b.create<arith::MulIOp>(loc, x, y);
  case BinaryKind::div:
    return b.create<arith::DivSIOp>(loc, x, y);
  case BinaryKind::max:
    return b.create<arith::MaxSIOp>(loc, x, y);
  case BinaryKind::min:
    return b.create<arith::MinSIOp>(loc, x, y);
  case BinaryKind::And:
    return b.create<arith::AndIOp>(loc, x, y);
  case BinaryKind::Or:
    return b.create<arith::OrIOp>(loc, x, y);
  }
  llvm_unreachable("unknown binary op");
}

Value buildUnary(OpBuilder &b, Location loc, UnaryKind kind, Value x) {
  Type type = x.getType();
  if (!isa<FloatType>(type)) {
    Value zero = zeroOf(b, loc, type);
    Value negated = b.create<arith::SubIOp>(loc, zero, x);
    switch (kind) {
    case UnaryKind::abs: {
      Value isNegative =
          b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, x, zero);
      return b.create<arith::SelectOp>(loc, isNegative, negated, x);
    }
    case UnaryKind::neg:
      return negated;
    case UnaryKind::relu:
      return b.create<arith::MaxSIOp>(loc, x, zero);
    default:
      llvm_unreachable("float-only op on integers (rejected by the verifier)");
    }
  }
  Value one = floatConst(b, loc, type, 1.0);
  switch (kind) {
  case UnaryKind::abs:
    return b.create<math::AbsFOp>(loc, x);
  case UnaryKind::neg:
    return b.create<arith::NegFOp>(loc, x);
  case UnaryKind::relu:
    return b.create<arith::MaximumFOp>(loc, x, zeroOf(b, loc, type));
  case UnaryKind::exp:
    return b.create<math::ExpOp>(loc, x);
  case UnaryKind::log:
    return b.create<math::LogOp>(loc, x);
  case UnaryKind::sqrt:
    return b.create<math::SqrtOp>(loc, x);
  case UnaryKind::rsqrt:
    return b.create<arith::DivFOp>(loc, one, b.create<math::SqrtOp>(loc, x));
  case UnaryKind::recip:
    return b.create<arith::DivFOp>(loc, one, x);
  case UnaryKind::tanh:
    return b.create<math::TanhOp>(loc, x);
  case UnaryKind::sigmoid: {
    Value e = b.create<math::ExpOp>(loc, b.create<arith::NegFOp>(loc, x));
    return b.create<arith::DivFOp>(loc, one,
                                   b.create<arith::AddFOp>(loc, one, e));
  }
  }
  llvm_unreachable("unknown unary op");
}

Value buildCompare(OpBuilder &b, Location loc, ComparePredicate pred, Value x,
                   Value y) {
  if (isa<FloatType>(x.getType())) {
    static const arith::CmpFPredicate preds[] = {
        arith::CmpFPredicate::OEQ, arith::CmpFPredicate::UNE,
        arith::CmpFPredicate::OLT, arith::CmpFPredicate::OLE,
        arith::CmpFPredicate::OGT, arith::CmpFPredicate::OGE};
    return b.create<arith::CmpFOp>(loc, preds[static_cast<unsigned>(pred)], x,
                                   y);
  }
  static const arith::CmpIPredicate preds[] = {
      arith::CmpIPredicate::eq,  arith::CmpIPredicate::ne,
      arith::CmpIPredicate::slt, arith::CmpIPredicate::sle,
      arith::CmpIPredicate::sgt, arith::CmpIPredicate::sge};
  return b.create<arith::CmpIOp>(loc, preds[static_cast<unsigned>(pred)], x, y);
}

/// 1 or 0 of `type` from an i1.
Value flagAs(OpBuilder &b, Location loc, Value flag, Type type) {
  if (isa<FloatType>(type))
    return b.create<arith::UIToFPOp>(loc, type, flag);
  if (type.getIntOrFloatBitWidth() == 1)
    return flag;
  return b.create<arith::ExtUIOp>(loc, type, flag);
}

/// Whether a value is nonzero (NaN counts as nonzero).
Value isNonZero(OpBuilder &b, Location loc, Value v) {
  Value zero = zeroOf(b, loc, v.getType());
  if (isa<FloatType>(v.getType()))
    return b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::UNE, v, zero);
  return b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, v, zero);
}

/// Element conversion as npudev.vcast defines it.
Value convert(OpBuilder &b, Location loc, Value v, Type to) {
  Type from = v.getType();
  if (from == to)
    return v;
  bool fromFloat = isa<FloatType>(from), toFloat = isa<FloatType>(to);
  if (fromFloat && toFloat)
    return from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth()
               ? b.create<arith::ExtFOp>(loc, to, v).getResult()
               : b.create<arith::TruncFOp>(loc, to, v).getResult();
  if (fromFloat)
    return b.create<arith::FPToSIOp>(loc, to, v);
  bool isBool = from.getIntOrFloatBitWidth() == 1;
  if (toFloat)
    return isBool ? b.create<arith::UIToFPOp>(loc, to, v).getResult()
                  : b.create<arith::SIToFPOp>(loc, to, v).getResult();
  if (from.getIntOrFloatBitWidth() > to.getIntOrFloatBitWidth())
    return b.create<arith::TruncIOp>(loc, to, v);
  return isBool ? b.create<arith::ExtUIOp>(loc, to, v).getResult()
                : b.create<arith::ExtSIOp>(loc, to, v).getResult();
}

//===----------------------------------------------------------------------===//
// Loop builders
//===----------------------------------------------------------------------===//

Type elementTypeOf(Value memref) {
  return cast<MemRefType>(memref.getType()).getElementType();
}

/// A loop nest over dimensions [0, rank - drop) of `memref`.
void buildLoopsOver(OpBuilder &b, Location loc, Value memref,
                    function_ref<void(OpBuilder &, Location, ValueRange)> body,
                    unsigned drop = 0) {
  int64_t rank = cast<MemRefType>(memref.getType()).getRank() - drop;
  SmallVector<Value> lbs, ubs, steps;
  for (int64_t d = 0; d < rank; ++d) {
    lbs.push_back(indexConst(b, loc, 0));
    ubs.push_back(b.create<memref::DimOp>(loc, memref, d));
    steps.push_back(indexConst(b, loc, 1));
  }
  scf::buildLoopNest(b, loc, lbs, ubs, steps, body);
}

/// out[i] = compute(in0[i], in1[i], ...) over the shape of `out`.
void buildElementwise(
    PatternRewriter &rewriter, Operation *op, ValueRange inputs, Value out,
    function_ref<Value(OpBuilder &, Location, ArrayRef<Value>)> compute) {
  Location loc = op->getLoc();
  buildLoopsOver(
      rewriter, loc, out, [&](OpBuilder &b, Location l, ValueRange ivs) {
        SmallVector<Value> loaded;
        for (Value in : inputs)
          loaded.push_back(b.create<memref::LoadOp>(l, in, ivs));
        b.create<memref::StoreOp>(l, compute(b, l, loaded), out, ivs);
      });
  rewriter.eraseOp(op);
}

/// Loops over the innermost rows of `input` with an accumulator; calls
/// `step(acc, x, outer ivs, inner iv)` per element and returns the new acc.
/// `finish(acc, outer ivs)` runs after each row.
void buildRowScan(
    OpBuilder &b, Location loc, Value input, Value init,
    function_ref<Value(OpBuilder &, Location, Value, Value, ValueRange, Value)>
        step,
    function_ref<void(OpBuilder &, Location, Value, ValueRange)> finish) {
  auto type = cast<MemRefType>(input.getType());
  buildLoopsOver(
      b, loc, input,
      [&](OpBuilder &ob, Location l, ValueRange outer) {
        Value length = ob.create<memref::DimOp>(l, input, type.getRank() - 1);
        auto loop = ob.create<scf::ForOp>(
            l, indexConst(ob, l, 0), length, indexConst(ob, l, 1),
            ValueRange{init},
            [&](OpBuilder &ib, Location il, Value k, ValueRange acc) {
              SmallVector<Value> idx(outer.begin(), outer.end());
              idx.push_back(k);
              Value x = ib.create<memref::LoadOp>(il, input, idx);
              ib.create<scf::YieldOp>(il,
                                      step(ib, il, acc.front(), x, outer, k));
            });
        finish(ob, l, loop.getResult(0), outer);
      },
      /*drop=*/1);
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

struct LowerLaunch : OpRewritePattern<LaunchOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LaunchOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value tasks = indexConst(rewriter, loc, op.getTasks());
    auto parallel = rewriter.create<scf::ParallelOp>(
        loc, ValueRange{indexConst(rewriter, loc, 0)}, ValueRange{tasks},
        ValueRange{indexConst(rewriter, loc, 1)});
    Block &body = op.getBody().front();
    Value taskId = parallel.getInductionVars().front();
    body.walk([&](Operation *inner) {
      if (isa<TaskIdOp>(inner))
        inner->getResult(0).replaceAllUsesWith(taskId);
      else if (isa<TaskDimOp>(inner))
        inner->getResult(0).replaceAllUsesWith(tasks);
    });
    rewriter.eraseOp(body.getTerminator());
    rewriter.inlineBlockBefore(&body, parallel.getBody()->getTerminator());
    rewriter.eraseOp(op);
    return success();
  }
};

/// Copies complete at once in the JIT: there is nothing to wait for.
struct EraseWaitAll : OpRewritePattern<WaitAllOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(WaitAllOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.eraseOp(op);
    return success();
  }
};

template <typename TaskOp> struct EraseTaskQuery : OpRewritePattern<TaskOp> {
  using OpRewritePattern<TaskOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(TaskOp op,
                                PatternRewriter &rewriter) const override {
    if (!op->use_empty())
      return failure();
    rewriter.eraseOp(op);
    return success();
  }
};

struct LowerAlloc : OpRewritePattern<AllocOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AllocOp op,
                                PatternRewriter &rewriter) const override {
    auto buffer = rewriter.create<memref::AllocOp>(op.getLoc(), op.getType());
    // On-chip buffers die at the end of their block.
    rewriter.setInsertionPoint(op->getBlock()->getTerminator());
    rewriter.create<memref::DeallocOp>(op.getLoc(), buffer);
    rewriter.replaceOp(op, buffer);
    return success();
  }
};

/// Whether the innermost dimension of `type` has a static unit stride.
bool hasContiguousRows(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset;
  return succeeded(getStridesAndOffset(type, strides, offset)) &&
         !strides.empty() && strides.back() == 1;
}

/// A DMA as copies. Rows contiguous on both sides become an element loop
/// nest, which LLVM vectorizes or turns into memcpy (memref.copy of a
/// dynamically sized window would call the runtime's generic memrefCopy,
/// which copies one element per call); anything else is one memref.copy.
void buildDmaCopy(OpBuilder &b, Location loc, Value source, Value target) {
  auto src = cast<MemRefType>(source.getType());
  auto dst = cast<MemRefType>(target.getType());
  if (!hasContiguousRows(src) || !hasContiguousRows(dst)) {
    b.create<memref::CopyOp>(loc, source, target);
    return;
  }
  buildLoopsOver(
      b, loc, target, [&](OpBuilder &lb, Location l, ValueRange ivs) {
        lb.create<memref::StoreOp>(l, lb.create<memref::LoadOp>(l, source, ivs),
                                   target, ivs);
      });
}

struct LowerDma : OpRewritePattern<DmaOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DmaOp op,
                                PatternRewriter &rewriter) const override {
    buildDmaCopy(rewriter, op.getLoc(), op.getSource(), op.getTarget());
    rewriter.eraseOp(op);
    return success();
  }
};

/// An asynchronous copy completes at once; its waits have nothing to wait
/// for.
struct LowerDmaStart : OpRewritePattern<DmaStartOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DmaStartOp op,
                                PatternRewriter &rewriter) const override {
    for (Operation *user : llvm::make_early_inc_range(op->getUsers())) {
      if (!isa<WaitOp>(user))
        return rewriter.notifyMatchFailure(
            op, "token used by something other than npudev.wait");
      rewriter.eraseOp(user);
    }
    buildDmaCopy(rewriter, op.getLoc(), op.getSource(), op.getTarget());
    rewriter.eraseOp(op);
    return success();
  }
};

struct LowerVBinary : OpRewritePattern<VBinaryOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(VBinaryOp op,
                                PatternRewriter &rewriter) const override {
    buildElementwise(rewriter, op, {op.getLhs(), op.getRhs()}, op.getOut(),
                     [&](OpBuilder &b, Location l, ArrayRef<Value> v) {
                       return buildBinary(b, l, op.getKind(), v[0], v[1]);
                     });
    return success();
  }
};

struct LowerVBinaryScalar : OpRewritePattern<VBinaryScalarOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(VBinaryScalarOp op,
                                PatternRewriter &rewriter) const override {
    Value scalar = op.getScalar();
    buildElementwise(rewriter, op, {op.getInput()}, op.getOut(),
                     [&](OpBuilder &b, Location l, ArrayRef<Value> v) {
                       return buildBinary(b, l, op.getKind(), v[0], scalar);
                     });
    return success();
  }
};

struct LowerVUnary : OpRewritePattern<VUnaryOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(VUnaryOp op,
                                PatternRewriter &rewriter) const override {
    buildElementwise(rewriter, op, {op.getInput()}, op.getOut(),
                     [&](OpBuilder &b, Location l, ArrayRef<Value> v) {
                       return buildUnary(b, l, op.getKind(), v[0]);
                     });
    return success();
  }
};

struct LowerVCompare : OpRewritePattern<VCompareOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(VCompareOp op,
                                PatternRewriter &rewriter) const override {
    Type outType = elementTypeOf(op.getOut());
    buildElementwise(
        rewriter, op, {op.getLhs(), op.getRhs()}, op.getOut(),
        [&](OpBuilder &b, Location l, ArrayRef<Value> v) {
          return flagAs(b, l, buildCompare(b, l, op.getPredicate(), v[0], v[1]),
                        outType);
        });
    return success();
  }
};

struct LowerVCompareScalar : OpRewritePattern<VCompareScalarOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(VCompareScalarOp op,
                                PatternRewriter &rewriter) const override {
    Type outType = elementTypeOf(op.getOut());
    Value scalar = op.getScalar();
    buildElementwise(rewriter, op, {op.getInput()}, op.getOut(),
                     [&](OpBuilder &b, Location l, ArrayRef<Value> v) {
                       return flagAs(
                           b, l,
                           buildCompare(b, l, op.getPredicate(), v[0], scalar),
                           outType);
                     });
    return success();
  }
};

struct LowerVSelect : OpRewritePattern<VSelectOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(VSelectOp op,
                                PatternRewriter &rewriter) const override {
    buildElementwise(
        rewriter, op, {op.getMask(), op.getOnTrue(), op.getOnFalse()},
        op.getOut(), [&](OpBuilder &b, Location l, ArrayRef<Value> v) {
          return b.create<arith::SelectOp>(l, isNonZero(b, l, v[0]), v[1],
                                           v[2]);
        });
    return success();
  }
};

struct LowerVCast : OpRewritePattern<VCastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(VCastOp op,
                                PatternRewriter &rewriter) const override {
    Type to = elementTypeOf(op.getOut());
    buildElementwise(rewriter, op, {op.getInput()}, op.getOut(),
                     [&](OpBuilder &b, Location l, ArrayRef<Value> v) {
                       return convert(b, l, v[0], to);
                     });
    return success();
  }
};

struct LowerVFill : OpRewritePattern<VFillOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(VFillOp op,
                                PatternRewriter &rewriter) const override {
    Value value = op.getValue();
    buildElementwise(
        rewriter, op, {}, op.getOut(),
        [&](OpBuilder &, Location, ArrayRef<Value>) { return value; });
    return success();
  }
};

struct LowerVTranspose : OpRewritePattern<VTransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(VTransposeOp op,
                                PatternRewriter &rewriter) const override {
    buildLoopsOver(rewriter, op.getLoc(), op.getInput(),
                   [&](OpBuilder &b, Location l, ValueRange ivs) {
                     Value v = b.create<memref::LoadOp>(l, op.getInput(), ivs);
                     b.create<memref::StoreOp>(l, v, op.getOut(),
                                               ValueRange{ivs[1], ivs[0]});
                   });
    rewriter.eraseOp(op);
    return success();
  }
};

/// Gather (`gather` true) or scatter, element by element in the simulator's
/// row order: rows of the dense side, in index order.
void buildIndexedCopy(PatternRewriter &rewriter, Operation *op, Value rows,
                      Value indices, Value dense, bool gather) {
  buildLoopsOver(rewriter, op->getLoc(), dense,
                 [&](OpBuilder &b, Location l, ValueRange ivs) {
                   Value raw = b.create<memref::LoadOp>(l, indices, ivs[0]);
                   Value index =
                       b.create<arith::IndexCastOp>(l, b.getIndexType(), raw);
                   SmallVector<Value> rowIdx = {index};
                   rowIdx.append(ivs.begin() + 1, ivs.end());
                   if (gather) {
                     Value v = b.create<memref::LoadOp>(l, rows, rowIdx);
                     b.create<memref::StoreOp>(l, v, dense, ivs);
                   } else {
                     Value v = b.create<memref::LoadOp>(l, dense, ivs);
                     b.create<memref::StoreOp>(l, v, rows, rowIdx);
                   }
                 });
  rewriter.eraseOp(op);
}

struct LowerVGather : OpRewritePattern<VGatherOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(VGatherOp op,
                                PatternRewriter &rewriter) const override {
    buildIndexedCopy(rewriter, op, op.getSource(), op.getIndices(), op.getOut(),
                     /*gather=*/true);
    return success();
  }
};

struct LowerVScatter : OpRewritePattern<VScatterOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(VScatterOp op,
                                PatternRewriter &rewriter) const override {
    buildIndexedCopy(rewriter, op, op.getOut(), op.getIndices(), op.getSource(),
                     /*gather=*/false);
    return success();
  }
};

/// The identity of a reduction, in `type`.
Value reductionInit(OpBuilder &b, Location loc, ReduceKind kind, Type type) {
  if (kind == ReduceKind::sum)
    return zeroOf(b, loc, type);
  bool isMax = kind == ReduceKind::max;
  if (auto f = dyn_cast<FloatType>(type))
    return b.create<arith::ConstantOp>(
        loc, b.getFloatAttr(f, APFloat::getInf(f.getFloatSemantics(), isMax)));
  unsigned width = type.getIntOrFloatBitWidth();
  return intConst(b, loc, type,
                  isMax ? APInt::getSignedMinValue(width)
                        : APInt::getSignedMaxValue(width));
}

struct LowerVReduce : OpRewritePattern<VReduceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(VReduceOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type type = elementTypeOf(op.getInput());
    BinaryKind combine = op.getKind() == ReduceKind::sum   ? BinaryKind::add
                         : op.getKind() == ReduceKind::max ? BinaryKind::max
                                                           : BinaryKind::min;
    bool rankOne = cast<MemRefType>(op.getInput().getType()).getRank() == 1;
    buildRowScan(
        rewriter, loc, op.getInput(),
        reductionInit(rewriter, loc, op.getKind(), type),
        [&](OpBuilder &b, Location l, Value acc, Value x, ValueRange, Value) {
          return buildBinary(b, l, combine, acc, x);
        },
        [&](OpBuilder &b, Location l, Value acc, ValueRange outer) {
          SmallVector<Value> idx(outer.begin(), outer.end());
          if (rankOne)
            idx.push_back(indexConst(b, l, 0));
          b.create<memref::StoreOp>(l, acc, op.getOut(), idx);
        });
    rewriter.eraseOp(op);
    return success();
  }
};

struct LowerVCumsum : OpRewritePattern<VCumsumOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(VCumsumOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type type = elementTypeOf(op.getInput());
    buildRowScan(
        rewriter, loc, op.getInput(), zeroOf(rewriter, loc, type),
        [&](OpBuilder &b, Location l, Value acc, Value x, ValueRange outer,
            Value k) {
          Value sum = buildBinary(b, l, BinaryKind::add, acc, x);
          SmallVector<Value> idx(outer.begin(), outer.end());
          idx.push_back(k);
          b.create<memref::StoreOp>(l, sum, op.getOut(), idx);
          return sum;
        },
        [](OpBuilder &, Location, Value, ValueRange) {});
    rewriter.eraseOp(op);
    return success();
  }
};

struct LowerMatmul : OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    Value a = op.getA(), b = op.getB(), c = op.getC();
    Type accType = elementTypeOf(c);
    bool accumulate = op.getAccumulate();
    buildLoopsOver(
        rewriter, op.getLoc(), c,
        [&](OpBuilder &ob, Location l, ValueRange ij) {
          Value init = accumulate ? ob.create<memref::LoadOp>(l, c, ij)
                                  : zeroOf(ob, l, accType);
          Value depth = ob.create<memref::DimOp>(l, a, 1);
          auto loop = ob.create<scf::ForOp>(
              l, indexConst(ob, l, 0), depth, indexConst(ob, l, 1),
              ValueRange{init},
              [&](OpBuilder &ib, Location il, Value k, ValueRange acc) {
                Value x = convert(
                    ib, il,
                    ib.create<memref::LoadOp>(il, a, ValueRange{ij[0], k}),
                    accType);
                Value y = convert(
                    ib, il,
                    ib.create<memref::LoadOp>(il, b, ValueRange{k, ij[1]}),
                    accType);
                Value next =
                    isa<FloatType>(accType)
                        ? ib.create<math::FmaOp>(il, x, y, acc.front())
                              .getResult()
                        : buildBinary(
                              ib, il, BinaryKind::add, acc.front(),
                              buildBinary(ib, il, BinaryKind::mul, x, y));
                ib.create<scf::YieldOp>(il, next);
              });
          ob.create<memref::StoreOp>(l, loop.getResult(0), c, ij);
        });
    rewriter.eraseOp(op);
    return success();
  }
};

/// A memref of `rank` and `element` with a fully dynamic strided layout:
/// what the runtime's functions take.
MemRefType getRuntimeMemRefType(MLIRContext *ctx, unsigned rank, Type element) {
  SmallVector<int64_t> dynamic(rank, ShapedType::kDynamic);
  return MemRefType::get(
      dynamic, element,
      StridedLayoutAttr::get(ctx, ShapedType::kDynamic, dynamic));
}

/// The runtime function `name` with a C interface, declared on first use.
func::FuncOp getRuntimeFunction(PatternRewriter &rewriter, Operation *op,
                                StringRef name, TypeRange arguments,
                                TypeRange results) {
  auto module = op->getParentOfType<ModuleOp>();
  if (auto existing = module.lookupSymbol<func::FuncOp>(name))
    return existing;
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(module.getBody());
  auto func = rewriter.create<func::FuncOp>(
      op->getLoc(), name, rewriter.getFunctionType(arguments, results));
  func.setPrivate();
  func->setAttr("llvm.emit_c_interface", rewriter.getUnitAttr());
  return func;
}

/// The runtime's type suffix of `element` ("f32", "i32", ...), if the
/// runtime sorts it.
std::optional<std::string> getSortSuffix(Type element) {
  std::string suffix;
  llvm::raw_string_ostream(suffix) << element;
  if (!llvm::is_contained({"f32", "f64", "i8", "i16", "i32", "i64"}, suffix))
    return std::nullopt;
  return suffix;
}

/// Calls `name`(in, out) of the runtime on rank-1 buffers.
FailureOr<func::CallOp> callRowFunction(PatternRewriter &rewriter,
                                        Operation *op, StringRef what, Value in,
                                        Value out, bool count) {
  Type element = elementTypeOf(in);
  std::optional<std::string> suffix = getSortSuffix(element);
  if (!suffix)
    return rewriter.notifyMatchFailure(op, "the runtime does not sort this "
                                           "element type");
  Type row = getRuntimeMemRefType(rewriter.getContext(), 1, element);
  SmallVector<Type> results;
  if (count)
    results.push_back(rewriter.getIndexType());
  func::FuncOp callee =
      getRuntimeFunction(rewriter, op, ("npu_rt_" + what + "_" + *suffix).str(),
                         {row, row}, results);
  Location loc = op->getLoc();
  return rewriter.create<func::CallOp>(
      loc, callee,
      ValueRange{rewriter.create<memref::CastOp>(loc, row, in),
                 rewriter.create<memref::CastOp>(loc, row, out)});
}

struct LowerVSort : OpRewritePattern<VSortOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(VSortOp op,
                                PatternRewriter &rewriter) const override {
    if (cast<MemRefType>(op.getInput().getType()).getRank() != 1)
      return rewriter.notifyMatchFailure(op, "the JIT sorts rank-1 buffers");
    if (failed(callRowFunction(rewriter, op, "sort", op.getInput(), op.getOut(),
                               /*count=*/false)))
      return failure();
    rewriter.eraseOp(op);
    return success();
  }
};

struct LowerVUnique : OpRewritePattern<VUniqueOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(VUniqueOp op,
                                PatternRewriter &rewriter) const override {
    FailureOr<func::CallOp> call = callRowFunction(
        rewriter, op, "unique", op.getInput(), op.getOut(), /*count=*/true);
    if (failed(call))
      return failure();
    rewriter.replaceOp(op, call->getResults());
    return success();
  }
};

/// f32 matmuls call the runtime's micro-kernel (same bits, vectorized);
/// benefit 2 so it is tried before the generic loop nest.
struct LowerMatmulF32ToKernel : OpRewritePattern<MatmulOp> {
  LowerMatmulF32ToKernel(MLIRContext *ctx)
      : OpRewritePattern<MatmulOp>(ctx, /*benefit=*/2) {}
  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    Type f32 = rewriter.getF32Type();
    if (elementTypeOf(op.getA()) != f32 || elementTypeOf(op.getC()) != f32)
      return rewriter.notifyMatchFailure(op, "not an f32 matmul");
    Type matrix = getRuntimeMemRefType(rewriter.getContext(), 2, f32);
    func::FuncOp kernel =
        getRuntimeFunction(rewriter, op, "npu_rt_matmul_f32",
                           {matrix, matrix, matrix, rewriter.getI1Type()}, {});
    Location loc = op.getLoc();
    auto cast = [&](Value v) -> Value {
      return rewriter.create<memref::CastOp>(loc, matrix, v);
    };
    Value accumulate = rewriter.create<arith::ConstantOp>(
        loc, rewriter.getBoolAttr(op.getAccumulate()));
    rewriter.create<func::CallOp>(loc, kernel,
                                  ValueRange{cast(op.getA()), cast(op.getB()),
                                             cast(op.getC()), accumulate});
    rewriter.eraseOp(op);
    return success();
  }
};

struct LowerDeviceToLoopsPass
    : public npu::impl::LowerDeviceToLoopsBase<LowerDeviceToLoopsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    RewritePatternSet patterns(&getContext());
    patterns.add<LowerLaunch, EraseWaitAll, EraseTaskQuery<TaskIdOp>,
                 EraseTaskQuery<TaskDimOp>, LowerAlloc, LowerDma, LowerDmaStart,
                 LowerVBinary, LowerVBinaryScalar, LowerVUnary, LowerVCompare,
                 LowerVCompareScalar, LowerVSelect, LowerVCast, LowerVFill,
                 LowerVTranspose, LowerVGather, LowerVScatter, LowerVReduce,
                 LowerVCumsum, LowerMatmul, LowerMatmulF32ToKernel, LowerVSort,
                 LowerVUnique>(&getContext());
    if (failed(applyPatternsAndFoldGreedily(module, std::move(patterns))))
      return signalPassFailure();
    WalkResult left = module.walk([](Operation *op) {
      if (!isa<NPUDevDialect>(op->getDialect()))
        return WalkResult::advance();
      op->emitOpError("cannot be lowered for the JIT");
      return WalkResult::interrupt();
    });
    if (left.wasInterrupted())
      return signalPassFailure();
    stripMemorySpaces(module);
  }

  /// The LLVM lowering maps memory spaces to address spaces; the host has
  /// one, so every npudev space goes.
  static void stripMemorySpaces(ModuleOp module) {
    AttrTypeReplacer replacer;
    replacer.addReplacement([](MemRefType type) -> std::optional<Type> {
      if (!isa_and_nonnull<MemorySpaceAttr>(type.getMemorySpace()))
        return std::nullopt;
      return MemRefType::get(type.getShape(), type.getElementType(),
                             type.getLayout());
    });
    replacer.recursivelyReplaceElementsIn(module, /*replaceAttrs=*/true,
                                          /*replaceLocs=*/false,
                                          /*replaceTypes=*/true);
  }
};
} // namespace
