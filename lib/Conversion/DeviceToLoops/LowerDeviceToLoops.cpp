//===- LowerDeviceToLoops.cpp - npudev to scf/memref/arith/math -----------===//
//
// Lowers row reports and mixed launches, forwards staged matmul inputs and
// transit buffers (walks of their own), then applies every family's patterns
// (Patterns.h) greedily, each replacing an npudev op by upstream IR with the
// simulator's semantics, then strips the
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
  populateFloatMinMaxPatterns(patterns);
  // Drop the tokens loops and branches carry once their waits are gone.
  scf::ForOp::getCanonicalizationPatterns(patterns, patterns.getContext());
  scf::IfOp::getCanonicalizationPatterns(patterns, patterns.getContext());
}

namespace {
/// Keeps the last reason a pattern gave for not matching at each location,
/// so an op left over names why its pattern refused it.
struct MatchFailureRecorder : RewriterBase::Listener {
  void
  notifyMatchFailure(Location loc,
                     function_ref<void(Diagnostic &)> reasonCallback) override {
    Diagnostic reason(loc, DiagnosticSeverity::Remark);
    reasonCallback(reason);
    reasons[loc] = reason.str();
  }
  llvm::DenseMap<Location, std::string> reasons;
};

struct LowerDeviceToLoopsPass
    : public npu::impl::LowerDeviceToLoopsBase<LowerDeviceToLoopsPass> {
  using LowerDeviceToLoopsBase::LowerDeviceToLoopsBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    lowerRowReports(module);
    outlineMixedLaunches(module);
    if (forwardTransits) {
      forwardStagedMatmulInputs(module);
      forwardTransitBuffers(module);
      forwardConsumedWriteBacks(module);
    }
    // After the forwardings: they tell windows of different kernel
    // arguments apart, and an outlined launch's arguments may alias.
    if (outlineLaunches)
      npu::dev::outlineLaunches(module);
    RewritePatternSet patterns(&getContext());
    populateDeviceToLoopsPatterns(patterns);
    MatchFailureRecorder recorder;
    GreedyRewriteConfig config;
    config.listener = &recorder;
    if (failed(
            applyPatternsAndFoldGreedily(module, std::move(patterns), config)))
      return signalPassFailure();
    bool left = false;
    module.walk([&](Operation *op) {
      if (!isa_and_nonnull<NPUDevDialect>(op->getDialect()))
        return;
      InFlightDiagnostic diag =
          op->emitOpError("cannot be lowered for the JIT");
      auto reason = recorder.reasons.find(op->getLoc());
      if (reason != recorder.reasons.end())
        diag << ": " << reason->second;
      left = true;
    });
    if (left)
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
