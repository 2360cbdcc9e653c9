//===- OperatorKernels.h - kernel models of operator families ---*- C++ -*-===//
//
// Each operator family attaches DeviceKernelOpInterface to its ops from its
// own file; registerDeviceKernelModels calls these.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_LIB_CONVERSION_OPERATORKERNELS_H
#define NPU_LIB_CONVERSION_OPERATORKERNELS_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace npu {

/// Unary, binary and vector-scalar elementwise ops (ElementwiseKernels.cpp).
void registerElementwiseKernelModels(mlir::DialectRegistry &registry);

/// conv2d (ConvKernels.cpp).
void registerConvKernelModels(mlir::DialectRegistry &registry);

/// concat, slice and pad (DataMovementKernels.cpp).
void registerDataMovementKernelModels(mlir::DialectRegistry &registry);

/// scatter_nd and scatter (ScatterKernels.cpp).
void registerScatterKernelModels(mlir::DialectRegistry &registry);

/// constant (ConstantKernels.cpp).
void registerConstantKernelModels(mlir::DialectRegistry &registry);

/// transpose (TransposeKernels.cpp).
void registerTransposeKernelModels(mlir::DialectRegistry &registry);

/// max_pool and avg_pool (PoolKernels.cpp).
void registerPoolKernelModels(mlir::DialectRegistry &registry);

/// npu.resize (ResizeKernels.cpp).
void registerResizeKernelModels(mlir::DialectRegistry &registry);
void registerGridSampleKernelModels(mlir::DialectRegistry &registry);

/// npu.topk (TopKKernels.cpp).
void registerTopKKernelModels(mlir::DialectRegistry &registry);

/// reduce (ReduceKernels.cpp).
void registerReduceKernelModels(mlir::DialectRegistry &registry);

/// softmax and layer_norm (NormalizationKernels.cpp).
void registerNormalizationKernelModels(mlir::DialectRegistry &registry);

/// matmul (MatmulKernels.cpp).
void registerMatmulKernelModels(mlir::DialectRegistry &registry);

/// The MoE dispatch family (MoEKernels.cpp).
void registerMoEKernelModels(mlir::DialectRegistry &registry);

/// get_indice_pairs (GetIndicePairsKernels.cpp).
void registerGetIndicePairsKernelModels(mlir::DialectRegistry &registry);

/// sparse_conv3d (SparseConvKernels.cpp).
void registerSparseConvKernelModels(mlir::DialectRegistry &registry);

/// flash_attention (FlashAttentionForward.cpp).
void registerFlashAttentionKernelModels(mlir::DialectRegistry &registry);

/// flash_attention_grad (FlashAttentionBackward.cpp).
void registerFlashAttentionGradKernelModels(mlir::DialectRegistry &registry);

} // namespace npu

#endif // NPU_LIB_CONVERSION_OPERATORKERNELS_H
