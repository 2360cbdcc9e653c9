//===- NPUInterfaces.h - AlignMode interface and rules ----------*- C++ -*-===//

#ifndef NPU_DIALECT_NPU_NPUINTERFACES_H
#define NPU_DIALECT_NPU_NPUINTERFACES_H

#include "mlir/IR/OpDefinition.h"
#include "npu/Dialect/NPU/NPUDialect.h"

namespace npu {

/// Marks ops whose device kernel only exists for channel-aligned data.
template <typename ConcreteType>
class RequiresAlignedLayout
    : public mlir::OpTrait::TraitBase<ConcreteType, RequiresAlignedLayout> {};

/// Marks broadcast ops whose operand 1 is broadcast onto operand 0.
template <typename ConcreteType>
class BroadcastsSecondOperand
    : public mlir::OpTrait::TraitBase<ConcreteType, BroadcastsSecondOperand> {};

namespace detail {
/// Applies the odd-rank rule: a result of rank 1 or 3 cannot be stored
/// aligned, so the op is NALIGN whatever `kernelMode` says.
AlignMode applyRankRule(mlir::Operation *op, AlignMode kernelMode);
} // namespace detail

} // namespace npu

#include "npu/Dialect/NPU/NPUInterfaces.h.inc"

namespace npu {

/// Returns the AlignMode the rules assign to `op`, in this order:
///  1. `npu.dev_info` pins it;
///  2. a return-like op of a function (the graph outputs) takes `graphIOMode`;
///  3. an op without AlignModeOpInterface is UNKNOWN;
///  4. otherwise the interface's mode; when that is BOTH and the op has a
///     leader operand (broadcast ops), the mode of the leader's producer
///     (`graphIOMode` for a function argument).
AlignMode getAlignMode(mlir::Operation *op,
                       AlignMode graphIOMode = AlignMode::NALIGN);

/// Returns the mode pinned on `op` by `npu.dev_info`, if any.
std::optional<AlignMode> getPinnedAlignMode(mlir::Operation *op);

} // namespace npu

#endif // NPU_DIALECT_NPU_NPUINTERFACES_H
