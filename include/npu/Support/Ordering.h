//===- Ordering.h - the element order of sort and unique --------*- C++ -*-===//
//
// Shared by the simulator and the JIT runtime so both sort identically:
// ascending, NaNs last (so the order is a strict weak one), stable.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_SUPPORT_ORDERING_H
#define NPU_SUPPORT_ORDERING_H

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

namespace npu {

/// Whether `a` sorts before `b`: ascending, NaNs after every number.
template <typename T> bool sortsBefore(T a, T b) {
  if constexpr (std::is_floating_point_v<T>)
    return !std::isnan(a) && (std::isnan(b) || a < b);
  else
    return a < b;
}

/// Sorts `values` stably in sortsBefore order.
template <typename T> void sortValues(std::vector<T> &values) {
  std::stable_sort(values.begin(), values.end(), sortsBefore<T>);
}

/// Sorts `values` and keeps one of each run of equal values (NaNs are never
/// equal, so each is kept).
template <typename T> void uniqueValues(std::vector<T> &values) {
  sortValues(values);
  values.erase(std::unique(values.begin(), values.end()), values.end());
}

} // namespace npu

#endif // NPU_SUPPORT_ORDERING_H
