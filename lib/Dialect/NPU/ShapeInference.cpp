//===- ShapeInference.cpp - shape functions shared by op classes ----------===//
//
// Validation and result-type inference for op classes with several members
// (convolutions, pools, broadcasting binaries, the vector-scalar family),
// plus the diagnostic helpers every shape function uses. Each function is
// O(rank) in time.
//
//===----------------------------------------------------------------------===//

#include "OpDiagnostics.h"
#include "npu/Dialect/NPU/NPUOps.h"

#include "mlir/Dialect/Traits.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace npu::graph;
using namespace npu::graph::detail;

std::string npu::graph::detail::formatShape(ArrayRef<int64_t> values) {
  std::string out;
  llvm::raw_string_ostream os(out);
  os << '[';
  llvm::interleaveComma(values, os, [&](int64_t v) {
    if (ShapedType::isDynamic(v))
      os << '?';
    else
      os << v;
  });
  os << ']';
  return out;
}

LogicalResult npu::graph::detail::checkArrayAttr(
    std::optional<Location> loc, StringRef opName, StringRef name,
    ArrayRef<int64_t> values, size_t size, int64_t minValue) {
  if (values.size() != size)
    return emitShapeError(loc, opName, "attribute '", name, "' must have ",
                          size, " elements, got ", values.size());
  for (int64_t v : values)
    if (v < minValue)
      return emitShapeError(loc, opName, "attribute '", name,
                            "' must have elements >= ", minValue, ", got ",
                            formatShape(values));
  return success();
}

FailureOr<int64_t> npu::graph::detail::checkAxis(std::optional<Location> loc,
                                                 StringRef opName,
                                                 StringRef name, int64_t axis,
                                                 int64_t rank,
                                                 bool allowNegative) {
  int64_t lowest = allowNegative ? -rank : 0;
  if (axis < lowest || axis >= rank)
    return emitShapeError(loc, opName, "attribute '", name, "' = ", axis,
                          " is out of range [", lowest, ", ", rank,
                          ") for a rank-", rank, " input");
  return axis < 0 ? axis + rank : axis;
}

LogicalResult npu::graph::detail::checkSameElementType(
    std::optional<Location> loc, StringRef opName, ArrayRef<Type> types) {
  Type first = cast<ShapedType>(types.front()).getElementType();
  for (Type type : types.drop_front()) {
    Type element = cast<ShapedType>(type).getElementType();
    if (element != first)
      return emitShapeError(loc, opName,
                            "operands must have the same element type, got ",
                            first, " and ", element);
  }
  return success();
}

/// Extent of a sliding-window output dimension: kDynamic when the input is
/// dynamic, std::nullopt when the dilated window does not fit in the padded
/// input. An empty input gives an empty output. Sets `overflow` when the
/// padded input or the dilated window does not fit in 64 bits (attributes
/// come from input files).
static std::optional<int64_t> windowedSize(int64_t in, int64_t kernel,
                                           int64_t stride, int64_t low,
                                           int64_t high, int64_t dilation,
                                           bool &overflow) {
  if (ShapedType::isDynamic(in) || ShapedType::isDynamic(kernel))
    return ShapedType::kDynamic;
  int64_t padded, window, span;
  overflow = llvm::AddOverflow(in, low, padded) ||
             llvm::AddOverflow(padded, high, padded) ||
             llvm::MulOverflow(dilation, kernel - 1, window) ||
             llvm::SubOverflow(padded, window, span);
  if (overflow)
    return std::nullopt;
  span -= 1;
  if (span < 0)
    return in == 0 ? std::optional<int64_t>(0) : std::nullopt;
  return span / stride + 1;
}

/// Appends the spatial output extents of a window of `kernel` sliding over
/// the spatial dimensions `input[1 .. kernel.size()]`.
static LogicalResult
inferWindowedDims(std::optional<Location> loc, StringRef opName,
                  ArrayRef<int64_t> input, ArrayRef<int64_t> kernel,
                  ArrayRef<int64_t> strides, ArrayRef<int64_t> padding,
                  ArrayRef<int64_t> dilations, SmallVectorImpl<int64_t> &out) {
  for (auto [i, k] : llvm::enumerate(kernel)) {
    if (!ShapedType::isDynamic(k) && k <= 0)
      return emitShapeError(loc, opName, "kernel extent ", k,
                            " of spatial dimension ", i, " must be positive");
    bool overflow = false;
    std::optional<int64_t> size =
        windowedSize(input[i + 1], k, strides[i], padding[2 * i],
                     padding[2 * i + 1], dilations[i], overflow);
    if (overflow)
      return emitShapeError(loc, opName, "spatial dimension ", i, " of size ",
                            input[i + 1], " padded by (", padding[2 * i], ", ",
                            padding[2 * i + 1], ") with kernel extent ", k,
                            " and dilation ", dilations[i],
                            " has extents that do not fit in 64 bits");
    if (!size)
      return emitShapeError(loc, opName, "spatial dimension ", i, " of size ",
                            input[i + 1], " padded by (", padding[2 * i], ", ",
                            padding[2 * i + 1],
                            ") is smaller than the dilated kernel extent ",
                            dilations[i] * (k - 1) + 1);
    out.push_back(*size);
  }
  return success();
}

static bool isStaticAndNot(int64_t dim, int64_t expected) {
  return !ShapedType::isDynamic(dim) && !ShapedType::isDynamic(expected) &&
         dim != expected;
}

LogicalResult npu::graph::detail::inferConvType(
    std::optional<Location> loc, StringRef opName, unsigned spatialRank,
    Value input, Value filter, Value bias, DenseI64ArrayAttr stridesAttr,
    DenseI64ArrayAttr paddingAttr, DenseI64ArrayAttr dilationsAttr,
    IntegerAttr groupsAttr, SmallVectorImpl<Type> &types) {
  SmallVector<int64_t> ones(spatialRank, 1), zeros(2 * spatialRank, 0);
  ArrayRef<int64_t> strides = valuesOr(stridesAttr, ones);
  ArrayRef<int64_t> padding = valuesOr(paddingAttr, zeros);
  ArrayRef<int64_t> dilations = valuesOr(dilationsAttr, ones);
  int64_t groups = valueOr(groupsAttr, 1);
  auto inputType = cast<RankedTensorType>(input.getType());
  auto filterType = cast<RankedTensorType>(filter.getType());
  int64_t rank = spatialRank + 2;
  if (inputType.getRank() != rank)
    return emitShapeError(loc, opName, "input must have rank ", rank,
                          " (N, spatial..., C), got ", inputType.getRank());
  if (filterType.getRank() != rank)
    return emitShapeError(loc, opName, "filter must have rank ", rank,
                          " (O, spatial..., I), got ", filterType.getRank());
  SmallVector<Type> operandTypes = {inputType, filterType};
  if (bias)
    operandTypes.push_back(bias.getType());
  if (failed(checkSameElementType(loc, opName, operandTypes)) ||
      failed(checkArrayAttr(loc, opName, "strides", strides, spatialRank, 1)) ||
      failed(checkArrayAttr(loc, opName, "padding", padding, 2 * spatialRank,
                            0)) ||
      failed(
          checkArrayAttr(loc, opName, "dilations", dilations, spatialRank, 1)))
    return failure();
  if (groups < 1)
    return emitShapeError(loc, opName, "attribute 'groups' must be >= 1, got ",
                          groups);

  ArrayRef<int64_t> in = inputType.getShape(), fil = filterType.getShape();
  int64_t channels = in.back(), outChannels = fil.front();
  if (!ShapedType::isDynamic(channels) && channels % groups != 0)
    return emitShapeError(loc, opName, "input channels (", channels,
                          ") must be divisible by groups (", groups, ")");
  if (!ShapedType::isDynamic(outChannels) && outChannels % groups != 0)
    return emitShapeError(loc, opName, "output channels (", outChannels,
                          ") must be divisible by groups (", groups, ")");
  int64_t filterChannels = fil.back(), product = 0;
  // A product past 64 bits cannot equal a static channel count.
  if (!ShapedType::isDynamic(filterChannels) &&
      (llvm::MulOverflow(filterChannels, groups, product)
           ? !ShapedType::isDynamic(channels)
           : isStaticAndNot(product, channels)))
    return emitShapeError(loc, opName, "filter input channels (",
                          filterChannels, ") times groups (", groups,
                          ") must equal input channels (", channels, ")");
  if (bias) {
    auto biasType = cast<RankedTensorType>(bias.getType());
    if (biasType.getRank() != 1 ||
        isStaticAndNot(biasType.getDimSize(0), outChannels))
      return emitShapeError(loc, opName, "bias must have shape [", outChannels,
                            "], got ", formatShape(biasType.getShape()));
  }

  SmallVector<int64_t> shape = {in.front()};
  if (failed(inferWindowedDims(loc, opName, in, fil.slice(1, spatialRank),
                               strides, padding, dilations, shape)))
    return failure();
  shape.push_back(outChannels);
  types.push_back(RankedTensorType::get(shape, inputType.getElementType()));
  return success();
}

LogicalResult npu::graph::detail::inferPool2DType(
    std::optional<Location> loc, StringRef opName, Value input,
    ArrayRef<int64_t> kernel, DenseI64ArrayAttr stridesAttr,
    DenseI64ArrayAttr paddingAttr, SmallVectorImpl<Type> &types) {
  int64_t ones[] = {1, 1}, zeros[] = {0, 0, 0, 0};
  ArrayRef<int64_t> strides = valuesOr(stridesAttr, ones);
  ArrayRef<int64_t> padding = valuesOr(paddingAttr, zeros);
  auto inputType = cast<RankedTensorType>(input.getType());
  if (inputType.getRank() != 4)
    return emitShapeError(loc, opName,
                          "input must have rank 4 (N, H, W, C), got ",
                          inputType.getRank());
  if (failed(checkArrayAttr(loc, opName, "kernel", kernel, 2, 1)) ||
      failed(checkArrayAttr(loc, opName, "strides", strides, 2, 1)) ||
      failed(checkArrayAttr(loc, opName, "padding", padding, 4, 0)))
    return failure();
  for (auto [i, k] : llvm::enumerate(kernel))
    if (padding[2 * i] >= k || padding[2 * i + 1] >= k)
      return emitShapeError(loc, opName, "padding of spatial dimension ", i,
                            " must be smaller than the kernel extent ", k,
                            ", got ", formatShape(padding));
  ArrayRef<int64_t> in = inputType.getShape();
  SmallVector<int64_t> shape = {in.front()};
  if (failed(inferWindowedDims(loc, opName, in, kernel, strides, padding, ones,
                               shape)))
    return failure();
  shape.push_back(in.back());
  types.push_back(RankedTensorType::get(shape, inputType.getElementType()));
  return success();
}

LogicalResult
npu::graph::detail::inferBroadcastType(std::optional<Location> loc,
                                       StringRef opName, Value lhs, Value rhs,
                                       SmallVectorImpl<Type> &types) {
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  auto rhsType = cast<RankedTensorType>(rhs.getType());
  if (failed(checkSameElementType(loc, opName, {lhsType, rhsType})))
    return failure();
  SmallVector<int64_t> shape;
  if (!OpTrait::util::getBroadcastedShape(lhsType.getShape(),
                                          rhsType.getShape(), shape))
    return emitShapeError(loc, opName, "operand shapes ",
                          formatShape(lhsType.getShape()), " and ",
                          formatShape(rhsType.getShape()),
                          " are not broadcast-compatible");
  types.push_back(RankedTensorType::get(shape, lhsType.getElementType()));
  return success();
}

LogicalResult
npu::graph::detail::inferCompareType(std::optional<Location> loc,
                                     StringRef opName, Value lhs, Value rhs,
                                     SmallVectorImpl<Type> &types) {
  if (failed(inferBroadcastType(loc, opName, lhs, rhs, types)))
    return failure();
  types.back() = cast<RankedTensorType>(types.back())
                     .clone(IntegerType::get(lhs.getContext(), 1));
  return success();
}

LogicalResult npu::graph::detail::inferVectorScalarType(
    std::optional<Location> loc, StringRef opName, Value input, Value scalar,
    SmallVectorImpl<Type> &types) {
  auto inputType = cast<RankedTensorType>(input.getType());
  auto scalarType = cast<RankedTensorType>(scalar.getType());
  if (failed(checkSameElementType(loc, opName, {inputType, scalarType})))
    return failure();
  SmallVector<int64_t> shape;
  if (!OpTrait::util::getBroadcastedShape(inputType.getShape(),
                                          scalarType.getShape(), shape) ||
      ArrayRef<int64_t>(shape) != inputType.getShape())
    return emitShapeError(loc, opName, "scalar operand of shape ",
                          formatShape(scalarType.getShape()),
                          " must broadcast onto the input shape ",
                          formatShape(inputType.getShape()),
                          " without changing it");
  types.push_back(stripLayout(inputType));
  return success();
}
