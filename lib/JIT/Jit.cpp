//===- Jit.cpp - run npudev kernels with MLIR's ExecutionEngine -----------===//
//
// Pipeline: npu-lower-device-to-loops, scf to cf (scf.parallel becomes a
// sequential loop nest), math to libm (so exp/log/tanh call the same libm
// the simulator does), strided-metadata expansion, then arith/math/memref/
// func/cf to LLVM. The entry gets a C interface and is called through
// ExecutionEngine::invokePacked with memref descriptors built around the
// host arrays, so results land in place.
//
//===----------------------------------------------------------------------===//

#include "npu/JIT/Jit.h"
#include "Runtime.h"
#include "npu/Transforms/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/Support/TargetSelect.h"

#include <cstring>

using namespace mlir;
using namespace npu;
using namespace npu::jit;

LogicalResult npu::jit::lowerToLLVMDialect(ModuleOp module) {
  PassManager pm(module.getContext());
  pm.addPass(createLowerDeviceToLoops());
  pm.addPass(createConvertSCFToCFPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  return pm.run(module);
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

static PackedArgument packMemRef(sim::HostArray &array) {
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

static PackedArgument packScalar(const sim::HostArray &array) {
  PackedArgument arg;
  arg.storage.assign(1, 0);
  std::memcpy(arg.storage.data(), array.data.data(),
              std::min<size_t>(array.data.size(), sizeof(int64_t)));
  return arg;
}

LogicalResult npu::jit::runJit(ModuleOp module, StringRef entry,
                               MutableArrayRef<sim::HostArray> args,
                               const JitOptions &options) {
  auto func = module.lookupSymbol<func::FuncOp>(entry);
  if (!func || func.isExternal())
    return module.emitError("no function '") << entry << "' with a body";
  if (func.getNumArguments() != args.size())
    return func.emitError("the JIT needs ")
           << func.getNumArguments() << " arguments, got " << args.size();
  if (func.getNumResults() != 0)
    return func.emitError("kernels return through memref arguments; this "
                          "function has results");
  SmallVector<bool> isMemRef;
  for (Type type : func.getArgumentTypes())
    isMemRef.push_back(isa<MemRefType>(type));
  func->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                UnitAttr::get(module.getContext()));
  // Argument annotations (npudev.output) mean nothing to LLVM.
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    func.setArgAttrs(i, DictionaryAttr::get(module.getContext()));
  if (failed(lowerToLLVMDialect(module)))
    return failure();

  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  registerBuiltinDialectTranslation(*module.getContext());
  registerLLVMDialectTranslation(*module.getContext());
  ExecutionEngineOptions engineOptions;
  engineOptions.transformer =
      makeOptimizingTransformer(options.optLevel, /*sizeLevel=*/0, nullptr);
  engineOptions.jitCodeGenOptLevel =
      static_cast<llvm::CodeGenOptLevel>(std::min(options.optLevel, 3u));
  std::string runnerUtils = NPU_MLIR_RUNTIME_DIR "/libmlir_c_runner_utils.so";
  SmallVector<StringRef> libs = {runnerUtils};
  engineOptions.sharedLibPaths = libs;
  auto engine = ExecutionEngine::create(module, engineOptions);
  if (!engine)
    return module.emitError("cannot JIT the kernel: ")
           << llvm::toString(engine.takeError());
  (*engine)->registerSymbols(getRuntimeSymbols);

  // invokePacked takes a pointer to each argument; a memref argument of the
  // C interface is itself a pointer to its descriptor.
  std::vector<PackedArgument> packed;
  std::vector<void *> descriptorPointers(args.size());
  for (auto [i, array] : llvm::enumerate(args))
    packed.push_back(isMemRef[i] ? packMemRef(array) : packScalar(array));
  SmallVector<void *> invokeArgs;
  for (size_t i = 0; i < args.size(); ++i) {
    descriptorPointers[i] = packed[i].address();
    invokeArgs.push_back(isMemRef[i] ? &descriptorPointers[i]
                                     : packed[i].address());
  }
  if (llvm::Error error =
          (*engine)->invokePacked(("_mlir_ciface_" + entry).str(), invokeArgs))
    return module.emitError("cannot run '")
           << entry << "': " << llvm::toString(std::move(error));
  return success();
}
