//===- HostArray.h - arrays exchanged with the executors --------*- C++ -*-===//
//
// The host side of a kernel argument, as both the simulator and the JIT take
// it: an element kind, a shape and row-major bytes.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_RUNTIME_HOSTARRAY_H
#define NPU_RUNTIME_HOSTARRAY_H

#include "npu/Runtime/ElementKind.h"

#include "llvm/ADT/SmallVector.h"

#include <vector>

namespace npu {

/// One argument of a kernel. Memref arguments are read from and written back
/// to it; scalar arguments are rank-0 arrays.
struct HostArray {
  ElementKind kind = ElementKind::F32;
  llvm::SmallVector<int64_t, 4> shape;
  std::vector<uint8_t> data;

  int64_t getNumElements() const;
};

} // namespace npu

#endif // NPU_RUNTIME_HOSTARRAY_H
