//===- MaxFlow.h - maximum flow / minimum s-t cut ---------------*- C++ -*-===//

#ifndef NPU_SUPPORT_MAXFLOW_H
#define NPU_SUPPORT_MAXFLOW_H

#include "llvm/ADT/SmallVector.h"

#include <cstdint>

namespace npu {

/// A directed flow network solved with Dinic's algorithm. Capacities are
/// 128-bit so that callers can encode lexicographic (primary, secondary)
/// costs as `primary * M + secondary`.
///
/// Usage: addNode() / addEdge() to build, then solve(s, t) once; afterwards
/// isOnSourceSide() reads the minimum cut with the smallest source side.
class MaxFlow {
public:
  using Capacity = __int128;

  /// Adds a node and returns its index.
  unsigned addNode() { return numNodes++; }
  unsigned getNumNodes() const { return numNodes; }

  /// Adds an edge u -> v with capacity `cap` (and its residual reverse).
  void addEdge(unsigned u, unsigned v, Capacity cap);

  /// Computes the maximum s-t flow, equal to the minimum cut's capacity.
  Capacity solve(unsigned s, unsigned t);

  /// After solve(): whether `v` is reachable from s in the residual network,
  /// i.e. on the source side of the minimum cut whose source side is
  /// smallest.
  bool isOnSourceSide(unsigned v) const { return sourceSide[v]; }

private:
  bool buildLevels(unsigned s, unsigned t);
  Capacity augmentBlockingFlow(unsigned s, unsigned t);
  void markSourceSide(unsigned s);

  unsigned numNodes = 0;
  // Edge e goes from[e] -> to[e]; its residual twin is e ^ 1.
  llvm::SmallVector<unsigned> from, to;
  llvm::SmallVector<Capacity> residual;
  // Compressed adjacency, built by solve().
  llvm::SmallVector<unsigned> firstEdge, adjacency;
  llvm::SmallVector<int> level;
  llvm::SmallVector<unsigned> nextArc;
  llvm::SmallVector<bool> sourceSide;
};

} // namespace npu

#endif // NPU_SUPPORT_MAXFLOW_H
