//===- Runtime.h - functions the JIT-compiled kernels call ------*- C++ -*-===//

#ifndef NPU_LIB_JIT_RUNTIME_H
#define NPU_LIB_JIT_RUNTIME_H

#include "npu/JIT/MatmulKernel.h"

#include "mlir/Pass/Pass.h"
#include "llvm/ExecutionEngine/Orc/Core.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"

namespace npu::jit {

/// The runtime's symbols (the functions the lowerings of npudev.vsort,
/// npudev.vunique, npudev.matmul and mixed launches call), for
/// ExecutionEngine::registerSymbols; matmuls run `matmulIsa`'s kernel.
llvm::orc::SymbolMap getRuntimeSymbols(llvm::orc::MangleAndInterner interner,
                                       MatmulIsa matmulIsa);

/// The error of the mixed launches run from this thread since the last
/// call (empty if none failed), and clears it.
std::string takeMixedLaunchError();

/// Completes the calls npu-lower-device-to-loops left for mixed launches
/// (`__npu_mixed_launch_<n>`), once the module is in the LLVM dialect: the
/// captured values go into a stack struct, each region's function gets an
/// entry taking (task, struct pointer), and the call becomes
/// npu_rt_run_mixed with `threads` running at once (MixedLaunchCalls.cpp).
std::unique_ptr<mlir::Pass> createLowerMixedLaunchCalls(int64_t threads);

} // namespace npu::jit

#endif // NPU_LIB_JIT_RUNTIME_H
