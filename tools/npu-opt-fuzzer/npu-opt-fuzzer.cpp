//===- npu-opt-fuzzer.cpp - libFuzzer target for parsing and passes -------===//
//
// Each input is MLIR text. It is parsed and verified with every npu-mlir
// dialect registered, then each of npu-opt's pipelines below runs on its own
// copy of the module. Errors (a parse error, a verifier or pass failure) are
// the expected outcome for most inputs and are swallowed; a crash, a
// sanitizer report or a hang is a finding. Work per input is linear in the
// IR's size times the number of pipelines, plus what the passes cost.
//
//===----------------------------------------------------------------------===//

#include "npu/InitAll.h"

#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/ErrorHandling.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

using namespace mlir;

namespace {

/// The pipelines npu-opt users run, each from the parsed module: layout
/// assignment with both strategies, the graph and device lowerings with the
/// checked JIT's guards, the sparse iteration lowering, the folders, tile
/// loops pipelined and then lowered for the JIT, and the passes that insert
/// runtime checks followed by the folders (which must leave the checks
/// alone).
constexpr const char *kPipelines[] = {
    "builtin.module(func.func(npu-annotate-align-mode,"
    "npu-layout-align{strategy=greedy}),npu-verify-layout)",
    "builtin.module(func.func(npu-layout-align{strategy=optimal cost=bytes}),"
    "npu-verify-layout)",
    "builtin.module(npu-lower-to-device,npu-guard-memory-accesses,"
    "npu-lower-device-to-loops,npu-guard-memory-accesses)",
    "builtin.module(func.func(npu-sparse-check-formats,npu-sparse-decompose,"
    "npu-sparse-to-device{tasks=2},npu-sparse-lower-iterations,"
    "npu-sparse-tile-dense-axis,npu-sparse-stage-runs{chunk=2},"
    "npu-sparse-lower-buffers))",
    "builtin.module(canonicalize,cse)",
    "builtin.module(npu-lower-to-device,canonicalize,cse)",
    "builtin.module(func.func(npu-pipeline-dma-loops),canonicalize,cse,"
    "npu-lower-device-to-loops)",
    "builtin.module(func.func(npu-sparse-check-formats),canonicalize,cse,"
    "func.func(npu-sparse-to-device,npu-sparse-lower-iterations,"
    "npu-sparse-lower-buffers),canonicalize,cse)",
};

constexpr unsigned kInputsPerContext = 4096;

/// MLIR 19's parser turns `array<i1: 1>` (an integer literal first, not
/// `true`) into an attribute without data, and printing it, as a verifier's
/// diagnostic does, reads a null pointer; mlir-opt-19 crashes the same way
/// (llvm/circt#9374). The fix belongs upstream, so such inputs are skipped
/// rather than reported again and again.
bool hasMisparsedBoolArray(ModuleOp module) {
  bool found = false;
  AttrTypeWalker walker;
  walker.addWalk([&](DenseBoolArrayAttr array) {
    if (array.getRawData().size() != static_cast<size_t>(array.size()))
      found = true;
  });
  module->walk([&](Operation *op) {
    walker.walk(op->getAttrDictionary());
    if (Attribute properties = op->getPropertiesAsAttribute())
      walker.walk(properties);
    walker.walk(op->getLoc());
    for (Type type : op->getResultTypes())
      walker.walk(type);
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument argument : block.getArguments())
          walker.walk(argument.getType());
  });
  return found;
}

struct FuzzState {
  explicit FuzzState(const DialectRegistry &registry)
      : context(registry, MLIRContext::Threading::DISABLED) {
    context.loadAllAvailableDialects();
    // Messages are the expected result of bad input; printing them would
    // only slow the fuzzer down.
    context.getDiagEngine().registerHandler([](Diagnostic &) {});
  }

  void runPipelines(ModuleOp module) {
    for (const char *pipeline : kPipelines) {
      OwningOpRef<ModuleOp> copy = module.clone();
      PassManager pm(&context);
      if (failed(parsePassPipeline(pipeline, pm)))
        llvm::report_fatal_error(llvm::Twine("bad fuzz pipeline: ") + pipeline);
      (void)pm.run(*copy);
    }
  }

  MLIRContext context;
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // One context serves many inputs, as in a long npu-opt session: loading
  // the dialects costs more than most inputs. It is replaced now and then,
  // since every name an input makes up stays interned in it.
  static const DialectRegistry *registry = [] {
    registerTransformsPasses();
    npu::registerAllPasses();
    auto *dialects = new DialectRegistry();
    npu::registerAllDialects(*dialects);
    return dialects;
  }();
  static std::unique_ptr<FuzzState> state;
  static unsigned inputsSeen = 0;
  if (inputsSeen++ % kInputsPerContext == 0)
    state = std::make_unique<FuzzState>(*registry);
  // The lexer relies on a terminating NUL, as a file read by npu-opt has;
  // libFuzzer's buffer ends without one.
  std::string text(reinterpret_cast<const char *>(data), size);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(
      text, ParserConfig(&state->context, /*verifyAfterParse=*/false),
      "fuzz-input");
  if (module && !hasMisparsedBoolArray(*module) && succeeded(verify(*module)))
    state->runPipelines(*module);
  return 0;
}
