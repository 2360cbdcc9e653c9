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

/// Calls `npu_rt_<what>_<suffix per group of buffers>` of the runtime on
/// the rank-1 `buffers`; with `count`, it returns an index.
FailureOr<func::CallOp> callRowFunction(PatternRewriter &rewriter,
                                        Operation *op, StringRef what,
                                        ValueRange buffers, bool count,
                                        unsigned group = 2) {
  std::string name = ("npu_rt_" + what).str();
  SmallVector<Type> rows;
  SmallVector<Value> operands;
  Location loc = op->getLoc();
  for (Value buffer : buffers) {
    Type element = elementTypeOf(buffer);
    std::optional<std::string> suffix = getSortSuffix(element);
    if (!suffix)
      return rewriter.notifyMatchFailure(op, "the runtime does not sort this "
                                             "element type");
    // Each group of `group` buffers (keys and their output, then values
    // and theirs) shares one suffix.
    if (rows.size() % group == 0)
      name += "_" + *suffix;
    rows.push_back(getRuntimeMemRefType(rewriter.getContext(), 1, element));
    operands.push_back(
        rewriter.create<memref::CastOp>(loc, rows.back(), buffer));
  }
  SmallVector<Type> results;
  if (count)
    results.push_back(rewriter.getIndexType());
  func::FuncOp callee = getRuntimeFunction(rewriter, op, name, rows, results);
  return rewriter.create<func::CallOp>(loc, callee, operands);
}

struct LowerVSort : OpRewritePattern<VSortOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(VSortOp op,
                                PatternRewriter &rewriter) const override {
    if (cast<MemRefType>(op.getInput().getType()).getRank() != 1)
      return rewriter.notifyMatchFailure(op, "the JIT sorts rank-1 buffers");
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
