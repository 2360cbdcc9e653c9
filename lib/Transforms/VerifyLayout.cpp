//===- VerifyLayout.cpp - report layout conflicts -------------------------===//
//
// One walk over each function of the module: every tensor with a layout must
// carry a #npu.layout, fixed-mode ops must produce their mode, and every
// operand must be stored as its consumer needs it. O(ops + uses).
//
//===----------------------------------------------------------------------===//

#include "npu/Dialect/NPU/NPUInterfaces.h"
#include "npu/Transforms/LayoutAlign.h"
#include "npu/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"

namespace npu {
#define GEN_PASS_DEF_VERIFYLAYOUT
#include "npu/Transforms/Passes.h.inc"
} // namespace npu

using namespace mlir;
using namespace npu;
using namespace npu::graph;

/// Describes who produces `value`, for notes.
static void noteProducer(InFlightDiagnostic &diag, Value value) {
  if (Operation *producer = value.getDefiningOp()) {
    diag.attachNote(producer->getLoc())
        << "stored by '" << producer->getName() << "' here";
    return;
  }
  auto arg = cast<BlockArgument>(value);
  diag.attachNote(arg.getLoc())
      << "graph input #" << arg.getArgNumber() << " declared here";
}

namespace {
class LayoutChecker {
public:
  explicit LayoutChecker(AlignMode graphIOMode) : graphIOMode(graphIOMode) {}

  bool check(func::FuncOp func) {
    for (BlockArgument arg : func.getArguments())
      if (isLayoutRelevant(arg.getType()) && !getLayoutMode(arg.getType()))
        report(func.emitOpError("graph input #")
               << arg.getArgNumber() << " has no #npu.layout");
    func.walk([&](Operation *op) {
      if (op != func)
        checkOp(op);
    });
    return ok;
  }

private:
  void report(InFlightDiagnostic &&diag) {
    ok = false;
    (void)diag;
  }

  /// The mode `op` runs in: its fixed mode, or the layout of its result.
  std::optional<AlignMode> getRunMode(Operation *op) {
    AlignMode mode = getIntrinsicAlignMode(op, graphIOMode);
    if (mode != AlignMode::BOTH)
      return mode;
    for (Type type : op->getResultTypes())
      if (isLayoutRelevant(type))
        return getLayoutMode(type);
    return AlignMode::NALIGN;
  }

  void checkOp(Operation *op) {
    std::optional<AlignMode> mode = getRunMode(op);
    if (!mode || *mode == AlignMode::UNKNOWN) {
      if (llvm::any_of(op->getOperandTypes(), isLayoutRelevant) ||
          llvm::any_of(op->getResultTypes(), isLayoutRelevant))
        report(op->emitOpError("has tensors without a decided layout; run "
                               "npu-layout-align first"));
      return;
    }
    for (OpResult result : op->getResults()) {
      if (!isLayoutRelevant(result.getType()))
        continue;
      std::optional<AlignMode> stored = getLayoutMode(result.getType());
      if (stored != *mode)
        report(op->emitOpError("result #")
               << result.getResultNumber() << " must be stored "
               << stringifyAlignMode(*mode) << ", its type is "
               << result.getType());
    }
    for (OpOperand &use : op->getOpOperands()) {
      Value value = use.get();
      if (!isLayoutRelevant(value.getType()))
        continue;
      AlignMode needed = getRequiredLayout(use, *mode, graphIOMode);
      std::optional<AlignMode> stored = getLayoutMode(value.getType());
      if (stored == needed)
        continue;
      InFlightDiagnostic diag = op->emitOpError("operand #")
                                << use.getOperandNumber() << " is stored "
                                << (stored ? stringifyAlignMode(*stored)
                                           : StringRef("without a layout"))
                                << " but the op needs it "
                                << stringifyAlignMode(needed);
      noteProducer(diag, value);
      report(std::move(diag));
    }
  }

  AlignMode graphIOMode;
  bool ok = true;
};

struct VerifyLayoutPass : public npu::impl::VerifyLayoutBase<VerifyLayoutPass> {
  using VerifyLayoutBase::VerifyLayoutBase;

  void runOnOperation() override {
    bool ok = true;
    for (auto func : getOperation().getOps<func::FuncOp>())
      ok &= succeeded(verifyLayouts(func, graphIOMode));
    if (!ok)
      signalPassFailure();
    markAllAnalysesPreserved();
  }
};
} // namespace

LogicalResult npu::verifyLayouts(func::FuncOp func, AlignMode graphIOMode) {
  return success(LayoutChecker(graphIOMode).check(func));
}
