//===- HostArrays.h - building and reading HostArrays in tests --*- C++ -*-===//

#ifndef NPU_TEST_UNITTESTS_HOSTARRAYS_H
#define NPU_TEST_UNITTESTS_HOSTARRAYS_H

#include "npu/Runtime/HostArray.h"

#include "llvm/ADT/ArrayRef.h"

#include <cstring>
#include <vector>

namespace npu::testing {

/// An array of `kind` holding `values` (row-major) with `shape`.
template <typename T>
HostArray makeArray(ElementKind kind, const std::vector<T> &values,
                    llvm::ArrayRef<int64_t> shape) {
  HostArray a;
  a.kind = kind;
  a.shape.assign(shape.begin(), shape.end());
  a.data.resize(values.size() * sizeof(T));
  if (!values.empty())
    std::memcpy(a.data.data(), values.data(), a.data.size());
  return a;
}

/// The elements of `a` as T.
template <typename T> std::vector<T> valuesOf(const HostArray &a) {
  std::vector<T> v(a.data.size() / sizeof(T));
  if (!v.empty())
    std::memcpy(v.data(), a.data.data(), v.size() * sizeof(T));
  return v;
}

} // namespace npu::testing

#endif // NPU_TEST_UNITTESTS_HOSTARRAYS_H
