//===- LayoutAlignToNPU.cpp - channel_norm insertion ----------------------===//
//
// LayoutAlignToNPU, after its design note, in three steps:
//  1. buildLayoutGraph: one walk over the function in block (topological)
//     order turns it into a LayoutProblem: a node per tensor with a layout
//     to decide, fixed by the AlignMode rules or free (BOTH), and for each
//     node who consumes it in which mode. O(ops + uses).
//  2. solveLayoutProblem: greedy or optimal (LayoutAssignment.cpp).
//  3. applyLayout: layout encodings on every tensor, then for every value
//     one channel_norm per direction its consumers need, shared by them.
//     O(ops + uses).
//
//===----------------------------------------------------------------------===//

#include "npu/Dialect/NPU/NPUOps.h"
#include "npu/Transforms/LayoutAlign.h"
#include "npu/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace npu {
#define GEN_PASS_DEF_LAYOUTALIGNTONPU
#include "npu/Transforms/Passes.h.inc"
} // namespace npu

using namespace mlir;
using namespace npu;
using namespace npu::graph;

//===----------------------------------------------------------------------===//
// The function boundary
//===----------------------------------------------------------------------===//

AlignMode npu::getGraphInputMode(BlockArgument arg, AlignMode graphIOMode) {
  return getLayoutMode(arg.getType())
      .value_or(getArgumentAlignMode(arg, graphIOMode));
}

AlignMode npu::getRequiredLayout(OpOperand &use, AlignMode userMode,
                                 AlignMode graphIOMode) {
  Operation *user = use.getOwner();
  auto func = dyn_cast_or_null<func::FuncOp>(user->getParentOp());
  if (func && user->hasTrait<OpTrait::IsTerminator>()) {
    Type declared = func.getResultTypes()[use.getOperandNumber()];
    return getLayoutMode(declared).value_or(graphIOMode);
  }
  return getOperandRequirement(user, use.getOperandNumber(), userMode);
}

//===----------------------------------------------------------------------===//
// Building the problem
//===----------------------------------------------------------------------===//

namespace {
class GraphBuilder {
public:
  GraphBuilder(AlignMode graphIOMode, ConversionCostKind costKind)
      : graphIOMode(graphIOMode), costKind(costKind) {}

  FailureOr<LayoutGraph> build(func::FuncOp func) {
    if (!func.getBody().hasOneBlock())
      return func.emitOpError(
          "npu-layout-align needs a function body with one block");
    for (BlockArgument arg : func.getArguments())
      if (isLayoutRelevant(arg.getType()))
        addNode(arg, getGraphInputMode(arg, graphIOMode));
    for (Operation &op : func.front())
      if (failed(addOp(&op)))
        return failure();
    return std::move(graph);
  }

private:
  unsigned addNode(Value value, AlignMode mode) {
    LayoutProblem::Node node;
    node.mode = mode;
    std::tie(node.conversionCost, node.alignedPadding) =
        getPrices(value.getType());
    unsigned id = graph.problem.nodes.size();
    graph.problem.nodes.push_back(node);
    graph.values.push_back(value);
    nodeOf[value] = id;
    return id;
  }

  /// The price of converting a value of `type`, and its aligned padding.
  /// Graphs repeat few types, so both are computed once per type.
  std::pair<int64_t, int64_t> getPrices(Type type) {
    auto [it, inserted] = pricesOfType.try_emplace(type);
    if (inserted) {
      auto tensor = cast<RankedTensorType>(type);
      it->second = {costKind == ConversionCostKind::Count
                        ? 1
                        : getConversionBytes(tensor),
                    getAlignedPaddingBytes(tensor)};
    }
    return it->second;
  }

  static bool touchesLayout(Operation *op) {
    return llvm::any_of(op->getOperandTypes(), isLayoutRelevant) ||
           llvm::any_of(op->getResultTypes(), isLayoutRelevant);
  }

  LogicalResult addOp(Operation *op) {
    if (op->getNumRegions() != 0)
      return op->emitOpError("has regions; npu-layout-align handles a flat "
                             "graph and cannot place the tensors inside");
    AlignMode mode = getIntrinsicAlignMode(op, graphIOMode);
    if (mode == AlignMode::UNKNOWN) {
      if (!touchesLayout(op))
        return success();
      return op->emitOpError("has no AlignMode rule, so npu-layout-align "
                             "cannot decide the layout of its tensors; pin "
                             "one with npu.dev_info");
    }
    SmallVector<Value> results;
    for (Value result : op->getResults())
      if (isLayoutRelevant(result.getType()))
        results.push_back(result);
    if (mode == AlignMode::BOTH && results.size() > 1)
      return op->emitOpError("adapts its layout but has several results "
                             "with a layout; pin one with npu.dev_info");
    std::optional<unsigned> adaptiveNode;
    for (Value result : results)
      adaptiveNode = addNode(result, mode);
    if (mode == AlignMode::BOTH && adaptiveNode) {
      graph.adaptiveOps[op] = *adaptiveNode;
      linkProducers(op, *adaptiveNode);
    }
    addConsumer(op, mode, adaptiveNode);
    return success();
  }

  /// Records, for the greedy rule, whom an adapting op follows.
  void linkProducers(Operation *op, unsigned node) {
    LayoutProblem::Node &n = graph.problem.nodes[node];
    for (Value operand : op->getOperands())
      if (auto it = nodeOf.find(operand); it != nodeOf.end())
        n.producers.push_back(it->second);
    if (auto iface = dyn_cast<AlignModeOpInterface>(op))
      if (std::optional<unsigned> leader = iface.getAlignLeaderOperand())
        if (auto it = nodeOf.find(op->getOperand(*leader)); it != nodeOf.end())
          n.leader = it->second;
  }

  /// Records what `op` needs of each operand with a layout.
  void addConsumer(Operation *op, AlignMode mode,
                   std::optional<unsigned> adaptiveNode) {
    for (OpOperand &use : op->getOpOperands()) {
      auto it = nodeOf.find(use.get());
      if (it == nodeOf.end())
        continue; // No layout to decide.
      LayoutProblem::Node &producer = graph.problem.nodes[it->second];
      if (mode == AlignMode::BOTH && adaptiveNode && !isa<ChannelNormOp>(op)) {
        if (producer.freeConsumers.empty() ||
            producer.freeConsumers.back() != *adaptiveNode)
          producer.freeConsumers.push_back(*adaptiveNode);
        continue;
      }
      // BOTH ops without a result with a layout cannot exist (rank rule);
      // treat them as dense consumers all the same.
      AlignMode fixed = mode == AlignMode::BOTH ? AlignMode::NALIGN : mode;
      if (getRequiredLayout(use, fixed, graphIOMode) == AlignMode::ALIGN)
        producer.neededAligned = true;
      else
        producer.neededDense = true;
    }
  }

  AlignMode graphIOMode;
  ConversionCostKind costKind;
  LayoutGraph graph;
  DenseMap<Value, unsigned, ValueAddressOrderInfo> nodeOf;
  DenseMap<Type, std::pair<int64_t, int64_t>> pricesOfType;
};
} // namespace

FailureOr<LayoutGraph> npu::buildLayoutGraph(func::FuncOp func,
                                             AlignMode graphIOMode,
                                             ConversionCostKind costKind) {
  return GraphBuilder(graphIOMode, costKind).build(func);
}

//===----------------------------------------------------------------------===//
// Applying a solution
//===----------------------------------------------------------------------===//

namespace {
/// Sets `#npu.layout` encodings, building each (type, mode) pair's type
/// once: graphs repeat few types, and uniquing a type is a hash lookup.
class LayoutSetter {
public:
  void set(Value value, AlignMode mode) {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!type)
      return;
    if (!isLayoutRelevant(type))
      mode = AlignMode::NALIGN;
    auto [it, inserted] = encoded.try_emplace({type, mode});
    if (inserted)
      it->second = withLayout(type, mode);
    value.setType(it->second);
  }

private:
  DenseMap<std::pair<Type, AlignMode>, Type> encoded;
};
} // namespace

namespace {
/// Inserts the channel_norms one value needs and rewires its consumers.
class ConversionInserter {
public:
  ConversionInserter(const LayoutGraph &graph, ArrayRef<AlignMode> modes,
                     AlignMode graphIOMode, LayoutChanges &changes)
      : graph(graph), modes(modes), graphIOMode(graphIOMode), changes(changes) {
  }

  void convertUses(Value value, AlignMode stored) {
    ChannelNormOp toAlign, toDense;
    // Snapshot the uses: the conversions created below add uses of `value`.
    SmallVector<OpOperand *> uses = llvm::to_vector(
        llvm::map_range(value.getUses(), [](OpOperand &use) { return &use; }));
    for (OpOperand *use : uses) {
      Operation *user = use->getOwner();
      AlignMode needed = getRequiredLayout(*use, modeOf(user), graphIOMode);
      if (needed == stored)
        continue;
      ChannelNormOp &conversion =
          needed == AlignMode::ALIGN ? toAlign : toDense;
      if (!conversion)
        conversion = createConversion(value, needed);
      use->set(conversion);
    }
  }

private:
  AlignMode modeOf(Operation *user) {
    if (auto it = graph.adaptiveOps.find(user); it != graph.adaptiveOps.end())
      return modes[it->second];
    AlignMode mode = getIntrinsicAlignMode(user, graphIOMode);
    return mode == AlignMode::BOTH ? AlignMode::NALIGN : mode;
  }

  ChannelNormOp createConversion(Value value, AlignMode target) {
    OpBuilder builder(value.getContext());
    builder.setInsertionPointAfterValue(value);
    auto type = cast<RankedTensorType>(value.getType());
    auto conversion = builder.create<ChannelNormOp>(
        value.getLoc(), withLayout(type, target),
        target == AlignMode::ALIGN ? ChannelNormDirection::to_align
                                   : ChannelNormDirection::to_nalign,
        value);
    ++changes.channelNorms;
    changes.bytesConverted += getConversionBytes(type);
    changes.dynamicShapes |= !type.hasStaticShape();
    return conversion;
  }

  const LayoutGraph &graph;
  ArrayRef<AlignMode> modes;
  AlignMode graphIOMode;
  LayoutChanges &changes;
};
} // namespace

LayoutChanges npu::applyLayout(func::FuncOp func, const LayoutGraph &graph,
                               ArrayRef<AlignMode> modes,
                               AlignMode graphIOMode) {
  // Every tensor gets an encoding: the solution's mode for nodes, dense for
  // tensors without a layout to decide. buildLayoutGraph numbered the nodes
  // in this same order, so one cursor finds them.
  LayoutSetter setter;
  size_t next = 0;
  auto encode = [&](Value value) {
    bool isNode = next < graph.values.size() && graph.values[next] == value;
    setter.set(value, isNode ? modes[next++] : AlignMode::NALIGN);
  };
  for (BlockArgument arg : func.getArguments())
    encode(arg);
  for (Operation &op : func.front())
    for (Value result : op.getResults())
      encode(result);

  LayoutChanges changes;
  ConversionInserter inserter(graph, modes, graphIOMode, changes);
  for (auto [value, mode] : llvm::zip(graph.values, modes))
    inserter.convertUses(value, mode);

  Operation *terminator = func.front().getTerminator();
  func.setFunctionType(FunctionType::get(func.getContext(),
                                         func.front().getArgumentTypes(),
                                         terminator->getOperandTypes()));
  return changes;
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

namespace {
struct LayoutAlignToNPUPass
    : public npu::impl::LayoutAlignToNPUBase<LayoutAlignToNPUPass> {
  using LayoutAlignToNPUBase::LayoutAlignToNPUBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    FailureOr<LayoutGraph> graph =
        buildLayoutGraph(func, graphIOMode, costKind);
    if (failed(graph))
      return signalPassFailure();
    SmallVector<AlignMode> modes = solveLayoutProblem(graph->problem, strategy);
    LayoutChanges changes = applyLayout(func, *graph, modes, graphIOMode);
    numChannelNorms += changes.channelNorms;
    numBytesConverted += changes.bytesConverted;
    if (printStatistics)
      func.emitRemark() << "npu-layout-align: " << changes.channelNorms
                        << " channel_norm(s) inserted, "
                        << changes.bytesConverted << " bytes converted"
                        << (changes.dynamicShapes
                                ? " (each dynamic dimension counted as 1)"
                                : "");
  }
};
} // namespace
