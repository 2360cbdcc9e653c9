//===- npu-opt.cpp - the npu-mlir pass driver -----------------------------===//
//
// mlir-opt with the npu dialect, the upstream dialects its IR uses, every
// npu-mlir pass and the upstream core passes (canonicalize, cse, ...).
//
//===----------------------------------------------------------------------===//

#include "npu/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

/// Runs the driver writing to a temporary file beside `path`, then renames
/// it over `path`. MlirOptMain memory-maps its input and then opens (and
/// truncates) its output, so `-o` naming the input file would otherwise
/// pull the input away from under the parser.
static int runInPlace(int argc, char **argv, llvm::StringRef path,
                      mlir::DialectRegistry &registry) {
  llvm::SmallString<128> temporary;
  if (std::error_code error =
          llvm::sys::fs::createUniqueFile(path + ".%%%%%%", temporary)) {
    llvm::errs() << "npu-opt: cannot create a file beside " << path << ": "
                 << error.message() << "\n";
    return 1;
  }
  if (mlir::failed(mlir::MlirOptMain(argc, argv, path, temporary, registry))) {
    llvm::sys::fs::remove(temporary);
    return 1;
  }
  if (std::error_code error = llvm::sys::fs::rename(temporary, path)) {
    llvm::errs() << "npu-opt: cannot replace " << path << ": "
                 << error.message() << "\n";
    return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  mlir::registerTransformsPasses();
  npu::registerAllPasses();
  mlir::DialectRegistry registry;
  npu::registerAllDialects(registry);
  auto [input, output] = mlir::registerAndParseCLIOptions(
      argc, argv, "npu-mlir optimizer driver\n", registry);
  if (input != "-" && output != "-" && llvm::sys::fs::equivalent(input, output))
    return runInPlace(argc, argv, input, registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, input, output, registry));
}
