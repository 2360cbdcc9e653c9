//===- LowerDeviceToLoops.cpp - npudev to scf/memref/arith/math -----------===//
//
// Applies every family's patterns (Patterns.h) greedily, each replacing an
// npudev op by upstream IR with the simulator's semantics, then strips the
// #npudev.space of every type with one walk. Linear in the IR size.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"
#include "npu/Conversion/DeviceToLoops.h"
#include "npu/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace npu {
#define GEN_PASS_DEF_LOWERDEVICETOLOOPS
#include "npu/Conversion/Passes.h.inc"
} // namespace npu

using namespace mlir;
using namespace npu::dev;

void npu::dev::populateDeviceToLoopsPatterns(RewritePatternSet &patterns) {
  populateTaskLoweringPatterns(patterns);
  populateDmaLoweringPatterns(patterns);
  populateVectorLoweringPatterns(patterns);
  populateMatmulLoweringPatterns(patterns);
  populateSortLoweringPatterns(patterns);
  populateMixedLaunchLoweringPatterns(patterns);
}

namespace {
struct LowerDeviceToLoopsPass
    : public npu::impl::LowerDeviceToLoopsBase<LowerDeviceToLoopsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    lowerRowReports(module);
    outlineMixedLaunches(module);
    RewritePatternSet patterns(&getContext());
    populateDeviceToLoopsPatterns(patterns);
    if (failed(applyPatternsAndFoldGreedily(module, std::move(patterns))))
      return signalPassFailure();
    WalkResult left = module.walk([](Operation *op) {
      if (!isa_and_nonnull<NPUDevDialect>(op->getDialect()))
        return WalkResult::advance();
      op->emitOpError("cannot be lowered for the JIT");
      return WalkResult::interrupt();
    });
    if (left.wasInterrupted())
      return signalPassFailure();
    stripMemorySpaces(module);
  }

  /// The LLVM lowering maps memory spaces to address spaces; the host has
  /// one, so every npudev space goes.
  static void stripMemorySpaces(ModuleOp module) {
    AttrTypeReplacer replacer;
    replacer.addReplacement([](MemRefType type) -> std::optional<Type> {
      if (!isa_and_nonnull<MemorySpaceAttr>(type.getMemorySpace()))
        return std::nullopt;
      return MemRefType::get(type.getShape(), type.getElementType(),
                             type.getLayout());
    });
    replacer.recursivelyReplaceElementsIn(module, /*replaceAttrs=*/true,
                                          /*replaceLocs=*/false,
                                          /*replaceTypes=*/true);
  }
};
} // namespace
