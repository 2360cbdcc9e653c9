//===- Jit.h - run npudev kernels natively ----------------------*- C++ -*-===//
//
// Lowers an npudev module to the LLVM dialect (npu-lower-device-to-loops,
// then upstream conversions) and runs a function with MLIR's
// ExecutionEngine at -O3, on the same host arrays the simulator takes
// (npu/Runtime). The JIT neither includes nor links the simulator.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_JIT_JIT_H
#define NPU_JIT_JIT_H

#include "npu/Runtime/HostArray.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <array>

namespace mlir {
class ExecutionEngine;
} // namespace mlir

namespace npu::jit {

struct JitOptions {
  /// LLVM optimization level of the generated code.
  unsigned optLevel = 3;
  /// Host threads running a launch's tasks; 1 runs them in order on the
  /// calling thread.
  int32_t threads = 1;
  /// Bounds-check every memory access (npu-guard-memory-accesses): a run
  /// that would go out of bounds fails, naming the op, the index and the
  /// dimension, as the simulator does.
  bool checked = false;
  /// The widest vectors the generated code and the runtime's kernels may
  /// use, in bits: 0 for whatever the host has, 256 for AVX2 at most (as on
  /// a host without AVX-512), 128 for no AVX at all. Lets one host run and
  /// test the code every narrower host gets.
  unsigned maxVectorBits = 0;
  /// Register the compiled code with Linux perf (a jit-<pid>.dump file in
  /// $JITDUMPDIR/.debug/jit, else the home or working directory's), for
  /// profiling. Off, a run leaves no file behind.
  bool perfProfile = false;
};

/// A kernel compiled to native code, to run any number of times.
class CompiledKernel {
public:
  /// Lowers `module` in place and compiles its function `entry`, which
  /// takes memrefs and scalars and returns nothing.
  static mlir::FailureOr<std::unique_ptr<CompiledKernel>>
  compile(mlir::ModuleOp module, llvm::StringRef entry,
          const JitOptions &options = {});
  ~CompiledKernel();

  /// Runs the kernel on `args` (one per argument; memrefs are passed by
  /// reference, so results land in them), after checking each against its
  /// argument's type as the simulator does, with the same messages.
  llvm::Error run(llvm::MutableArrayRef<HostArray> args);

private:
  CompiledKernel() = default;
  /// The error of the first report that fired, per the status buffer.
  llvm::Error checkReports(const HostArray &status) const;

  std::unique_ptr<mlir::ExecutionEngine> engine;
  std::string entry;
  /// The entry's packed wrapper, looked up (and so compiled to machine
  /// code) by compile(), so that no run pays for code generation.
  void (*packedEntry)(void **) = nullptr;
  llvm::SmallVector<ArgumentSpec> arguments;
  /// The messages of the kernel's npudev.report_rows, in program order;
  /// the compiled function takes their status buffer last.
  std::vector<std::string> reportMessages;
  /// In checked mode, the error of the failed check the status records.
  llvm::Error checkBounds() const;

  /// In checked mode, per check site: its location, the op it names and
  /// the reason ("" for an index, whose details the status holds).
  std::vector<std::array<std::string, 3>> checkSites;
  /// In checked mode, the kernel's @npu_checked_status: the failed site
  /// (from 1; 0 when none failed), then dimension, index and size.
  int64_t *checkStatus = nullptr;
};

/// Compiles `module`'s `entry` and runs it once on `args` (one per argument;
/// memrefs are passed by reference and written back in place). Fails with
/// a diagnostic if the module cannot be lowered or the function is missing.
mlir::LogicalResult runJit(mlir::ModuleOp module, llvm::StringRef entry,
                           llvm::MutableArrayRef<HostArray> args,
                           const JitOptions &options = {});

} // namespace npu::jit

#endif // NPU_JIT_JIT_H
