//===- npu-opt.cpp - the npu-mlir pass driver -----------------------------===//
//
// mlir-opt with the npu dialect, the upstream dialects its IR uses, every
// npu-mlir pass and the upstream core passes (canonicalize, cse, ...).
//
//===----------------------------------------------------------------------===//

#include "npu/InitAll.h"
#include "npu/JIT/Jit.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::registerTransformsPasses();
  npu::registerAllPasses();
  npu::jit::registerLowerToLLVMPipeline();
  mlir::DialectRegistry registry;
  npu::registerAllDialects(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "npu-mlir optimizer driver\n", registry));
}
