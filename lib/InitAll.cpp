//===- InitAll.cpp - register npu-mlir with a context ---------------------===//

#include "npu/InitAll.h"
#include "npu/Conversion/DeviceKernelOpInterface.h"
#include "npu/Conversion/Passes.h"
#include "npu/Conversion/Pipelines.h"
#include "npu/Dialect/NPU/NPUDialect.h"
#include "npu/Dialect/NPUDev/NPUDevDialect.h"
#include "npu/Dialect/NPUDev/Passes.h"
#include "npu/Dialect/Sparse/Passes.h"
#include "npu/Dialect/Sparse/SparseDialect.h"
#include "npu/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"

void npu::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<graph::NPUDialect, dev::NPUDevDialect, sparse::SparseDialect,
                  mlir::arith::ArithDialect, mlir::func::FuncDialect,
                  mlir::math::MathDialect, mlir::memref::MemRefDialect,
                  mlir::scf::SCFDialect, mlir::tensor::TensorDialect>();
}

void npu::registerAllExtensions(mlir::DialectRegistry &registry) {
  registerDeviceKernelModels(registry);
}

void npu::registerAllPasses() {
  registerNPUPasses();
  registerNPUConversionPasses();
  sparse::registerNPUSparsePasses();
  dev::registerNPUDevPasses();
  registerGraphToDevicePipeline();
  registerSparseToDevicePipeline();
  registerDeviceToLLVMPipeline();
}
