//===- Jit.h - run npudev kernels natively ----------------------*- C++ -*-===//
//
// Lowers an npudev module to the LLVM dialect (npu-lower-device-to-loops,
// then upstream conversions) and runs a function with MLIR's
// ExecutionEngine at -O3, on the same host arrays the simulator takes.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_JIT_JIT_H
#define NPU_JIT_JIT_H

#include "npu/Simulator/Simulator.h"

#include "mlir/IR/BuiltinOps.h"

namespace npu::jit {

struct JitOptions {
  /// LLVM optimization level of the generated code.
  unsigned optLevel = 3;
};

/// Lowers `module` in place and runs `entry` on `args` (one per argument;
/// memrefs are passed by reference and written back in place). Fails with
/// a diagnostic if the module cannot be lowered or the function is missing.
mlir::LogicalResult runJit(mlir::ModuleOp module, llvm::StringRef entry,
                           llvm::MutableArrayRef<sim::HostArray> args,
                           const JitOptions &options = {});

/// Lowers `module` in place to the LLVM dialect, as runJit does.
mlir::LogicalResult lowerToLLVMDialect(mlir::ModuleOp module);

} // namespace npu::jit

#endif // NPU_JIT_JIT_H
