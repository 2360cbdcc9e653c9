//===- SparseToDevicePipeline.cpp - the whole sparse lowering -------------===//
//
// The sparse lowering's passes in the order they must run, written once for
// npu-opt, the demo, the tests and the benchmarks. O(passes).
//
//===----------------------------------------------------------------------===//

#include "npu/Conversion/Passes.h"
#include "npu/Conversion/Pipelines.h"
#include "npu/Dialect/NPUDev/Passes.h"
#include "npu/Dialect/Sparse/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void npu::buildSparseToDevicePipeline(
    OpPassManager &pm, const SparseToDevicePipelineOptions &options) {
  OpPassManager &func = pm.nest<func::FuncOp>();
  // The checks read the user's arrays, before the split copies them.
  if (options.checked)
    func.addPass(createSparseCheckFormats());
  func.addPass(createSparseDecompose());
  if (options.onDevice) {
    SparseToDeviceOptions toDevice;
    toDevice.tasks = options.tasks;
    toDevice.rowCost = options.rowCost;
    func.addPass(createSparseToDevice(toDevice));
  }
  sparse::SparseLowerIterationsOptions lowering;
  lowering.reassociateReductions = options.reassociateReductions;
  func.addPass(sparse::createSparseLowerIterations(lowering));
  if (options.onDevice && options.tile) {
    func.addPass(createSparseTilePositions());
    func.addPass(createSparseTileDenseAxis());
  }
  if (options.onDevice && options.stageChunk > 0)
    func.addPass(createSparseStageRuns({options.stageChunk}));
  func.addPass(sparse::createSparseLowerBuffers());
  pm.addPass(createCanonicalizerPass());
  if (options.onDevice && options.pipelineStages != 1)
    dev::addPipelineDmaLoops(pm, options.pipelineStages);
}

void npu::registerSparseToDevicePipeline() {
  PassPipelineRegistration<SparseToDevicePipelineOptions>(
      "npu-sparse-to-device-pipeline",
      "Lower sparse iterations to npudev kernels: the sparse lowering's "
      "passes in order",
      buildSparseToDevicePipeline);
}
