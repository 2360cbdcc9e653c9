//===- npu-data-fuzzer.cpp - libFuzzer target for kernels' runtime data ---===//
//
// The kernels of every op family (sparse convolution with get_indice_pairs'
// table and with one given as data, the MoE family, FlashAttention forward
// and backward, a checked sparse iteration) are lowered once; each input
// picks a kernel with its first byte and fills the kernel's inputs with the
// rest. The simulator and the checked JIT then run it: both must fail with
// the same message, or both succeed with the same bytes in every argument.
// A difference, a crash, a sanitizer report or a hang is a finding.
//
// Float data takes the input's bit patterns, infinities and subnormals
// included, but a NaN pattern is read as 0: which of two NaN operands an
// instruction passes on is the host's (x86: the first source), and the two
// executors may order an op's operands differently. NaNs the kernels make
// (inf - inf, 0 x inf) are all the host's default NaN and must agree.
// Work per input: two runs of a small kernel.
//
//===----------------------------------------------------------------------===//

#include "npu/Conversion/LoweredSignature.h"
#include "npu/Conversion/Passes.h"
#include "npu/Conversion/Pipelines.h"
#include "npu/InitAll.h"
#include "npu/JIT/Jit.h"
#include "npu/Runtime/HostArray.h"
#include "npu/Simulator/Execution.h"
#include "npu/Simulator/Simulator.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

using namespace mlir;
using namespace npu;

namespace {

/// Graph-level kernels, lowered for mlu590; test/npu-run and the gtests
/// have the references these shapes are checked against.
constexpr const char *kGraphKernels = R"mlir(
func.func @conv(%idx: tensor<6x4xi32>, %f: tensor<6x2xf32>, %w: tensor<27x2x2xf32>) -> tensor<?x2xf32> {
  %o, %p, %n = npu.get_indice_pairs %idx {batch_size = 2 : i64, spatial_shape = array<i64: 4, 4, 4>, kernel_size = array<i64: 3, 3, 3>, padding = array<i64: 1, 1, 1>} : (tensor<6x4xi32>) -> (tensor<?x4xi32>, tensor<27x2x6xi32>, tensor<27xi32>)
  %c0 = arith.constant 0 : index
  %m = tensor.dim %o, %c0 : tensor<?x4xi32>
  %y = npu.sparse_conv3d %f, %w, %p, %n, %m : (tensor<6x2xf32>, tensor<27x2x2xf32>, tensor<27x2x6xi32>, tensor<27xi32>, index) -> tensor<?x2xf32>
  return %y : tensor<?x2xf32>
}
func.func @subm(%idx: tensor<5x4xi32>, %f: tensor<5x2xbf16>, %w: tensor<2x2x3xbf16>) -> tensor<5x3xbf16> {
  %o, %p, %n = npu.get_indice_pairs %idx {batch_size = 1 : i64, spatial_shape = array<i64: 2, 3, 4>, kernel_size = array<i64: 1, 1, 2>, dilation = array<i64: 1, 1, 2>, padding = array<i64: 0, 0, 1>, subm} : (tensor<5x4xi32>) -> (tensor<5x4xi32>, tensor<2x2x5xi32>, tensor<2xi32>)
  %c5 = arith.constant 5 : index
  %y = npu.sparse_conv3d %f, %w, %p, %n, %c5 {subm} : (tensor<5x2xbf16>, tensor<2x2x3xbf16>, tensor<2x2x5xi32>, tensor<2xi32>, index) -> tensor<5x3xbf16>
  return %y : tensor<5x3xbf16>
}
func.func @table(%p: tensor<3x2x4xi32>, %n: tensor<3xi32>, %f: tensor<4x2xf32>, %w: tensor<3x2x2xf32>) -> tensor<4x2xf32> {
  %c4 = arith.constant 4 : index
  %y = npu.sparse_conv3d %f, %w, %p, %n, %c4 : (tensor<4x2xf32>, tensor<3x2x2xf32>, tensor<3x2x4xi32>, tensor<3xi32>, index) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}
func.func @moe(%g: tensor<5xf32>, %i: tensor<5xi32>, %l: tensor<5xi32>, %x: tensor<5x3xf32>, %gates: tensor<2x5xf32>, %ii: tensor<2x5xi32>, %ll: tensor<2x5xi32>) -> (tensor<6x3xf32>, tensor<5x3xf32>, tensor<5xf32>, tensor<5x3xf32>) {
  %d = npu.moe_dispatch_forward %g, %i, %l, %x {capacity = 3, num_experts = 2} : (tensor<5xf32>, tensor<5xi32>, tensor<5xi32>, tensor<5x3xf32>) -> tensor<6x3xf32>
  %dx = npu.moe_dispatch_backward_data %g, %i, %l, %d {capacity = 3, num_experts = 2} : (tensor<5xf32>, tensor<5xi32>, tensor<5xi32>, tensor<6x3xf32>) -> tensor<5x3xf32>
  %dg = npu.moe_dispatch_backward_gate %i, %l, %x, %d {capacity = 3, num_experts = 2} : (tensor<5xi32>, tensor<5xi32>, tensor<5x3xf32>, tensor<6x3xf32>) -> tensor<5xf32>
  %c = npu.moe_combine %gates, %ii, %ll, %d {capacity = 3, num_experts = 2} : (tensor<2x5xf32>, tensor<2x5xi32>, tensor<2x5xi32>, tensor<6x3xf32>) -> tensor<5x3xf32>
  return %d, %dx, %dg, %c : tensor<6x3xf32>, tensor<5x3xf32>, tensor<5xf32>, tensor<5x3xf32>
}
func.func @attention(%mask: tensor<1x2x3x5xi8>, %q: tensor<1x2x3x8xf16>, %k: tensor<1x1x5x8xf16>, %v: tensor<1x1x5x8xf16>, %pse: tensor<1x2x1x5xf16>) -> (tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32>, tensor<1x2x3x8xf16>) {
  %m, %s, %o = npu.flash_attention %q, %k, %v mask %mask pse %pse {input_layout = #npu.attention_layout<BNSD>, head_num = 2, scale = 0.35, sparse_mode = 0, pre_tokens = 2, next_tokens = 1} : (tensor<1x2x3x8xf16>, tensor<1x1x5x8xf16>, tensor<1x1x5x8xf16>, tensor<1x2x3x5xi8>, tensor<1x2x1x5xf16>) -> (tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32>, tensor<1x2x3x8xf16>)
  return %m, %s, %o : tensor<1x2x3x8xf32>, tensor<1x2x3x8xf32>, tensor<1x2x3x8xf16>
}
func.func @attention_grad(%q: tensor<1x4x2x4xf32>, %k: tensor<1x4x2x4xf32>, %v: tensor<1x4x2x4xf32>, %dy: tensor<1x4x2x4xf32>, %st: tensor<1x2x4x8xf32>, %o: tensor<1x4x2x4xf32>, %drop: tensor<1x2x4x4xi8>) -> (tensor<1x4x2x4xf32>, tensor<1x4x2x4xf32>, tensor<1x4x2x4xf32>) {
  %dq, %dk, %dv = npu.flash_attention_grad %q, %k, %v, %dy, %st, %st, %o drop_mask %drop {input_layout = #npu.attention_layout<BSND>, head_num = 2, scale = 0.5, sparse_mode = 3, keep_prob = 0.75} : (tensor<1x4x2x4xf32>, tensor<1x4x2x4xf32>, tensor<1x4x2x4xf32>, tensor<1x4x2x4xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x4x2x4xf32>, tensor<1x2x4x4xi8>) -> (tensor<1x4x2x4xf32>, tensor<1x4x2x4xf32>, tensor<1x4x2x4xf32>)
  return %dq, %dk, %dv : tensor<1x4x2x4xf32>, tensor<1x4x2x4xf32>, tensor<1x4x2x4xf32>
}
)mlir";

/// A CSR row sum in the sparse dialect, lowered with the checked mode.
constexpr const char *kSparseKernel = R"mlir(
func.func @row_sums(%indptr: memref<5xi32>, %indices: memref<6xi32>, %a: memref<6xf32>, %c: memref<4xf32>) {
  %i = sparse.axis dense_fixed length 4
  %j = sparse.axis sparse_variable parent %i length 5 indptr %indptr : memref<5xi32> indices %indices : memref<6xi32> sorted
  %A = sparse.buffer %a [%i, %j] : memref<6xf32> -> !sparse.buffer<2 x f32>
  %C = sparse.buffer %c [%i] : memref<4xf32> -> !sparse.buffer<1 x f32>
  sparse.iteration [%i, %j] [#sparse.iterator<spatial>, #sparse.iterator<reduction>] init {
  ^bb0(%vi: index):
    %zero = arith.constant 0.0 : f32
    sparse.store %zero, %C[%vi] : !sparse.buffer<1 x f32>
  } do {
  ^bb0(%vi: index, %vj: index):
    %x = sparse.load %A[%vi, %vj] : !sparse.buffer<2 x f32>
    %acc = sparse.load %C[%vi] : !sparse.buffer<1 x f32>
    %s = arith.addf %acc, %x : f32
    sparse.store %s, %C[%vi] : !sparse.buffer<1 x f32>
  }
  return
}
)mlir";

/// One kernel: its device-level function (for the simulator) and its
/// compiled form (checked JIT), with what each argument takes.
struct Kernel {
  std::string name;
  OwningOpRef<ModuleOp> simModule;
  std::unique_ptr<jit::CompiledKernel> compiled;
  /// Per argument: a zero array of its type, and whether it is an output.
  std::vector<HostArray> blanks;
  std::vector<bool> outputs;
};

/// Whether the bits at `p` are a NaN of `kind`.
bool isNaN(const uint8_t *p, ElementKind kind) {
  return isFloat(kind) && std::isnan(loadFloat(p, kind));
}

/// The inputs of `k` from `data` (zeros once it runs out), outputs zero.
std::vector<HostArray> fillArguments(const Kernel &k, const uint8_t *data,
                                     size_t size) {
  std::vector<HostArray> args = k.blanks;
  for (auto [array, output] : llvm::zip(args, k.outputs)) {
    if (output)
      continue;
    unsigned bytes = getElementBytes(array.kind);
    for (size_t at = 0; at + bytes <= array.data.size() && size >= bytes;
         at += bytes, data += bytes, size -= bytes)
      if (!isNaN(data, array.kind))
        std::memcpy(array.data.data() + at, data, bytes);
  }
  return args;
}

/// The message of a failed run without what only one executor says: the
/// JIT's "cannot run 'f': " and a location before the op's name.
std::string normalize(StringRef message) {
  message.consume_front("cannot run '");
  if (size_t quote = message.find("': ");
      quote != StringRef::npos &&
      message.take_front(quote).find(' ') == StringRef::npos)
    message = message.drop_front(quote + 3);
  if (size_t op = message.find(": '");
      op != StringRef::npos && message.take_front(op).count(':') >= 2)
    message = message.drop_front(op + 2);
  return message.str();
}

class Harness {
public:
  Harness() : context(makeRegistry(), MLIRContext::Threading::DISABLED) {
    context.loadAllAvailableDialects();
    ScopedDiagnosticHandler loud(&context, [](Diagnostic &d) {
      llvm::errs() << d.str() << "\n";
      return failure();
    });
    addKernels(kGraphKernels, [](OpPassManager &pm) {
      GraphToDevicePipelineOptions options;
      options.device = "mlu590";
      buildGraphToDevicePipeline(pm, options);
    });
    addKernels(kSparseKernel, [](OpPassManager &pm) {
      SparseToDevicePipelineOptions options;
      options.checked = true;
      options.tile = false;
      options.stageChunk = 0;
      buildSparseToDevicePipeline(pm, options);
    });
  }

  void run(const uint8_t *data, size_t size) {
    if (size == 0)
      return;
    Kernel &k = kernels[data[0] % kernels.size()];
    auto func = k.simModule->lookupSymbol<func::FuncOp>(k.name);
    std::vector<HostArray> simArgs = fillArguments(k, data + 1, size - 1);
    std::vector<HostArray> jitArgs = simArgs;
    std::string simError;
    {
      ScopedDiagnosticHandler capture(&context, [&](Diagnostic &d) {
        simError += d.str();
        return success();
      });
      sim::SimulationReport report;
      (void)sim::simulate(func, simArgs, {}, report);
    }
    std::string jitError;
    if (llvm::Error error = k.compiled->run(jitArgs))
      jitError = llvm::toString(std::move(error));
    if (normalize(simError) != normalize(jitError))
      report(k, "the executors disagree on the error",
             "simulator: '" + simError + "'\nchecked JIT: '" + jitError + "'");
    if (!simError.empty())
      return;
    for (size_t i = 0; i < simArgs.size(); ++i)
      if (simArgs[i].data != jitArgs[i].data)
        report(k, "the executors give different bytes",
               "argument #" + std::to_string(i));
  }

private:
  static DialectRegistry makeRegistry() {
    DialectRegistry registry;
    registerAllDialects(registry);
    sim::registerSimulatorModels(registry);
    return registry;
  }

  /// Parses `source`, lowers it with `pipeline` and compiles every function.
  void addKernels(const char *source,
                  function_ref<void(OpPassManager &)> pipeline) {
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(source, &context);
    PassManager pm(&context);
    pipeline(pm);
    if (!module || failed(pm.run(*module)))
      llvm::report_fatal_error("npu-data-fuzzer: a kernel does not lower");
    for (auto func : module->getOps<func::FuncOp>())
      addKernel(*module, func);
  }

  void addKernel(ModuleOp module, func::FuncOp func) {
    Kernel k;
    k.name = func.getSymName().str();
    // Each executor gets a module of this function alone: the JIT lowers
    // its copy in place and compiles all of it.
    k.simModule = ModuleOp::create(module.getLoc());
    (*k.simModule)->setAttrs(module->getAttrDictionary());
    k.simModule->getBody()->push_back(func.clone());
    OwningOpRef<ModuleOp> jitModule = k.simModule->clone();
    jit::JitOptions options;
    options.checked = true;
    FailureOr<std::unique_ptr<jit::CompiledKernel>> compiled =
        jit::CompiledKernel::compile(*jitModule, k.name, options);
    if (failed(compiled))
      llvm::report_fatal_error("npu-data-fuzzer: a kernel does not compile");
    k.compiled = std::move(*compiled);
    for (auto [i, type] : llvm::enumerate(func.getArgumentTypes())) {
      auto memref = cast<MemRefType>(type);
      HostArray blank;
      blank.kind = *getElementKind(memref.getElementType());
      blank.shape.assign(memref.getShape().begin(), memref.getShape().end());
      blank.data.assign(blank.getNumElements() * getElementBytes(blank.kind),
                        0);
      k.blanks.push_back(std::move(blank));
      k.outputs.push_back(func.getArgAttr(i, signature::kOutput) ||
                          func.getArgAttr(i, signature::kRowCount));
    }
    kernels.push_back(std::move(k));
  }

  [[noreturn]] void report(const Kernel &k, StringRef what, StringRef detail) {
    llvm::errs() << "npu-data-fuzzer: kernel @" << k.name << ": " << what
                 << "\n"
                 << detail << "\n";
    std::abort();
  }

  MLIRContext context;
  std::vector<Kernel> kernels;
};

} // namespace

/// Built once, before the first input: lowering, pipelining and compiling
/// every kernel under the sanitizers takes longer than one input may.
static Harness *harness = nullptr;

extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv) {
  harness = new Harness();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  harness->run(data, size);
  return 0;
}
