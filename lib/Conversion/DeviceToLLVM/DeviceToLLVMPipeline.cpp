//===- DeviceToLLVMPipeline.cpp - npudev kernels to the LLVM dialect ------===//
//
// npu-lower-device-to-loops; with threads, async-parallel-for and the async
// runtime lowering (each launch's tasks dispatched to the runtime's thread
// pool), else scf to cf makes them a sequential loop; math to libm (so
// exp/log/tanh call the same libm the simulator does), strided-metadata
// expansion, then arith/math/memref/func/cf to LLVM, and the mixed
// launches' calls completed. What the JIT compiles, and what
// `npu-opt --npu-lower-to-llvm` shows. O(passes).
//
//===----------------------------------------------------------------------===//

#include "npu/Conversion/Passes.h"
#include "npu/Conversion/Pipelines.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/AsyncToLLVM/AsyncToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Async/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

void npu::buildDeviceToLLVMPipeline(
    OpPassManager &pm, const DeviceToLLVMPipelineOptions &options) {
  // Checked: the accesses written in the kernel are guarded before the
  // lowering (which erases dead loads, out-of-bounds ones too), those it
  // creates after.
  if (options.checked)
    pm.addPass(createGuardMemoryAccesses());
  // Checked mode keeps every copy, so that each access stays attributed to
  // the op the kernel wrote.
  LowerDeviceToLoopsOptions lowering;
  lowering.forwardTransits = !options.checked;
  pm.addPass(createLowerDeviceToLoops(lowering));
  if (options.checked)
    pm.addPass(createGuardMemoryAccesses());
  if (options.threads > 1) {
    // Tasks (the scf.parallel of each launch) run on the async runtime's
    // thread pool, one task per work item.
    pm.addPass(createAsyncParallelForPass(/*asyncDispatch=*/true,
                                          options.threads,
                                          /*minTaskSize=*/1));
    pm.addPass(createAsyncToAsyncRuntimePass());
    pm.addPass(createAsyncRuntimeRefCountingPass());
    pm.addPass(createAsyncRuntimeRefCountingOptPass());
    pm.addPass(createConvertAsyncToLLVMPass());
  }
  pm.addPass(createConvertSCFToCFPass());
  // Every math op libm has becomes a call of it (the function the
  // simulator calls); the rest (ctpop, copysign, rsqrt, ...) become LLVM
  // intrinsics.
  pm.addPass(createMathToLibmWherePossible());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  // ceildivsi, floordivsi, maxnumf and friends have no LLVM lowering of
  // their own: the simulator runs them, so the JIT expands them.
  pm.addPass(arith::createArithExpandOpsPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  LowerMixedLaunchCallsOptions mixed;
  mixed.threads = std::max<int64_t>(options.threads, 1);
  pm.addPass(createLowerMixedLaunchCalls(mixed));
  if (!options.distinctArgumentsOf.empty())
    pm.addPass(createMarkDistinctArguments({options.distinctArgumentsOf}));
}

void npu::registerDeviceToLLVMPipeline() {
  PassPipelineRegistration<DeviceToLLVMPipelineOptions>(
      "npu-lower-to-llvm",
      "Lower npudev kernels to the LLVM dialect, as the JIT does",
      buildDeviceToLLVMPipeline);
}
