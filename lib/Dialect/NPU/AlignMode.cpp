//===- AlignMode.cpp - the AlignMode rules --------------------------------===//
//
// Implements the AlignMode rules of the LayoutAlignToNPU design that decide
// which storage layout an op needs. Per-op facts live in ODS (the
// RequiresAlignedLayout and BroadcastsSecondOperand traits); this file holds
// the rules that look at attributes, ranks and neighbours.
//
//===----------------------------------------------------------------------===//

#include "npu/Dialect/NPU/NPUOps.h"

#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace npu::graph;

#include "npu/Dialect/NPU/NPUInterfaces.cpp.inc"

AlignMode npu::graph::detail::applyRankRule(Operation *op,
                                            AlignMode kernelMode) {
  if (op->getNumResults() == 0)
    return kernelMode;
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (type && !canBeStoredAligned(type.getRank()))
    return AlignMode::NALIGN;
  return kernelMode;
}

std::optional<AlignMode> npu::graph::getPinnedAlignMode(Operation *op) {
  // npu.dev_info is discardable: skip the op's inherent attributes, and the
  // lookup altogether for the (usual) op without discardable attributes.
  if (op->getDiscardableAttrDictionary().empty())
    return std::nullopt;
  if (auto attr = dyn_cast_or_null<AlignModeAttr>(
          op->getDiscardableAttr(NPUDialect::getDevInfoAttrName())))
    return attr.getValue();
  return std::nullopt;
}

static bool isGraphOutput(Operation *op) {
  return op->hasTrait<OpTrait::ReturnLike>() &&
         isa_and_nonnull<FunctionOpInterface>(op->getParentOp());
}

AlignMode npu::graph::getIntrinsicAlignMode(Operation *op,
                                            AlignMode graphIOMode) {
  if (std::optional<AlignMode> pinned = getPinnedAlignMode(op))
    return *pinned;
  if (isGraphOutput(op))
    return graphIOMode;
  if (auto iface = dyn_cast<AlignModeOpInterface>(op))
    return iface.getAlignMode();
  return AlignMode::UNKNOWN;
}

bool npu::graph::isWeightArgument(BlockArgument arg) {
  Block *block = arg.getOwner();
  auto func = dyn_cast_or_null<FunctionOpInterface>(block->getParentOp());
  return func && block->isEntryBlock() &&
         func.getArgAttr(arg.getArgNumber(), NPUDialect::getWeightAttrName());
}

AlignMode npu::graph::getArgumentAlignMode(BlockArgument arg,
                                           AlignMode graphIOMode) {
  return isWeightArgument(arg) ? AlignMode::BOTH : graphIOMode;
}

AlignMode npu::graph::getAlignMode(Operation *op, AlignMode graphIOMode) {
  // Broadcast ops defer to the producer of their leader operand; follow such
  // chains iteratively so that long chains cannot exhaust the stack.
  while (true) {
    AlignMode mode = getIntrinsicAlignMode(op, graphIOMode);
    auto iface = dyn_cast<AlignModeOpInterface>(op);
    std::optional<unsigned> leader =
        iface ? iface.getAlignLeaderOperand() : std::nullopt;
    if (mode != AlignMode::BOTH || !leader)
      return mode;
    Value leaderValue = op->getOperand(*leader);
    Operation *producer = leaderValue.getDefiningOp();
    if (!producer) // A block argument: a graph input.
      return getArgumentAlignMode(cast<BlockArgument>(leaderValue),
                                  graphIOMode);
    op = producer;
  }
}

AlignMode npu::graph::getOperandRequirement(Operation *user,
                                            unsigned operandIndex,
                                            AlignMode userMode) {
  if (auto norm = dyn_cast<ChannelNormOp>(user))
    return norm.getTargetMode() == AlignMode::ALIGN ? AlignMode::NALIGN
                                                    : AlignMode::ALIGN;
  if (auto conv = dyn_cast<Conv2DOp>(user);
      conv && operandIndex == 1 && isDepthwiseFilter(conv))
    return AlignMode::NALIGN;
  return userMode;
}

bool npu::graph::isDepthwiseFilter(Conv2DOp conv) {
  ArrayRef<int64_t> filter = conv.getFilter().getType().getShape();
  int64_t channels = conv.getInput().getType().getShape().back();
  return filter.back() == 1 && conv.getGroups() == channels &&
         filter.front() == channels;
}

bool npu::graph::isLayoutRelevant(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && canBeStoredAligned(tensor.getRank());
}

//===----------------------------------------------------------------------===//
// Ops with their own rule
//===----------------------------------------------------------------------===//

/// A slice starting inside the channel dimension yields data whose channel 0
/// is not at an aligned boundary; when it also ends on a boundary, the oplib
/// kernel produces dense data. Every other slice is produced aligned.
AlignMode SliceOp::getAlignMode() {
  ArrayRef<int64_t> start = getStart(), end = getEnd();
  bool startsInsideChannel = !start.empty() && start.back() > 0;
  bool endsOnBoundary =
      !end.empty() && end.back() % NPUDialect::kChannelAlignment == 0;
  return detail::applyRankRule(*this, startsInsideChannel && endsOnBoundary
                                          ? AlignMode::NALIGN
                                          : AlignMode::ALIGN);
}

/// Gathering whole rows keeps each row's storage as it is; picking single
/// channels out of the innermost dimension writes them densely.
AlignMode GatherOp::getAlignMode() {
  int64_t rank = getData().getType().getRank();
  // The attribute is signed (the getter's uint64_t is not).
  int64_t axis = static_cast<int64_t>(getAxis());
  if (axis < 0)
    axis += rank;
  return detail::applyRankRule(*this, axis == rank - 1 ? AlignMode::NALIGN
                                                       : AlignMode::BOTH);
}

/// A topk picks elements out of rows, which its kernel reads and writes
/// dense whatever the axis.
AlignMode TopKOp::getAlignMode() { return AlignMode::NALIGN; }

/// A channel_norm produces its target layout, whatever its rank (the rank-1
/// ones are removed by canonicalization).
AlignMode ChannelNormOp::getAlignMode() { return getTargetMode(); }
