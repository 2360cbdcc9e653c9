//===- AnnotateAlignMode.cpp - show the AlignMode rules' verdicts ---------===//
//
// Writes the mode npu::graph::getAlignMode assigns to each op (and to each
// argument its graph-input mode) as an `npu.align_mode` attribute. One walk;
// O(n) in ops, plus the length of broadcast-follows-producer chains.
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
using namespace npu::graph;

namespace {
struct AnnotateAlignModePass
    : public npu::impl::AnnotateAlignModeBase<AnnotateAlignModePass> {
  using AnnotateAlignModeBase::AnnotateAlignModeBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    MLIRContext *ctx = &getContext();
    StringRef attrName = NPUDialect::getAlignModeAttrName();
    if (func.isExternal())
      return;
    for (BlockArgument arg : func.getArguments())
      func.setArgAttr(
          arg.getArgNumber(), attrName,
          AlignModeAttr::get(ctx, getArgumentAlignMode(arg, graphIOMode)));
    func.getFunctionBody().walk([&](Operation *op) {
      op->setAttr(attrName,
                  AlignModeAttr::get(ctx, getAlignMode(op, graphIOMode)));
    });
  }
};
} // namespace
