//===- SortPatterns.cpp - vsort and vunique to runtime calls
//----------------===//
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
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace npu::dev;
using namespace npu::dev::loops;

namespace {

/// The runtime's type suffix of `element` ("f32", "i32", ...), if the
/// runtime sorts it.
std::optional<std::string> getSortSuffix(Type element) {
  std::string suffix;
  llvm::raw_string_ostream(suffix) << element;
  static const char *const sorted[] = {
#define NPU_RUNTIME_SORT_TYPE(SUFFIX, T) #SUFFIX,
#include "npu/Runtime/SortTypes.def"
  };
  if (!llvm::is_contained(sorted, suffix))
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

} // namespace

void npu::dev::populateSortLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerVSort, LowerVUnique>(patterns.getContext());
}
