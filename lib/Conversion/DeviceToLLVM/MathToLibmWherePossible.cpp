//===- MathToLibmWherePossible.cpp - libm calls for what libm has ---------===//
//
// Upstream's math-to-libm patterns, applied greedily: a math op libm has a
// function for becomes a call of it (the function the simulator calls);
// the rest stay for math-to-llvm. math.fma is one of the rest: it is exact,
// so LLVM's fma (one instruction, which vectorizes) gives libm's bits, and
// the device's exp is made of it (include/npu/Support/DeviceExp.h). O(ops).
//
//===----------------------------------------------------------------------===//

#include "npu/Conversion/Passes.h"

#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace npu {
#define GEN_PASS_DEF_MATHTOLIBMWHEREPOSSIBLE
#include "npu/Conversion/Passes.h.inc"
} // namespace npu

using namespace mlir;

namespace {

struct MathToLibmWherePossiblePass
    : npu::impl::MathToLibmWherePossibleBase<MathToLibmWherePossiblePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateMathToLibmConversionPatterns(patterns);
    OperationName fma(math::FmaOp::getOperationName(), &getContext());
    llvm::erase_if(patterns.getNativePatterns(),
                   [&](const std::unique_ptr<RewritePattern> &pattern) {
                     return pattern->getRootKind() == fma;
                   });
    if (failed(
            applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
