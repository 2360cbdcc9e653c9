//===- DmaPatterns.cpp - on-chip memory and DMA to loops ------------------===//
//
// On-chip buffers become heap memref.allocs freed at the end of their block;
// a DMA becomes a copy (an element loop nest when rows are contiguous on
// both sides, which LLVM vectorizes; memref.copy otherwise). Copies complete
// at once on the host, so waits have nothing to wait for.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

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

/// Copies (and async bodies) complete at once in the JIT: there is nothing
/// to wait for. Once the waits are gone, the scf canonicalizations drop the
/// loop-carried tokens, and the token producers are left without users.
template <typename WaitOpT> struct EraseWait : OpRewritePattern<WaitOpT> {
  using OpRewritePattern<WaitOpT>::OpRewritePattern;
  LogicalResult matchAndRewrite(WaitOpT op,
                                PatternRewriter &rewriter) const override {
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

/// A DMA as copies. Rows contiguous on both sides become element loops
/// (buildElementwiseLoops), which LLVM vectorizes or turns into memcpy
/// (memref.copy of a dynamically sized window would call the runtime's generic
/// memrefCopy, which copies one element per call); anything else is one
/// memref.copy.
void buildDmaCopy(OpBuilder &b, Location loc, Value source, Value target) {
  auto src = cast<MemRefType>(source.getType());
  auto dst = cast<MemRefType>(target.getType());
  if (!hasContiguousRows(src) || !hasContiguousRows(dst)) {
    b.create<memref::CopyOp>(loc, source, target);
    return;
  }
  buildElementwiseLoops(
      b, loc, source, target,
      [](OpBuilder &, Location, ArrayRef<Value> v) { return v.front(); });
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

/// An asynchronous copy completes at once: a copy, once its token is no
/// longer used (EraseWait).
struct LowerDmaStart : OpRewritePattern<DmaStartOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DmaStartOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(requireUnusedToken(op, rewriter)))
      return failure();
    buildDmaCopy(rewriter, op.getLoc(), op.getSource(), op.getTarget());
    rewriter.eraseOp(op);
    return success();
  }
};

struct LowerDmaGather : OpRewritePattern<DmaGatherOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DmaGatherOp op,
                                PatternRewriter &rewriter) const override {
    buildIndexedCopy(rewriter, op.getLoc(), op.getSource(), op.getIndices(),
                     op.getTarget(), IndexedCopy::Gather,
                     /*negativeSkips=*/true);
    rewriter.eraseOp(op);
    return success();
  }
};

struct LowerDmaScatter : OpRewritePattern<DmaScatterOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(DmaScatterOp op,
                                PatternRewriter &rewriter) const override {
    buildIndexedCopy(
        rewriter, op.getLoc(), op.getTarget(), op.getIndices(), op.getSource(),
        op.getAdd() ? IndexedCopy::ScatterAdd : IndexedCopy::Scatter,
        /*negativeSkips=*/true);
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void npu::dev::populateDmaLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<EraseWait<WaitOp>, EraseWait<WaitAllOp>, LowerAlloc, LowerDma,
               LowerDmaStart, LowerDmaGather, LowerDmaScatter>(
      patterns.getContext());
}
