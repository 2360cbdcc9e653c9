//===- BatchMap.cpp - a graph whose batch is read at run time -------------===//
//
// A model whose inputs leave the batch dynamic is imported at batch 1 and
// at each of kProbeBatches (2, 7); each probe must be made of the batch-1
// graph's ops, with the same attributes and constants but for the sizes
// that hold the batch (findDifference). A value's batch axis is the one
// axis whose size grows with the batch (none when no size changes). Each
// op is then checked to keep samples apart: given where its operands hold
// the batch, its own rule (mapSampleAxis) says where its result must hold
// it, or that the op mixes samples (a reduction over the batch axis, a
// concat along it, a reshape that interleaves it, ...). When every op
// passes, each probe is, by induction over the ops, the batch-1 graph run
// on each sample with its results concatenated along the batch axis. Shape
// arithmetic folded at import time could hide the batch in a constant that
// no probe tells apart (N / 8 is 0 at batch 1, 2 and 7): the probes follow
// each folded value as a line in N (BatchForms.cpp), and a value an op
// reads that is not one, or not the same one in both probes, is an error
// (checkBatchDerivedReads). The batch-1 function is rewritten to
// take the batch at run time: the ops that depend on the batch move into
// an npu.map_batch, which the lowering runs once per sample; the others
// (weights, constants) stay before it and are computed once.
// O(probes * (ops + uses)).
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "npu/Dialect/NPU/NPUOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/TypeSwitch.h"

#include <sstream>

using namespace mlir;
using namespace npu::graph;
using npu::onnx_import::BatchForm;
using npu::onnx_import::countElements;
using npu::onnx_import::HostTensor;
using npu::onnx_import::ProbeRecord;

namespace {

/// Where a value holds the batch: in `axis`, whose index at batch B is
/// (outer * B + sample) * inner + rest. The samples are contiguous blocks
/// when `outer` is 1 (inner is then the axis' size for one sample); a
/// reshape of [L, B, E] into [L * B, E] interleaves them (inner 1).
struct SampleAxis {
  int64_t axis;
  int64_t inner;
  bool operator==(const SampleAxis &other) const {
    return axis == other.axis && inner == other.inner;
  }
  bool operator!=(const SampleAxis &other) const { return !(*this == other); }
};

/// A value's SampleAxis, or none (the same for every sample).
using BatchAxis = std::optional<SampleAxis>;

/// Where `op`'s results hold the batch, given where its operands do, or a
/// reason the op does not keep samples apart.
struct AxisRule {
  SmallVector<BatchAxis> results;
  std::string mixes;
};

/// A rule that fails for `reason`.
AxisRule mixes(const Twine &reason) { return {{}, reason.str()}; }

/// A rule whose results all hold the batch at `axis`.
AxisRule allAt(Operation *op, BatchAxis axis) {
  return {SmallVector<BatchAxis>(op->getNumResults(), axis), {}};
}

int64_t rankOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getRank();
}

ArrayRef<int64_t> shapeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}

/// `batch` moved to `axis`.
BatchAxis moved(BatchAxis batch, int64_t axis) {
  return SampleAxis{axis, batch->inner};
}

/// The one SampleAxis of `operands` (numpy broadcasting aligns them at
/// their last axis) in a result of rank `rank`, or failure when two
/// operands hold the batch differently.
FailureOr<BatchAxis> alignedAxis(ValueRange operands, ArrayRef<BatchAxis> axes,
                                 int64_t rank) {
  BatchAxis result;
  for (auto [operand, axis] : llvm::zip(operands, axes)) {
    if (!axis)
      continue;
    BatchAxis aligned = moved(axis, axis->axis + rank - rankOf(operand));
    if (result && !(*result == *aligned))
      return failure();
    result = aligned;
  }
  return result;
}

/// Ops that compute every index of their leading axis apart: the batch
/// must be there in operand 0 (and may be in the next `alsoBatched`
/// operands, held alike), and stays there.
AxisRule leadingAxisRule(Operation *op, ArrayRef<BatchAxis> axes,
                         unsigned alsoBatched = 0) {
  for (auto [i, axis] : llvm::enumerate(axes)) {
    if (!axis)
      continue;
    if (i > alsoBatched)
      return mixes("has the batch in operand #" + Twine(i) +
                   ", which every sample shares");
    if (axis->axis != 0)
      return mixes("reads samples along axis " + Twine(axis->axis) +
                   ", not its leading (batch) axis");
    if (axes.front() && !(*axis == *axes.front()))
      return mixes("reads operands holding the batch differently");
  }
  if (!axes.front())
    return mixes("has the batch in an operand other than its input");
  return allAt(op, axes.front());
}

/// An op that works along `axis` of its input and keeps its shape.
AxisRule alongAxisRule(Operation *op, BatchAxis batch, int64_t axis,
                       StringRef what) {
  if (batch->axis == axis)
    return mixes(what + " the batch axis");
  return allAt(op, batch);
}

AxisRule elementwiseRule(Operation *op, ArrayRef<BatchAxis> axes) {
  FailureOr<BatchAxis> axis =
      alignedAxis(op->getOperands(), axes, rankOf(op->getResult(0)));
  if (failed(axis))
    return mixes("broadcasts operands holding the batch differently");
  return allAt(op, *axis);
}

/// The elements of `shape` after axis `axis`.
int64_t countAfter(ArrayRef<int64_t> shape, int64_t axis) {
  return countElements(shape.drop_front(axis + 1));
}

/// A reshape whose result holds the batch in axis `found`. Row-major, the
/// input's elements are (above * B + sample) * below + rest, with `below`
/// the elements under the batch in the input; the reshape keeps that
/// order, so the result holds the batch in axis `found` when the elements
/// after `found` divide `below` (the quotient is its inner) and the
/// quotient divides one sample's size of that axis (`op` is the reshape
/// of `scale` samples).
AxisRule reshapeRule(ReshapeOp op, BatchAxis batch,
                     std::optional<int64_t> found, int64_t scale) {
  int64_t below =
      batch->inner * countAfter(shapeOf(op.getInput()), batch->axis);
  // No element below the batch: a sample has none.
  if (found && below > 0) {
    int64_t after = countAfter(op.getType().getShape(), *found);
    int64_t size = op.getType().getDimSize(*found) / scale;
    if (after > 0 && below % after == 0 && size % (below / after) == 0)
      return {{SampleAxis{*found, below / after}}, {}};
  }
  return mixes("splits a sample across the axis holding the batch");
}

AxisRule matmulRule(MatmulOp op, ArrayRef<BatchAxis> axes) {
  int64_t rank = op.getType().getRank();
  // The axis of the product an operand's axis becomes, or none for K.
  auto place = [&](Value operand, int64_t axis, bool transposed,
                   bool isLhs) -> std::optional<int64_t> {
    int64_t r = rankOf(operand);
    if (r < 2)
      return std::nullopt;
    if (axis < r - 2)
      return axis + rank - r;
    // The lhs' M (rows) and the rhs' N (columns) are the product's; the
    // other axis of each is K.
    int64_t rows = transposed ? r - 1 : r - 2,
            cols = transposed ? r - 2 : r - 1;
    if (axis == (isLhs ? rows : cols))
      return isLhs ? rank - 2 : rank - 1;
    return std::nullopt;
  };
  BatchAxis result;
  for (auto [i, operand] : llvm::enumerate(op->getOperands())) {
    if (!axes[i])
      continue;
    if (i == 2)
      return mixes("adds a bias that holds the batch");
    bool isLhs = i == 0;
    std::optional<int64_t> at =
        place(operand, axes[i]->axis,
              isLhs ? op.getTransposeLhs() : op.getTransposeRhs(), isLhs);
    if (!at)
      return mixes("contracts over the batch axis");
    if (result && !(*result == *moved(axes[i], *at)))
      return mixes("multiplies operands holding the batch differently");
    result = moved(axes[i], *at);
  }
  return allAt(op, result);
}

AxisRule reduceRule(ReduceOp op, BatchAxis batch) {
  ArrayRef<int64_t> reduced = op.getAxes();
  if (llvm::is_contained(reduced, batch->axis))
    return mixes("reduces over the batch axis");
  int64_t axis = batch->axis;
  if (!op.getKeepdims())
    axis -= llvm::count_if(reduced, [&](int64_t a) { return a < batch->axis; });
  return allAt(op, moved(batch, axis));
}

AxisRule sliceRule(SliceOp op, BatchAxis batch) {
  int64_t a = batch->axis, size = shapeOf(op.getInput())[a];
  std::optional<ArrayRef<int64_t>> steps = op.getStrides();
  if (op.getStart()[a] != 0 || op.getEnd()[a] < size ||
      (steps && (*steps)[a] != 1))
    return mixes("takes part of the batch axis");
  return allAt(op, batch);
}

AxisRule gatherRule(GatherOp op, ArrayRef<BatchAxis> axes) {
  int64_t axis = op.getAxis(), indicesRank = rankOf(op.getIndices());
  if (axes[0] && axes[1])
    return mixes("gathers with indices that hold the batch from data that "
                 "holds it");
  if (axes[1])
    return allAt(op, moved(axes[1], axis + axes[1]->axis));
  int64_t at = axes[0]->axis;
  if (at == axis)
    return mixes("gathers along the batch axis");
  return allAt(op, moved(axes[0], at < axis ? at : at + indicesRank - 1));
}

AxisRule concatRule(ConcatOp op, ArrayRef<BatchAxis> axes) {
  for (BatchAxis axis : axes)
    if (!axis || !(*axis == *axes.front()))
      return mixes("joins operands that do not all hold the batch alike");
  if (axes.front()->axis == int64_t(op.getAxis()))
    return mixes("concatenates along the batch axis");
  return allAt(op, axes.front());
}

AxisRule padRule(PadOp op, BatchAxis batch) {
  if (op.getPadLow()[batch->axis] || op.getPadHigh()[batch->axis])
    return mixes("pads the batch axis");
  return allAt(op, batch);
}

AxisRule transposeRule(TransposeOp op, BatchAxis batch) {
  ArrayRef<int64_t> perms = op.getPerms();
  return allAt(op,
               moved(batch, llvm::find(perms, batch->axis) - perms.begin()));
}

/// An axis attribute that may count from the end.
int64_t normalizeAxis(int64_t axis, Value v) {
  return axis < 0 ? axis + rankOf(v) : axis;
}

/// The rule of `op` (of `scale` samples), at least one of whose operands
/// holds the batch (at `axes`); `found` is where its results hold it, which
/// only a reshape needs to decide between axes of size 1.
AxisRule mapSampleAxis(Operation *op, ArrayRef<BatchAxis> axes,
                       ArrayRef<std::optional<int64_t>> found, int64_t scale) {
  if (op->hasTrait<Elementwise>())
    return elementwiseRule(op, axes);
  BatchAxis first = axes.front();
  auto onlyFirst = [&] {
    return llvm::all_of(axes.drop_front(), [](BatchAxis a) { return !a; });
  };
  return llvm::TypeSwitch<Operation *, AxisRule>(op)
      .Case<Conv2DOp, Conv3DOp, MaxPoolOp, AvgPoolOp, ResizeOp>(
          [&](Operation *op) { return leadingAxisRule(op, axes); })
      .Case([&](GridSampleOp op) {
        return leadingAxisRule(op, axes, /*alsoBatched=*/1);
      })
      .Case([&](SoftmaxOp op) {
        return alongAxisRule(
            op, first, normalizeAxis(int64_t(op.getAxis()), op.getInput()),
            "normalizes along");
      })
      .Case([&](TopKOp op) {
        return alongAxisRule(op, first, int64_t(op.getAxis()), "sorts along");
      })
      .Case([&](LayerNormOp op) -> AxisRule {
        int64_t axis = normalizeAxis(int64_t(op.getAxis()), op.getInput());
        if (!first || !onlyFirst() || first->axis >= axis)
          return mixes("normalizes over the batch axis");
        return allAt(op, first);
      })
      .Case([&](ExpandOp op) {
        return allAt(op, moved(first, first->axis + op.getType().getRank() -
                                          rankOf(op.getInput())));
      })
      .Case([&](ReshapeOp op) {
        return reshapeRule(op, first, found.front(), scale);
      })
      .Case([&](MatmulOp op) { return matmulRule(op, axes); })
      .Case([&](ReduceOp op) { return reduceRule(op, first); })
      .Case([&](SliceOp op) { return sliceRule(op, first); })
      .Case([&](GatherOp op) { return gatherRule(op, axes); })
      .Case([&](ConcatOp op) { return concatRule(op, axes); })
      .Case([&](PadOp op) { return padRule(op, first); })
      .Case([&](TransposeOp op) { return transposeRule(op, first); })
      .Default([](Operation *) {
        return mixes("has no rule saying how it treats samples");
      });
}

/// Where a value of type `one` at batch 1 and `two` at batch `scale` holds
/// the batch: the one axis whose size grows `scale` times, or none when the
/// types agree.
FailureOr<std::optional<int64_t>> findBatchAxis(Type one, Type two,
                                                int64_t scale) {
  if (one == two)
    return std::optional<int64_t>();
  auto a = dyn_cast<RankedTensorType>(one), b = dyn_cast<RankedTensorType>(two);
  if (!a || !b || a.getRank() != b.getRank())
    return failure();
  std::optional<int64_t> axis;
  for (int64_t d = 0; d < a.getRank(); ++d) {
    if (a.getDimSize(d) == b.getDimSize(d))
      continue;
    if (axis || b.getDimSize(d) != scale * a.getDimSize(d))
      return failure();
    axis = d;
  }
  return axis;
}

/// The message that ends every diagnostic: what the user can do instead.
constexpr StringLiteral kBindBatch =
    "; the batch cannot be read at run time (bind it with --batch=N)";

/// An error at `op` naming the node it was imported from and its npu op.
InFlightDiagnostic emitNodeError(Operation &op) {
  InFlightDiagnostic diag = emitError(op.getLoc());
  if (auto name = dyn_cast<NameLoc>(op.getLoc()))
    diag << "node '" << name.getName().getValue() << "': ";
  diag << "'" << op.getName() << "' ";
  return diag;
}

/// Compares the two imports op by op and records each value's batch axis
/// (keyed by the batch-1 value). Fails with a diagnostic at the first op
/// that mixes samples.
class BatchAxes {
public:
  /// Compares the batch-1 graph with the graph imported at batch `scale`.
  explicit BatchAxes(int64_t scale) : scale(scale) {}

  LogicalResult run(func::FuncOp one, func::FuncOp two) {
    for (auto [i, a, b] :
         llvm::enumerate(one.getArguments(), two.getArguments())) {
      FailureOr<std::optional<int64_t>> axis =
          findBatchAxis(a.getType(), b.getType(), scale);
      if (failed(axis) || (*axis && **axis != 0))
        return emitError(one.getLoc())
               << "graph input #" << i << " holds the batch outside its "
               << "leading axis (" << a.getType() << " at batch 1, "
               << b.getType() << " at batch " << scale << ")" << kBindBatch;
      // One row per sample.
      if (*axis)
        axes[a] = SampleAxis{0, 1};
    }
    Block &first = one.front(), &second = two.front();
    if (first.getOperations().size() != second.getOperations().size())
      return emitError(one.getLoc())
             << "the graph imports as " << first.getOperations().size()
             << " ops at batch 1 and " << second.getOperations().size()
             << " at batch " << scale << kBindBatch;
    for (auto [a, b] :
         llvm::zip(first.without_terminator(), second.without_terminator()))
      if (failed(compare(a, b)))
        return failure();
    return success();
  }

  /// The batch axis of `value`, a value of the batch-1 graph.
  BatchAxis lookup(Value value) const { return axes.lookup(value); }

private:
  /// `a` and `b` import the same node (their locations name it) at batch 1
  /// and 2: the batch's axes are those whose sizes double, the two compute
  /// the same per sample (findDifference) and the op's rule holds.
  LogicalResult compare(Operation &a, Operation &b) {
    if (a.getLoc() != b.getLoc() || a.getNumResults() != b.getNumResults() ||
        a.getNumOperands() != b.getNumOperands())
      return emitNodeError(a)
             << "has no counterpart in the graph imported at batch " << scale
             << " (found '" << b.getName() << "' at " << b.getLoc() << ")"
             << kBindBatch;
    SmallVector<BatchAxis> operandAxes;
    for (Value operand : a.getOperands())
      operandAxes.push_back(axes.lookup(operand));
    SmallVector<std::optional<int64_t>> found;
    for (auto [i, x, y] : llvm::enumerate(a.getResults(), b.getResults())) {
      FailureOr<std::optional<int64_t>> axis =
          findBatchAxis(x.getType(), y.getType(), scale);
      if (failed(axis))
        return emitNodeError(a)
               << "result #" << i << " is " << x.getType() << " at batch 1 and "
               << y.getType() << " at batch " << scale
               << ": no one axis holds the batch" << kBindBatch;
      found.push_back(*axis);
    }
    std::optional<int64_t> inputAxis;
    if (!operandAxes.empty() && operandAxes.front())
      inputAxis = operandAxes.front()->axis;
    std::string difference = findDifference(a, b, inputAxis, found, scale);
    if (!difference.empty())
      return emitNodeError(a) << difference << kBindBatch;
    FailureOr<SmallVector<BatchAxis>> results =
        checkRule(a, b, operandAxes, found);
    if (failed(results))
      return failure();
    for (auto [x, axis] : llvm::zip(a.getResults(), *results))
      if (axis)
        axes[x] = *axis;
    return success();
  }

  /// Where the results of `b` (the batch-2 op, whose attributes are the
  /// batched ones) hold the batch, when it keeps samples apart and holds it
  /// where the comparison `found` it.
  FailureOr<SmallVector<BatchAxis>>
  checkRule(Operation &a, Operation &b, ArrayRef<BatchAxis> operandAxes,
            ArrayRef<std::optional<int64_t>> found) {
    auto has = [](const auto &x) { return x.has_value(); };
    if (llvm::none_of(operandAxes, has)) {
      if (llvm::none_of(found, has))
        return SmallVector<BatchAxis>(found.size());
      // A value the same for every sample, broadcast to each: any split
      // of the axis reads the same, blocks among them.
      if (isa<ExpandOp>(b) || isSplatConstant(b))
        return llvm::map_to_vector(found, [&](std::optional<int64_t> axis) {
          return axis ? BatchAxis(
                            SampleAxis{*axis, shapeOf(a.getResult(0))[*axis]})
                      : BatchAxis();
        });
      return emitNodeError(a)
             << "makes a value that holds the batch from values that do not"
             << kBindBatch;
    }
    AxisRule rule = mapSampleAxis(&b, operandAxes, found, scale);
    if (!rule.mixes.empty())
      return emitNodeError(a) << rule.mixes << kBindBatch;
    for (auto [i, expected, axis] : llvm::enumerate(rule.results, found)) {
      std::optional<int64_t> at;
      if (expected)
        at = expected->axis;
      if (at != axis)
        return emitNodeError(a)
               << "result #" << i << " holds the batch " << describe(axis)
               << " where the op puts it " << describe(at) << kBindBatch;
    }
    return rule.results;
  }

  static std::string describe(std::optional<int64_t> axis) {
    return axis ? "in axis " + std::to_string(*axis) : std::string("nowhere");
  }

  /// Why `a` and `b` would not compute the same for each sample, or ""
  /// when they do: they must be the same op with the same attributes and
  /// constants, but for what holds the batch (the axis `found` of an
  /// expand's target shape or a constant's splat, the end of a slice along
  /// its input's `inputAxis`). Shape arithmetic the importer folds (Shape,
  /// Size) can make a value depend on the batch: this finds it. A
  /// transpose that only moves axes of size 1 is a reshape at batch 1.
  static std::string findDifference(Operation &a, Operation &b,
                                    std::optional<int64_t> inputAxis,
                                    ArrayRef<std::optional<int64_t>> found,
                                    int64_t scale) {
    if (a.getName() != b.getName()) {
      if (isa<ReshapeOp, TransposeOp>(a) && isa<ReshapeOp, TransposeOp>(b))
        return "";
      return ("imports as '" + a.getName().getStringRef() +
              "' at batch 1 and '" + b.getName().getStringRef() +
              "' at batch " + Twine(scale))
          .str();
    }
    // A bound the importer clamped to the batch axis takes all of it at
    // these batches only (x[:2] at batch 1 and 2).
    auto clamps = [&](Operation &op) {
      auto clamped = op.getAttrOfType<DenseI64ArrayAttr>(
          npu::onnx_import::kClampedAxesAttr);
      return clamped && llvm::is_contained(clamped.asArrayRef(), *inputAxis);
    };
    if (isa<SliceOp>(a) && inputAxis && (clamps(a) || clamps(b)))
      return "takes part of the batch axis (a bound past it, clamped)";
    llvm::SmallSetVector<StringAttr, 8> names;
    for (NamedAttribute attr : a.getAttrs())
      names.insert(attr.getName());
    for (NamedAttribute attr : b.getAttrs())
      names.insert(attr.getName());
    for (StringAttr name : names) {
      Attribute x = a.getAttr(name), y = b.getAttr(name);
      if (x == y || differsOnlyInBatch(a, name, x, y, inputAxis, found, scale))
        continue;
      return ("has attribute '" + name.getValue() +
              "' different at batch 1 and " + Twine(scale) +
              ": it depends on the batch")
          .str();
    }
    return "";
  }

  /// Whether attribute `name` of op `a`, `x` at batch 1 and `y` at batch
  /// `scale`,
  /// differs only where it holds the batch (see findDifference).
  static bool differsOnlyInBatch(Operation &a, StringAttr name, Attribute x,
                                 Attribute y, std::optional<int64_t> inputAxis,
                                 ArrayRef<std::optional<int64_t>> found,
                                 int64_t scale) {
    if (isa<ConstantOp>(a)) {
      auto one = dyn_cast_or_null<ElementsAttr>(x);
      auto two = dyn_cast_or_null<ElementsAttr>(y);
      return found.front() && one && two && one.isSplat() && two.isSplat() &&
             one.getSplatValue<Attribute>() == two.getSplatValue<Attribute>();
    }
    auto one = dyn_cast_or_null<DenseI64ArrayAttr>(x);
    auto two = dyn_cast_or_null<DenseI64ArrayAttr>(y);
    if (!one || !two || one.size() != two.size())
      return false;
    // The position that may differ.
    int64_t at = -1;
    if (isa<ExpandOp>(a) && name.getValue() == "shape" && found.front())
      at = *found.front() - (rankOf(a.getResult(0)) - one.size());
    else if (isa<SliceOp>(a) && name.getValue() == "end" && inputAxis)
      at = *inputAxis;
    for (int64_t i = 0; i < one.size(); ++i)
      if (one[i] != two[i] && i != at)
        return false;
    // An expand's target doubles there; a slice's end is sliceRule's.
    return !isa<ExpandOp>(a) || at < 0 || two[at] == scale * one[at];
  }

  static bool isSplatConstant(Operation &op) {
    auto constant = dyn_cast<ConstantOp>(op);
    return constant && constant.getValue().isSplat();
  }

  int64_t scale;
  llvm::DenseMap<Value, BatchAxis> axes;
};

/// Moves the ops of `func` that depend on the batch (in order) into an
/// npu.map_batch over the batched arguments, whose results the function
/// returns; the arguments' leading sizes become dynamic. Returns the map (one
/// without results when the graph has no outputs).
FailureOr<MapBatchOp> buildMapBatch(func::FuncOp func, const BatchAxes &axes) {
  Block &entry = func.front();
  auto ret = cast<func::ReturnOp>(entry.getTerminator());
  SmallVector<BlockArgument> batched;
  for (BlockArgument arg : entry.getArguments())
    if (axes.lookup(arg))
      batched.push_back(arg);
  SmallVector<Type> resultTypes;
  for (auto [i, value] : llvm::enumerate(ret.getOperands())) {
    BatchAxis axis = axes.lookup(value);
    auto type = cast<RankedTensorType>(value.getType());
    if (!axis || axis->axis != 0 || axis->inner != type.getDimSize(0))
      return emitError(func.getLoc())
             << "graph output #" << i << " (" << value.getType()
             << " at batch 1) does not hold each sample in a block of its "
             << "leading axis" << kBindBatch;
    SmallVector<int64_t> shape(type.getShape());
    shape.front() = ShapedType::kDynamic;
    resultTypes.push_back(type.clone(shape));
  }
  OpBuilder b(ret);
  SmallVector<Value> inputs(batched.begin(), batched.end());
  auto map = b.create<MapBatchOp>(func.getLoc(), resultTypes, inputs);
  Block *body = b.createBlock(&map.getBody());
  for (BlockArgument arg : batched) {
    BlockArgument sample = body->addArgument(arg.getType(), arg.getLoc());
    arg.replaceAllUsesExcept(sample, map);
    auto type = cast<RankedTensorType>(arg.getType());
    SmallVector<int64_t> shape(type.getShape());
    shape.front() = ShapedType::kDynamic;
    arg.setType(type.clone(shape));
  }
  SmallVector<Operation *> perSample;
  for (Operation &op : entry.without_terminator())
    if (&op != map && llvm::any_of(op.getResults(), [&](Value result) {
          return axes.lookup(result).has_value();
        }))
      perSample.push_back(&op);
  for (Operation *op : perSample)
    op->moveBefore(body, body->end());
  b.setInsertionPointToEnd(body);
  b.create<YieldOp>(func.getLoc(), ret.getOperands());
  ret->setOperands(map.getResults());
  func.setType(FunctionType::get(func.getContext(), entry.getArgumentTypes(),
                                 resultTypes));
  return map;
}

/// Fills the chunk region of `map` from `chunk`, the graph imported at a
/// batch of C: its ops that correspond (one for one, in order) to the ops
/// `map`'s body took from `ops`, the batch-1 graph's, with its batched
/// arguments as the region's. The others compute what the batch-1 graph
/// computes above the map (weights, constants): their results stand for
/// the chunk's.
LogicalResult buildChunkRegion(MapBatchOp map, ArrayRef<Operation *> ops,
                               ArrayRef<BlockArgument> arguments,
                               func::FuncOp chunk) {
  Block &entry = chunk.front();
  if (llvm::range_size(entry.without_terminator()) != ops.size() ||
      entry.getNumArguments() != arguments.size())
    return emitError(chunk.getLoc())
           << "the graph at the batch chunk has other ops than at batch 1"
           << kBindBatch;
  OpBuilder b(map.getContext());
  Block *block = b.createBlock(&map.getChunk());
  IRMapping mapping;
  for (auto [arg, chunkArg] : llvm::zip(arguments, entry.getArguments())) {
    // The map's inputs are the batched arguments, in order.
    if (llvm::is_contained(map.getInputs(), arg))
      mapping.map(chunkArg,
                  block->addArgument(chunkArg.getType(), chunkArg.getLoc()));
    else
      mapping.map(chunkArg, arg);
  }
  Block &body = map.getSampleBlock();
  // The chunk's op at a per-sample op's place is cloned, whatever it is
  // (a reshape at batch 1 may be a transpose at C); the others do not
  // depend on the batch and are the batch-1 graph's.
  for (auto [op, chunkOp] : llvm::zip(ops, entry.without_terminator())) {
    if (op->getBlock() == &body) {
      b.clone(chunkOp, mapping);
      continue;
    }
    if (op->getName() != chunkOp.getName() ||
        op->getResultTypes() != chunkOp.getResultTypes())
      return emitNodeError(chunkOp)
             << "differs from the batch-1 graph's op at its place"
             << kBindBatch;
    mapping.map(chunkOp.getResults(), op->getResults());
  }
  SmallVector<Value> yielded =
      llvm::map_to_vector(entry.getTerminator()->getOperands(),
                          [&](Value v) { return mapping.lookupOrDefault(v); });
  b.create<YieldOp>(map.getLoc(), yielded);
  return success();
}

/// Fails at the first value of `func` that `second` finds the batch in
/// elsewhere than `first` does.
LogicalResult checkSameAxes(func::FuncOp func, const BatchAxes &first,
                            const BatchAxes &second) {
  auto differs = [&](Value v) { return first.lookup(v) != second.lookup(v); };
  for (BlockArgument arg : func.getArguments())
    if (differs(arg))
      return emitError(func.getLoc())
             << "graph input #" << arg.getArgNumber()
             << " holds the batch differently at the batches tried"
             << kBindBatch;
  for (Operation &op : func.front())
    if (llvm::any_of(op.getResults(), differs))
      return emitNodeError(op)
             << "holds the batch differently at the batches tried"
             << kBindBatch;
  return success();
}

/// Whether `chunk`, the graph imported at a batch of C, has `perSample`'s
/// ops and holds the batch where `axes` says (as checkSameAxes does for the
/// probes); no diagnostic.
LogicalResult checkChunk(func::FuncOp perSample, func::FuncOp chunk,
                         const BatchAxes &axes) {
  ScopedDiagnosticHandler quiet(perSample.getContext(),
                                [](Diagnostic &) { return success(); });
  auto batched = llvm::find_if(perSample.getArguments(), [&](Value v) {
    return axes.lookup(v).has_value();
  });
  if (batched == perSample.getArguments().end())
    return failure();
  auto type = cast<RankedTensorType>(
      chunk.getArgument((*batched).getArgNumber()).getType());
  BatchAxes atChunk(type.getDimSize(0));
  if (failed(atChunk.run(perSample, chunk)))
    return failure();
  return checkSameAxes(perSample, axes, atChunk);
}

/// `line` as text: "2 * N + 1" (shortest decimals: they are whole
/// numbers).
std::string formatLine(const BatchForm &line) {
  std::ostringstream text;
  text << line.slope << " * N + " << line.offset;
  return text.str();
}

/// Fails when the read `a` (in the probe at batch `batchA`) depends on the
/// batch in a way the importer does not follow, holds a line where the
/// graph would not show it, or holds another line than `b` (the same read
/// at `batchB`; null when it did not depend on the batch).
LogicalResult checkBatchDerivedRead(const ProbeRecord::ConstantRead &a,
                                    int64_t batchA,
                                    const ProbeRecord::ConstantRead *b,
                                    int64_t batchB) {
  const HostTensor &x = a.tensor;
  auto fail = [&]() {
    InFlightDiagnostic diag = emitError(a.loc);
    if (auto name = dyn_cast<NameLoc>(a.loc))
      diag << "node '" << name.getName().getValue() << "': ";
    return std::move(diag << a.operand);
  };
  constexpr StringLiteral kNotFollowed =
      " is computed from the batch size by arithmetic the importer does not "
      "follow (float arithmetic, a division that is not exact, a remainder, "
      "a minimum or maximum that changes operand, ...), so it may differ at "
      "batches the import did not try";
  if (x.shapeForm == BatchForm::Opaque)
    return fail() << "'s shape" << kNotFollowed << kBindBatch;
  bool sameShape = !b || b->tensor.shape == x.shape;
  for (int64_t i = 0, count = x.numElements(); i < count; ++i) {
    BatchForm form = x.formAt(i);
    if (form.kind == BatchForm::Opaque)
      return fail() << " element " << i << kNotFollowed << kBindBatch;
    if (form.kind != BatchForm::Affine)
      continue;
    // A target extent of at least 1 at every batch is the result's extent;
    // anywhere else (a slice's bound, a resize's scale, a constant) the
    // graph holds only what the op makes of the line at the probes.
    if (!a.isTargetShape || form.slope < 0 || form.slope + form.offset < 1)
      return fail() << " element " << i << " is " << formatLine(form)
                    << " in the batch size N, which only target extents (a "
                    << "Reshape's or Expand's shape, a Resize's sizes) may be"
                    << kBindBatch;
    if (sameShape && !(form == (b ? b->tensor.formAt(i) : BatchForm())))
      return fail() << " element " << i << " is computed from the batch size "
                    << "as " << formatLine(form) << " at batch " << batchA
                    << " but not at batch " << batchB << kBindBatch;
  }
  return success();
}

} // namespace

LogicalResult
npu::onnx_import::checkBatchDerivedReads(const ProbeRecord &first,
                                         const ProbeRecord &second) {
  for (auto [one, two] :
       {std::pair(&first, &second), std::pair(&second, &first)}) {
    llvm::StringMap<const ProbeRecord::ConstantRead *> otherReads;
    for (const ProbeRecord::ConstantRead &read : two->reads)
      otherReads[read.key] = &read;
    for (const ProbeRecord::ConstantRead &read : one->reads)
      if (failed(checkBatchDerivedRead(
              read, one->batch, otherReads.lookup(read.key), two->batch)))
        return failure();
  }
  return success();
}

LogicalResult npu::onnx_import::mapOverBatch(func::FuncOp perSample,
                                             ArrayRef<func::FuncOp> probes,
                                             func::FuncOp chunk) {
  assert(probes.size() == std::size(kProbeBatches) && "one per probe batch");
  BatchAxes axes(kProbeBatches[0]);
  if (failed(axes.run(perSample, probes[0])))
    return failure();
  for (auto [batch, probe] :
       llvm::zip(ArrayRef(kProbeBatches).drop_front(), probes.drop_front())) {
    BatchAxes again(batch);
    if (failed(again.run(perSample, probe)) ||
        failed(checkSameAxes(perSample, axes, again)))
      return failure();
  }
  // The chunk's graph is compared as a probe's is: the same ops, holding
  // the batch where the batch-1 graph does, so that its ops correspond one
  // for one to the batch-1 graph's. One that is not runs without its chunk
  // region.
  if (chunk && failed(checkChunk(perSample, chunk, axes))) {
    emitWarning(perSample.getLoc())
        << "the graph at its batch chunk differs from the batch-1 graph "
        << "beyond the batch: every sample runs apart";
    chunk = nullptr;
  }
  // The ops in order before buildMapBatch moves them: the chunk's graph
  // has the same, one for one.
  SmallVector<Operation *> ops =
      llvm::map_to_vector(perSample.front().without_terminator(),
                          [](Operation &op) { return &op; });
  SmallVector<BlockArgument> arguments(perSample.getArguments());
  FailureOr<MapBatchOp> map = buildMapBatch(perSample, axes);
  if (failed(map) ||
      (chunk && failed(buildChunkRegion(*map, ops, arguments, chunk))))
    return failure();
  perSample.walk([](SliceOp slice) { slice->removeAttr(kClampedAxesAttr); });
  return success();
}
