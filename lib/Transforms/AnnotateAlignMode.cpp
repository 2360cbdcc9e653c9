//===- AnnotateAlignMode.cpp - show the AlignMode rules' verdicts ---------===//
//
// Writes the mode npu::getAlignMode assigns to each op (and the graph-input
// mode to each argument) as an `npu.align_mode` attribute. One walk; O(n)
// in ops, plus the length of broadcast-follows-producer chains.
//
//===----------------------------------------------------------------------===//

#include "npu/Dialect/NPU/NPUInterfaces.h"
#include "npu/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace npu {
#define GEN_PASS_DEF_ANNOTATEALIGNMODE
#include "npu/Transforms/Passes.h.inc"
} // namespace npu

using namespace mlir;
using namespace npu;

namespace {
struct AnnotateAlignModePass
    : public npu::impl::AnnotateAlignModeBase<AnnotateAlignModePass> {
  using AnnotateAlignModeBase::AnnotateAlignModeBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    MLIRContext *ctx = &getContext();
    StringRef attrName = NPUDialect::getAlignModeAttrName();
    auto ioMode = AlignModeAttr::get(ctx, graphIOMode);
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
      func.setArgAttr(i, attrName, ioMode);
    func.getFunctionBody().walk([&](Operation *op) {
      op->setAttr(attrName,
                  AlignModeAttr::get(ctx, getAlignMode(op, graphIOMode)));
    });
  }
};
} // namespace
