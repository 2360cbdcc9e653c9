//===- MaxFlowTest.cpp - Dinic's algorithm --------------------------------===//

#include "npu/Support/MaxFlow.h"

#include "gtest/gtest.h"

#include <random>

using namespace npu;

namespace {

TEST(MaxFlowTest, TextbookNetwork) {
  // The network of CLRS figure 26.6: maximum flow 23.
  MaxFlow g;
  for (int i = 0; i < 6; ++i)
    g.addNode();
  g.addEdge(0, 1, 16);
  g.addEdge(0, 2, 13);
  g.addEdge(2, 1, 4);
  g.addEdge(1, 3, 12);
  g.addEdge(3, 2, 9);
  g.addEdge(2, 4, 14);
  g.addEdge(4, 3, 7);
  g.addEdge(3, 5, 20);
  g.addEdge(4, 5, 4);
  EXPECT_TRUE(g.solve(0, 5) == 23);
  // The minimum cut {s, v1, v2, v4} | {v3, t}: 12 + 7 + 4 = 23.
  EXPECT_TRUE(g.isOnSourceSide(0) && g.isOnSourceSide(1) &&
              g.isOnSourceSide(2) && g.isOnSourceSide(4));
  EXPECT_FALSE(g.isOnSourceSide(3) || g.isOnSourceSide(5));
}

TEST(MaxFlowTest, DisconnectedAndLongChain) {
  MaxFlow g;
  unsigned s = g.addNode(), t = g.addNode();
  // A chain of 200000 nodes with a bottleneck in the middle: the path
  // search must not recurse.
  unsigned prev = s;
  for (int i = 0; i < 200000; ++i) {
    unsigned v = g.addNode();
    g.addEdge(prev, v, i == 100000 ? 3 : 1000);
    prev = v;
  }
  g.addEdge(prev, t, 1000);
  g.addNode(); // Isolated.
  EXPECT_TRUE(g.solve(s, t) == 3);
  EXPECT_TRUE(g.isOnSourceSide(2 + 99999));
  EXPECT_FALSE(g.isOnSourceSide(2 + 100000));
}

/// Minimum cut by enumerating every source side, on small random networks.
TEST(MaxFlowTest, MatchesBruteForceCut) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 500; ++trial) {
    unsigned n = 2 + rng() % 8;
    MaxFlow g;
    for (unsigned i = 0; i < n; ++i)
      g.addNode();
    std::vector<std::tuple<unsigned, unsigned, int>> edges;
    for (unsigned e = 0, m = rng() % 20; e < m; ++e) {
      unsigned u = rng() % n, v = rng() % n;
      int cap = rng() % 10;
      if (u == v)
        continue;
      edges.emplace_back(u, v, cap);
      g.addEdge(u, v, cap);
    }
    long best = std::numeric_limits<long>::max();
    for (unsigned mask = 0; mask < (1u << n); ++mask) {
      if (!(mask & 1) || (mask >> (n - 1) & 1))
        continue; // s = 0 on the source side, t = n - 1 on the sink side.
      long cut = 0;
      for (auto [u, v, cap] : edges)
        if ((mask >> u & 1) && !(mask >> v & 1))
          cut += cap;
      best = std::min(best, cut);
    }
    EXPECT_TRUE(g.solve(0, n - 1) == best) << "trial " << trial;
  }
}

} // namespace
