//===- L2CacheTest.cpp - the simulator's L2 against its definition --------===//
//
// The L2 (npu/Simulator/L2Cache.h) against a reference written from the
// definition: per set, a list of lines in order of last use, the front
// replaced; reads that miss fetch, writes allocate without fetching, a
// dirty line replaced is written back. Random access streams over a small
// cache must give the same hits, misses and write-backs, access by access.
//
//===----------------------------------------------------------------------===//

#include "npu/Simulator/L2Cache.h"

#include "gtest/gtest.h"

#include <list>
#include <random>
#include <utility>

using namespace npu::sim;

namespace {

/// Each set as a list of (line, dirty), least recently used first.
class ReferenceL2 {
public:
  ReferenceL2(int64_t bytes, int64_t lineBytes, int64_t ways)
      : lineBytes(lineBytes), ways(ways), sets(bytes / (lineBytes * ways)) {}

  void access(uint64_t address, int64_t size, bool write,
              L2Cache::Outcome &outcome) {
    for (uint64_t line = address / lineBytes;
         line <= (address + size - 1) / lineBytes; ++line) {
      auto &set = sets[line % sets.size()];
      auto it = set.begin();
      while (it != set.end() && it->first != line)
        ++it;
      bool dirty = write;
      if (it != set.end()) {
        ++outcome.hits;
        dirty |= it->second;
        set.erase(it);
      } else {
        ++outcome.misses;
        if (static_cast<int64_t>(set.size()) == ways) {
          outcome.writebacks += set.front().second;
          set.pop_front();
        }
      }
      set.push_back({line, dirty});
    }
  }

private:
  int64_t lineBytes, ways;
  std::vector<std::list<std::pair<uint64_t, bool>>> sets;
};

TEST(L2CacheTest, MatchesTheReferenceOnRandomStreams) {
  std::mt19937_64 rng(5);
  for (int64_t ways : {1, 2, 4}) {
    // 8 sets of 64-byte lines; addresses over 64 lines' worth, so that
    // sets overflow and lines come back.
    L2Cache cache(8 * ways * 64, 64, ways);
    ReferenceL2 reference(8 * ways * 64, 64, ways);
    std::uniform_int_distribution<uint64_t> address(0, 64 * 64 - 1);
    std::uniform_int_distribution<int64_t> size(1, 200);
    for (int i = 0; i < 20000; ++i) {
      uint64_t at = address(rng);
      int64_t bytes = size(rng);
      bool write = rng() % 3 == 0;
      L2Cache::Outcome got, want;
      cache.access(at, bytes, write, got);
      reference.access(at, bytes, write, want);
      ASSERT_EQ(got.hits, want.hits) << "access " << i << ", ways " << ways;
      ASSERT_EQ(got.misses, want.misses) << "access " << i;
      ASSERT_EQ(got.writebacks, want.writebacks) << "access " << i;
    }
  }
}

TEST(L2CacheTest, LeastRecentlyUsedGoesFirst) {
  // One set of two 64-byte lines: lines 0 and 1 fill it; touching 0 makes
  // 1 the least recently used, so line 2 replaces 1 and 0 still hits.
  L2Cache cache(128, 64, 2);
  L2Cache::Outcome o;
  cache.access(0, 64, /*write=*/false, o);
  cache.access(64, 64, /*write=*/true, o);
  cache.access(0, 1, /*write=*/false, o);
  cache.access(128, 64, /*write=*/false, o);
  EXPECT_EQ(o.misses, 3);
  EXPECT_EQ(o.hits, 1);
  // Line 1 was dirty: its replacement wrote it back.
  EXPECT_EQ(o.writebacks, 1);
  L2Cache::Outcome again;
  cache.access(0, 64, /*write=*/false, again);
  EXPECT_EQ(again.hits, 1);
  EXPECT_EQ(cache.countDirty(), 0);
}

TEST(L2CacheTest, NoCapacityIsNoCache) {
  L2Cache none(0, 128, 16);
  EXPECT_FALSE(none.isEnabled());
}

} // namespace
