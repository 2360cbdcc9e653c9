//===- OpImporters.cpp - one handler per ONNX op type ---------------------===//
//
// Each handler reads its node's inputs in the physical order the npu op
// wants (convolutions and pools channels last; matmul, reshape and
// layer_norm the logical order; elementwise ops any order, following their
// highest-rank operand), rewrites axis attributes into that order and builds
// the op. BatchNormalization after a convolution is folded into its weights,
// elsewhere it becomes a per-channel scale and shift. Each handler is
// O(rank) plus the size of any weight it folds.
//
//===----------------------------------------------------------------------===//

#include "Model.h"

#include "npu/Dialect/NPU/NPUDialect.h"

#include "mlir/Dialect/Traits.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/TypeUtilities.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace npu::onnx_import;

namespace {

NamedAttribute i64Array(NodeImporter &n, StringRef name,
                        ArrayRef<int64_t> values) {
  return n.builder.getNamedAttr(name, n.builder.getDenseI64ArrayAttr(values));
}

NamedAttribute i64Attr(NodeImporter &n, StringRef name, int64_t value) {
  return n.builder.getNamedAttr(name, n.builder.getI64IntegerAttr(value));
}

NamedAttribute f64Attr(NodeImporter &n, StringRef name, double value) {
  return n.builder.getNamedAttr(name, n.builder.getF64FloatAttr(value));
}

/// Builds op `name` and defines output 0 in physical order `perm`.
LogicalResult emit(NodeImporter &n, StringRef name, ValueRange operands,
                   ArrayRef<NamedAttribute> attrs, ArrayRef<int64_t> perm) {
  for (Value v : operands)
    if (!v)
      return failure();
  FailureOr<Value> result = n.create(name, operands, attrs);
  return failed(result) ? failure() : n.setOutput(0, *result, perm);
}

/// The physical dimension that holds logical dimension `axis`.
int64_t physicalAxis(ArrayRef<int64_t> perm, int64_t axis, int64_t rank) {
  return invertPerm(perm, rank)[axis];
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

NodeHandler unary(StringRef opName) {
  return [opName](NodeImporter &n) {
    Perm perm;
    Value x = n.valueAnyOrder(0, perm);
    return emit(n, opName, x, {}, perm);
  };
}

/// The order of an elementwise result: that of its first highest-rank
/// operand computed at run time.
Perm elementwiseOrder(NodeImporter &n, ArrayRef<size_t> operands,
                      int64_t rank) {
  for (size_t i : operands)
    if (!n.isConstant(i) && n.inputRank(i) == rank)
      return n.currentPerm(i);
  return {};
}

/// Operand i for a rank-`rank` broadcast in `order`: padded with leading unit
/// dimensions, permuted, and, when it is a broadcast operand, with leading
/// unit dimensions dropped (numpy broadcasting puts them back). A constant or
/// a weight drops all of them; a value computed at run time only those the
/// padding added, so that neither its rank nor the layout its producer
/// keeps depends on a batch of 1 ([1, C, 1, 1] stays rank 4 as [2, C, 1, 1]
/// does: dropping its unit batch made it a rank-1 reshape, which a
/// channel-aligned producer had to be converted for).
Value broadcastOperand(NodeImporter &n, size_t i, int64_t rank,
                       ArrayRef<int64_t> order, ArrayRef<int64_t> result) {
  ImportedValue &v = n.input(i);
  int64_t padding = rank - v.shape.size();
  SmallVector<int64_t> padded(padding, 1);
  llvm::append_range(padded, v.shape);
  SmallVector<int64_t> physical = permute(padded, order);
  ArrayRef<int64_t> kept = physical;
  // A weight's leading unit dimensions are not the batch's: at a batch of
  // 1 a [1, N, S, S] bias added to [1, N, S, S] scores, or a [C] weight
  // padded to a [1, 1, 1, C] result, is still the broadcast operand of a
  // vs_ op, as at a batch of 2.
  int64_t leadingUnits =
      llvm::find_if(kept, [](int64_t d) { return d != 1; }) - kept.begin();
  if (v.constant || v.weight)
    kept = kept.drop_front(leadingUnits);
  else if (ArrayRef<int64_t>(v.shape) != result)
    kept = kept.drop_front(std::min(leadingUnits, padding));
  if (v.constant) {
    HostTensor t = *v.constant;
    t.shape = padded;
    t = t.transposed(order);
    t.shape.assign(kept.begin(), kept.end());
    return n.constant(t);
  }
  if (kept.size() == static_cast<size_t>(rank) && padding == 0)
    return n.value(i, order);
  Value x = n.value(i);
  if (!x)
    return {};
  // Usually the permutation only moves unit dimensions: one reshape.
  SmallVector<int64_t> nonUnit;
  for (int64_t d : order)
    if (padded[d] != 1)
      nonUnit.push_back(d);
  FailureOr<Value> r = x;
  if (!llvm::is_sorted(nonUnit)) {
    r = n.reshape(x, padded);
    if (succeeded(r))
      r = n.reorder(*r, {}, order);
  }
  if (succeeded(r))
    r = n.reshape(*r, kept);
  return succeeded(r) ? *r : Value();
}

/// The numpy broadcast of the inputs' logical shapes.
FailureOr<SmallVector<int64_t>> broadcastShape(NodeImporter &n,
                                               ArrayRef<size_t> operands) {
  SmallVector<int64_t> out;
  for (size_t i : operands) {
    SmallVector<int64_t> next;
    if (!OpTrait::util::getBroadcastedShape(out, n.inputShape(i), next))
      return n.emitError() << "input shapes do not broadcast";
    out = std::move(next);
  }
  return out;
}

/// Add, Sub, Mul, Div, Max, Min, Pow, the comparisons, And and Or. A
/// full-size operand combined with a smaller one becomes the vector-scalar
/// op (vs_*), which follows its full-size operand's layout.
NodeHandler binary(StringRef kind, StringRef opName, StringRef vsName,
                   bool commutative) {
  return [=](NodeImporter &n) -> LogicalResult {
    FailureOr<SmallVector<int64_t>> shape = broadcastShape(n, {0, 1});
    if (failed(shape))
      return failure();
    int64_t rank = shape->size();
    Perm order = elementwiseOrder(n, {0, 1}, rank);
    SmallVector<int64_t> physical = permute(*shape, order);
    Value lhs = broadcastOperand(n, 0, rank, order, *shape);
    Value rhs = broadcastOperand(n, 1, rank, order, *shape);
    if (!lhs || !rhs)
      return failure();
    auto isFull = [&](Value v) {
      return cast<RankedTensorType>(v.getType()).getShape() ==
             ArrayRef<int64_t>(physical);
    };
    if (!vsName.empty() && isFull(lhs) && !isFull(rhs))
      return emit(n, vsName, {lhs, rhs}, {}, order);
    if (!vsName.empty() && commutative && isFull(rhs) && !isFull(lhs))
      return emit(n, vsName, {rhs, lhs}, {}, order);
    return emit(n, opName, {lhs, rhs}, {}, order);
  };
}

LogicalResult importWhere(NodeImporter &n) {
  FailureOr<SmallVector<int64_t>> shape = broadcastShape(n, {0, 1, 2});
  if (failed(shape))
    return failure();
  int64_t rank = shape->size();
  Perm order = elementwiseOrder(n, {1, 2, 0}, rank);
  return emit(n, "npu.select",
              {broadcastOperand(n, 0, rank, order, *shape),
               broadcastOperand(n, 1, rank, order, *shape),
               broadcastOperand(n, 2, rank, order, *shape)},
              {}, order);
}

LogicalResult importClip(NodeImporter &n) {
  double bounds[2] = {-std::numeric_limits<double>::infinity(),
                      std::numeric_limits<double>::infinity()};
  for (size_t i = 1; i <= 2; ++i) {
    if (!n.hasInput(i))
      continue;
    FailureOr<const HostTensor *> t =
        n.constantInput(i, i == 1 ? "min" : "max");
    if (failed(t))
      return failure();
    bounds[i - 1] = (*t)->asDouble(0);
  }
  Perm perm;
  Value x = n.valueAnyOrder(0, perm);
  return emit(n, "npu.clip", x,
              {f64Attr(n, "min", bounds[0]), f64Attr(n, "max", bounds[1])},
              perm);
}

LogicalResult importHardSigmoid(NodeImporter &n) {
  Perm perm;
  Value x = n.valueAnyOrder(0, perm);
  return emit(n, "npu.hard_sigmoid", x,
              {f64Attr(n, "alpha", n.attrFloat("alpha", 0.2)),
               f64Attr(n, "beta", n.attrFloat("beta", 0.5))},
              perm);
}

LogicalResult importCast(NodeImporter &n) {
  int32_t to = n.attrInt("to", 0);
  Type element = fromONNXType(n.graph.context, to);
  if (!element)
    return n.unsupportedAttr("to", dtypeName(to));
  n.ignoreAttrs({"saturate"});
  Perm perm;
  Value x = n.valueAnyOrder(0, perm);
  if (!x)
    return failure();
  FailureOr<Value> result = n.createWithType(
      "npu.cast", cast<RankedTensorType>(x.getType()).clone(element), x);
  return failed(result) ? failure() : n.setOutput(0, *result, perm);
}

/// Identity, and Dropout at inference (ratio 0 or not training).
LogicalResult importIdentity(NodeImporter &n) {
  if (n.opType() == "Dropout") {
    n.ignoreAttrs({"seed"});
    double ratio = 0.5;
    bool training = false;
    if (n.hasInput(1)) {
      FailureOr<const HostTensor *> r = n.constantInput(1, "ratio");
      if (failed(r))
        return failure();
      ratio = (*r)->asDouble(0);
    }
    if (n.hasInput(2)) {
      FailureOr<const HostTensor *> t = n.constantInput(2, "training_mode");
      if (failed(t))
        return failure();
      training = (*t)->asDouble(0) != 0;
    }
    if (training && ratio != 0)
      return n.emitError() << "dropout in training mode (ratio " << ratio
                           << ") is random; only inference is supported";
  }
  n.aliasOutput(0, 0);
  return success();
}

//===----------------------------------------------------------------------===//
// Weights: BatchNormalization folding
//===----------------------------------------------------------------------===//

/// A tensor the folds compute with: known (computed on the host) or an SSA
/// value (npu ops are built), so one formula serves constants and weights
/// loaded at run time.
struct Term {
  std::optional<HostTensor> host;
  Value value;
};

Term inputTerm(NodeImporter &n, size_t i, ArrayRef<int64_t> perm = {}) {
  if (n.isConstant(i))
    return {n.input(i).constant->transposed(perm), {}};
  return {std::nullopt, n.value(i, perm)};
}

Value valueOf(NodeImporter &n, const Term &t) {
  return t.host ? n.constant(*t.host) : t.value;
}

FailureOr<Term> combine(NodeImporter &n, StringRef kind, const Term &a,
                        const Term &b) {
  if (a.host && b.host) {
    FailureOr<HostTensor> r = foldBinary(n, kind, *a.host, *b.host);
    if (failed(r))
      return failure();
    return Term{std::move(*r), {}};
  }
  Value lhs = valueOf(n, a), rhs = valueOf(n, b);
  if (!lhs || !rhs)
    return failure();
  StringRef name = kind == "Add"   ? "npu.add"
                   : kind == "Sub" ? "npu.sub"
                                   : "npu.mul";
  FailureOr<Value> r = n.create(name, {lhs, rhs});
  if (failed(r))
    return failure();
  return Term{std::nullopt, *r};
}

FailureOr<Term> reshapeTerm(NodeImporter &n, const Term &t,
                            ArrayRef<int64_t> shape) {
  if (t.host) {
    HostTensor h = *t.host;
    h.shape.assign(shape.begin(), shape.end());
    return Term{std::move(h), {}};
  }
  FailureOr<Value> r = n.reshape(t.value, shape);
  if (failed(r))
    return failure();
  return Term{std::nullopt, *r};
}

Term scalarTerm(NodeImporter &n, const Term &like, double value) {
  int32_t dtype =
      like.host
          ? like.host->dtype
          : toONNXType(
                cast<RankedTensorType>(like.value.getType()).getElementType());
  HostTensor t = HostTensor::zeros(dtype, {1});
  t.set(0, value);
  return {std::move(t), {}};
}

/// The inference form of BatchNormalization node `bn`: y = x * scale + shift
/// with scale = gamma / sqrt(var + epsilon), shift = beta - mean * scale.
struct ScaleShift {
  Term scale, shift;
};

FailureOr<ScaleShift> batchNormScaleShift(NodeImporter &bn) {
  double epsilon = bn.attrFloat("epsilon", 1e-5);
  bn.ignoreAttrs({"momentum"});
  if (bn.attrInt("training_mode", 0) != 0)
    return bn.unsupportedAttr("training_mode", "1", "inference only");
  if (bn.isOutputUsed(1) || bn.isOutputUsed(2))
    return bn.emitError() << "running mean and variance outputs are not "
                             "supported (inference only)";
  Term gamma = inputTerm(bn, 1), beta = inputTerm(bn, 2),
       mean = inputTerm(bn, 3), var = inputTerm(bn, 4);
  for (const Term *t : {&gamma, &beta, &mean, &var})
    if (!t->host && !t->value)
      return failure();
  FailureOr<Term> sum = combine(bn, "Add", var, scalarTerm(bn, var, epsilon));
  if (failed(sum))
    return failure();
  Term rstd;
  if (sum->host) {
    rstd = *sum;
    for (double &v : rstd.host->floats)
      v = 1.0 / std::sqrt(v);
  } else {
    FailureOr<Value> r = bn.create("npu.rsqrt", sum->value);
    if (failed(r))
      return failure();
    rstd.value = *r;
  }
  FailureOr<Term> scale = combine(bn, "Mul", gamma, rstd);
  if (failed(scale))
    return failure();
  FailureOr<Term> meanScaled = combine(bn, "Mul", mean, *scale);
  if (failed(meanScaled))
    return failure();
  FailureOr<Term> shift = combine(bn, "Sub", beta, *meanScaled);
  if (failed(shift))
    return failure();
  return ScaleShift{*scale, *shift};
}

LogicalResult importBatchNormalization(NodeImporter &n) {
  if (n.inputRank(0) < 2)
    return n.emitError() << "input must have rank >= 2 (N, C, ...)";
  FailureOr<ScaleShift> ss = batchNormScaleShift(n);
  if (failed(ss))
    return failure();
  Perm order = channelsLastPerm(n.inputRank(0));
  Value x = n.value(0, order);
  Value scale = valueOf(n, ss->scale), shift = valueOf(n, ss->shift);
  if (!x || !scale || !shift)
    return failure();
  FailureOr<Value> scaled = n.create("npu.vs_mul", {x, scale});
  if (failed(scaled))
    return failure();
  return emit(n, "npu.vs_add", {*scaled, shift}, {}, order);
}

/// The BatchNormalization node that alone reads `n`'s output 0, if any.
const onnx::NodeProto *foldableBatchNorm(NodeImporter &n) {
  StringRef out = n.node.output(0);
  auto it = n.graph.consumers.find(out);
  if (it == n.graph.consumers.end() || it->second.size() != 1 ||
      n.graph.graphOutputs.contains(out))
    return nullptr;
  const onnx::NodeProto *next = it->second.front();
  if (next->op_type() != "BatchNormalization" || next->input(0) != out ||
      (!next->domain().empty() && next->domain() != "ai.onnx"))
    return nullptr;
  return next;
}

//===----------------------------------------------------------------------===//
// Convolution and pooling
//===----------------------------------------------------------------------===//

/// ONNX pads [b0, b1, ..., e0, e1, ...] (or auto_pad) as npu (low, high)
/// pairs per spatial dimension.
FailureOr<SmallVector<int64_t>>
windowPadding(NodeImporter &n, ArrayRef<int64_t> in, ArrayRef<int64_t> kernel,
              ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations) {
  size_t spatial = kernel.size();
  std::string autoPad = n.attrString("auto_pad", "NOTSET");
  SmallVector<int64_t> pads = n.attrInts("pads");
  SmallVector<int64_t> out;
  if (autoPad == "NOTSET") {
    if (pads.empty())
      pads.assign(2 * spatial, 0);
    if (pads.size() != 2 * spatial)
      return n.emitError() << "attribute 'pads' must have " << 2 * spatial
                           << " entries";
    for (size_t d = 0; d < spatial; ++d)
      out.append({pads[d], pads[d + spatial]});
    return out;
  }
  if (autoPad == "VALID")
    return SmallVector<int64_t>(2 * spatial, 0);
  if (autoPad != "SAME_UPPER" && autoPad != "SAME_LOWER")
    return n.unsupportedAttr("auto_pad", autoPad);
  for (size_t d = 0; d < spatial; ++d) {
    int64_t outExtent = (in[d] + strides[d] - 1) / strides[d];
    int64_t total =
        std::max<int64_t>(0, (outExtent - 1) * strides[d] +
                                 (kernel[d] - 1) * dilations[d] + 1 - in[d]);
    int64_t small = total / 2, large = total - small;
    out.append(autoPad == "SAME_UPPER" ? SmallVector<int64_t>{small, large}
                                       : SmallVector<int64_t>{large, small});
  }
  return out;
}

/// The conv's weight and bias, with a following BatchNormalization folded
/// in (W' = W * scale per output channel, b' = (b - mean) * scale + beta).
LogicalResult foldBatchNormIntoConv(NodeImporter &n, const onnx::NodeProto &bn,
                                    Term &weight, std::optional<Term> &bias) {
  NodeImporter bnNode(n.graph, bn);
  // Its node is not imported on its own, so its constants are read here.
  bnNode.recordConstantReads();
  FailureOr<ScaleShift> ss = batchNormScaleShift(bnNode);
  if (failed(ss) || failed(bnNode.checkAllAttrsRead()))
    return failure();
  SmallVector<int64_t> perChannel(n.inputRank(1), 1);
  perChannel[0] = n.inputShape(1)[0];
  FailureOr<Term> scale = reshapeTerm(n, ss->scale, perChannel);
  if (failed(scale))
    return failure();
  FailureOr<Term> scaled = combine(n, "Mul", weight, *scale);
  if (failed(scaled))
    return failure();
  weight = *scaled;
  // b' = (b - mean) * scale + beta = b * scale + shift; without a bias
  // (b = 0) the shift itself.
  FailureOr<Term> newBias = ss->shift;
  if (bias) {
    newBias = combine(n, "Mul", *bias, ss->scale);
    if (succeeded(newBias))
      newBias = combine(n, "Add", *newBias, ss->shift);
  }
  if (failed(newBias))
    return failure();
  bias = *newBias;
  n.graph.absorbed.insert(bn.output(0));
  return success();
}

LogicalResult importConv(NodeImporter &n) {
  int64_t rank = n.inputRank(0);
  if (rank != 4 && rank != 5)
    return n.emitError() << "only 2-D and 3-D convolutions are supported, "
                            "got an input of rank "
                         << rank;
  if (n.inputRank(1) != rank)
    return n.emitError() << "weight must have rank " << rank;
  Perm order = channelsLastPerm(rank);
  size_t spatial = rank - 2;
  ArrayRef<int64_t> wShape = n.inputShape(1);
  SmallVector<int64_t> kernel(wShape.begin() + 2, wShape.end());
  SmallVector<int64_t> given = n.attrInts("kernel_shape", kernel);
  if (given != kernel)
    return n.unsupportedAttr("kernel_shape", "", "differs from the weight");
  SmallVector<int64_t> strides =
      n.attrInts("strides", SmallVector<int64_t>(spatial, 1));
  SmallVector<int64_t> dilations =
      n.attrInts("dilations", SmallVector<int64_t>(spatial, 1));
  if (strides.size() != spatial || dilations.size() != spatial)
    return n.emitError() << "attributes 'strides' and 'dilations' must have "
                         << spatial << " entries";
  SmallVector<int64_t> inSpatial(n.inputShape(0).begin() + 2,
                                 n.inputShape(0).end());
  FailureOr<SmallVector<int64_t>> padding =
      windowPadding(n, inSpatial, kernel, strides, dilations);
  if (failed(padding))
    return failure();
  int64_t groups = n.attrInt("group", 1);

  Value x = n.value(0, order);
  Term weight = inputTerm(n, 1, order);
  std::optional<Term> bias;
  if (n.hasInput(2))
    bias = inputTerm(n, 2);
  std::string output = n.node.output(0);
  if (const onnx::NodeProto *bn = foldableBatchNorm(n)) {
    if (failed(foldBatchNormIntoConv(n, *bn, weight, bias)))
      return failure();
    output = bn->output(0);
  }
  SmallVector<Value> operands = {x, valueOf(n, weight)};
  if (bias)
    operands.push_back(valueOf(n, *bias));
  for (Value v : operands)
    if (!v)
      return failure();
  FailureOr<Value> conv = n.create(
      rank == 4 ? "npu.conv2d" : "npu.conv3d", operands,
      {i64Array(n, "strides", strides), i64Array(n, "padding", *padding),
       i64Array(n, "dilations", dilations), i64Attr(n, "groups", groups)});
  if (failed(conv))
    return failure();
  return n.defineValue(output, *conv, order);
}

LogicalResult importPool(NodeImporter &n) {
  bool isMax = n.opType() == "MaxPool";
  if (n.inputRank(0) != 4)
    return n.emitError() << "only 2-D pooling is supported, got an input of "
                            "rank "
                         << n.inputRank(0);
  if (isMax && n.isOutputUsed(1))
    return n.emitError() << "the Indices output is not supported";
  SmallVector<int64_t> kernel = n.attrInts("kernel_shape");
  SmallVector<int64_t> strides = n.attrInts("strides", {1, 1});
  SmallVector<int64_t> dilations = n.attrInts("dilations", {1, 1});
  if (kernel.size() != 2 || strides.size() != 2)
    return n.emitError() << "attributes 'kernel_shape' and 'strides' must "
                            "have 2 entries";
  if (dilations != SmallVector<int64_t>{1, 1})
    return n.unsupportedAttr("dilations", "", "pools are not dilated");
  if (isMax && n.attrInt("storage_order", 0) != 0)
    return n.unsupportedAttr("storage_order", "1");
  bool includePad = !isMax && n.attrInt("count_include_pad", 0) != 0;
  ArrayRef<int64_t> in = n.inputShape(0);
  FailureOr<SmallVector<int64_t>> padding =
      windowPadding(n, in.drop_front(2), kernel, strides, dilations);
  if (failed(padding))
    return failure();
  if (n.attrInt("ceil_mode", 0) != 0) {
    // Extend the high padding so that the floor division gives the ceil
    // mode's extent (PyTorch's rule: the last window starts inside the
    // input or its low padding).
    for (int d = 0; d < 2; ++d) {
      int64_t lo = (*padding)[2 * d], hi = (*padding)[2 * d + 1];
      int64_t span = in[2 + d] + lo + hi - kernel[d];
      int64_t out = (span + strides[d] - 1) / strides[d] + 1;
      if ((out - 1) * strides[d] >= in[2 + d] + lo)
        --out;
      int64_t extra =
          (out - 1) * strides[d] + kernel[d] - (in[2 + d] + lo + hi);
      if (extra > 0 && includePad)
        return n.unsupportedAttr("ceil_mode", "1",
                                 "with count_include_pad = 1");
      (*padding)[2 * d + 1] += std::max<int64_t>(extra, 0);
    }
  }
  Perm order = channelsLastPerm(4);
  SmallVector<NamedAttribute> attrs = {i64Array(n, "kernel", kernel),
                                       i64Array(n, "strides", strides),
                                       i64Array(n, "padding", *padding)};
  if (includePad)
    attrs.push_back(
        n.builder.getNamedAttr("count_include_pad", n.builder.getUnitAttr()));
  return emit(n, isMax ? "npu.max_pool" : "npu.avg_pool", n.value(0, order),
              attrs, order);
}

NamedAttribute reduceKind(NodeImporter &n, StringRef kind) {
  return n.builder.getNamedAttr(
      "kind", npu::graph::ReduceKindAttr::get(
                  n.graph.context, *npu::graph::symbolizeReduceKind(kind)));
}

/// GlobalAveragePool / GlobalMaxPool: a reduce over the spatial dimensions.
NodeHandler globalPool(StringRef kind) {
  return [kind](NodeImporter &n) -> LogicalResult {
    int64_t rank = n.inputRank(0);
    if (rank < 3)
      return n.emitError() << "input must have rank >= 3 (N, C, spatial...)";
    Perm order = channelsLastPerm(rank);
    SmallVector<int64_t> axes;
    for (int64_t d = 1; d + 1 < rank; ++d)
      axes.push_back(d);
    return emit(n, "npu.reduce", n.value(0, order),
                {reduceKind(n, kind), i64Array(n, "axes", axes),
                 n.builder.getNamedAttr("keepdims", n.builder.getUnitAttr())},
                order);
  };
}

/// ReduceMean / ReduceSum / ReduceMax / ReduceMin with axes as attribute or
/// input (opset 13+ ReduceSum), in the input's physical order.
NodeHandler reduce(StringRef kind) {
  return [kind](NodeImporter &n) -> LogicalResult {
    int64_t rank = n.inputRank(0);
    FailureOr<SmallVector<int64_t>> given = reduceAxes(n);
    if (failed(given))
      return failure();
    SmallVector<int64_t> axes = *given;
    bool keepdims = n.attrInt("keepdims", 1) != 0;
    if (axes.empty() && n.attrInt("noop_with_empty_axes", 0) != 0) {
      n.aliasOutput(0, 0);
      return success();
    }
    if (axes.empty())
      for (int64_t d = 0; d < rank; ++d)
        axes.push_back(d);
    Perm perm;
    Value x = n.valueAnyOrder(0, perm);
    if (!x)
      return failure();
    // ReduceL2: the square root of the sum of squares.
    bool l2 = kind == "l2";
    if (l2) {
      FailureOr<Value> squares = n.create("npu.mul", {x, x});
      if (failed(squares))
        return failure();
      x = *squares;
    }
    SmallVector<bool> reduced(rank, false);
    SmallVector<int64_t> physAxes;
    for (int64_t axis : axes) {
      FailureOr<int64_t> a = normalizeAxis(n, axis, rank, "axis");
      if (failed(a))
        return failure();
      reduced[*a] = true;
      physAxes.push_back(physicalAxis(perm, *a, rank));
    }
    llvm::sort(physAxes);
    // Without keepdims the kept dimensions stay in physical order; renumber
    // their logical indices densely.
    Perm outPerm;
    if (keepdims) {
      outPerm = perm;
    } else {
      for (int64_t p = 0; p < rank; ++p) {
        int64_t logical = permAt(perm, p);
        if (reduced[logical])
          continue;
        int64_t dense = 0;
        for (int64_t l = 0; l < logical; ++l)
          dense += !reduced[l];
        outPerm.push_back(dense);
      }
    }
    SmallVector<NamedAttribute> attrs = {reduceKind(n, l2 ? "sum" : kind),
                                         i64Array(n, "axes", physAxes)};
    if (keepdims)
      attrs.push_back(
          n.builder.getNamedAttr("keepdims", n.builder.getUnitAttr()));
    if (!l2)
      return emit(n, "npu.reduce", x, attrs, outPerm);
    FailureOr<Value> sum = n.create("npu.reduce", x, attrs);
    if (failed(sum))
      return failure();
    return emit(n, "npu.sqrt", *sum, {}, outPerm);
  };
}

/// InstanceNormalization: each (sample, channel)'s spatial values
/// normalised by their mean and variance, then scaled and shifted per
/// channel: reductions over the spatial axes of the channels-last tensor
/// and broadcast arithmetic.
LogicalResult importInstanceNormalization(NodeImporter &n) {
  int64_t rank = n.inputRank(0);
  if (rank < 3)
    return n.emitError() << "input must have rank >= 3 (N, C, spatial...)";
  Perm order = channelsLastPerm(rank);
  Value x = n.value(0, order), scale = n.value(1), bias = n.value(2);
  if (!x || !scale || !bias)
    return failure();
  SmallVector<int64_t> spatial;
  for (int64_t d = 1; d + 1 < rank; ++d)
    spatial.push_back(d);
  auto mean = [&](Value v) {
    return n.create(
        "npu.reduce", v,
        {reduceKind(n, "mean"), i64Array(n, "axes", spatial),
         n.builder.getNamedAttr("keepdims", n.builder.getUnitAttr())});
  };
  HostTensor epsilon =
      HostTensor::zeros(toONNXType(getElementTypeOrSelf(x)), {});
  epsilon.set(0, n.attrFloat("epsilon", 1e-5));
  FailureOr<Value> mu = mean(x);
  if (failed(mu))
    return failure();
  FailureOr<Value> centred = n.create("npu.sub", {x, *mu});
  if (failed(centred))
    return failure();
  FailureOr<Value> square = n.create("npu.mul", {*centred, *centred});
  if (failed(square))
    return failure();
  FailureOr<Value> var = mean(*square);
  if (failed(var))
    return failure();
  FailureOr<Value> shifted = n.create("npu.add", {*var, n.constant(epsilon)});
  if (failed(shifted))
    return failure();
  FailureOr<Value> inverse = n.create("npu.rsqrt", *shifted);
  if (failed(inverse))
    return failure();
  FailureOr<Value> normal = n.create("npu.mul", {*centred, *inverse});
  if (failed(normal))
    return failure();
  FailureOr<Value> scaled = n.create("npu.vs_mul", {*normal, scale});
  if (failed(scaled))
    return failure();
  return emit(n, "npu.vs_add", {*scaled, bias}, {}, order);
}

//===----------------------------------------------------------------------===//
// Matrix products
//===----------------------------------------------------------------------===//

/// Operand i of a matmul: when its order only swaps the two innermost
/// dimensions, the stored value with the transpose flag set; otherwise the
/// logical order.
Value matmulOperand(NodeImporter &n, size_t i, bool &transposed) {
  int64_t rank = n.inputRank(i);
  Perm perm = n.currentPerm(i);
  Perm swapped;
  for (int64_t d = 0; d < rank; ++d)
    swapped.push_back(d);
  std::swap(swapped[rank - 1], swapped[rank - 2]);
  transposed = !n.isConstant(i) && perm == swapped;
  return n.value(i,
                 transposed ? ArrayRef<int64_t>(swapped) : ArrayRef<int64_t>());
}

SmallVector<NamedAttribute> transposeFlags(NodeImporter &n, bool lhs,
                                           bool rhs) {
  SmallVector<NamedAttribute> attrs;
  if (lhs)
    attrs.push_back(
        n.builder.getNamedAttr("transpose_lhs", n.builder.getUnitAttr()));
  if (rhs)
    attrs.push_back(
        n.builder.getNamedAttr("transpose_rhs", n.builder.getUnitAttr()));
  return attrs;
}

LogicalResult importMatMul(NodeImporter &n) {
  if (n.inputRank(0) < 2 || n.inputRank(1) < 2)
    return n.emitError() << "1-D operands are not supported (ranks "
                         << n.inputRank(0) << " and " << n.inputRank(1) << ")";
  bool tl, tr;
  Value lhs = matmulOperand(n, 0, tl), rhs = matmulOperand(n, 1, tr);
  return emit(n, "npu.matmul", {lhs, rhs}, transposeFlags(n, tl, tr), {});
}

/// Einsum of two operands whose letters each appear once per operand (no
/// ellipsis, no diagonal, no sum over a letter of one operand alone):
/// letters in both operands and the output are batch dimensions, in both
/// but not the output contracted, in one and the output free. Each operand
/// is read as [batch, free, contracted] or, when stored so, [batch,
/// contracted, free] (the importer transposes otherwise), merged to rank 3
/// and multiplied with the transpose flags that make it [B, M, K] x
/// [B, K, N]; the [batch, lhs free, rhs free] result is given to the
/// output's letters in that order. One operand: a permutation.
LogicalResult importEinsum(NodeImporter &n) {
  std::string equation;
  for (char c : n.attrString("equation", ""))
    if (!std::isspace(static_cast<unsigned char>(c)))
      equation += c;
  auto unsupported = [&](StringRef why) {
    return n.unsupportedAttr("equation", equation, why);
  };
  size_t arrow = equation.find("->");
  if (arrow == std::string::npos)
    return unsupported("only equations with an explicit output ('->')");
  if (equation.find("...") != std::string::npos)
    return unsupported("only equations without an ellipsis");
  SmallVector<StringRef> operands;
  StringRef(equation).take_front(arrow).split(operands, ',');
  StringRef output = StringRef(equation).drop_front(arrow + 2);
  if (operands.size() != n.numInputs() || operands.size() > 2)
    return unsupported("only one or two operands, a term each");
  SmallVector<StringRef> terms(operands);
  terms.push_back(output);
  for (StringRef term : terms)
    for (size_t i = 0; i < term.size(); ++i)
      if (!std::isalpha(static_cast<unsigned char>(term[i])) ||
          term.find(term[i], i + 1) != StringRef::npos)
        return unsupported("only letters, each at most once per term");
  for (size_t i = 0; i < operands.size(); ++i)
    if (int64_t(operands[i].size()) != n.inputRank(i))
      return unsupported("only a letter per dimension of each operand");
  auto inTerm = [](StringRef term, char c) {
    return term.find(c) != StringRef::npos;
  };
  for (char c : output)
    if (!llvm::any_of(operands, [&](StringRef t) { return inTerm(t, c); }))
      return unsupported("only output letters that an operand has");
  // Letters in output order: a permutation of one operand.
  if (operands.size() == 1) {
    if (operands[0].size() != output.size())
      return unsupported("only letters both operands have are summed over");
    Perm perm;
    for (char c : output)
      perm.push_back(operands[0].find(c));
    // Stored in that order, it is the output as it is.
    return n.setOutput(0, n.value(0, perm), {});
  }
  StringRef lhs = operands[0], rhs = operands[1];
  std::string batch, lhsFree, rhsFree, contracted;
  for (char c : output)
    (inTerm(lhs, c) && inTerm(rhs, c) ? batch
     : inTerm(lhs, c)                 ? lhsFree
                                      : rhsFree) += c;
  for (char c : lhs)
    if (!inTerm(output, c)) {
      if (!inTerm(rhs, c))
        return unsupported("only letters both operands have are summed over");
      contracted += c;
    }
  for (char c : rhs)
    if (!inTerm(output, c) && !inTerm(lhs, c))
      return unsupported("only letters both operands have are summed over");
  // Operand i as [batch, free, contracted] merged to rank 3, or as [batch,
  // contracted, free] (`swapped`) when that is the order it is stored in:
  // the matmul's transpose flags then spare a transpose.
  auto read = [&](size_t i, StringRef term, StringRef free,
                  bool &swapped) -> FailureOr<Value> {
    auto order = [&](ArrayRef<StringRef> groups, Perm &perm,
                     SmallVector<int64_t> &sizes) {
      perm.clear();
      sizes.assign(3, 1);
      for (auto [group, letters] : llvm::enumerate(groups))
        for (char c : letters) {
          perm.push_back(term.find(c));
          sizes[group] *= n.inputShape(i)[term.find(c)];
        }
    };
    Perm perm;
    SmallVector<int64_t> sizes;
    StringRef contractedLast[] = {batch, free, contracted};
    StringRef contractedFirst[] = {batch, contracted, free};
    order(contractedFirst, perm, sizes);
    swapped = normalizePerm(perm).empty() && n.currentPerm(i).empty();
    if (!swapped)
      order(contractedLast, perm, sizes);
    Value v = n.value(i, perm);
    if (!v)
      return failure();
    return n.reshape(v, sizes);
  };
  bool lhsSwapped, rhsSwapped;
  FailureOr<Value> a = read(0, lhs, lhsFree, lhsSwapped),
                   b = read(1, rhs, rhsFree, rhsSwapped);
  if (failed(a) || failed(b))
    return failure();
  FailureOr<Value> product = n.create(
      "npu.matmul", {*a, *b}, transposeFlags(n, lhsSwapped, !rhsSwapped));
  if (failed(product))
    return failure();
  SmallVector<int64_t> shape;
  Perm physical;
  for (char c : batch + lhsFree + rhsFree) {
    shape.push_back(inTerm(lhs, c) ? n.inputShape(0)[lhs.find(c)]
                                   : n.inputShape(1)[rhs.find(c)]);
    physical.push_back(output.find(c));
  }
  FailureOr<Value> result = n.reshape(*product, shape);
  if (failed(result))
    return failure();
  return n.setOutput(0, *result, physical);
}

/// Gemm: alpha * A' B' + beta * C as matmul with bias, scaled as needed.
LogicalResult importGemm(NodeImporter &n) {
  bool ta = n.attrInt("transA", 0) != 0, tb = n.attrInt("transB", 0) != 0;
  double alpha = n.attrFloat("alpha", 1.0), beta = n.attrFloat("beta", 1.0);
  if (n.inputRank(0) != 2 || n.inputRank(1) != 2)
    return n.emitError() << "A and B must have rank 2";
  Value a = n.value(0), b = n.value(1);
  SmallVector<Value> operands = {a, b};
  int64_t columns = n.inputShape(1)[tb ? 0 : 1];
  std::optional<Term> bias;
  if (n.hasInput(2) && beta != 0) {
    bias = inputTerm(n, 2);
    if (beta != 1.0) {
      FailureOr<Term> scaled =
          combine(n, "Mul", *bias, scalarTerm(n, *bias, beta));
      if (failed(scaled))
        return failure();
      bias = *scaled;
    }
  }
  // A [N] or [1, N] bias is the matmul's own unless alpha scales the product
  // alone; any other C is added after.
  bool ownBias = bias && alpha == 1.0 && n.input(2).shape.back() == columns &&
                 (n.inputRank(2) == 1 ||
                  (n.inputRank(2) == 2 && n.input(2).shape[0] == 1));
  if (ownBias) {
    FailureOr<Term> flat = reshapeTerm(n, *bias, {columns});
    if (failed(flat))
      return failure();
    operands.push_back(valueOf(n, *flat));
  }
  for (Value v : operands)
    if (!v)
      return failure();
  FailureOr<Value> product =
      n.create("npu.matmul", operands, transposeFlags(n, ta, tb));
  if (failed(product))
    return failure();
  Term result{std::nullopt, *product};
  if (alpha != 1.0) {
    FailureOr<Value> scaled = n.create(
        "npu.vs_mul", {*product, valueOf(n, scalarTerm(n, result, alpha))});
    if (failed(scaled))
      return failure();
    result.value = *scaled;
  }
  if (bias && !ownBias) {
    FailureOr<Term> sum = combine(n, "Add", result, *bias);
    if (failed(sum))
      return failure();
    result = *sum;
  }
  return n.setOutput(0, result.value, {});
}

//===----------------------------------------------------------------------===//
// Normalisation
//===----------------------------------------------------------------------===//

LogicalResult importSoftmax(NodeImporter &n) {
  int64_t rank = n.inputRank(0);
  FailureOr<int64_t> axis =
      normalizeAxis(n, n.attrInt("axis", -1), rank, "axis");
  if (failed(axis))
    return failure();
  Perm perm;
  Value x = n.valueAnyOrder(0, perm);
  return emit(n, "npu.softmax", x,
              {i64Attr(n, "axis", physicalAxis(perm, *axis, rank))}, perm);
}

LogicalResult importLayerNormalization(NodeImporter &n) {
  int64_t rank = n.inputRank(0);
  FailureOr<int64_t> axis =
      normalizeAxis(n, n.attrInt("axis", -1), rank, "axis");
  if (failed(axis))
    return failure();
  if (n.attrInt("stash_type", 1) != 1)
    return n.unsupportedAttr("stash_type", "0", "statistics are f32");
  if (n.isOutputUsed(1) || n.isOutputUsed(2))
    return n.emitError() << "the Mean and InvStdDev outputs are not supported";
  Value x = n.value(0), gamma = n.value(1);
  Value beta;
  if (n.hasInput(2)) {
    beta = n.value(2);
  } else if (gamma) {
    auto type = cast<RankedTensorType>(gamma.getType());
    beta = n.constant(
        HostTensor::zeros(toONNXType(type.getElementType()), type.getShape()));
  }
  return emit(
      n, "npu.layer_norm", {x, gamma, beta},
      {i64Attr(n, "axis", *axis),
       n.builder.getNamedAttr(
           "epsilon", n.builder.getF32FloatAttr(n.attrFloat("epsilon", 1e-5)))},
      {});
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

/// Reshape, Flatten, Squeeze, Unsqueeze: a reshape of the logical order.
NodeHandler reshapeLike(
    std::function<FailureOr<SmallVector<int64_t>>(NodeImporter &)> shapeOf) {
  return [shapeOf](NodeImporter &n) -> LogicalResult {
    FailureOr<SmallVector<int64_t>> shape = shapeOf(n);
    if (failed(shape))
      return failure();
    Value x = n.value(0);
    if (!x)
      return failure();
    FailureOr<Value> r = n.reshape(x, *shape);
    return failed(r) ? failure() : n.setOutput(0, *r, {});
  };
}

FailureOr<SmallVector<int64_t>> flattenShape(NodeImporter &n) {
  int64_t rank = n.inputRank(0);
  int64_t axis = n.attrInt("axis", 1);
  if (axis < -rank || axis > rank)
    return n.emitError() << "axis " << axis << " is out of range for rank "
                         << rank;
  if (axis < 0)
    axis += rank;
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < rank; ++d)
    (d < axis ? outer : inner) *= n.inputShape(0)[d];
  return SmallVector<int64_t>{outer, inner};
}

/// A transpose only renames the dimensions: the stored value is kept with
/// the composed order.
LogicalResult importTranspose(NodeImporter &n) {
  int64_t rank = n.inputRank(0);
  SmallVector<int64_t> perm = n.attrInts("perm");
  if (perm.empty())
    for (int64_t d = rank - 1; d >= 0; --d)
      perm.push_back(d);
  SmallVector<bool> seen(rank, false);
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || seen[p] ||
        static_cast<int64_t>(perm.size()) != rank)
      return n.unsupportedAttr("perm", "",
                               "not a permutation of the input's "
                               "dimensions");
    seen[p] = true;
  }
  Perm current;
  Value x = n.valueAnyOrder(0, current);
  if (!x)
    return failure();
  Perm inverse = invertPerm(perm, rank), order;
  for (int64_t i = 0; i < rank; ++i)
    order.push_back(inverse[permAt(current, i)]);
  return n.setOutput(0, x, order);
}

LogicalResult importConcat(NodeImporter &n) {
  int64_t rank = n.inputRank(0);
  FailureOr<int64_t> axis =
      normalizeAxis(n, n.attrInt("axis", 0), rank, "axis");
  if (failed(axis))
    return failure();
  SmallVector<size_t> all;
  for (size_t i = 0; i < n.numInputs(); ++i)
    all.push_back(i);
  Perm order = elementwiseOrder(n, all, rank);
  SmallVector<Value> inputs;
  for (size_t i : all)
    inputs.push_back(n.value(i, order));
  return emit(n, "npu.concat", inputs,
              {i64Attr(n, "axis", physicalAxis(order, *axis, rank))}, order);
}

LogicalResult importSlice(NodeImporter &n) {
  FailureOr<SliceBounds> b = sliceBounds(n, /*allowNegativeSteps=*/false);
  if (failed(b))
    return failure();
  Perm perm;
  Value x = n.valueAnyOrder(0, perm);
  SmallVector<int64_t> end = b->end;
  for (size_t d = 0; d < end.size(); ++d)
    end[d] = std::max(end[d], b->start[d]);
  SmallVector<NamedAttribute> attrs = {
      i64Array(n, "start", permute(b->start, perm)),
      i64Array(n, "end", permute(end, perm))};
  if (llvm::any_of(b->step, [](int64_t s) { return s != 1; }))
    attrs.push_back(i64Array(n, "strides", permute(b->step, perm)));
  if (n.graph.probe && llvm::is_contained(b->clamped, true)) {
    SmallVector<int64_t> clamped;
    for (int64_t d = 0; d < int64_t(b->clamped.size()); ++d)
      if (b->clamped[permAt(perm, d)])
        clamped.push_back(d);
    attrs.push_back(i64Array(n, kClampedAxesAttr, clamped));
  }
  return emit(n, "npu.slice", x, attrs, perm);
}

/// Whether split `sizes` (a negative one counting as too many) add up to
/// the axis' `size`.
bool addsUpTo(ArrayRef<int64_t> sizes, int64_t size) {
  int64_t total = 0;
  for (int64_t s : sizes)
    total += s < 0 ? size + 1 : s;
  return total == size;
}

/// Input 0 (`x`, stored in `perm` order) sliced to [begin, begin + length)
/// along logical `axis`.
FailureOr<Value> slicePiece(NodeImporter &n, Value x, ArrayRef<int64_t> perm,
                            int64_t axis, int64_t begin, int64_t length) {
  int64_t rank = n.inputRank(0), physical = physicalAxis(perm, axis, rank);
  SmallVector<int64_t> start(rank, 0),
      end(permute(SmallVector<int64_t>(n.inputShape(0)), perm));
  start[physical] = begin;
  end[physical] = begin + length;
  return n.create("npu.slice", x,
                  {i64Array(n, "start", start), i64Array(n, "end", end)});
}

/// The axis Split and SplitToSequence cut ('axis', 0 by default, negative
/// counting from the end).
FailureOr<int64_t> splitAxis(NodeImporter &n) {
  return normalizeAxis(n, n.attrInt("axis", 0), n.inputRank(0), "axis");
}

/// The piece sizes of a split of `size` elements into parts of `chunk`
/// (the last one smaller when they do not divide).
SmallVector<int64_t> equalParts(int64_t size, int64_t chunk) {
  SmallVector<int64_t> sizes;
  for (int64_t at = 0; at < size; at += chunk)
    sizes.push_back(std::min(chunk, size - at));
  return sizes;
}

LogicalResult importSplit(NodeImporter &n) {
  FailureOr<int64_t> axis = splitAxis(n);
  if (failed(axis))
    return failure();
  int64_t size = n.inputShape(0)[*axis];
  int64_t parts = n.numOutputs();
  SmallVector<int64_t> sizes;
  if (n.hasInput(1)) {
    FailureOr<SmallVector<int64_t>> given = n.intsInput(1, "split");
    if (failed(given))
      return failure();
    sizes = *given;
  } else {
    // Equal parts (the last one smaller when they do not divide, as opset
    // 18 allows, and empty ones after it when the parts run out first).
    int64_t part = llvm::divideCeil(size, std::max<int64_t>(parts, 1));
    sizes = equalParts(size, std::max<int64_t>(part, 1));
    sizes.resize(std::max<int64_t>(parts, 0), 0);
  }
  if (int64_t(sizes.size()) != parts || !addsUpTo(sizes, size))
    return n.emitError() << "'split' must give " << parts
                         << " non-negative sizes adding up to the axis' "
                         << size;
  Perm perm;
  Value x = n.valueAnyOrder(0, perm);
  if (!x)
    return failure();
  int64_t begin = 0;
  for (int64_t i = 0; i < parts; ++i) {
    if (n.isOutputUsed(i)) {
      FailureOr<Value> piece = slicePiece(n, x, perm, *axis, begin, sizes[i]);
      if (failed(piece) || failed(n.setOutput(i, *piece, perm)))
        return failure();
    }
    begin += sizes[i];
  }
  return success();
}

/// SplitToSequence with its sizes known at import time: no op; the pieces
/// are recorded for the SequenceAt nodes that read them (MViT splits its
/// class token off the pooled tokens so).
LogicalResult importSplitToSequence(NodeImporter &n) {
  FailureOr<int64_t> axis = splitAxis(n);
  if (failed(axis))
    return failure();
  int64_t size = n.inputShape(0)[*axis];
  if (!n.hasInput(1))
    return n.emitError() << "a sequence of single slices (no 'split') is "
                            "not supported";
  n.ignoreAttrs({"keepdims"});
  FailureOr<SmallVector<int64_t>> split = n.intsInput(1, "split");
  if (failed(split))
    return failure();
  SmallVector<int64_t> sizes = *split;
  if (n.input(1).shape.empty() && sizes.size() == 1)
    sizes = equalParts(size, std::max<int64_t>(sizes.front(), 1));
  if (!addsUpTo(sizes, size))
    return n.emitError() << "'split' must give non-negative sizes adding up "
                            "to the axis' "
                         << size;
  n.graph.sequences[n.node.output(0)] = {*axis, sizes};
  n.aliasOutput(0, 0);
  return success();
}

/// SequenceAt of a SplitToSequence at a position known at import time: a
/// slice of the split tensor.
LogicalResult importSequenceAt(NodeImporter &n) {
  auto it = n.graph.sequences.find(n.node.input(0));
  if (it == n.graph.sequences.end())
    return n.emitError() << "only sequences made by SplitToSequence are "
                            "supported";
  FailureOr<SmallVector<int64_t>> position = n.intsInput(1, "position");
  if (failed(position))
    return failure();
  ArrayRef<int64_t> sizes = it->second.sizes;
  int64_t count = sizes.size();
  int64_t at = position->size() == 1 ? position->front() : count;
  if (at < -count || at >= count)
    return n.emitError() << "position must be one value in [" << -count << ", "
                         << count << ")";
  if (at < 0)
    at += count;
  Perm perm;
  Value x = n.valueAnyOrder(0, perm);
  if (!x)
    return failure();
  int64_t begin = 0;
  for (int64_t i = 0; i < at; ++i)
    begin += sizes[i];
  FailureOr<Value> piece =
      slicePiece(n, x, perm, it->second.axis, begin, sizes[at]);
  return failed(piece) ? failure() : n.setOutput(0, *piece, perm);
}

/// Tile: each dimension repeated by concatenating copies.
LogicalResult importTile(NodeImporter &n) {
  FailureOr<SmallVector<int64_t>> counts = tileRepeats(n);
  if (failed(counts))
    return failure();
  SmallVector<int64_t> repeats = *counts;
  int64_t rank = n.inputRank(0);
  Perm perm;
  Value x = n.valueAnyOrder(0, perm);
  if (!x)
    return failure();
  for (int64_t d = 0; d < rank; ++d) {
    int64_t count = repeats[d];
    if (count == 1)
      continue;
    int64_t physical = physicalAxis(perm, d, rank);
    if (count == 0) {
      SmallVector<int64_t> end(cast<RankedTensorType>(x.getType()).getShape());
      end[physical] = 0;
      FailureOr<Value> empty =
          n.create("npu.slice", x,
                   {i64Array(n, "start", SmallVector<int64_t>(rank, 0)),
                    i64Array(n, "end", end)});
      if (failed(empty))
        return failure();
      x = *empty;
      continue;
    }
    FailureOr<Value> copies =
        n.create("npu.concat", SmallVector<Value>(count, x),
                 {i64Attr(n, "axis", physical)});
    if (failed(copies))
      return failure();
    x = *copies;
  }
  return n.setOutput(0, x, perm);
}

/// Reciprocal: 1 / x.
LogicalResult importReciprocal(NodeImporter &n) {
  Perm perm;
  Value x = n.valueAnyOrder(0, perm);
  if (!x)
    return failure();
  HostTensor one = HostTensor::zeros(toONNXType(getElementTypeOrSelf(x)), {});
  one.set(0, 1.0);
  return emit(n, "npu.div", {n.constant(one), x}, {}, perm);
}

/// Integer input i as a value: a constant (negative indices normalised
/// against `extent` when given) or the run-time tensor.
Value indexOperand(NodeImporter &n, size_t i, int64_t extent) {
  if (!n.isConstant(i) || extent < 0)
    return n.value(i);
  HostTensor t = *n.input(i).constant;
  for (int64_t &v : t.ints)
    if (v < 0)
      v += extent;
  return n.constant(t);
}

LogicalResult importGather(NodeImporter &n) {
  int64_t rank = n.inputRank(0);
  FailureOr<int64_t> axis =
      normalizeAxis(n, n.attrInt("axis", 0), rank, "axis");
  if (failed(axis))
    return failure();
  return emit(n, "npu.gather",
              {n.value(0), indexOperand(n, 1, n.inputShape(0)[*axis])},
              {i64Attr(n, "axis", *axis)}, {});
}

LogicalResult importExpand(NodeImporter &n) {
  FailureOr<SmallVector<int64_t>> shape = n.intsInput(1, "shape");
  if (failed(shape))
    return failure();
  return emit(n, "npu.expand", n.value(0), {i64Array(n, "shape", *shape)}, {});
}

LogicalResult importScatterND(NodeImporter &n) {
  std::string reduction = n.attrString("reduction", "none");
  if (reduction != "none")
    return n.unsupportedAttr("reduction", reduction);
  return emit(n, "npu.scatter_nd",
              {n.value(0), indexOperand(n, 1, -1), n.value(2)}, {}, {});
}

LogicalResult importPad(NodeImporter &n) {
  std::string mode = n.attrString("mode", "constant");
  if (mode != "constant")
    return n.unsupportedAttr("mode", mode, "only constant padding");
  int64_t rank = n.inputRank(0);
  FailureOr<SmallVector<int64_t>> pads = n.intsInput(1, "pads");
  if (failed(pads))
    return failure();
  if (static_cast<int64_t>(pads->size()) != 2 * rank)
    return n.emitError() << "input 'pads' must have " << 2 * rank << " entries";
  if (llvm::any_of(*pads, [](int64_t p) { return p < 0; }))
    return n.emitError() << "negative pads (cropping) are not supported";
  double value = 0;
  if (n.hasInput(2)) {
    FailureOr<const HostTensor *> v = n.constantInput(2, "constant_value");
    if (failed(v))
      return failure();
    value = (*v)->asDouble(0);
  }
  ArrayRef<int64_t> all = *pads;
  Perm perm;
  Value x = n.valueAnyOrder(0, perm);
  return emit(n, "npu.pad", x,
              {i64Array(n, "pad_low", permute(all.take_front(rank), perm)),
               i64Array(n, "pad_high", permute(all.drop_front(rank), perm)),
               f64Attr(n, "value", value)},
              perm);
}

/// Resize of H and W (N and C unchanged) with the ONNX attribute names
/// turned into npu.resize's enums.
LogicalResult importResize(NodeImporter &n) {
  if (n.inputRank(0) != 4)
    return n.emitError() << "only 4-D (N, C, H, W) inputs are supported";
  std::string mode = n.attrString("mode", "nearest");
  std::string coords =
      n.attrString("coordinate_transformation_mode", "half_pixel");
  std::string nearest = n.attrString("nearest_mode", "round_prefer_floor");
  n.ignoreAttrs({"cubic_coeff_a", "extrapolation_value"});
  if (mode != "nearest" && mode != "linear")
    return n.unsupportedAttr("mode", mode);
  if (coords != "half_pixel" && coords != "pytorch_half_pixel" &&
      coords != "align_corners" && coords != "asymmetric")
    return n.unsupportedAttr("coordinate_transformation_mode", coords);
  if (nearest != "round_prefer_floor" && nearest != "round_prefer_ceil" &&
      nearest != "floor" && nearest != "ceil")
    return n.unsupportedAttr("nearest_mode", nearest);
  if (n.attrInt("exclude_outside", 0) != 0)
    return n.unsupportedAttr("exclude_outside", "1");
  ArrayRef<int64_t> in = n.inputShape(0);
  SmallVector<int64_t> size;
  if (n.hasInput(3)) {
    FailureOr<SmallVector<int64_t>> sizes = n.intsInput(3, "sizes");
    if (failed(sizes))
      return failure();
    size = *sizes;
  } else {
    FailureOr<const HostTensor *> scales = n.constantInput(2, "scales");
    if (failed(scales))
      return failure();
    for (int64_t d = 0; d < (*scales)->numElements() && d < 4; ++d)
      size.push_back(toInt64(std::floor(in[d] * (*scales)->asDouble(d))));
  }
  for (auto [d, extent] : llvm::enumerate(size))
    if (extent < 0 || extent > kMaxElements)
      return n.emitError() << "output size " << extent << " of dimension " << d
                           << " is outside [0, 2^40]";
  if (size.size() != 4 || size[0] != in[0] || size[1] != in[1])
    return n.emitError() << "only the spatial dimensions (H, W) can be "
                            "resized";
  MLIRContext *context = n.graph.context;
  Perm order = channelsLastPerm(4);
  return emit(
      n, "npu.resize", n.value(0, order),
      {i64Array(n, "size", {size[2], size[3]}),
       n.builder.getNamedAttr(
           "mode", npu::graph::ResizeModeAttr::get(
                       context, *npu::graph::symbolizeResizeMode(mode))),
       n.builder.getNamedAttr(
           "coordinate_mode",
           npu::graph::ResizeCoordinateModeAttr::get(
               context, *npu::graph::symbolizeResizeCoordinateMode(coords))),
       n.builder.getNamedAttr(
           "nearest_mode",
           npu::graph::ResizeNearestModeAttr::get(
               context, *npu::graph::symbolizeResizeNearestMode(nearest)))},
      order);
}

LogicalResult importGridSample(NodeImporter &n) {
  if (n.inputRank(0) != 4 || n.inputRank(1) != 4)
    return n.emitError() << "only 4-D inputs (N, C, H, W) and grids (N, "
                            "H_out, W_out, 2) are supported";
  // Opset 16 says bilinear, opset 20 linear.
  std::string mode = n.attrString("mode", "bilinear");
  std::string padding = n.attrString("padding_mode", "zeros");
  if (mode != "bilinear" && mode != "linear")
    return n.unsupportedAttr("mode", mode);
  if (padding != "zeros" && padding != "border")
    return n.unsupportedAttr("padding_mode", padding);
  MLIRContext *context = n.graph.context;
  Perm order = channelsLastPerm(4);
  return emit(
      n, "npu.grid_sample", {n.value(0, order), n.value(1)},
      {n.builder.getNamedAttr(
           "align_corners",
           n.builder.getBoolAttr(n.attrInt("align_corners", 0) != 0)),
       n.builder.getNamedAttr(
           "padding",
           npu::graph::GridSamplePaddingAttr::get(
               context, *npu::graph::symbolizeGridSamplePadding(padding)))},
      order);
}

/// TopK with a K known at import time, along the axis in whichever order
/// the input is stored. The results are always sorted, which `sorted = 0`
/// (any order) allows.
LogicalResult importTopK(NodeImporter &n) {
  int64_t rank = n.inputRank(0);
  FailureOr<int64_t> axis =
      normalizeAxis(n, n.attrInt("axis", -1), rank, "axis");
  FailureOr<SmallVector<int64_t>> k = n.intsInput(1, "K");
  if (failed(axis) || failed(k))
    return failure();
  if (k->size() != 1)
    return n.emitError() << "'K' must hold one value, got " << k->size();
  n.ignoreAttrs({"sorted"});
  bool largest = n.attrInt("largest", 1) != 0;
  Perm perm;
  Value x = n.valueAnyOrder(0, perm);
  if (!x)
    return failure();
  if (!isa<FloatType>(getElementTypeOrSelf(x.getType())))
    return n.emitError() << "TopK of " << getElementTypeOrSelf(x.getType())
                         << " elements is not supported (floats only)";
  FailureOr<Operation *> op = n.createOp(
      "npu.topk", 2, x,
      {i64Attr(n, "k", k->front()),
       i64Attr(n, "axis", physicalAxis(perm, *axis, rank)),
       n.builder.getNamedAttr("largest", n.builder.getBoolAttr(largest))});
  if (failed(op))
    return failure();
  for (unsigned i = 0; i < 2; ++i)
    if (n.isOutputUsed(i) && failed(n.setOutput(i, (*op)->getResult(i), perm)))
      return failure();
  return success();
}

} // namespace

const llvm::StringMap<NodeHandler> &npu::onnx_import::getOpImporters() {
  static const llvm::StringMap<NodeHandler> importers = [] {
    llvm::StringMap<NodeHandler> m;
    for (auto [onnxName, npuName] : {std::pair{"Relu", "npu.relu"},
                                     {"Sigmoid", "npu.sigmoid"},
                                     {"Tanh", "npu.tanh"},
                                     {"Exp", "npu.exp"},
                                     {"Log", "npu.log"},
                                     {"Sqrt", "npu.sqrt"},
                                     {"Neg", "npu.neg"},
                                     {"Abs", "npu.abs"},
                                     {"Erf", "npu.erf"},
                                     {"HardSwish", "npu.hard_swish"},
                                     {"Not", "npu.not"}})
      m[onnxName] = unary(npuName);
    m["Add"] = binary("Add", "npu.add", "npu.vs_add", true);
    m["Sub"] = binary("Sub", "npu.sub", "npu.vs_sub", false);
    m["Mul"] = binary("Mul", "npu.mul", "npu.vs_mul", true);
    m["Div"] = binary("Div", "npu.div", "npu.vs_div", false);
    m["Max"] = binary("Max", "npu.max", "npu.vs_max", true);
    m["Min"] = binary("Min", "npu.min", "npu.vs_min", true);
    m["Pow"] = binary("Pow", "npu.pow", "", false);
    m["Equal"] = binary("Equal", "npu.equal", "", true);
    m["Less"] = binary("Less", "npu.less", "", false);
    m["LessOrEqual"] = binary("LessOrEqual", "npu.less_equal", "", false);
    m["Greater"] = binary("Greater", "npu.greater", "", false);
    m["GreaterOrEqual"] =
        binary("GreaterOrEqual", "npu.greater_equal", "", false);
    m["And"] = binary("And", "npu.and", "", true);
    m["Or"] = binary("Or", "npu.or", "", true);
    m["Where"] = importWhere;
    m["Clip"] = importClip;
    m["HardSigmoid"] = importHardSigmoid;
    m["Cast"] = importCast;
    m["Identity"] = importIdentity;
    m["Dropout"] = importIdentity;
    m["BatchNormalization"] = importBatchNormalization;
    m["InstanceNormalization"] = importInstanceNormalization;
    m["Split"] = importSplit;
    m["SplitToSequence"] = importSplitToSequence;
    m["SequenceAt"] = importSequenceAt;
    m["Einsum"] = importEinsum;
    m["Tile"] = importTile;
    m["Reciprocal"] = importReciprocal;
    m["Conv"] = importConv;
    m["MaxPool"] = importPool;
    m["AveragePool"] = importPool;
    m["GlobalAveragePool"] = globalPool("mean");
    m["GlobalMaxPool"] = globalPool("max");
    m["ReduceMean"] = reduce("mean");
    m["ReduceSum"] = reduce("sum");
    m["ReduceMax"] = reduce("max");
    m["ReduceMin"] = reduce("min");
    m["ReduceL2"] = reduce("l2");
    m["MatMul"] = importMatMul;
    m["Gemm"] = importGemm;
    m["Softmax"] = importSoftmax;
    m["LayerNormalization"] = importLayerNormalization;
    m["Reshape"] = reshapeLike(reshapeTarget);
    m["Flatten"] = reshapeLike(flattenShape);
    m["Squeeze"] = reshapeLike(squeezedShape);
    m["Unsqueeze"] = reshapeLike(unsqueezeShape);
    m["Transpose"] = importTranspose;
    m["Concat"] = importConcat;
    m["Slice"] = importSlice;
    m["Gather"] = importGather;
    m["Expand"] = importExpand;
    m["ScatterND"] = importScatterND;
    m["Pad"] = importPad;
    m["Resize"] = importResize;
    m["GridSample"] = importGridSample;
    m["TopK"] = importTopK;
    return m;
  }();
  return importers;
}
