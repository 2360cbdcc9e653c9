//===- Jit.cpp - run npudev kernels with MLIR's ExecutionEngine -----------===//
//
// Lowers the kernels by npu-lower-to-llvm (lib/Conversion/DeviceToLLVM),
// compiles them for the host and runs them. The entry gets a C interface
// and is called through ExecutionEngine::invokePacked with memref descriptors
// built around the host arrays, so results land in place.
//
//===----------------------------------------------------------------------===//

#include "npu/JIT/Jit.h"
#include "KernelRuntime.h"
#include "npu/Conversion/Pipelines.h"
#include "npu/Dialect/NPUDev/NPUDevDialect.h"
#include "npu/Dialect/NPUDev/NPUDevOps.h"
#include "npu/Dialect/NPUDev/Semantics.h"
#include "npu/JIT/WorkspaceAllocator.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"

#include <condition_variable>
#include <cstring>
#include <mutex>

using namespace mlir;
using namespace npu;
using namespace npu::jit;

/// Lowers `module` in place to the LLVM dialect (npu-lower-to-llvm), with
/// `entry`'s memref arguments promised never to overlap.
static LogicalResult lowerToLLVMDialect(ModuleOp module, StringRef entry,
                                        const JitOptions &options) {
  PassManager pm(module.getContext());
  DeviceToLLVMPipelineOptions pipeline;
  pipeline.threads = options.threads;
  pipeline.checked = options.checked;
  // run() passes one HostArray per argument, each owning its bytes.
  pipeline.distinctArgumentsOf = entry.str();
  buildDeviceToLLVMPipeline(pm, pipeline);
  return pm.run(module);
}

namespace {
/// Counts the coroutine resumptions handed to the async runtime that have
/// not returned yet. The runtime's workers run compiled code: a worker
/// still finishing a task's coroutine after the task's token was emplaced
/// (which is what ends the kernel's last await) must be out of that code
/// before its ExecutionEngine unmaps it.
class PendingResumptions {
public:
  void begin() {
    std::lock_guard<std::mutex> lock(mutex);
    ++pending;
  }
  void end() {
    std::lock_guard<std::mutex> lock(mutex);
    if (--pending == 0)
      idle.notify_all();
  }
  void waitUntilIdle() {
    std::unique_lock<std::mutex> lock(mutex);
    idle.wait(lock, [&] { return pending == 0; });
  }

private:
  std::mutex mutex;
  std::condition_variable idle;
  int64_t pending = 0;
};

PendingResumptions &getPendingResumptions() {
  static PendingResumptions pending;
  return pending;
}

using CoroResume = void (*)(void *);
/// A resumption as the runtime queues it: our trampoline and this.
struct Resumption {
  void *handle;
  CoroResume resume;
};

/// Runs a compiled resumption, then counts it finished: only code of this
/// file runs on the worker after that.
void resumeTracked(void *opaque) {
  Resumption resumption = *static_cast<Resumption *>(opaque);
  delete static_cast<Resumption *>(opaque);
  resumption.resume(resumption.handle);
  getPendingResumptions().end();
}

/// One of the runtime's functions that queue a resumption (`Which` tells
/// them apart), forwarded through resumeTracked; `upstream` is the
/// library's.
template <int Which, typename... Waited> struct TrackedQueue {
  using Fn = void (*)(Waited..., void *, CoroResume);
  static inline Fn upstream = nullptr;
  static void call(Waited... waited, void *handle, CoroResume resume) {
    getPendingResumptions().begin();
    upstream(waited..., new Resumption{handle, resume}, resumeTracked);
  }
};
} // namespace

/// The async runtime's symbols (the `--jit-threads` lowering calls them),
/// loaded once per process and never unloaded. An ExecutionEngine that
/// loads the library itself calls its __mlir_execution_engine_destroy when
/// it is destroyed, which frees the library's runtime for good: every later
/// engine's kernels then crash creating their first task group. The
/// functions that queue work are wrapped so that CompiledKernel::run can
/// wait for the workers to leave the compiled code.
static FailureOr<const llvm::StringMap<void *> *> getAsyncRuntimeSymbols() {
  static const std::optional<llvm::StringMap<void *>> symbols =
      []() -> std::optional<llvm::StringMap<void *>> {
    std::string error;
    auto library = llvm::sys::DynamicLibrary::getPermanentLibrary(
        NPU_MLIR_RUNTIME_DIR "/libmlir_async_runtime.so", &error);
    using InitFn = void (*)(llvm::StringMap<void *> &);
    auto init = reinterpret_cast<InitFn>(
        library.getAddressOfSymbol("__mlir_execution_engine_init"));
    if (!library.isValid() || !init)
      return std::nullopt;
    llvm::StringMap<void *> exported;
    init(exported);
    auto track = [&](StringRef name, auto queue) -> bool {
      using Queue = decltype(queue);
      void *upstream = exported.lookup(name);
      if (!upstream)
        return false;
      Queue::upstream = reinterpret_cast<typename Queue::Fn>(upstream);
      exported[name] = reinterpret_cast<void *>(&Queue::call);
      return true;
    };
    if (!track("mlirAsyncRuntimeExecute", TrackedQueue<0>{}) ||
        !track("mlirAsyncRuntimeAwaitTokenAndExecute",
               TrackedQueue<1, void *>{}) ||
        !track("mlirAsyncRuntimeAwaitValueAndExecute",
               TrackedQueue<2, void *>{}) ||
        !track("mlirAsyncRuntimeAwaitAllInGroupAndExecute",
               TrackedQueue<3, void *>{}))
      return std::nullopt;
    return exported;
  }();
  if (!symbols)
    return failure();
  return &*symbols;
}

/// Removes the features of vectors wider than `maxVectorBits` (0: none) from
/// the host's: LLVM turns off every feature that implies a removed one.
static void limitVectorFeatures(llvm::orc::JITTargetMachineBuilder &builder,
                                unsigned maxVectorBits) {
  if (maxVectorBits == 0 || maxVectorBits >= 512)
    return;
  std::vector<std::string> removed = {"-avx512f"};
  if (maxVectorBits < 256)
    removed.insert(removed.end(), {"-avx", "-avx2", "-fma", "-f16c"});
  builder.addFeatures(removed);
}

namespace {
/// Argument storage for invokePacked: a memref descriptor (allocated and
/// aligned pointer, offset, sizes, strides) or a scalar, and a pointer to
/// it.
struct PackedArgument {
  std::vector<int64_t> storage;
  void *address() { return storage.data(); }
};
} // namespace

static PackedArgument packMemRef(HostArray &array) {
  unsigned rank = array.shape.size();
  PackedArgument arg;
  arg.storage.assign(3 + 2 * rank, 0);
  uint8_t *data = array.data.data();
  std::memcpy(&arg.storage[0], &data, sizeof(void *));
  std::memcpy(&arg.storage[1], &data, sizeof(void *));
  int64_t stride = 1;
  for (int d = rank - 1; d >= 0; --d) {
    arg.storage[3 + d] = array.shape[d];
    arg.storage[3 + rank + d] = stride;
    stride *= array.shape[d];
  }
  return arg;
}

static PackedArgument packScalar(const HostArray &array) {
  PackedArgument arg;
  arg.storage.assign(1, 0);
  std::memcpy(arg.storage.data(), array.data.data(),
              std::min<size_t>(array.data.size(), sizeof(int64_t)));
  return arg;
}

FailureOr<std::unique_ptr<CompiledKernel>>
CompiledKernel::compile(ModuleOp module, StringRef entry,
                        const JitOptions &options) {
  auto func = module.lookupSymbol<func::FuncOp>(entry);
  if (!func || func.isExternal())
    return module.emitError("no function '") << entry << "' with a body";
  if (failed(dev::checkKernelIR(module)))
    return failure();
  if (func.getNumResults() != 0)
    return func.emitError("kernels return through memref arguments; this "
                          "function has results");
  auto kernel = std::unique_ptr<CompiledKernel>(new CompiledKernel());
  kernel->entry = entry.str();
  for (auto [i, type] : llvm::enumerate(func.getArgumentTypes())) {
    std::optional<ArgumentSpec> spec = ArgumentSpec::get(type);
    if (!spec)
      return func.emitError("argument #")
             << i << " has type " << type << ", which the JIT cannot pass";
    kernel->arguments.push_back(std::move(*spec));
  }
  for (Operation *report : dev::getRowReports(func))
    kernel->reportMessages.push_back(
        cast<dev::ReportRowsOp>(report).getMessage().str());
  // A check names the npudev op an access was lowered from.
  if (options.checked)
    module.walk([](Operation *op) {
      if (isa<dev::NPUDevDialect>(op->getDialect()))
        op->setLoc(NameLoc::get(
            StringAttr::get(op->getContext(), op->getName().getStringRef()),
            op->getLoc()));
    });
  func->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                UnitAttr::get(module.getContext()));
  // Argument annotations (npudev.output) mean nothing to LLVM.
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    func.setArgAttrs(i, DictionaryAttr::get(module.getContext()));
  if (failed(lowerToLLVMDialect(module, entry, options)))
    return failure();
  if (auto sites = module->getAttrOfType<ArrayAttr>("npudev.checked_sites")) {
    for (auto site : sites.getAsRange<ArrayAttr>()) {
      auto text = site.getAsValueRange<StringAttr>();
      auto it = text.begin();
      kernel->checkSites.push_back(
          {(*it).str(), (*std::next(it)).str(), (*std::next(it, 2)).str()});
    }
    module->removeAttr("npudev.checked_sites");
  }

  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  registerBuiltinDialectTranslation(*module.getContext());
  registerLLVMDialectTranslation(*module.getContext());
  // The optimizer needs the host's target machine, or its cost models see
  // no vector unit and nothing gets vectorized.
  llvm::Expected<llvm::orc::JITTargetMachineBuilder> hostBuilder =
      llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!hostBuilder)
    return module.emitError("cannot describe the host: ")
           << llvm::toString(hostBuilder.takeError());
  limitVectorFeatures(*hostBuilder, options.maxVectorBits);
  llvm::Expected<std::unique_ptr<llvm::TargetMachine>> host =
      hostBuilder->createTargetMachine();
  if (!host)
    return module.emitError("cannot target the host: ")
           << llvm::toString(host.takeError());
  // ExecutionEngineOptions::transformer is a function_ref: the function it
  // refers to must outlive ExecutionEngine::create. Code generation uses
  // the engine's own target machine (the host's), so each function names
  // the target it was optimized for.
  std::function<llvm::Error(llvm::Module *)> optimizeForHost =
      makeOptimizingTransformer(options.optLevel, /*sizeLevel=*/0, host->get());
  std::function<llvm::Error(llvm::Module *)> optimize =
      [&](llvm::Module *llvmModule) {
        for (llvm::Function &function : *llvmModule)
          if (!function.isDeclaration()) {
            function.addFnAttr("target-cpu", (*host)->getTargetCPU());
            function.addFnAttr("target-features",
                               (*host)->getTargetFeatureString());
          }
        return optimizeForHost(llvmModule);
      };
  ExecutionEngineOptions engineOptions;
  engineOptions.transformer = optimize;
  engineOptions.enablePerfNotificationListener = options.perfProfile;
  engineOptions.jitCodeGenOptLevel =
      static_cast<llvm::CodeGenOptLevel>(std::min(options.optLevel, 3u));
  SmallVector<StringRef> libs = {NPU_MLIR_RUNTIME_DIR
                                 "/libmlir_c_runner_utils.so"};
  engineOptions.sharedLibPaths = libs;
  auto engine = ExecutionEngine::create(module, engineOptions);
  if (!engine)
    return module.emitError("cannot JIT the kernel: ")
           << llvm::toString(engine.takeError());
  MatmulIsa matmulIsa = selectMatmulIsa(options.maxVectorBits);
  const llvm::StringMap<void *> *asyncSymbols = nullptr;
  if (options.threads > 1) {
    FailureOr<const llvm::StringMap<void *> *> loaded =
        getAsyncRuntimeSymbols();
    if (failed(loaded))
      return module.emitError(
          "cannot load the async runtime from " NPU_MLIR_RUNTIME_DIR);
    asyncSymbols = *loaded;
  }
  (*engine)->registerSymbols([&](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap symbols = getRuntimeSymbols(interner, matmulIsa);
    if (asyncSymbols)
      for (const auto &[name, address] : *asyncSymbols)
        symbols[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(address),
                                   llvm::JITSymbolFlags::Exported};
    return symbols;
  });
  if (!kernel->checkSites.empty()) {
    llvm::Expected<void *> status = (*engine)->lookup("npu_checked_status");
    if (!status)
      return module.emitError("checked mode: ")
             << llvm::toString(status.takeError());
    kernel->checkStatus = static_cast<int64_t *>(*status);
  }
  // The engine generates machine code when a symbol is first looked up:
  // without this the first run would include it (tens of milliseconds).
  llvm::Expected<void (*)(void **)> packedEntry =
      (*engine)->lookupPacked("_mlir_ciface_" + entry.str());
  if (!packedEntry)
    return module.emitError("cannot JIT the kernel: ")
           << llvm::toString(packedEntry.takeError());
  kernel->packedEntry = *packedEntry;
  kernel->engine = std::move(*engine);
  return kernel;
}

CompiledKernel::~CompiledKernel() { releaseWorkspaceCache(); }

llvm::Error CompiledKernel::run(MutableArrayRef<HostArray> args) {
  if (args.size() != arguments.size())
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "'" + entry + "' takes " + std::to_string(arguments.size()) +
            " arguments, got " + std::to_string(args.size()));
  // The compiled code trusts its descriptors: a short array would be
  // overrun, data of another type misread.
  for (auto [i, array] : llvm::enumerate(args)) {
    std::string mismatch = arguments[i].describeMismatch(array, i);
    if (!mismatch.empty())
      return llvm::createStringError(llvm::inconvertibleErrorCode(), mismatch);
  }
  // invokePacked takes a pointer to each argument; a memref argument of the
  // C interface is itself a pointer to its descriptor.
  std::vector<PackedArgument> packed;
  for (auto [i, array] : llvm::enumerate(args))
    packed.push_back(arguments[i].isMemRef ? packMemRef(array)
                                           : packScalar(array));
  // The status of the reports (ReportLowering.cpp): nothing fired yet.
  HostArray status;
  if (!reportMessages.empty()) {
    std::vector<int64_t> clear(reportMessages.size() + 1,
                               std::numeric_limits<int64_t>::max());
    clear[0] = 0;
    status = HostArray::fromValues<int64_t>(
        ElementKind::I64, clear, {static_cast<int64_t>(clear.size())});
    packed.push_back(packMemRef(status));
  }
  if (checkStatus)
    std::fill(checkStatus, checkStatus + 4, 0);
  std::vector<void *> descriptorPointers(packed.size());
  SmallVector<void *> invokeArgs;
  for (size_t i = 0; i < packed.size(); ++i) {
    descriptorPointers[i] = packed[i].address();
    bool memref = i >= args.size() || arguments[i].isMemRef;
    invokeArgs.push_back(memref ? &descriptorPointers[i] : packed[i].address());
  }
  packedEntry(invokeArgs.data());
  // Without threads nothing is pending and this returns at once.
  getPendingResumptions().waitUntilIdle();
  std::string mixedError = takeMixedLaunchError();
  if (!mixedError.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(), mixedError);
  if (llvm::Error error = checkBounds())
    return error;
  return checkReports(status);
}

llvm::Error CompiledKernel::checkBounds() const {
  if (!checkStatus || checkStatus[0] == 0)
    return llvm::Error::success();
  const auto &[location, op, reason] = checkSites[checkStatus[0] - 1];
  std::string message =
      (location.empty() ? "" : location + ": ") + "'" + op + "' op " +
      (reason.empty()
           ? llvm::formatv("index {0} is out of bounds for "
                           "dimension {1} of size {2}",
                           checkStatus[2], checkStatus[1], checkStatus[3])
                 .str()
           : reason);
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::Error CompiledKernel::checkReports(const HostArray &status) const {
  if (reportMessages.empty())
    return llvm::Error::success();
  std::vector<int64_t> slots = status.getValues<int64_t>();
  if (slots[0] == 0)
    return llvm::Error::success();
  for (auto [i, message] : llvm::enumerate(reportMessages))
    if (slots[i + 1] != std::numeric_limits<int64_t>::max())
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          dev::formatReportedRow(message, slots[i + 1]));
  llvm_unreachable("a report fired without its row");
}

LogicalResult npu::jit::runJit(ModuleOp module, StringRef entry,
                               MutableArrayRef<HostArray> args,
                               const JitOptions &options) {
  FailureOr<std::unique_ptr<CompiledKernel>> kernel =
      CompiledKernel::compile(module, entry, options);
  if (failed(kernel))
    return failure();
  if (llvm::Error error = (*kernel)->run(args)) {
    // At the location only: by now the module is lowered to LLVM, and
    // printing it under the error would bury the message.
    Operation *function = module.lookupSymbol(entry);
    return emitError(function ? function->getLoc() : module.getLoc(),
                     "cannot run '")
           << entry << "': " << llvm::toString(std::move(error));
  }
  return success();
}
