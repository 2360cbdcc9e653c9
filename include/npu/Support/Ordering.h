//===- Ordering.h - the element order of sort and unique --------*- C++ -*-===//
//
// Shared by the simulator and the JIT runtime so both sort identically:
// ascending, NaNs last (so the order is a strict weak one), stable. A
// stable sort's result is unique, so how it is computed is free: integer
// keys of any real length go through an LSD radix sort (8-bit digits,
// skipping digits all keys share), O(n) per digit, instead of O(n log n)
// comparisons.
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

/// Below this many elements a comparison sort beats the radix passes.
inline constexpr size_t kRadixSortMinLength = 256;

/// Stable LSD radix sort of integer `keys`, permuting `values` (when not
/// null) alongside. Signed keys order as signed: the sign bit is flipped.
template <typename K, typename V>
void radixSort(std::vector<K> &keys, std::vector<V> *values) {
  using U = std::make_unsigned_t<K>;
  constexpr unsigned bits = sizeof(K) * 8;
  const U flip = std::is_signed_v<K> ? U(U(1) << (bits - 1)) : U(0);
  size_t n = keys.size();
  std::vector<K> nextKeys(n);
  std::vector<V> nextValues(values ? n : 0);
  for (unsigned shift = 0; shift < bits; shift += 8) {
    auto digit = [&](K k) { return size_t((U(k) ^ flip) >> shift & 0xff); };
    size_t start[257] = {};
    for (K k : keys)
      ++start[digit(k) + 1];
    if (std::find(start + 1, start + 257, n) != start + 257)
      continue; // Every key has this digit.
    for (unsigned d = 1; d < 257; ++d)
      start[d] += start[d - 1];
    for (size_t i = 0; i < n; ++i) {
      size_t at = start[digit(keys[i])]++;
      nextKeys[at] = keys[i];
      if (values)
        nextValues[at] = (*values)[i];
    }
    keys.swap(nextKeys);
    if (values)
      values->swap(nextValues);
  }
}

/// Sorts `values` stably in sortsBefore order.
template <typename T> void sortValues(std::vector<T> &values) {
  if constexpr (std::is_integral_v<T>) {
    if (values.size() >= kRadixSortMinLength)
      return radixSort<T, char>(values, nullptr);
  }
  std::stable_sort(values.begin(), values.end(), sortsBefore<T>);
}

/// Sorts `values` and keeps one of each run of equal values (NaNs are never
/// equal, so each is kept).
template <typename T> void uniqueValues(std::vector<T> &values) {
  sortValues(values);
  values.erase(std::unique(values.begin(), values.end()), values.end());
}

/// Sorts `keys` stably in sortsBefore order and permutes `values` (same
/// length) alongside: a key-value sort.
template <typename K, typename V>
void sortPairs(std::vector<K> &keys, std::vector<V> &values) {
  if constexpr (std::is_integral_v<K>) {
    if (keys.size() >= kRadixSortMinLength)
      return radixSort(keys, &values);
  }
  std::vector<size_t> order(keys.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return sortsBefore(keys[a], keys[b]);
  });
  std::vector<K> sortedKeys(keys.size());
  std::vector<V> sortedValues(values.size());
  for (size_t i = 0; i < order.size(); ++i) {
    sortedKeys[i] = keys[order[i]];
    sortedValues[i] = values[order[i]];
  }
  keys.swap(sortedKeys);
  values.swap(sortedValues);
}

/// The two-finger merge of `a` and `b`: takes from `b` only when its next
/// key sorts strictly before `a`'s, so equal keys keep `a` first. Calls
/// `take(fromB, index)` once per output element, in output order.
template <typename K, typename Fn>
void mergeRuns(const std::vector<K> &a, const std::vector<K> &b, Fn take) {
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    bool fromB = j < b.size() && (i == a.size() || sortsBefore(b[j], a[i]));
    take(fromB, fromB ? j++ : i++);
  }
}

} // namespace npu

#endif // NPU_SUPPORT_ORDERING_H
