//===- LayoutAssignment.h - the layout assignment problem -------*- C++ -*-===//
//
// LayoutAlignToNPU reduces a function to a LayoutProblem: one node per
// producer of a layout-relevant tensor (a graph input or an op), in
// topological order, with the modes the rules fix, what converting its
// value costs, and who consumes it in which mode. The strategies solve that
// problem without looking at the IR, which is what the property tests check
// against brute force.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_TRANSFORMS_LAYOUTASSIGNMENT_H
#define NPU_TRANSFORMS_LAYOUTASSIGNMENT_H

#include "npu/Dialect/NPU/NPUDialect.h"

#include "llvm/ADT/SmallVector.h"

namespace npu {

/// How LayoutAlignToNPU picks the modes of BOTH ops.
enum class LayoutStrategy {
  /// The LayoutAlignToNPU design's greedy one-pass rule: a BOTH op follows
  /// its producers.
  Greedy,
  /// Minimum total conversion cost (a minimum s-t cut), then fewest padding
  /// bytes.
  Optimal,
};

/// What a channel_norm costs.
enum class ConversionCostKind {
  /// The bytes it moves: the value read in one layout, written in the other.
  Bytes,
  /// One per channel_norm.
  Count,
};

struct LayoutProblem {
  struct Node {
    /// ALIGN or NALIGN when a rule fixes the mode; BOTH when it is chosen.
    graph::AlignMode mode = graph::AlignMode::BOTH;
    /// Greedy only: the node a BOTH broadcast op follows (the producer of
    /// its full-size operand).
    std::optional<unsigned> leader;
    /// Greedy only: producers of the node's layout-relevant operands.
    llvm::SmallVector<unsigned, 2> producers;
    /// BOTH nodes that consume this node's value in their own mode
    /// (deduplicated).
    llvm::SmallVector<unsigned, 2> freeConsumers;
    /// Whether a consumer whose mode is fixed needs the value aligned or
    /// dense (fixed ops, channel_norm inputs, graph outputs). Greedy reads
    /// them for a BOTH node without producers.
    bool neededAligned = false;
    bool neededDense = false;
    /// Price of one channel_norm of this node's value.
    int64_t conversionCost = 0;
    /// Bytes the aligned form of the value adds over the dense one.
    int64_t alignedPadding = 0;
  };

  llvm::SmallVector<Node> nodes;
};

/// The cost of an assignment: conversions needed, their total price, and
/// the padding bytes of every tensor stored aligned (values and converted
/// copies).
struct LayoutCost {
  int64_t conversions = 0;
  int64_t price = 0;
  int64_t paddingBytes = 0;

  bool operator==(const LayoutCost &other) const {
    return conversions == other.conversions && price == other.price &&
           paddingBytes == other.paddingBytes;
  }
};

/// Returns ALIGN or NALIGN for every node of `problem`.
llvm::SmallVector<graph::AlignMode>
solveLayoutProblem(const LayoutProblem &problem, LayoutStrategy strategy);

/// Evaluates `modes` (ALIGN or NALIGN per node) on `problem`.
LayoutCost evaluateLayout(const LayoutProblem &problem,
                          llvm::ArrayRef<graph::AlignMode> modes);

} // namespace npu

#endif // NPU_TRANSFORMS_LAYOUTASSIGNMENT_H
