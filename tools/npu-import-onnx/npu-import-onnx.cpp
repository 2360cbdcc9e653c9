//===- npu-import-onnx.cpp - ONNX model to npu dialect --------------------===//
//
// npu-import-onnx MODEL.onnx [--batch=N | --batch-chunk=C]
//                 [--weights=arguments|constants]
//                 [--weights-file=WEIGHTS.npz] [-o OUT.mlir]
// writes the model as one func.func of npu ops (see docs/onnx-import.md),
// and the weight arguments' data beside it for npu-run --weights.
//
//===----------------------------------------------------------------------===//

#include "npu/Target/ONNX/ImportONNX.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

#include "mlir/IR/Diagnostics.h"

using namespace llvm;

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<model.onnx>"),
                                      cl::Required);
static cl::opt<std::string> outputFile("o", cl::desc("Output file"),
                                       cl::value_desc("filename"),
                                       cl::init("-"));
static cl::opt<int64_t>
    batch("batch",
          cl::desc("Bind the graph inputs' dynamic leading (batch) dimension"));
static cl::opt<int64_t> batchChunk(
    "batch-chunk",
    cl::desc("Without --batch: the samples the kernels of a batch read at "
             "run time compute at once, besides one (0 or 1: one only)"),
    cl::init(npu::ONNXImportOptions().batchChunk));
static cl::opt<npu::ONNXWeights>
    weights("weights", cl::desc("What float initializers become"),
            cl::init(npu::ONNXWeights::Arguments),
            cl::values(clEnumValN(npu::ONNXWeights::Arguments, "arguments",
                                  "named function arguments (default)"),
                       clEnumValN(npu::ONNXWeights::Constants, "constants",
                                  "npu.constant ops holding the data")));
static cl::opt<std::string> weightsFile(
    "weights-file",
    cl::desc("Also write the weight arguments' data, as they store it, to "
             "this .npz (one array per argument, named by its "
             "npu.onnx_name), for npu-run --weights"),
    cl::value_desc("filename"));
static cl::opt<std::string>
    functionName("function", cl::desc("Name of the imported function"),
                 cl::init("main"));

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  mlir::registerDefaultTimingManagerCLOptions();
  cl::ParseCommandLineOptions(argc, argv, "ONNX to npu dialect importer\n");

  mlir::DialectRegistry registry;
  npu::registerONNXImportDialects(registry);
  mlir::MLIRContext context(registry);
  SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);

  std::string error;
  std::unique_ptr<MemoryBuffer> input = mlir::openInputFile(inputFile, &error);
  if (!input) {
    errs() << "npu-import-onnx: " << error << "\n";
    return 1;
  }
  npu::ONNXImportOptions options;
  // Any value given is the user's: a negative one is reported, not
  // taken for "unset".
  if (batch.getNumOccurrences())
    options.batch = batch;
  options.batchChunk = batchChunk;
  options.weights = weights;
  options.functionName = functionName;
  npu::NpzArrays weightData;
  if (!weightsFile.empty()) {
    if (weights != npu::ONNXWeights::Arguments) {
      errs() << "npu-import-onnx: --weights-file needs the weights as "
                "arguments (--weights=arguments)\n";
      return 1;
    }
    options.weightData = &weightData;
  }

  mlir::DefaultTimingManager timing;
  mlir::applyDefaultTimingManagerCLOptions(timing);
  mlir::TimingScope root = timing.getRootScope();
  mlir::TimingScope importTimer = root.nest("import");
  mlir::OwningOpRef<mlir::ModuleOp> module =
      npu::importONNX(input->getBuffer(), inputFile, &context, options);
  importTimer.stop();
  if (!module)
    return 1;

  std::unique_ptr<ToolOutputFile> output =
      mlir::openOutputFile(outputFile, &error);
  if (!output) {
    errs() << "npu-import-onnx: " << error << "\n";
    return 1;
  }
  if (!weightsFile.empty())
    if (Error e = npu::writeNpz(weightsFile, weightData)) {
      errs() << "npu-import-onnx: " << toString(std::move(e)) << "\n";
      return 1;
    }
  mlir::TimingScope printTimer = root.nest("print");
  module->print(output->os(), mlir::OpPrintingFlags());
  output->os() << "\n";
  output->keep();
  return 0;
}
