//===- GraphToDevicePipeline.cpp - graph functions to device kernels ------===//
//
// Attention subgraphs fused into npu.flash_attention, conv3d decomposed
// into conv2d per depth tap, then every graph op lowered to its kernels: what
// npu-run does with graph-level input, written once. O(passes).
//
//===----------------------------------------------------------------------===//

#include "npu/Conversion/Passes.h"
#include "npu/Conversion/Pipelines.h"
#include "npu/Dialect/NPUDev/Passes.h"
#include "npu/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

void npu::buildGraphToDevicePipeline(
    OpPassManager &pm, const GraphToDevicePipelineOptions &options) {
  pm.addNestedPass<func::FuncOp>(createFuseAttention());
  pm.addNestedPass<func::FuncOp>(createDecomposeConv3D());
  LowerGraphToDeviceOptions lowering;
  lowering.device = options.device;
  lowering.sparseConvStrategy = options.sparseConvStrategy;
  pm.addPass(createLowerGraphToDevice(lowering));
  if (options.pipelineStages != 1)
    dev::addPipelineDmaLoops(pm, options.pipelineStages);
}

void npu::registerGraphToDevicePipeline() {
  PassPipelineRegistration<GraphToDevicePipelineOptions>(
      "npu-graph-to-device",
      "Lower graph functions to npudev kernels: attention fused, then "
      "npu-lower-to-device",
      buildGraphToDevicePipeline);
}
