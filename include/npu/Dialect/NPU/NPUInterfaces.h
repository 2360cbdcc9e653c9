//===- NPUInterfaces.h - AlignMode and MoE interfaces -----------*- C++ -*-===//

#ifndef NPU_DIALECT_NPU_NPUINTERFACES_H
#define NPU_DIALECT_NPU_NPUINTERFACES_H

#include "mlir/IR/OpDefinition.h"
#include "npu/Dialect/NPU/NPUDialect.h"

namespace npu::graph {
class Conv2DOp;

/// Marks ops whose device kernel only exists for channel-aligned data.
template <typename ConcreteType>
class RequiresAlignedLayout
    : public mlir::OpTrait::TraitBase<ConcreteType, RequiresAlignedLayout> {};

/// Marks broadcast ops whose operand 1 is broadcast onto operand 0.
template <typename ConcreteType>
class BroadcastsSecondOperand
    : public mlir::OpTrait::TraitBase<ConcreteType, BroadcastsSecondOperand> {};

/// Marks ops whose result elements each depend only on the operand
/// elements at their index (numpy broadcasting).
template <typename ConcreteType>
class Elementwise : public mlir::OpTrait::TraitBase<ConcreteType, Elementwise> {
};

/// The operands of an MoE dispatch op by role: null where the op has no
/// such operand.
struct MoEOperands {
  mlir::Value gates, indices, locations, input, dispatch;
  int64_t capacity = 0, numExperts = 0;
  /// Whether gates, indices and locations are [k, samples] (moe_combine)
  /// rather than [samples].
  bool topK = false;
  /// What the result is: [samples, hidden] (backward data, combine),
  /// [rows, hidden] (forward) or [samples] (backward gate).
  enum class Result { SamplesByHidden, RowsByHidden, Samples };
  Result result = Result::SamplesByHidden;
};

namespace detail {
/// Applies the rank rule: a result of rank 1 or 3 (or a rank-0 scalar, which
/// has no channel) cannot be stored aligned, so the op is NALIGN whatever
/// `kernelMode` says.
AlignMode applyRankRule(mlir::Operation *op, AlignMode kernelMode);
} // namespace detail

} // namespace npu::graph

#include "npu/Dialect/NPU/NPUInterfaces.h.inc"

namespace npu::graph {

/// Returns the mode `op` itself requires, in this order: `npu.dev_info`
/// pins it; a return-like op of a function (the graph outputs) takes
/// `graphIOMode`; an op without AlignModeOpInterface is UNKNOWN; otherwise
/// the interface's mode. BOTH means the op adapts to its neighbours.
AlignMode getIntrinsicAlignMode(mlir::Operation *op,
                                AlignMode graphIOMode = AlignMode::NALIGN);

/// Whether `arg` is an argument of a function that marks it `npu.weight`.
bool isWeightArgument(mlir::BlockArgument arg);

/// Returns the mode the rules assign to a graph input: BOTH for a weight
/// argument (loaded in whichever layout its consumers want), `graphIOMode`
/// for any other.
AlignMode getArgumentAlignMode(mlir::BlockArgument arg,
                               AlignMode graphIOMode = AlignMode::NALIGN);

/// Returns the AlignMode the rules assign to `op`: its intrinsic mode, except
/// that a BOTH op with a leader operand (broadcast ops) takes the mode of
/// the leader's producer (getArgumentAlignMode for a function argument).
AlignMode getAlignMode(mlir::Operation *op,
                       AlignMode graphIOMode = AlignMode::NALIGN);

/// Returns the mode in which `user`, whose own mode is `userMode`, needs
/// its operand `operandIndex`: its own mode, except for channel_norm, which
/// reads the layout opposite to the one it produces, and a depthwise
/// conv2d's filter, which is read dense (isDepthwiseFilter).
AlignMode getOperandRequirement(mlir::Operation *user, unsigned operandIndex,
                                AlignMode userMode);

/// Whether `conv` is depthwise (one filter of one channel per input
/// channel): its filter [C, KH, KW, 1] is the vector kernel's [C, taps]
/// matrix, and stored aligned each of its values would fill a 64-element
/// row, so it is read dense.
bool isDepthwiseFilter(Conv2DOp conv);

/// Whether a value of `type` has a layout to decide: a ranked tensor of a
/// rank that can be stored aligned. Other values are dense whatever their
/// consumers run in, and never need a channel_norm.
bool isLayoutRelevant(mlir::Type type);

/// Returns the mode pinned on `op` by `npu.dev_info`, if any.
std::optional<AlignMode> getPinnedAlignMode(mlir::Operation *op);

} // namespace npu::graph

#endif // NPU_DIALECT_NPU_NPUINTERFACES_H
