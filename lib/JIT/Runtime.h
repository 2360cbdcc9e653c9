//===- Runtime.h - functions the JIT-compiled kernels call ------*- C++ -*-===//

#ifndef NPU_LIB_JIT_RUNTIME_H
#define NPU_LIB_JIT_RUNTIME_H

#include "llvm/ExecutionEngine/Orc/Core.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"

namespace npu::jit {

/// The runtime's symbols (npudev.vsort and npudev.vunique lowerings), for
/// ExecutionEngine::registerSymbols.
llvm::orc::SymbolMap getRuntimeSymbols(llvm::orc::MangleAndInterner interner);

} // namespace npu::jit

#endif // NPU_LIB_JIT_RUNTIME_H
