//===- OrderingTest.cpp - the radix path of sort gives the stable order ---===//
//
// Property test: for random integer keys (signed, with many repeats, and
// with digits all keys share), the radix sort gives exactly what
// std::stable_sort gives, keys and the values riding with them, at
// lengths on both sides of the radix threshold.
//
//===----------------------------------------------------------------------===//

#include "npu/Support/Ordering.h"

#include "gtest/gtest.h"

#include <numeric>
#include <random>

using namespace npu;

namespace {

/// The stable order by index, independent of the code under test.
template <typename K>
void stableReference(std::vector<K> &keys, std::vector<int32_t> &values) {
  std::vector<size_t> order(keys.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return keys[a] < keys[b]; });
  std::vector<K> k;
  std::vector<int32_t> v;
  for (size_t i : order) {
    k.push_back(keys[i]);
    v.push_back(values[i]);
  }
  keys = k;
  values = v;
}

template <typename K> void checkRandomKeys(uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (size_t n : {0, 1, 7, 255, 256, 257, 1000, 20000}) {
    for (int64_t range : {int64_t(4), int64_t(1) << 20, int64_t(0)}) {
      std::vector<K> keys(n);
      for (K &k : keys)
        k = range ? K(int64_t(rng() % range) - range / 2) : K(rng());
      std::vector<int32_t> values(n);
      std::iota(values.begin(), values.end(), 0);
      std::vector<K> wantKeys = keys, plain = keys;
      std::vector<int32_t> wantValues = values;
      stableReference(wantKeys, wantValues);
      sortPairs(keys, values);
      EXPECT_EQ(keys, wantKeys) << "n " << n << " range " << range;
      EXPECT_EQ(values, wantValues) << "n " << n << " range " << range;
      sortValues(plain);
      EXPECT_EQ(plain, wantKeys) << "n " << n << " range " << range;
    }
  }
}

TEST(Ordering, RadixSortIsTheStableSortI32) { checkRandomKeys<int32_t>(1); }
TEST(Ordering, RadixSortIsTheStableSortI64) { checkRandomKeys<int64_t>(2); }
TEST(Ordering, RadixSortIsTheStableSortI8) { checkRandomKeys<int8_t>(3); }

/// Keys whose high bytes all agree (i64 keys of a small shape) skip those
/// digits and still sort, the most negative and largest values included.
TEST(Ordering, ExtremeKeys) {
  std::vector<int64_t> keys;
  for (int i = 0; i < 300; ++i)
    keys.push_back(i % 3 == 0   ? std::numeric_limits<int64_t>::min()
                   : i % 3 == 1 ? std::numeric_limits<int64_t>::max()
                                : int64_t(i));
  std::vector<int64_t> want = keys;
  std::stable_sort(want.begin(), want.end());
  sortValues(keys);
  EXPECT_EQ(keys, want);
}

} // namespace
