//===- DeviceKernelOpInterface.cpp - the families' kernel models ----------===//
//
// The interface's definitions and the registration of every family's
// models.
//
//===----------------------------------------------------------------------===//

#include "npu/Conversion/DeviceKernelOpInterface.h"
#include "OperatorKernels.h"

#include "npu/Conversion/DeviceKernelOpInterface.cpp.inc"

void npu::registerDeviceKernelModels(mlir::DialectRegistry &registry) {
  registerConstantKernelModels(registry);
  registerConvKernelModels(registry);
  registerDataMovementKernelModels(registry);
  registerScatterKernelModels(registry);
  registerElementwiseKernelModels(registry);
  registerMatmulKernelModels(registry);
  registerNormalizationKernelModels(registry);
  registerPoolKernelModels(registry);
  registerResizeKernelModels(registry);
  registerGridSampleKernelModels(registry);
  registerTopKKernelModels(registry);
  registerReduceKernelModels(registry);
  registerTransposeKernelModels(registry);
  registerMoEKernelModels(registry);
  registerGetIndicePairsKernelModels(registry);
  registerSparseConvKernelModels(registry);
  registerFlashAttentionKernelModels(registry);
  registerFlashAttentionGradKernelModels(registry);
}
