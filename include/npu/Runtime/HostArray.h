//===- HostArray.h - arrays exchanged with the executors --------*- C++ -*-===//
//
// The host side of a kernel argument, as both the simulator and the JIT take
// it: an element kind, a shape and row-major bytes.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_RUNTIME_HOSTARRAY_H
#define NPU_RUNTIME_HOSTARRAY_H

#include "npu/Runtime/ElementKind.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstring>

#include <vector>

namespace npu {

/// One argument of a kernel. Memref arguments are read from and written back
/// to it; scalar arguments are rank-0 arrays.
struct HostArray {
  ElementKind kind = ElementKind::F32;
  llvm::SmallVector<int64_t, 4> shape;
  std::vector<uint8_t> data;

  int64_t getNumElements() const;

  /// An array of `kind` holding `values` (row-major, T the element's C++
  /// type) with `shape`.
  template <typename T>
  static HostArray fromValues(ElementKind kind, const std::vector<T> &values,
                              llvm::ArrayRef<int64_t> shape) {
    HostArray a;
    a.kind = kind;
    a.shape.assign(shape.begin(), shape.end());
    a.data.resize(values.size() * sizeof(T));
    if (!values.empty())
      std::memcpy(a.data.data(), values.data(), a.data.size());
    return a;
  }

  /// The elements as T.
  template <typename T> std::vector<T> getValues() const {
    std::vector<T> v(data.size() / sizeof(T));
    if (!v.empty())
      std::memcpy(v.data(), data.data(), v.size() * sizeof(T));
    return v;
  }
};

} // namespace npu

#endif // NPU_RUNTIME_HOSTARRAY_H
