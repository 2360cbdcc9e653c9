//===- NPUOps.cpp - shape functions and verifiers of npu ops --------------===//
//
// Ops with a shape function of their own (op classes share theirs in
// ShapeInference.cpp). Every check reports the op, the operand or attribute
// and the broken constraint; all are O(rank) or O(#operands * rank).
//
//===----------------------------------------------------------------------===//

#include "npu/Dialect/NPU/NPUOps.h"
#include "OpDiagnostics.h"

#include "mlir/Dialect/Traits.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace npu::graph;
using namespace npu::graph::detail;

static bool isDynamic(int64_t dim) { return ShapedType::isDynamic(dim); }

static RankedTensorType getTensorType(Value value) {
  return cast<RankedTensorType>(value.getType());
}

//===----------------------------------------------------------------------===//
// MatmulOp
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  RankedTensorType lhs = getTensorType(adaptor.getLhs());
  RankedTensorType rhs = getTensorType(adaptor.getRhs());
  if (lhs.getRank() < 2 || rhs.getRank() < 2)
    return emitShapeError(loc, name, "operands must have rank >= 2, got ",
                          lhs.getRank(), " and ", rhs.getRank());
  SmallVector<Type> operandTypes = {lhs, rhs};
  if (adaptor.getBias())
    operandTypes.push_back(adaptor.getBias().getType());
  if (failed(checkSameElementType(loc, name, operandTypes)))
    return failure();

  ArrayRef<int64_t> l = lhs.getShape(), r = rhs.getShape();
  int64_t m = l[l.size() - 2], kl = l.back();
  int64_t kr = r[r.size() - 2], n = r.back();
  if (adaptor.getTransposeLhs())
    std::swap(m, kl);
  if (adaptor.getTransposeRhs())
    std::swap(kr, n);
  if (!isDynamic(kl) && !isDynamic(kr) && kl != kr)
    return emitShapeError(loc, name,
                          "contraction sizes differ: lhs has K = ", kl,
                          ", rhs has K = ", kr);
  SmallVector<int64_t> shape;
  if (!OpTrait::util::getBroadcastedShape(l.drop_back(2), r.drop_back(2),
                                          shape))
    return emitShapeError(
        loc, name, "batch dimensions ", formatShape(l.drop_back(2)), " and ",
        formatShape(r.drop_back(2)), " are not broadcast-compatible");
  if (Value bias = adaptor.getBias()) {
    RankedTensorType biasType = getTensorType(bias);
    if (biasType.getRank() != 1 ||
        (!isDynamic(n) && !isDynamic(biasType.getDimSize(0)) &&
         biasType.getDimSize(0) != n))
      return emitShapeError(loc, name, "bias must have shape [", n, "], got ",
                            formatShape(biasType.getShape()));
  }
  shape.append({m, n});
  types.push_back(RankedTensorType::get(shape, lhs.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// ReduceOp
//===----------------------------------------------------------------------===//

LogicalResult ReduceOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  RankedTensorType input = getTensorType(adaptor.getInput());
  ArrayRef<int64_t> axes = adaptor.getAxes();
  if (axes.empty())
    return emitShapeError(loc, name, "attribute 'axes' must not be empty");
  llvm::SmallBitVector reduced(input.getRank());
  for (int64_t axis : axes) {
    if (failed(checkAxis(loc, name, "axes", axis, input.getRank(),
                         /*allowNegative=*/false)))
      return failure();
    if (reduced.test(axis))
      return emitShapeError(loc, name, "attribute 'axes' repeats axis ", axis);
    reduced.set(axis);
  }
  SmallVector<int64_t> shape;
  for (auto [i, dim] : llvm::enumerate(input.getShape())) {
    if (!reduced.test(i))
      shape.push_back(dim);
    else if (adaptor.getKeepdims())
      shape.push_back(1);
  }
  types.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// TransposeOp
//===----------------------------------------------------------------------===//

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  RankedTensorType input = getTensorType(adaptor.getInput());
  ArrayRef<int64_t> perms = adaptor.getPerms();
  int64_t rank = input.getRank();
  llvm::SmallBitVector seen(rank);
  bool isPermutation = static_cast<int64_t>(perms.size()) == rank;
  for (int64_t p : perms) {
    isPermutation = isPermutation && p >= 0 && p < rank && !seen.test(p);
    if (isPermutation)
      seen.set(p);
  }
  if (!isPermutation)
    return emitShapeError(loc, name, "attribute 'perms' ", formatShape(perms),
                          " is not a permutation of [0, ", rank, ")");
  SmallVector<int64_t> shape;
  for (int64_t p : perms)
    shape.push_back(input.getDimSize(p));
  types.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// ConcatOp
//===----------------------------------------------------------------------===//

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  ValueRange inputs = adaptor.getInputs();
  if (inputs.empty())
    return emitShapeError(loc, name, "needs at least one input");
  RankedTensorType first = getTensorType(inputs.front());
  FailureOr<int64_t> axis = checkAxis(loc, name, "axis", adaptor.getAxis(),
                                      first.getRank(), /*allowNegative=*/false);
  if (failed(axis) || failed(checkSameElementType(
                          loc, name, llvm::to_vector(inputs.getTypes()))))
    return failure();
  SmallVector<int64_t> shape(first.getShape());
  for (auto [i, input] : llvm::enumerate(inputs.drop_front())) {
    RankedTensorType type = getTensorType(input);
    if (type.getRank() != first.getRank())
      return emitShapeError(loc, name, "input #", i + 1, " has rank ",
                            type.getRank(), ", input #0 has rank ",
                            first.getRank());
    for (auto [d, dim] : llvm::enumerate(type.getShape())) {
      if (static_cast<int64_t>(d) == *axis) {
        shape[d] = isDynamic(dim) || isDynamic(shape[d]) ? ShapedType::kDynamic
                                                         : shape[d] + dim;
        continue;
      }
      if (!isDynamic(dim) && !isDynamic(shape[d]) && dim != shape[d])
        return emitShapeError(loc, name, "input #", i + 1, " has size ", dim,
                              " in dimension ", d, " where input #0 has ",
                              shape[d], " (only axis ", *axis, " may differ)");
    }
  }
  types.push_back(RankedTensorType::get(shape, first.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// ScatterOp
//===----------------------------------------------------------------------===//

LogicalResult ScatterOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  RankedTensorType data = getTensorType(adaptor.getData());
  RankedTensorType indices = getTensorType(adaptor.getIndices());
  RankedTensorType updates = getTensorType(adaptor.getUpdates());
  if (failed(checkSameElementType(loc, name, {data, updates})) ||
      failed(checkAxis(loc, name, "axis", adaptor.getAxis(), data.getRank(),
                       /*allowNegative=*/false)))
    return failure();
  if (indices.getRank() != data.getRank() ||
      failed(verifyCompatibleShape(indices.getShape(), updates.getShape())))
    return emitShapeError(
        loc, name, "indices ", formatShape(indices.getShape()), " and updates ",
        formatShape(updates.getShape()),
        " must have one shape of the data's rank ", data.getRank());
  types.push_back(stripLayout(data));
  return success();
}

//===----------------------------------------------------------------------===//
// ScatterNDOp, GatherOp, ExpandOp
//===----------------------------------------------------------------------===//

LogicalResult ScatterNDOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  RankedTensorType data = getTensorType(adaptor.getData());
  RankedTensorType indices = getTensorType(adaptor.getIndices());
  RankedTensorType updates = getTensorType(adaptor.getUpdates());
  if (failed(checkSameElementType(loc, name, {data, updates})))
    return failure();
  int64_t depth = indices.getRank() ? indices.getShape().back() : 0;
  if (indices.getRank() < 1 || isDynamic(depth) || depth < 1 ||
      depth > data.getRank())
    return emitShapeError(loc, name, "indices ",
                          formatShape(indices.getShape()),
                          " must have rank >= 1 and a static last dimension "
                          "in [1, ",
                          data.getRank(), "] (the rank of data)");
  SmallVector<int64_t> expected(indices.getShape().drop_back());
  llvm::append_range(expected, data.getShape().drop_front(depth));
  if (failed(verifyCompatibleShape(expected, updates.getShape())))
    return emitShapeError(loc, name, "updates must have shape ",
                          formatShape(expected),
                          " (indices.shape[:-1] ++ "
                          "data.shape[k:]), got ",
                          formatShape(updates.getShape()));
  types.push_back(stripLayout(data));
  return success();
}

LogicalResult GatherOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  RankedTensorType data = getTensorType(adaptor.getData());
  RankedTensorType indices = getTensorType(adaptor.getIndices());
  FailureOr<int64_t> axis =
      checkAxis(loc, getOperationName(), "axis", adaptor.getAxis(),
                data.getRank(), /*allowNegative=*/true);
  if (failed(axis))
    return failure();
  SmallVector<int64_t> shape(data.getShape().take_front(*axis));
  llvm::append_range(shape, indices.getShape());
  llvm::append_range(shape, data.getShape().drop_front(*axis + 1));
  types.push_back(RankedTensorType::get(shape, data.getElementType()));
  return success();
}

LogicalResult ExpandOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  RankedTensorType input = getTensorType(adaptor.getInput());
  ArrayRef<int64_t> target = adaptor.getShape();
  if (failed(checkArrayAttr(loc, getOperationName(), "shape", target,
                            target.size(), 0)))
    return failure();
  SmallVector<int64_t> shape;
  if (!OpTrait::util::getBroadcastedShape(input.getShape(), target, shape))
    return emitShapeError(
        loc, getOperationName(), "input shape ", formatShape(input.getShape()),
        " does not broadcast with 'shape' ", formatShape(target));
  types.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// ResizeOp
//===----------------------------------------------------------------------===//

LogicalResult ResizeOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  RankedTensorType input = getTensorType(adaptor.getInput());
  if (input.getRank() != 4)
    return emitShapeError(loc, name,
                          "input must have rank 4 (N, H, W, C), got ",
                          input.getRank());
  ArrayRef<int64_t> size = adaptor.getSize();
  if (failed(checkArrayAttr(loc, name, "size", size, 2, 0)))
    return failure();
  for (int d = 0; d < 2; ++d)
    if (size[d] > 0 && input.getDimSize(1 + d) == 0)
      return emitShapeError(loc, name,
                            "cannot resize an empty spatial "
                            "dimension ",
                            d, " to ", size[d]);
  SmallVector<int64_t> shape = {input.getDimSize(0), size[0], size[1],
                                input.getDimSize(3)};
  types.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// GridSampleOp
//===----------------------------------------------------------------------===//

LogicalResult GridSampleOp::inferReturnTypes(MLIRContext *,
                                             std::optional<Location> loc,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  RankedTensorType input = getTensorType(adaptor.getInput());
  RankedTensorType grid = getTensorType(adaptor.getGrid());
  if (input.getRank() != 4)
    return emitShapeError(loc, name,
                          "input must have rank 4 (N, H, W, C), got ",
                          input.getRank());
  if (grid.getRank() != 4 || grid.getDimSize(3) != 2)
    return emitShapeError(loc, name,
                          "grid must have shape [N, H_out, W_out, 2], got ",
                          formatShape(grid.getShape()));
  if (grid.getDimSize(0) != input.getDimSize(0))
    return emitShapeError(loc, name, "grid has ", grid.getDimSize(0),
                          " images, the input ", input.getDimSize(0));
  if (grid.getElementType() != input.getElementType())
    return emitShapeError(loc, name, "grid and input element types differ");
  // As PyTorch's grid_sample: points need an input plane to sample.
  if ((input.getDimSize(1) == 0 || input.getDimSize(2) == 0) &&
      grid.getDimSize(1) * grid.getDimSize(2) > 0)
    return emitShapeError(loc, name, "cannot sample an empty input plane (",
                          input.getDimSize(1), " x ", input.getDimSize(2),
                          ") at ", grid.getDimSize(1) * grid.getDimSize(2),
                          " points");
  SmallVector<int64_t> shape = {input.getDimSize(0), grid.getDimSize(1),
                                grid.getDimSize(2), input.getDimSize(3)};
  types.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// TopKOp
//===----------------------------------------------------------------------===//

LogicalResult TopKOp::inferReturnTypes(MLIRContext *context,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  RankedTensorType input = getTensorType(adaptor.getInput());
  FailureOr<int64_t> axis = checkAxis(loc, name, "axis", adaptor.getAxis(),
                                      input.getRank(), /*allowNegative=*/false);
  if (failed(axis))
    return failure();
  int64_t k = adaptor.getK(), size = input.getDimSize(*axis);
  if (k < 0 || (!isDynamic(size) && k > size))
    return emitShapeError(loc, name, "k = ", k, " must be in [0, ", size,
                          "], the size of axis ", *axis);
  SmallVector<int64_t> shape(input.getShape());
  shape[*axis] = k;
  types.push_back(RankedTensorType::get(shape, input.getElementType()));
  types.push_back(RankedTensorType::get(shape, IntegerType::get(context, 64)));
  return success();
}

//===----------------------------------------------------------------------===//
// PadOp
//===----------------------------------------------------------------------===//

LogicalResult PadOp::inferReturnTypes(MLIRContext *,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  RankedTensorType input = getTensorType(adaptor.getInput());
  ArrayRef<int64_t> low = adaptor.getPadLow(), high = adaptor.getPadHigh();
  size_t rank = input.getRank();
  if (failed(checkArrayAttr(loc, name, "pad_low", low, rank, 0)) ||
      failed(checkArrayAttr(loc, name, "pad_high", high, rank, 0)))
    return failure();
  SmallVector<int64_t> shape;
  for (auto [dim, lo, hi] : llvm::zip(input.getShape(), low, high))
    shape.push_back(isDynamic(dim) ? dim : dim + lo + hi);
  types.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// SliceOp
//===----------------------------------------------------------------------===//

LogicalResult SliceOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  RankedTensorType input = getTensorType(adaptor.getInput());
  size_t rank = input.getRank();
  ArrayRef<int64_t> start = adaptor.getStart(), end = adaptor.getEnd();
  SmallVector<int64_t> strides(rank, 1);
  if (std::optional<ArrayRef<int64_t>> given = adaptor.getStrides()) {
    if (failed(checkArrayAttr(loc, name, "strides", *given, rank, 1)))
      return failure();
    strides.assign(given->begin(), given->end());
  }
  if (failed(checkArrayAttr(loc, name, "start", start, rank, 0)) ||
      failed(checkArrayAttr(loc, name, "end", end, rank, 0)))
    return failure();
  SmallVector<int64_t> shape;
  for (size_t i = 0; i < rank; ++i) {
    int64_t dim = input.getDimSize(i);
    if (start[i] > end[i] || (!isDynamic(dim) && end[i] > dim))
      return emitShapeError(
          loc, name, "dimension ", i, ": need 0 <= start (", start[i],
          ") <= end (", end[i], ") <= size (",
          isDynamic(dim) ? std::string("?") : std::to_string(dim), ")");
    shape.push_back(llvm::divideCeil(end[i] - start[i], strides[i]));
  }
  types.push_back(RankedTensorType::get(shape, input.getElementType()));
  return success();
}

OpFoldResult TransposeOp::fold(FoldAdaptor) {
  ArrayRef<int64_t> perms = getPerms();
  if (llvm::equal(perms, llvm::seq<int64_t>(0, perms.size())) &&
      getInput().getType() == getType())
    return getInput();
  auto inner = getInput().getDefiningOp<TransposeOp>();
  if (!inner)
    return {};
  // output[i] = inner.output[perms[i]] = inner.input[innerPerms[perms[i]]].
  ArrayRef<int64_t> innerPerms = inner.getPerms();
  SmallVector<int64_t> composed;
  for (int64_t p : perms)
    composed.push_back(innerPerms[p]);
  setPerms(composed);
  getInputMutable().assign(inner.getInput());
  return getResult();
}

//===----------------------------------------------------------------------===//
// ReshapeOp, CastOp
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  RankedTensorType input = getInput().getType(), output = getType();
  if (input.getElementType() != output.getElementType())
    return emitOpError("result element type ")
           << output.getElementType() << " differs from the input's "
           << input.getElementType();
  if (input.hasStaticShape() && output.hasStaticShape() &&
      input.getNumElements() != output.getNumElements())
    return emitOpError("cannot reshape ")
           << input.getNumElements() << " elements "
           << formatShape(input.getShape()) << " into "
           << output.getNumElements() << " elements "
           << formatShape(output.getShape());
  return success();
}

OpFoldResult ReshapeOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  if (auto inner = getInput().getDefiningOp<ReshapeOp>()) {
    getInputMutable().assign(inner.getInput());
    return getResult();
  }
  return {};
}

LogicalResult CastOp::verify() {
  RankedTensorType input = getInput().getType(), output = getType();
  if (failed(verifyCompatibleShape(input.getShape(), output.getShape())))
    return emitOpError("result shape ")
           << formatShape(output.getShape()) << " differs from the input's "
           << formatShape(input.getShape());
  return success();
}

//===----------------------------------------------------------------------===//
// ConstantOp
//===----------------------------------------------------------------------===//

LogicalResult ConstantOp::inferReturnTypes(MLIRContext *,
                                           std::optional<Location> loc,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &types) {
  auto type = dyn_cast<RankedTensorType>(adaptor.getValue().getType());
  if (!type)
    return emitShapeError(loc, getOperationName(),
                          "value must be a ranked tensor, got ",
                          adaptor.getValue().getType());
  types.push_back(stripLayout(type));
  return success();
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

//===----------------------------------------------------------------------===//
// ChannelNormOp
//===----------------------------------------------------------------------===//

LogicalResult ChannelNormOp::inferReturnTypes(MLIRContext *,
                                              std::optional<Location>,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &types) {
  types.push_back(stripLayout(adaptor.getInput().getType()));
  return success();
}

OpFoldResult ChannelNormOp::fold(FoldAdaptor adaptor) {
  // The materializer builds a constant of this op's (encoded) result type.
  if (auto value = dyn_cast_if_present<ElementsAttr>(adaptor.getInput()))
    return value;
  Value input = getInput();
  if (!canBeStoredAligned(getType().getRank()) && input.getType() == getType())
    return input;
  auto inner = input.getDefiningOp<ChannelNormOp>();
  if (inner && inner.getDirection() != getDirection() &&
      inner.getInput().getType() == getType())
    return inner.getInput();
  return {};
}

LogicalResult ChannelNormOp::verify() {
  // A tensor that cannot be stored aligned is dense either way: the
  // conversion is a no-op (canonicalization removes it).
  if (!canBeStoredAligned(getType().getRank()))
    return success();
  AlignMode target = getTargetMode();
  std::optional<AlignMode> in = getLayoutMode(getInput().getType());
  if (in && *in == target)
    return emitOpError("converts ")
           << stringifyChannelNormDirection(getDirection())
           << " but its input is already " << stringifyAlignMode(*in);
  std::optional<AlignMode> out = getLayoutMode(getType());
  if (out && *out != target)
    return emitOpError("converts ")
           << stringifyChannelNormDirection(getDirection())
           << " but its result is declared " << stringifyAlignMode(*out);
  return success();
}

//===----------------------------------------------------------------------===//
// ClipOp, SelectOp
//===----------------------------------------------------------------------===//

LogicalResult ClipOp::verify() {
  double low = getMin().convertToDouble(), high = getMax().convertToDouble();
  if (!(low <= high))
    return emitOpError("needs min <= max, got min = ")
           << low << " and max = " << high;
  return success();
}

LogicalResult SelectOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  if (failed(inferBroadcastType(loc, name, adaptor.getLhs(), adaptor.getRhs(),
                                types)))
    return failure();
  auto values = cast<RankedTensorType>(types.back());
  ArrayRef<int64_t> cond = getTensorType(adaptor.getCond()).getShape();
  SmallVector<int64_t> shape;
  if (!OpTrait::util::getBroadcastedShape(cond, values.getShape(), shape))
    return emitShapeError(loc, name, "condition shape ", formatShape(cond),
                          " does not broadcast with the values' shape ",
                          formatShape(values.getShape()));
  types.back() = values.clone(shape);
  return success();
}

//===----------------------------------------------------------------------===//
// SoftmaxOp, LayerNormOp
//===----------------------------------------------------------------------===//

LogicalResult SoftmaxOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  RankedTensorType input = getTensorType(adaptor.getInput());
  if (failed(checkAxis(loc, getOperationName(), "axis",
                       valueOr(adaptor.getAxisAttr(), -1), input.getRank(),
                       /*allowNegative=*/true)))
    return failure();
  types.push_back(stripLayout(input));
  return success();
}

LogicalResult LayerNormOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  RankedTensorType input = getTensorType(adaptor.getInput());
  FailureOr<int64_t> axis =
      checkAxis(loc, name, "axis", valueOr(adaptor.getAxisAttr(), -1),
                input.getRank(), /*allowNegative=*/true);
  if (failed(axis))
    return failure();
  ArrayRef<int64_t> normalized = input.getShape().drop_front(*axis);
  for (auto [label, value] : {std::make_pair("gamma", adaptor.getGamma()),
                              std::make_pair("beta", adaptor.getBeta())}) {
    RankedTensorType type = getTensorType(value);
    if (type.getElementType() != input.getElementType() ||
        failed(verifyCompatibleShape(type.getShape(), normalized)))
      return emitShapeError(loc, name, label, " must be ",
                            formatShape(normalized), " of ",
                            input.getElementType(), ", got ", type);
  }
  FloatAttr epsilon = adaptor.getEpsilonAttr();
  if (epsilon && epsilon.getValueAsDouble() <= 0)
    return emitShapeError(loc, name,
                          "attribute 'epsilon' must be positive, got ",
                          epsilon.getValueAsDouble());
  types.push_back(stripLayout(input));
  return success();
}

//===----------------------------------------------------------------------===//
// MoE dispatch ops
//===----------------------------------------------------------------------===//

/// Whether two sizes may be equal (a dynamic size may be anything).
static bool sizesAgree(int64_t a, int64_t b) {
  return isDynamic(a) || isDynamic(b) || a == b;
}

LogicalResult npu::graph::detail::inferMoEType(std::optional<Location> loc,
                                               StringRef opName,
                                               const MoEOperands &ops,
                                               SmallVectorImpl<Type> &types) {
  // [samples] operands (or [k, samples]): indices, locations and (when
  // present) gates.
  int64_t samples = ShapedType::kDynamic, slots = ShapedType::kDynamic;
  int64_t rank = ops.topK ? 2 : 1;
  for (auto [what, value] : {std::make_pair("indices", ops.indices),
                             std::make_pair("locations", ops.locations),
                             std::make_pair("gates", ops.gates)}) {
    if (!value)
      continue;
    RankedTensorType type = getTensorType(value);
    if (type.getRank() != rank)
      return emitShapeError(loc, opName, what, " must have rank ", rank,
                            ops.topK ? " ([k, samples])" : " ([samples])",
                            ", got ", type);
    if (!sizesAgree(type.getDimSize(rank - 1), samples))
      return emitShapeError(loc, opName, what, " has ",
                            type.getDimSize(rank - 1), " samples, indices has ",
                            samples);
    if (ops.topK && !sizesAgree(type.getDimSize(0), slots))
      return emitShapeError(loc, opName, what, " has ", type.getDimSize(0),
                            " slots per sample (k), indices has ", slots);
    if (isDynamic(samples))
      samples = type.getDimSize(rank - 1);
    if (ops.topK && isDynamic(slots))
      slots = type.getDimSize(0);
  }
  int64_t rows;
  if (llvm::MulOverflow(ops.capacity, ops.numExperts, rows))
    return emitShapeError(loc, opName,
                          "num_experts * capacity overflows 64 bits");
  // [samples, hidden] input and [rows, hidden] dispatch.
  int64_t hidden = ShapedType::kDynamic;
  for (auto [what, value, first] :
       {std::make_tuple("input", ops.input, samples),
        std::make_tuple("dispatch", ops.dispatch, rows)}) {
    if (!value)
      continue;
    RankedTensorType type = getTensorType(value);
    if (type.getRank() != 2)
      return emitShapeError(loc, opName, what, " must have rank 2, got ", type);
    if (!sizesAgree(type.getDimSize(0), first))
      return emitShapeError(loc, opName, what, " has ", type.getDimSize(0),
                            " rows, expected ", first,
                            StringRef(what) == "dispatch"
                                ? " (num_experts * capacity)"
                                : " (samples)");
    if (!sizesAgree(type.getDimSize(1), hidden))
      return emitShapeError(loc, opName,
                            "dispatch and input disagree on "
                            "hidden: ",
                            type.getDimSize(1), " vs ", hidden);
    if (isDynamic(hidden))
      hidden = type.getDimSize(1);
  }
  // One float type for gates, input, dispatch and the result.
  Type element;
  StringRef firstFloat;
  for (auto [what, value] :
       {std::make_pair("gates", ops.gates), std::make_pair("input", ops.input),
        std::make_pair("dispatch", ops.dispatch)}) {
    if (!value)
      continue;
    Type type = getTensorType(value).getElementType();
    if (element && type != element)
      return emitShapeError(loc, opName, what, " has element type ", type, ", ",
                            firstFloat, " has ", element,
                            ": the float operands must share one type");
    element = type;
    firstFloat = what;
  }
  switch (ops.result) {
  case MoEOperands::Result::SamplesByHidden:
    types.push_back(RankedTensorType::get({samples, hidden}, element));
    break;
  case MoEOperands::Result::RowsByHidden:
    types.push_back(RankedTensorType::get({rows, hidden}, element));
    break;
  case MoEOperands::Result::Samples:
    types.push_back(RankedTensorType::get({samples}, element));
    break;
  }
  return success();
}
