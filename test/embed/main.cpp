//===- main.cpp - a downstream tool embedding npu-mlir --------------------===//
//
// Parses a graph, runs an npu-mlir pass through the pass manager, then
// builds an op through the C++ API and queries the AlignMode interface.
//
//===----------------------------------------------------------------------===//

#include "npu/Dialect/NPU/NPUOps.h"
#include "npu/InitAll.h"
#include "npu/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

static const char *kGraph = R"mlir(
func.func @graph(%x: tensor<1x8x8x16xf32>, %w: tensor<4x3x3x16xf32>) -> tensor<1x6x6x4xf32> {
  %0 = npu.conv2d %x, %w : (tensor<1x8x8x16xf32>, tensor<4x3x3x16xf32>) -> tensor<1x6x6x4xf32>
  %1 = npu.relu %0 : tensor<1x6x6x4xf32> -> tensor<1x6x6x4xf32>
  return %1 : tensor<1x6x6x4xf32>
}
)mlir";

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
  auto cst = b.create<npu::ConstantOp>(b.getUnknownLoc(), attr);
  auto slice = b.create<npu::SliceOp>(
      b.getUnknownLoc(), mlir::ValueRange{cst},
      llvm::ArrayRef<mlir::NamedAttribute>{
          b.getNamedAttr("start", b.getDenseI64ArrayAttr({0, 16})),
          b.getNamedAttr("end", b.getDenseI64ArrayAttr({2, 64}))});
  llvm::outs() << "slice type: " << slice.getType() << "\n";
  llvm::outs() << "slice mode: "
               << npu::stringifyAlignMode(npu::getAlignMode(slice)) << "\n";
  return 0;
}
