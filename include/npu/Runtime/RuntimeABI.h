//===- RuntimeABI.h - the functions compiled kernels call -------*- C++ -*-===//
//
// The names the JIT's lowering calls and the JIT's runtime defines
// (lib/JIT/KernelRuntime.cpp, MatmulKernel.cpp), in one place so that the two
// sides cannot drift apart. Functions called from func.func get MLIR's C
// interface (`_mlir_ciface_<name>`); npu_rt_run_mixed is called from the
// LLVM dialect by its plain name.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_RUNTIME_RUNTIMEABI_H
#define NPU_RUNTIME_RUNTIMEABI_H

#include "npu/Runtime/ElementKind.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace npu::abi {

/// What MLIR's C interface puts before a function's name.
inline constexpr llvm::StringLiteral kCInterfacePrefix = "_mlir_ciface_";

/// Runs a mixed launch's cube and vector tasks (LowerMixedLaunchCalls).
inline constexpr llvm::StringLiteral kRunMixed = "npu_rt_run_mixed";
/// A task sets / waits for a cross-core flag (MixedLaunchLowering).
inline constexpr llvm::StringLiteral kSetFlag = "npu_rt_set_flag";
inline constexpr llvm::StringLiteral kWaitFlag = "npu_rt_wait_flag";

/// `npu_rt_<what>_<suffix>_<suffix>...`: the runtime's function `what`
/// (matmul, sort, sort_kv, unique, merge, merge_kv) for elements of the
/// given suffixes.
inline std::string getFunctionName(llvm::StringRef what,
                                   llvm::ArrayRef<llvm::StringRef> suffixes) {
  std::string name = ("npu_rt_" + what).str();
  for (llvm::StringRef suffix : suffixes)
    name += ("_" + suffix).str();
  return name;
}

/// The suffix of `kind` in the runtime's sort, unique and merge functions,
/// if the runtime has them for it (npu/Runtime/SortTypes.def).
inline std::optional<llvm::StringRef> getSortSuffix(ElementKind kind) {
  llvm::StringRef name = getElementKindName(kind);
  for (llvm::StringRef sorted : {
#define NPU_RUNTIME_SORT_TYPE(SUFFIX, T) llvm::StringRef(#SUFFIX),
#include "npu/Runtime/SortTypes.def"
       })
    if (name == sorted)
      return sorted;
  return std::nullopt;
}

/// The suffix of `kind` in npu_rt_matmul_<suffix>: the float inputs the
/// cube's micro-kernels take.
inline std::optional<llvm::StringRef> getMatmulSuffix(ElementKind kind) {
  if (kind == ElementKind::F32 || kind == ElementKind::F16 ||
      kind == ElementKind::BF16)
    return llvm::StringRef(getElementKindName(kind));
  return std::nullopt;
}

} // namespace npu::abi

#endif // NPU_RUNTIME_RUNTIMEABI_H
