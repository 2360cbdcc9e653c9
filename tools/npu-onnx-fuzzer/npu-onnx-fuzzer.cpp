//===- npu-onnx-fuzzer.cpp - libFuzzer target for the ONNX importer -------===//
//
// Each input is an ONNX model (the seeds: the shipped networks and
// test/Target/ONNX's models). It is imported with the batch bound to 1, and
// what imports is laid out (the optimal strategy) and verified; then again
// with the batch left dynamic (two more imports, compared op by op, and an
// npu.map_batch built). Errors are the
// expected outcome for most inputs and are swallowed; a crash (in the
// importer or in libonnx, which the importer must not let a model reach), a
// sanitizer report, a hang or running out of memory is a finding. Work per
// input: the import, linear in the model, and the layout pass.
//
//===----------------------------------------------------------------------===//

#include "npu/InitAll.h"
#include "npu/Target/ONNX/ImportONNX.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/ErrorHandling.h"

#include <cstddef>
#include <cstdint>

using namespace mlir;

namespace {

constexpr const char *kLayout =
    "builtin.module(func.func(npu-layout-align{strategy=optimal}),"
    "npu-verify-layout)";

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const DialectRegistry *registry = [] {
    npu::registerAllPasses();
    auto *dialects = new DialectRegistry();
    npu::registerAllDialects(*dialects);
    npu::registerONNXImportDialects(*dialects);
    return dialects;
  }();
  // A context per input: an import interns every name the model makes up.
  MLIRContext context(*registry, MLIRContext::Threading::DISABLED);
  context.getDiagEngine().registerHandler([](Diagnostic &) {});
  npu::ONNXImportOptions options;
  options.batch = 1;
  StringRef bytes(reinterpret_cast<const char *>(data), size);
  if (OwningOpRef<ModuleOp> module =
          npu::importONNX(bytes, "fuzz.onnx", &context, options)) {
    PassManager pm(&context);
    if (failed(parsePassPipeline(kLayout, pm)))
      llvm::report_fatal_error("npu-onnx-fuzzer: bad pipeline");
    (void)pm.run(*module);
  }
  // importONNX verifies what it returns.
  (void)npu::importONNX(bytes, "fuzz.onnx", &context, npu::ONNXImportOptions());
  return 0;
}
