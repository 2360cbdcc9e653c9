//===- LayoutAlign.h - LayoutAlignToNPU as a library ------------*- C++ -*-===//
//
// The steps of the npu-layout-align pass, for tools and tests that drive
// them one by one: reduce a function to a LayoutProblem, solve it (see
// LayoutAssignment.h), write the solution back, verify the result.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_TRANSFORMS_LAYOUTALIGN_H
#define NPU_TRANSFORMS_LAYOUTALIGN_H

#include "npu/Transforms/LayoutAssignment.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"

namespace npu {

/// Hashes IR objects (ops, values) by address without scrambling it. Ops
/// are allocated in program order and mostly use values defined shortly
/// before, so nearby keys land in nearby buckets and lookups stay in cache;
/// a scrambling hash costs a cache miss per lookup once a map outgrows the
/// cache (measured: -20% pass time at 10^6 ops).
inline unsigned hashAddressInOrder(const void *address) {
  return static_cast<unsigned>(reinterpret_cast<uintptr_t>(address) >> 3);
}
struct OpAddressOrderInfo : llvm::DenseMapInfo<mlir::Operation *> {
  static unsigned getHashValue(const mlir::Operation *op) {
    return hashAddressInOrder(op);
  }
};
struct ValueAddressOrderInfo : llvm::DenseMapInfo<mlir::Value> {
  static unsigned getHashValue(mlir::Value value) {
    return hashAddressInOrder(value.getAsOpaquePointer());
  }
};

/// A function reduced to a LayoutProblem, with the way back to the IR.
struct LayoutGraph {
  LayoutProblem problem;
  /// The value each node stands for: an op result or a graph input.
  llvm::SmallVector<mlir::Value> values;
  /// The node of each adapting (BOTH) op.
  llvm::DenseMap<mlir::Operation *, unsigned, OpAddressOrderInfo> adaptiveOps;
};

/// The layout a graph input is stored in: its `#npu.layout` when the
/// function declares one, else BOTH (to be chosen) for an `npu.weight`
/// argument and `graphIOMode` for any other.
graph::AlignMode getGraphInputMode(mlir::BlockArgument arg,
                                   graph::AlignMode graphIOMode);

/// The layout `use` must be read in by its owner, whose own mode is
/// `userMode`: a graph output (an operand of the function's terminator) as
/// the function's result type declares it, or `graphIOMode`; a
/// channel_norm input in the layout opposite to its result; any other
/// operand in `userMode`.
graph::AlignMode getRequiredLayout(mlir::OpOperand &use,
                                   graph::AlignMode userMode,
                                   graph::AlignMode graphIOMode);

/// Builds the LayoutProblem of `func`. Emits a diagnostic and fails on what
/// the pass cannot handle: several blocks, ops with regions, ops without an
/// AlignMode rule that touch tensors with a layout, adapting ops with
/// several such results.
mlir::FailureOr<LayoutGraph> buildLayoutGraph(mlir::func::FuncOp func,
                                              graph::AlignMode graphIOMode,
                                              ConversionCostKind costKind);

/// What applyLayout changed.
struct LayoutChanges {
  int64_t channelNorms = 0;
  /// Priced as getConversionBytes prices.
  int64_t bytesConverted = 0;
  /// Whether a converted tensor has a dynamic dimension (counted as 1).
  bool dynamicShapes = false;
};

/// Writes `modes` (one per node of `graph`) into `func`: `#npu.layout`
/// encodings on every tensor (function type included) and one channel_norm
/// per (value, direction) that some consumer needs.
LayoutChanges applyLayout(mlir::func::FuncOp func, const LayoutGraph &graph,
                          llvm::ArrayRef<graph::AlignMode> modes,
                          graph::AlignMode graphIOMode);

/// Reports every layout conflict in `func` as an error at the consumer with
/// a note at the producer; fails if there is any.
mlir::LogicalResult verifyLayouts(mlir::func::FuncOp func,
                                  graph::AlignMode graphIOMode);

} // namespace npu

#endif // NPU_TRANSFORMS_LAYOUTALIGN_H
