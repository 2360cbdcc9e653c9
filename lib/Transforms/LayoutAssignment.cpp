//===- LayoutAssignment.cpp - greedy and optimal layout assignment --------===//
//
// Greedy (the LayoutAlignToNPU design's greedy one-pass algorithm): one
// pass in topological order; a BOTH node takes the mode of its leader
// (broadcast ops) or of its first producer in topological order, which is
// also the producers' common mode when they agree. A BOTH node without
// producers (a weight or constant, which the design's graphs do not have)
// is stored the way its fixed consumers read it when they agree, else
// NALIGN. O(nodes + edges).
//
// Optimal: a minimum s-t cut. The source side is ALIGN, the sink side
// NALIGN; fixed nodes are contracted into the terminals. Converting a value
// is paid once however many consumers need it, so each value with several
// consumers gets one auxiliary node per direction:
//   to_nalign:  v -(price)-> a -(inf)-> each consumer   (cut iff v in S and
//                                                        a consumer in T)
//   to_align:   each consumer -(inf)-> b -(price)-> v   (cut iff v in T and
//                                                        a consumer in S)
// A free node also pays its padding bytes when aligned (v -(pad)-> t), and a
// to_align conversion pays the padding of its aligned copy. Prices and
// padding are combined lexicographically as price * M + padding with M
// larger than all padding, so padding only breaks ties. Of the optimal cuts
// the one with the smallest source side is read, preferring NALIGN.
// O(nodes + edges) to build; Dinic's algorithm to solve (see MaxFlow.cpp).
//
//===----------------------------------------------------------------------===//

#include "npu/Transforms/LayoutAssignment.h"
#include "npu/Support/MaxFlow.h"

using namespace npu;
using namespace npu::graph;
using llvm::ArrayRef;
using llvm::SmallVector;
using Capacity = MaxFlow::Capacity;

static SmallVector<AlignMode> solveGreedy(const LayoutProblem &problem) {
  SmallVector<AlignMode> modes(problem.nodes.size(), AlignMode::NALIGN);
  for (auto [v, node] : llvm::enumerate(problem.nodes)) {
    if (node.mode != AlignMode::BOTH)
      modes[v] = node.mode;
    else if (node.leader)
      modes[v] = modes[*node.leader];
    else if (!node.producers.empty())
      modes[v] = modes[*llvm::min_element(node.producers)];
    else if (node.neededAligned && !node.neededDense)
      modes[v] = AlignMode::ALIGN;
  }
  return modes;
}

namespace {
/// Builds and solves the cut network of a LayoutProblem.
class CutBuilder {
public:
  explicit CutBuilder(const LayoutProblem &problem) : problem(problem) {
    source = graph.addNode();
    sink = graph.addNode();
    Capacity totalPadding = 0, totalPrice = 0;
    for (const LayoutProblem::Node &node : problem.nodes) {
      totalPadding += node.alignedPadding;
      totalPrice += node.conversionCost;
    }
    paddingScale = totalPadding + 1;
    // Every finite edge weighs at most price * M + padding; their sum bounds
    // any finite cut.
    infinity = 2 * (totalPrice * paddingScale + totalPadding) + 1;
  }

  SmallVector<AlignMode> solve() {
    for (const LayoutProblem::Node &node : problem.nodes)
      vertex.push_back(node.mode == AlignMode::ALIGN    ? source
                       : node.mode == AlignMode::NALIGN ? sink
                                                        : graph.addNode());
    for (auto [v, node] : llvm::enumerate(problem.nodes))
      addNodeTerms(v, node);
    graph.solve(source, sink);
    SmallVector<AlignMode> modes;
    for (unsigned x : vertex)
      modes.push_back(x == source || (x != sink && graph.isOnSourceSide(x))
                          ? AlignMode::ALIGN
                          : AlignMode::NALIGN);
    return modes;
  }

private:
  Capacity weight(int64_t price, int64_t padding) const {
    return Capacity(price) * paddingScale + padding;
  }

  void addNodeTerms(unsigned v, const LayoutProblem::Node &node) {
    unsigned x = vertex[v];
    bool isFree = x != source && x != sink;
    if (isFree && node.alignedPadding > 0)
      graph.addEdge(x, sink, node.alignedPadding);
    SmallVector<unsigned, 4> consumers;
    for (unsigned c : node.freeConsumers)
      consumers.push_back(vertex[c]);
    addToDenseTerm(x, consumers, node.neededDense,
                   weight(node.conversionCost, 0));
    addToAlignedTerm(x, consumers, node.neededAligned,
                     weight(node.conversionCost, node.alignedPadding));
  }

  /// Pays `w` when x is ALIGN and a consumer is NALIGN.
  void addToDenseTerm(unsigned x, SmallVector<unsigned, 4> consumers,
                      bool neededDense, Capacity w) {
    if (x == sink || (x == source && neededDense))
      return; // Never paid, or always paid: no influence on the cut.
    if (neededDense)
      consumers.push_back(sink);
    if (consumers.empty())
      return;
    if (consumers.size() == 1) {
      graph.addEdge(x, consumers.front(), w);
      return;
    }
    unsigned shared = graph.addNode();
    graph.addEdge(x, shared, w);
    for (unsigned c : consumers)
      graph.addEdge(shared, c, infinity);
  }

  /// Pays `w` when x is NALIGN and a consumer is ALIGN.
  void addToAlignedTerm(unsigned x, SmallVector<unsigned, 4> consumers,
                        bool neededAligned, Capacity w) {
    if (x == source || (x == sink && neededAligned))
      return;
    if (neededAligned)
      consumers.push_back(source);
    if (consumers.empty())
      return;
    if (consumers.size() == 1) {
      graph.addEdge(consumers.front(), x, w);
      return;
    }
    unsigned shared = graph.addNode();
    graph.addEdge(shared, x, w);
    for (unsigned c : consumers)
      graph.addEdge(c, shared, infinity);
  }

  const LayoutProblem &problem;
  MaxFlow graph;
  unsigned source, sink;
  Capacity paddingScale, infinity;
  SmallVector<unsigned> vertex;
};
} // namespace

SmallVector<AlignMode> npu::solveLayoutProblem(const LayoutProblem &problem,
                                               LayoutStrategy strategy) {
  if (strategy == LayoutStrategy::Greedy)
    return solveGreedy(problem);
  return CutBuilder(problem).solve();
}

LayoutCost npu::evaluateLayout(const LayoutProblem &problem,
                               ArrayRef<AlignMode> modes) {
  LayoutCost cost;
  for (auto [v, node] : llvm::enumerate(problem.nodes)) {
    bool needAligned = node.neededAligned, needDense = node.neededDense;
    for (unsigned c : node.freeConsumers) {
      needAligned |= modes[c] == AlignMode::ALIGN;
      needDense |= modes[c] == AlignMode::NALIGN;
    }
    bool aligned = modes[v] == AlignMode::ALIGN;
    if (aligned || needAligned)
      cost.paddingBytes += node.alignedPadding;
    if (aligned ? needDense : needAligned) {
      ++cost.conversions;
      cost.price += node.conversionCost;
    }
  }
  return cost;
}
