//===- MaxFlow.cpp - Dinic's maximum flow ---------------------------------===//
//
// Dinic's algorithm: repeat { BFS levels from s; push a blocking flow along
// level-increasing edges with current-arc pointers } until t is unreachable.
// O(V^2 E) in the worst case; on the layout graphs of LayoutAlignToNPU,
// whose augmenting paths are short (a BOTH region between fixed ops), the
// number of phases is small and each phase is O(V + E). Both the BFS and
// the path search are iterative, so 10^6-node chains cannot exhaust the
// stack.
//
//===----------------------------------------------------------------------===//

#include "npu/Support/MaxFlow.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cassert>

using namespace npu;

void MaxFlow::addEdge(unsigned u, unsigned v, Capacity cap) {
  assert(u < numNodes && v < numNodes && cap >= 0 && "bad edge");
  from.append({u, v});
  to.append({v, u});
  residual.append({cap, 0});
}

bool MaxFlow::buildLevels(unsigned s, unsigned t) {
  level.assign(numNodes, -1);
  llvm::SmallVector<unsigned> queue = {s};
  level[s] = 0;
  for (size_t head = 0; head < queue.size(); ++head) {
    unsigned v = queue[head];
    for (unsigned i = firstEdge[v], e = firstEdge[v + 1]; i < e; ++i) {
      unsigned edge = adjacency[i];
      unsigned w = to[edge];
      if (residual[edge] > 0 && level[w] < 0) {
        level[w] = level[v] + 1;
        queue.push_back(w);
      }
    }
  }
  return level[t] >= 0;
}

MaxFlow::Capacity MaxFlow::augmentBlockingFlow(unsigned s, unsigned t) {
  nextArc.assign(firstEdge.begin(), firstEdge.end() - 1);
  Capacity total = 0;
  llvm::SmallVector<unsigned> path; // Edges from s to the current node.
  unsigned v = s;
  while (true) {
    if (v == t) {
      Capacity bottleneck = residual[path.front()];
      for (unsigned edge : path)
        bottleneck = std::min(bottleneck, residual[edge]);
      for (unsigned edge : path) {
        residual[edge] -= bottleneck;
        residual[edge ^ 1] += bottleneck;
      }
      total += bottleneck;
      // Retreat to the tail of the first saturated edge.
      auto saturated = llvm::find_if(
          path, [&](unsigned edge) { return residual[edge] == 0; });
      path.erase(saturated, path.end());
      v = path.empty() ? s : to[path.back()];
      continue;
    }
    unsigned &arc = nextArc[v];
    unsigned end = firstEdge[v + 1];
    for (; arc < end; ++arc) {
      unsigned edge = adjacency[arc];
      if (residual[edge] > 0 && level[to[edge]] == level[v] + 1)
        break;
    }
    if (arc < end) {
      path.push_back(adjacency[arc]);
      v = to[adjacency[arc]];
      continue;
    }
    // Dead end: no path to t through v in this phase.
    if (v == s)
      return total;
    level[v] = -1;
    v = from[path.pop_back_val()];
  }
}

void MaxFlow::markSourceSide(unsigned s) {
  sourceSide.assign(numNodes, false);
  llvm::SmallVector<unsigned> stack = {s};
  sourceSide[s] = true;
  while (!stack.empty()) {
    unsigned v = stack.pop_back_val();
    for (unsigned i = firstEdge[v], e = firstEdge[v + 1]; i < e; ++i) {
      unsigned edge = adjacency[i];
      if (residual[edge] > 0 && !sourceSide[to[edge]]) {
        sourceSide[to[edge]] = true;
        stack.push_back(to[edge]);
      }
    }
  }
}

MaxFlow::Capacity MaxFlow::solve(unsigned s, unsigned t) {
  assert(s != t && "source and sink must differ");
  // Counting sort of edge ids by tail node.
  firstEdge.assign(numNodes + 1, 0);
  for (unsigned u : from)
    ++firstEdge[u + 1];
  for (unsigned v = 0; v < numNodes; ++v)
    firstEdge[v + 1] += firstEdge[v];
  adjacency.resize(from.size());
  llvm::SmallVector<unsigned> fill(firstEdge.begin(), firstEdge.end() - 1);
  for (unsigned edge = 0, e = from.size(); edge < e; ++edge)
    adjacency[fill[from[edge]]++] = edge;

  Capacity flow = 0;
  while (buildLevels(s, t))
    flow += augmentBlockingFlow(s, t);
  markSourceSide(s);
  return flow;
}
