//===- KernelRuntime.h - what the JIT-compiled kernels call -----*- C++ -*-===//

#ifndef NPU_LIB_JIT_KERNELRUNTIME_H
#define NPU_LIB_JIT_KERNELRUNTIME_H

#include "npu/JIT/MatmulKernel.h"

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

} // namespace npu::jit

#endif // NPU_LIB_JIT_KERNELRUNTIME_H
