//===- main.cpp - a downstream tool embedding npu-mlir --------------------===//
//
// Parses a graph, runs an npu-mlir pass through the pass manager, then
// builds an op through the C++ API and queries the AlignMode interface, and
// simulates a device kernel.
//
//===----------------------------------------------------------------------===//

#include "npu/Dialect/NPU/NPUOps.h"
#include "npu/InitAll.h"
#include "npu/Simulator/Simulator.h"
#include "npu/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

static const char *kGraph = R"mlir(
func.func @graph(%x: tensor<1x8x8x16xf32>, %w: tensor<4x3x3x16xf32>) -> tensor<1x6x6x4xf32> {
  %0 = npu.conv2d %x, %w : (tensor<1x8x8x16xf32>, tensor<4x3x3x16xf32>) -> tensor<1x6x6x4xf32>
  %1 = npu.relu %0 : tensor<1x6x6x4xf32> -> tensor<1x6x6x4xf32>
  return %1 : tensor<1x6x6x4xf32>
}
)mlir";

static const char *kKernel = R"mlir(
func.func @twice(%x: memref<4xf32, #npudev.space<global>>) {
  %two = arith.constant 2.0 : f32
  npudev.launch tasks(1) {
    %v = npudev.alloc : memref<4xf32, #npudev.space<vector>>
    npudev.dma %x, %v : memref<4xf32, #npudev.space<global>> to memref<4xf32, #npudev.space<vector>>
    npudev.vbinary_scalar <mul> %v, %two, %v : memref<4xf32, #npudev.space<vector>>, f32, memref<4xf32, #npudev.space<vector>>
    npudev.dma %v, %x : memref<4xf32, #npudev.space<vector>> to memref<4xf32, #npudev.space<global>>
  }
  return
}
)mlir";

/// Runs a device kernel in the simulator through the installed headers.
static int simulateKernel(mlir::MLIRContext &ctx) {
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(kKernel, &ctx);
  if (!module)
    return 3;
  auto func = *module->getOps<mlir::func::FuncOp>().begin();
  std::vector<float> values = {1, 2, 3, 4};
  npu::HostArray x{npu::ElementKind::F32, {4}, {}};
  x.data.resize(16);
  std::memcpy(x.data.data(), values.data(), 16);
  npu::sim::SimulationReport report;
  if (mlir::failed(npu::sim::simulate(func, x, {}, report)))
    return 4;
  std::memcpy(values.data(), x.data.data(), 16);
  llvm::outs() << "simulated: " << values[0] << " " << values[3] << " in "
               << report.cycles << " cycles\n";
  return 0;
}

int main() {
  mlir::DialectRegistry registry;
  npu::registerAllDialects(registry);
  mlir::MLIRContext ctx(registry);

  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(kGraph, &ctx);
  if (!module)
    return 1;
  mlir::PassManager pm(&ctx);
  pm.addNestedPass<mlir::func::FuncOp>(npu::createAnnotateAlignMode());
  if (mlir::failed(pm.run(*module)))
    return 2;
  module->print(llvm::outs());

  // Build an op through the C++ API: its result type is inferred.
  mlir::OpBuilder b(&ctx);
  b.setInsertionPointToEnd(module->getBody());
  auto type = mlir::RankedTensorType::get({2, 64}, b.getF32Type());
  auto attr = mlir::DenseElementsAttr::get(type, 1.0f);
  auto cst = b.create<npu::graph::ConstantOp>(b.getUnknownLoc(), attr);
  auto slice = b.create<npu::graph::SliceOp>(
      b.getUnknownLoc(), mlir::ValueRange{cst},
      llvm::ArrayRef<mlir::NamedAttribute>{
          b.getNamedAttr("start", b.getDenseI64ArrayAttr({0, 16})),
          b.getNamedAttr("end", b.getDenseI64ArrayAttr({2, 64}))});
  llvm::outs() << "slice type: " << slice.getType() << "\n";
  llvm::outs() << "slice mode: "
               << npu::graph::stringifyAlignMode(
                      npu::graph::getAlignMode(slice))
               << "\n";
  return simulateKernel(ctx);
}
