//===- SortPatterns.cpp - vsort and vunique to runtime calls --------------===//
//
// Sorting has no loop form worth generating: npudev.vsort and
// npudev.vunique call the runtime (npu_rt_sort_<type>,
// npu_rt_unique_<type>), which orders values as the simulator does.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "npu/Runtime/RuntimeABI.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace npu::dev;
using namespace npu::dev::loops;
using namespace npu;

namespace {

/// The runtime's type suffix of `element` ("f32", "i32", ...), if the
/// runtime sorts it.
std::optional<StringRef> getSortSuffix(Type element) {
  std::optional<ElementKind> kind = getElementKind(element);
  return kind ? abi::getSortSuffix(*kind) : std::nullopt;
}

/// Calls `npu_rt_<what>_<suffix per group of buffers>` of the runtime on
/// the rank-1 `buffers`; with `count`, it returns an index.
FailureOr<func::CallOp> callRowFunction(PatternRewriter &rewriter,
                                        Operation *op, StringRef what,
                                        ValueRange buffers, bool count,
                                        unsigned group = 2) {
  // Check every buffer before creating anything: a pattern that fails
  // must leave the IR as it was.
  for (Value buffer : buffers)
    if (!getSortSuffix(elementTypeOf(buffer)))
      return rewriter.notifyMatchFailure(op, [&](Diagnostic &diag) {
        diag << "the runtime does not sort " << elementTypeOf(buffer);
      });
  SmallVector<StringRef> suffixes;
  SmallVector<Type> rows;
  SmallVector<Value> operands;
  Location loc = op->getLoc();
  for (Value buffer : buffers) {
    Type element = elementTypeOf(buffer);
    // Each group of `group` buffers (keys and their output, then values
    // and theirs) shares one suffix.
    if (rows.size() % group == 0)
      suffixes.push_back(*getSortSuffix(element));
    rows.push_back(getRuntimeMemRefType(rewriter.getContext(), 1, element));
    operands.push_back(
        rewriter.create<memref::CastOp>(loc, rows.back(), buffer));
  }
  SmallVector<Type> results;
  if (count)
    results.push_back(rewriter.getIndexType());
  func::FuncOp callee = getRuntimeFunction(
      rewriter, op, abi::getFunctionName(what, suffixes), rows, results);
  return rewriter.create<func::CallOp>(loc, callee, operands);
}

/// Row `outer` (all but the innermost index) of `buffer` as a rank-1 view.
Value viewRow(OpBuilder &b, Location loc, Value buffer, ValueRange outer) {
  auto type = cast<MemRefType>(buffer.getType());
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> offsets(outer.begin(), outer.end());
  offsets.push_back(b.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes(rank - 1, b.getIndexAttr(1));
  sizes.push_back(b.create<memref::DimOp>(loc, buffer, rank - 1).getResult());
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
  auto rowType = memref::SubViewOp::inferRankReducedResultType(
      {ShapedType::kDynamic}, type, offsets, sizes, strides);
  return b.create<memref::SubViewOp>(loc, cast<MemRefType>(rowType), buffer,
                                     offsets, sizes, strides);
}

struct LowerVSort : OpRewritePattern<VSortOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(VSortOp op,
                                PatternRewriter &rewriter) const override {
    if (cast<MemRefType>(op.getInput().getType()).getRank() != 1)
      return sortEachRow(op, rewriter);
    SmallVector<Value> buffers = {op.getInput(), op.getOut()};
    if (op.getValues())
      buffers.append({op.getValues(), op.getOutValues()});
    if (failed(callRowFunction(rewriter, op,
                               op.getValues() ? "sort_kv" : "sort", buffers,
                               /*count=*/false)))
      return failure();
    rewriter.eraseOp(op);
    return success();
  }

  /// The simulator sorts each innermost row of a higher-rank buffer: one
  /// runtime call per row (the verifier keeps `values` rank-1).
  static LogicalResult sortEachRow(VSortOp op, PatternRewriter &rewriter) {
    Type element = elementTypeOf(op.getInput());
    if (!getSortSuffix(element))
      return rewriter.notifyMatchFailure(op, [&](Diagnostic &diag) {
        diag << "the runtime does not sort " << element;
      });
    buildLoopsOver(
        rewriter, op.getLoc(), op.getInput(),
        [&](OpBuilder &b, Location loc, ValueRange outer) {
          OpBuilder::InsertionGuard guard(rewriter);
          rewriter.setInsertionPoint(b.getInsertionBlock(),
                                     b.getInsertionPoint());
          Value rows[] = {viewRow(rewriter, loc, op.getInput(), outer),
                          viewRow(rewriter, loc, op.getOut(), outer)};
          (void)callRowFunction(rewriter, op, "sort", rows, /*count=*/false);
        },
        /*drop=*/1);
    rewriter.eraseOp(op);
    return success();
  }
};

struct LowerVMerge : OpRewritePattern<VMergeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(VMergeOp op,
                                PatternRewriter &rewriter) const override {
    SmallVector<Value> buffers = {op.getA(), op.getB(), op.getOut()};
    bool pairs = !!op.getAValues();
    if (pairs)
      buffers.append({op.getAValues(), op.getBValues(), op.getOutValues()});
    if (failed(callRowFunction(rewriter, op, pairs ? "merge_kv" : "merge",
                               buffers, /*count=*/false, /*group=*/3)))
      return failure();
    rewriter.eraseOp(op);
    return success();
  }
};

struct LowerVUnique : OpRewritePattern<VUniqueOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(VUniqueOp op,
                                PatternRewriter &rewriter) const override {
    FailureOr<func::CallOp> call =
        callRowFunction(rewriter, op, "unique", {op.getInput(), op.getOut()},
                        /*count=*/true);
    if (failed(call))
      return failure();
    rewriter.replaceOp(op, call->getResults());
    return success();
  }
};

} // namespace

void npu::dev::populateSortLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerVSort, LowerVMerge, LowerVUnique>(patterns.getContext());
}
