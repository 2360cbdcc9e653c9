//===- MatmulPatterns.cpp - cube-unit matmul to loops ---------------------===//
//
// npudev.matmul becomes an (i, j, k) nest of fused multiply-adds in f32 (or
// multiply-adds in i32), each c[i, j] accumulating in k order; matmuls of
// f32, f16 and bf16 inputs call the runtime's vectorized micro-kernel
// instead, which keeps that order and so the bits.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"
#include "npu/Runtime/RuntimeABI.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace npu::dev;
using namespace npu::dev::loops;
using namespace npu;

namespace {

/// `a` and `b` as [M, K] and [K, N]: a transposed one through a
/// memref.transpose view (the simulator's transposed view).
std::pair<Value, Value> logicalOperands(OpBuilder &builder, MatmulOp op,
                                        Value a, Value b) {
  auto view = [&](Value v, bool transpose) -> Value {
    if (!transpose)
      return v;
    AffineMap swap = AffineMap::getPermutationMap(ArrayRef<unsigned>{1, 0},
                                                  builder.getContext());
    return builder.create<memref::TransposeOp>(op.getLoc(), v,
                                               AffineMapAttr::get(swap));
  };
  return {view(a, op.getTransposeA()), view(b, op.getTransposeB())};
}

struct LowerMatmul : OpRewritePattern<MatmulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    Value a, b;
    std::tie(a, b) = logicalOperands(rewriter, op, op.getA(), op.getB());
    Value c = op.getC();
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
                Value x = convertElement(
                    ib, il,
                    ib.create<memref::LoadOp>(il, a, ValueRange{ij[0], k}),
                    accType);
                Value y = convertElement(
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

/// Matmuls of f32, f16 or bf16 inputs call the runtime's micro-kernel for
/// their input type (same bits, vectorized, inputs widened while packed);
/// benefit 2 so it is tried before the generic loop nest.
struct LowerFloatMatmulToKernel : OpRewritePattern<MatmulOp> {
  LowerFloatMatmulToKernel(MLIRContext *ctx)
      : OpRewritePattern<MatmulOp>(ctx, /*benefit=*/2) {}
  LogicalResult matchAndRewrite(MatmulOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(buildMatmulKernelCall(rewriter, op, op.getA(), op.getB())))
      return rewriter.notifyMatchFailure(op, "no kernel for these inputs");
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

/// The runtime kernel's name suffix for inputs of `type`, if it has one.
static std::optional<StringRef> getMatmulKernelSuffix(Type input) {
  std::optional<ElementKind> kind = getElementKind(input);
  return kind ? abi::getMatmulSuffix(*kind) : std::nullopt;
}

bool npu::dev::loops::hasMatmulKernel(MatmulOp op) {
  return getMatmulKernelSuffix(elementTypeOf(op.getA())).has_value();
}

LogicalResult npu::dev::loops::buildMatmulKernelCall(OpBuilder &builder,
                                                     MatmulOp op, Value a,
                                                     Value b) {
  Type input = elementTypeOf(a);
  std::optional<StringRef> suffix = getMatmulKernelSuffix(input);
  if (!suffix)
    return failure();
  MLIRContext *ctx = builder.getContext();
  Type inputMatrix = getRuntimeMemRefType(ctx, 2, input);
  Type accMatrix = getRuntimeMemRefType(ctx, 2, builder.getF32Type());
  func::FuncOp kernel = getRuntimeFunction(
      builder, op, abi::getFunctionName("matmul", {*suffix}),
      {inputMatrix, inputMatrix, accMatrix, builder.getI1Type()}, {});
  Location loc = op.getLoc();
  auto cast = [&](Value v, Type to) -> Value {
    return builder.create<memref::CastOp>(loc, to, v);
  };
  Value accumulate = builder.create<arith::ConstantOp>(
      loc, builder.getBoolAttr(op.getAccumulate()));
  std::tie(a, b) = logicalOperands(builder, op, a, b);
  builder.create<func::CallOp>(
      loc, kernel,
      ValueRange{cast(a, inputMatrix), cast(b, inputMatrix),
                 cast(op.getC(), accMatrix), accumulate});
  return success();
}

void npu::dev::populateMatmulLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerMatmul, LowerFloatMatmulToKernel>(patterns.getContext());
}
