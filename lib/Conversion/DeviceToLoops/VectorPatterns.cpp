//===- VectorPatterns.cpp - vector-unit ops to loops ----------------------===//
//
// Each vector op becomes a loop nest over its buffers computing in the
// element type with the simulator's semantics (lib/Simulator/VectorOps.cpp):
// elementwise ops one load-compute-store per element, reductions and prefix
// sums a sequential inner loop in index order, gather and scatter row copies.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"
#include "npu/Dialect/NPUDev/Semantics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace npu::dev;
using namespace npu::dev::loops;

namespace {

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

struct LowerVBinaryBroadcast : OpRewritePattern<VBinaryBroadcastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(VBinaryBroadcastOp op,
                                PatternRewriter &rewriter) const override {
    unsigned dimension = op.getDimension();
    buildLoopsOver(
        rewriter, op.getLoc(), op.getOut(),
        [&](OpBuilder &b, Location l, ValueRange ivs) {
          Value x = b.create<memref::LoadOp>(l, op.getLhs(), ivs);
          Value y = b.create<memref::LoadOp>(l, op.getRhs(),
                                             ValueRange{ivs[dimension]});
          b.create<memref::StoreOp>(l, buildBinary(b, l, op.getKind(), x, y),
                                    op.getOut(), ivs);
        });
    rewriter.eraseOp(op);
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
                       return convertElement(b, l, v[0], to);
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

struct LowerIota : OpRewritePattern<IotaOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(IotaOp op,
                                PatternRewriter &rewriter) const override {
    Type element = elementTypeOf(op.getOut());
    unsigned dimension = op.getDimension();
    buildLoopsOver(
        rewriter, op.getLoc(), op.getOut(),
        [&](OpBuilder &b, Location l, ValueRange ivs) {
          Value index =
              b.create<arith::AddIOp>(l, op.getStart(), ivs[dimension]);
          Value value = index;
          if (isa<FloatType>(element))
            value = b.create<arith::SIToFPOp>(
                l, element,
                b.create<arith::IndexCastOp>(l, b.getI64Type(), index));
          else if (!element.isIndex())
            value = b.create<arith::IndexCastOp>(l, element, index);
          b.create<memref::StoreOp>(l, value, op.getOut(), ivs);
        });
    rewriter.eraseOp(op);
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

struct LowerVGather : OpRewritePattern<VGatherOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(VGatherOp op,
                                PatternRewriter &rewriter) const override {
    buildIndexedCopy(rewriter, op->getLoc(), op.getSource(), op.getIndices(),
                     op.getOut(), IndexedCopy::Gather);
    rewriter.eraseOp(op);
    return success();
  }
};

struct LowerVScatter : OpRewritePattern<VScatterOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(VScatterOp op,
                                PatternRewriter &rewriter) const override {
    buildIndexedCopy(rewriter, op->getLoc(), op.getOut(), op.getIndices(),
                     op.getSource(), IndexedCopy::Scatter);
    rewriter.eraseOp(op);
    return success();
  }
};

struct LowerVReduce : OpRewritePattern<VReduceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(VReduceOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type type = elementTypeOf(op.getInput());
    Type accType = getAccumulatorType(type);
    BinaryKind combine = getReductionCombiner(op.getKind());
    bool rankOne = cast<MemRefType>(op.getInput().getType()).getRank() == 1;
    buildRowReduce(
        rewriter, loc, op.getInput(),
        rewriter.create<arith::ConstantOp>(
            loc, getReductionIdentity(op.getKind(), accType)),
        [&](OpBuilder &b, Location l, Value acc, Value x) {
          return buildBinary(b, l, combine, acc,
                             convertElement(b, l, x, accType));
        },
        [&](OpBuilder &b, Location l, Value acc, ValueRange outer) {
          SmallVector<Value> idx(outer.begin(), outer.end());
          if (rankOne)
            idx.push_back(indexConst(b, l, 0));
          b.create<memref::StoreOp>(l, convertElement(b, l, acc, type),
                                    op.getOut(), idx);
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
    Type accType = getAccumulatorType(type);
    buildRowScan(
        rewriter, loc, op.getInput(), zeroOf(rewriter, loc, accType),
        [&](OpBuilder &b, Location l, Value acc, Value x, ValueRange outer,
            Value k) {
          Value sum = buildBinary(b, l, BinaryKind::add, acc,
                                  convertElement(b, l, x, accType));
          SmallVector<Value> idx(outer.begin(), outer.end());
          idx.push_back(k);
          b.create<memref::StoreOp>(l, convertElement(b, l, sum, type),
                                    op.getOut(), idx);
          return sum;
        },
        [](OpBuilder &, Location, Value, ValueRange) {});
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void npu::dev::populateVectorLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerVBinary, LowerVBinaryBroadcast, LowerVBinaryScalar,
               LowerVUnary, LowerVCompare, LowerVCompareScalar, LowerVSelect,
               LowerVCast, LowerVFill, LowerIota, LowerVTranspose, LowerVGather,
               LowerVScatter, LowerVReduce, LowerVCumsum>(
      patterns.getContext());
}
