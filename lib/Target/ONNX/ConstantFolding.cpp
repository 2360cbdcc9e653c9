//===- ConstantFolding.cpp - shape arithmetic evaluated at import ---------===//
//
// Exported transformers compute their reshapes, pads and masks at run time
// from Shape: about two thirds of an exported Swin-T's nodes. With static
// shapes all of it is known at import, so those nodes are evaluated here on
// HostTensors (int64 or double elements, numpy broadcasting) and leave no op
// behind. Each folder is linear in its output's size times its rank.
//
//===----------------------------------------------------------------------===//

#include "Model.h"

#include "mlir/Dialect/Traits.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>

using namespace mlir;
using namespace npu::onnx_import;

//===----------------------------------------------------------------------===//
// HostTensor
//===----------------------------------------------------------------------===//

bool HostTensor::isFloat() const { return isFloatType(dtype); }

int64_t npu::onnx_import::countElements(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    if (d >= 0 && llvm::MulOverflow(n, d, n))
      return std::numeric_limits<int64_t>::max();
  return n;
}

int64_t HostTensor::numElements() const { return countElements(shape); }

HostTensor HostTensor::zeros(int32_t dtype, ArrayRef<int64_t> shape) {
  HostTensor t;
  t.dtype = dtype;
  t.shape.assign(shape.begin(), shape.end());
  int64_t n = std::max<int64_t>(t.numElements(), 0);
  if (t.isFloat())
    t.floats.assign(n, 0.0);
  else
    t.ints.assign(n, 0);
  return t;
}

void HostTensor::set(int64_t i, double v) {
  if (isFloat()) {
    floats[i] = dtype == onnx::TensorProto::FLOAT
                    ? static_cast<double>(static_cast<float>(v))
                    : v;
  } else if (dtype == onnx::TensorProto::BOOL) {
    ints[i] = v != 0;
  } else {
    ints[i] = toInt64(v);
  }
}

int64_t npu::onnx_import::toInt64(double v) {
  // Saturated, NaN as 0: a malformed model's value must not be undefined
  // behaviour (C++ leaves an out-of-range conversion so).
  if (std::isnan(v))
    return 0;
  if (v >= 0x1p63)
    return std::numeric_limits<int64_t>::max();
  if (v < -0x1p63)
    return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(v);
}

void HostTensor::setInt(int64_t i, int64_t v) {
  if (isFloat())
    set(i, static_cast<double>(v));
  else
    ints[i] = dtype == onnx::TensorProto::BOOL ? v != 0 : v;
}

/// Row-major strides of `shape`.
static SmallVector<int64_t> stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

/// Copies element `from` of `src` to element `to` of `dst` (same dtype),
/// with how it depends on the batch.
static void copyElement(const HostTensor &src, int64_t from, HostTensor &dst,
                        int64_t to) {
  if (src.isFloat())
    dst.floats[to] = src.floats[from];
  else
    dst.ints[to] = src.ints[from];
  if (!src.batchForms.empty())
    dst.setForm(to, src.formAt(from));
}

HostTensor HostTensor::transposed(ArrayRef<int64_t> perm) const {
  if (perm.empty())
    return *this;
  HostTensor out = zeros(dtype, permute(shape, perm));
  SmallVector<int64_t> inStrides = stridesOf(shape);
  SmallVector<int64_t> coord(shape.size(), 0);
  for (int64_t o = 0, n = out.numElements(); o < n; ++o) {
    int64_t from = 0;
    for (size_t d = 0; d < coord.size(); ++d)
      from += coord[d] * inStrides[perm[d]];
    copyElement(*this, from, out, o);
    for (int64_t d = static_cast<int64_t>(coord.size()) - 1; d >= 0; --d) {
      if (++coord[d] < out.shape[d])
        break;
      coord[d] = 0;
    }
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Broadcasting
//===----------------------------------------------------------------------===//

namespace {
/// Walks the numpy broadcast of several shapes, giving each operand's flat
/// index for each output element.
class Broadcast {
public:
  bool init(ArrayRef<const HostTensor *> operands) {
    for (const HostTensor *t : operands) {
      SmallVector<int64_t> next;
      if (!OpTrait::util::getBroadcastedShape(shape, t->shape, next))
        return false;
      shape = std::move(next);
    }
    size_t rank = shape.size();
    for (const HostTensor *t : operands) {
      SmallVector<int64_t> own = stridesOf(t->shape);
      SmallVector<int64_t> s(rank, 0);
      size_t offset = rank - t->shape.size();
      for (size_t d = 0; d < t->shape.size(); ++d)
        s[offset + d] = t->shape[d] == 1 ? 0 : own[d];
      strides.push_back(s);
    }
    return true;
  }

  /// Calls fn(outputIndex, operandIndices) for every output element.
  template <typename Fn> void forEach(Fn fn) const {
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    SmallVector<int64_t> coord(shape.size(), 0), index(strides.size(), 0);
    for (int64_t o = 0; o < n; ++o) {
      for (size_t k = 0; k < strides.size(); ++k) {
        index[k] = 0;
        for (size_t d = 0; d < coord.size(); ++d)
          index[k] += coord[d] * strides[k][d];
      }
      fn(o, ArrayRef<int64_t>(index));
      for (int64_t d = static_cast<int64_t>(coord.size()) - 1; d >= 0; --d) {
        if (++coord[d] < shape[d])
          break;
        coord[d] = 0;
      }
    }
  }

  SmallVector<int64_t> shape;
  SmallVector<SmallVector<int64_t>> strides;
};
} // namespace

static std::string formatShape(ArrayRef<int64_t> shape) {
  std::string s = "[";
  llvm::raw_string_ostream os(s);
  llvm::interleaveComma(shape, os);
  return s + "]";
}

static FailureOr<Broadcast> broadcast(NodeImporter &n,
                                      ArrayRef<const HostTensor *> operands) {
  Broadcast b;
  if (b.init(operands))
    return b;
  InFlightDiagnostic diag = n.emitError() << "input shapes";
  for (const HostTensor *t : operands)
    diag << " " << formatShape(t->shape);
  return diag << " do not broadcast";
}

/// Applies a binary arithmetic or comparison op to two doubles (integer
/// operands are converted exactly for the extents shape arithmetic uses).
static double applyBinary(StringRef kind, double a, double b, bool integer) {
  if (kind == "Add")
    return a + b;
  if (kind == "Sub")
    return a - b;
  if (kind == "Mul")
    return a * b;
  if (kind == "Div")
    return integer ? (b == 0 ? 0 : std::trunc(a / b)) : a / b;
  if (kind == "Pow")
    return std::pow(a, b);
  if (kind == "Max")
    return std::max(a, b);
  if (kind == "Min")
    return std::min(a, b);
  if (kind == "Equal")
    return a == b;
  if (kind == "Less")
    return a < b;
  if (kind == "Greater")
    return a > b;
  if (kind == "LessOrEqual")
    return a <= b;
  if (kind == "GreaterOrEqual")
    return a >= b;
  if (kind == "And")
    return a != 0 && b != 0;
  if (kind == "Or")
    return a != 0 || b != 0;
  // Mod: the sign of the divisor for integers (Python's %), of the dividend
  // for floats (fmod).
  if (b == 0)
    return 0;
  double r = std::fmod(a, b);
  if (integer && r != 0 && ((r < 0) != (b < 0)))
    r += b;
  return r;
}

FailureOr<HostTensor> npu::onnx_import::foldBinary(NodeImporter &n,
                                                   StringRef kind,
                                                   const HostTensor &lhs,
                                                   const HostTensor &rhs) {
  FailureOr<Broadcast> b = broadcast(n, {&lhs, &rhs});
  if (failed(b))
    return failure();
  // Comparisons and logical ops make booleans.
  bool compare = llvm::is_contained({"Equal", "Less", "Greater", "LessOrEqual",
                                     "GreaterOrEqual", "And", "Or"},
                                    kind);
  HostTensor out = HostTensor::zeros(
      compare ? onnx::TensorProto::BOOL : lhs.dtype, b->shape);
  bool integer = !lhs.isFloat() && !rhs.isFloat();
  if (integer && !compare && kind != "Div" && kind != "Pow") {
    // Exact int64 arithmetic for the operations shape arithmetic uses,
    // wrapping as two's complement (a malformed model's overflow must not
    // be undefined behaviour).
    auto wrap = [](uint64_t v) { return static_cast<int64_t>(v); };
    auto mod = [](int64_t x, int64_t y) -> int64_t {
      // Python's %, the sign of the divisor; x % -1 is 0 (and INT64_MIN
      // % -1 would trap).
      if (y == 0 || y == -1)
        return 0;
      int64_t r = x % y;
      return r != 0 && (r < 0) != (y < 0) ? r + y : r;
    };
    b->forEach([&](int64_t o, ArrayRef<int64_t> i) {
      int64_t x = lhs.ints[i[0]], y = rhs.ints[i[1]];
      uint64_t ux = x, uy = y;
      int64_t r = kind == "Add"   ? wrap(ux + uy)
                  : kind == "Sub" ? wrap(ux - uy)
                  : kind == "Mul" ? wrap(ux * uy)
                  : kind == "Max" ? std::max(x, y)
                  : kind == "Min" ? std::min(x, y)
                                  : mod(x, y);
      out.setInt(o, r);
    });
  } else {
    b->forEach([&](int64_t o, ArrayRef<int64_t> i) {
      out.set(o, applyBinary(kind, lhs.asDouble(i[0]), rhs.asDouble(i[1]),
                             integer));
    });
  }
  if (!lhs.batchForms.empty() || !rhs.batchForms.empty())
    b->forEach([&](int64_t o, ArrayRef<int64_t> i) {
      out.setForm(o,
                  combineForms(kind, lhs.formAt(i[0]), lhs.asDouble(i[0]),
                               rhs.formAt(i[1]), rhs.asDouble(i[1]), integer));
    });
  return out;
}

//===----------------------------------------------------------------------===//
// Folders
//===----------------------------------------------------------------------===//

static const HostTensor &in(NodeImporter &n, size_t i) {
  return *n.input(i).constant;
}

/// Gives `out` the shape form of input `operand`, which sizes it. When
/// not `exact` (Squeeze's axes, a Range's count, a Tile's product with a
/// shape that depends on the batch too) its extents are functions of the
/// values that need not be lines: a batch that reaches them makes the
/// shape Opaque.
static void takeShapeFrom(NodeImporter &n, size_t operand, HostTensor &out,
                          bool exact = true) {
  if (!n.hasInput(operand))
    return;
  const HostTensor &extents = in(n, operand);
  BatchForm::Kind kind = BatchForm::None;
  for (int64_t i = 0, e = extents.numElements(); i < e; ++i)
    kind = std::max(kind, extents.formAt(i).kind);
  if (kind == BatchForm::Affine && !exact)
    kind = BatchForm::Opaque;
  out.shapeForm = std::max(out.shapeForm, kind);
}

/// Makes all of `out` Opaque when any of `operands` (bounds or indices that
/// choose its elements) depends on the batch.
static void takeOpaqueFrom(NodeImporter &n, ArrayRef<size_t> operands,
                           HostTensor &out) {
  for (size_t i : operands)
    if (n.hasInput(i) && in(n, i).dependsOnBatch())
      out.setAllOpaque();
}

FailureOr<SmallVector<int64_t>> npu::onnx_import::tileRepeats(NodeImporter &n) {
  FailureOr<const HostTensor *> counts = n.constantInput(1, "repeats");
  if (failed(counts))
    return failure();
  int64_t rank = n.inputRank(0);
  if ((*counts)->isFloat() || (*counts)->numElements() != rank ||
      llvm::any_of((*counts)->ints, [](int64_t r) { return r < 0; }))
    return n.emitError() << "'repeats' must hold " << rank
                         << " non-negative integer counts";
  return SmallVector<int64_t>((*counts)->ints.begin(), (*counts)->ints.end());
}

FailureOr<SmallVector<int64_t>> npu::onnx_import::reduceAxes(NodeImporter &n) {
  if (n.hasInput(1))
    return n.intsInput(1, "axes");
  return n.attrInts("axes");
}

FailureOr<int64_t> npu::onnx_import::normalizeAxis(NodeImporter &n,
                                                   int64_t axis, int64_t rank,
                                                   StringRef name) {
  if (axis < -rank || axis >= rank)
    return n.emitError() << name << " " << axis << " is out of range for rank "
                         << rank;
  return axis < 0 ? axis + rank : axis;
}

static LogicalResult foldConstant(NodeImporter &n) {
  if (const onnx::TensorProto *t = n.attrTensor("value")) {
    std::string error;
    FailureOr<HostTensor> data = readTensor(*t, n.graph.model.dir, error);
    if (failed(data))
      return n.emitError() << "attribute 'value' " << error;
    return n.setOutput(0, std::move(*data));
  }
  HostTensor t;
  if (n.hasAttr("value_float") || n.hasAttr("value_floats")) {
    SmallVector<double> values;
    if (n.hasAttr("value_float")) {
      values.push_back(n.attrFloat("value_float", 0));
    } else {
      for (const auto &attr : n.node.attribute())
        if (attr.name() == "value_floats")
          values.append(attr.floats().begin(), attr.floats().end());
      n.ignoreAttrs({"value_floats"});
    }
    t = HostTensor::zeros(onnx::TensorProto::FLOAT, {});
    if (!n.hasAttr("value_float"))
      t.shape = {static_cast<int64_t>(values.size())};
    t.floats.assign(values.begin(), values.end());
    return n.setOutput(0, std::move(t));
  }
  if (n.hasAttr("value_int") || n.hasAttr("value_ints")) {
    bool scalar = n.hasAttr("value_int");
    SmallVector<int64_t> values =
        scalar ? SmallVector<int64_t>{n.attrInt("value_int", 0)}
               : n.attrInts("value_ints");
    t = HostTensor::zeros(onnx::TensorProto::INT64, {});
    if (!scalar)
      t.shape = {static_cast<int64_t>(values.size())};
    t.ints.assign(values.begin(), values.end());
    return n.setOutput(0, std::move(t));
  }
  return n.emitError() << "only tensor, float and int constants are supported";
}

static LogicalResult foldShape(NodeImporter &n) {
  ArrayRef<int64_t> shape = n.inputShape(0);
  int64_t rank = shape.size();
  auto clampIndex = [&](int64_t i) {
    return std::clamp<int64_t>(i < 0 ? i + rank : i, 0, rank);
  };
  int64_t start = clampIndex(n.attrInt("start", 0));
  int64_t end = clampIndex(n.attrInt("end", rank));
  HostTensor t = HostTensor::zeros(onnx::TensorProto::INT64,
                                   {std::max<int64_t>(end - start, 0)});
  for (int64_t i = start; i < end; ++i) {
    t.ints[i - start] = shape[i];
    t.setForm(i - start, n.extentForm(0, i));
  }
  return n.setOutput(0, std::move(t));
}

static LogicalResult foldSize(NodeImporter &n) {
  HostTensor t = HostTensor::zeros(onnx::TensorProto::INT64, {});
  t.ints[0] = 1;
  BatchForm form;
  for (auto [d, extent] : llvm::enumerate(n.inputShape(0))) {
    form = combineForms("Mul", form, t.ints[0], n.extentForm(0, d), extent,
                        /*integer=*/true);
    t.ints[0] *= extent;
  }
  t.setForm(0, form);
  return n.setOutput(0, std::move(t));
}

static LogicalResult foldGather(NodeImporter &n) {
  const HostTensor &data = in(n, 0), &indices = in(n, 1);
  int64_t rank = data.shape.size();
  FailureOr<int64_t> axis =
      normalizeAxis(n, n.attrInt("axis", 0), rank, "attribute 'axis'");
  if (failed(axis))
    return failure();
  SmallVector<int64_t> shape(data.shape.begin(), data.shape.begin() + *axis);
  llvm::append_range(shape, indices.shape);
  shape.append(data.shape.begin() + *axis + 1, data.shape.end());
  HostTensor out = HostTensor::zeros(data.dtype, shape);
  int64_t outer = 1, inner = 1, extent = data.shape[*axis];
  for (int64_t d = 0; d < *axis; ++d)
    outer *= data.shape[d];
  for (int64_t d = *axis + 1; d < rank; ++d)
    inner *= data.shape[d];
  int64_t count = indices.numElements(), o = 0;
  for (int64_t a = 0; a < outer; ++a)
    for (int64_t k = 0; k < count; ++k) {
      int64_t index =
          indices.ints[k] < 0 ? indices.ints[k] + extent : indices.ints[k];
      if (index < 0 || index >= extent)
        return n.emitError()
               << "index " << indices.ints[k]
               << " is out of range for an axis of extent " << extent;
      for (int64_t b = 0; b < inner; ++b) {
        copyElement(data, (a * extent + index) * inner + b, out, o);
        if (indices.formAt(k).kind != BatchForm::None)
          out.setForm(o, BatchForm::opaque());
        ++o;
      }
    }
  return n.setOutput(0, std::move(out));
}

static LogicalResult foldConcat(NodeImporter &n) {
  const HostTensor &first = in(n, 0);
  int64_t rank = first.shape.size();
  FailureOr<int64_t> axis =
      normalizeAxis(n, n.attrInt("axis", 0), rank, "attribute 'axis'");
  if (failed(axis))
    return failure();
  SmallVector<int64_t> shape = first.shape;
  shape[*axis] = 0;
  for (size_t i = 0; i < n.numInputs(); ++i) {
    const HostTensor &t = in(n, i);
    // The result has the first input's type: another type's elements
    // would be read from the wrong storage.
    if (t.dtype != first.dtype)
      return n.emitError() << "input " << i
                           << " has another element type than input 0";
    for (int64_t d = 0; d < rank; ++d)
      if (d != *axis && (static_cast<int64_t>(t.shape.size()) != rank ||
                         t.shape[d] != first.shape[d]))
        return n.emitError() << "inputs " << formatShape(first.shape) << " and "
                             << formatShape(t.shape)
                             << " differ outside the concatenated axis";
    shape[*axis] += t.shape[*axis];
  }
  HostTensor out = HostTensor::zeros(first.dtype, shape);
  int64_t outer = 1;
  for (int64_t d = 0; d < *axis; ++d)
    outer *= shape[d];
  int64_t o = 0;
  for (int64_t a = 0; a < outer; ++a)
    for (size_t i = 0; i < n.numInputs(); ++i) {
      const HostTensor &t = in(n, i);
      int64_t chunk = t.numElements() / std::max<int64_t>(outer, 1);
      for (int64_t k = 0; k < chunk; ++k)
        copyElement(t, a * chunk + k, out, o++);
    }
  return n.setOutput(0, std::move(out));
}

/// The result shape of Unsqueeze / Squeeze; shared with the op handlers.
static FailureOr<SmallVector<int64_t>> squeezeShape(NodeImporter &n,
                                                    bool unsqueeze) {
  ArrayRef<int64_t> shape = n.inputShape(0);
  SmallVector<int64_t> axes;
  if (n.hasInput(1)) {
    FailureOr<SmallVector<int64_t>> given = n.intsInput(1, "axes");
    if (failed(given))
      return failure();
    axes = *given;
  }
  int64_t rank = shape.size() + (unsqueeze ? axes.size() : 0);
  SmallVector<bool> marked(rank, false);
  for (int64_t axis : axes) {
    FailureOr<int64_t> a = normalizeAxis(n, axis, rank, "axis");
    if (failed(a))
      return failure();
    marked[*a] = true;
  }
  SmallVector<int64_t> out;
  if (unsqueeze) {
    for (int64_t d = 0, next = 0; d < rank; ++d)
      out.push_back(marked[d] ? 1 : shape[next++]);
    return out;
  }
  for (auto [d, extent] : llvm::enumerate(shape)) {
    bool squeeze = axes.empty() ? extent == 1 : marked[d];
    if (squeeze && extent != 1)
      return n.emitError() << "cannot squeeze dimension " << d << " of extent "
                           << extent;
    if (!squeeze)
      out.push_back(extent);
  }
  return out;
}

/// Reshape-like folds: the data unchanged under a new shape. `extents`:
/// input 1 holds the extents (Reshape's target), not axes.
static LogicalResult foldWithShape(NodeImporter &n,
                                   FailureOr<SmallVector<int64_t>> shape,
                                   bool extents = false) {
  if (failed(shape))
    return failure();
  HostTensor out = in(n, 0);
  out.shape = *shape;
  // A target's 0 and -1 take extents from the input's count and shape.
  bool exact = extents && n.hasInput(1) &&
               llvm::all_of(in(n, 1).ints, [](int64_t d) { return d > 0; });
  takeShapeFrom(n, 1, out, exact);
  return n.setOutput(0, std::move(out));
}

FailureOr<SmallVector<int64_t>>
npu::onnx_import::reshapeTarget(NodeImporter &n) {
  FailureOr<SmallVector<int64_t>> target = n.intsInput(1, "shape");
  if (failed(target))
    return failure();
  ArrayRef<int64_t> shape = n.inputShape(0);
  bool allowZero = n.attrInt("allowzero", 0) != 0;
  int64_t total = countElements(shape), inferred = -1;
  SmallVector<int64_t> out = *target;
  for (auto [i, d] : llvm::enumerate(out)) {
    if (d == 0 && !allowZero) {
      if (i >= shape.size())
        return n.emitError()
               << "shape entry " << i << " copies a dimension the input lacks";
      d = shape[i];
    }
    if (d == -1) {
      if (inferred >= 0)
        return n.emitError()
               << "shape " << formatShape(*target) << " has more than one -1";
      inferred = i;
      continue;
    }
    if (d < 0)
      return n.emitError() << "shape " << formatShape(*target)
                           << " has a negative extent";
  }
  // Saturated counts: extents from a malformed model may overflow. The -1
  // still in `out` counts as 1.
  if (inferred >= 0) {
    int64_t known = countElements(out);
    out[inferred] = known == 0 ? 0 : total / known;
  }
  if (countElements(out) != total)
    return n.emitError() << "cannot reshape " << formatShape(shape) << " ("
                         << total << " elements) to " << formatShape(*target);
  return out;
}

FailureOr<SmallVector<int64_t>>
npu::onnx_import::unsqueezeShape(NodeImporter &n) {
  return squeezeShape(n, /*unsqueeze=*/true);
}

FailureOr<SmallVector<int64_t>>
npu::onnx_import::squeezedShape(NodeImporter &n) {
  return squeezeShape(n, /*unsqueeze=*/false);
}

FailureOr<SliceBounds> npu::onnx_import::sliceBounds(NodeImporter &n,
                                                     bool allowNegativeSteps) {
  FailureOr<SmallVector<int64_t>> starts = n.intsInput(1, "starts");
  FailureOr<SmallVector<int64_t>> ends = n.intsInput(2, "ends");
  if (failed(starts) || failed(ends))
    return failure();
  ArrayRef<int64_t> shape = n.inputShape(0);
  int64_t rank = shape.size();
  SmallVector<int64_t> axes, steps(starts->size(), 1);
  for (int64_t i = 0; i < static_cast<int64_t>(starts->size()); ++i)
    axes.push_back(i);
  if (n.hasInput(3)) {
    FailureOr<SmallVector<int64_t>> given = n.intsInput(3, "axes");
    if (failed(given))
      return failure();
    axes = *given;
  }
  if (n.hasInput(4)) {
    FailureOr<SmallVector<int64_t>> given = n.intsInput(4, "steps");
    if (failed(given))
      return failure();
    steps = *given;
  }
  if (ends->size() != starts->size() || axes.size() != starts->size() ||
      steps.size() != starts->size())
    return n.emitError() << "starts, ends, axes and steps differ in length";
  SliceBounds b;
  b.start.assign(rank, 0);
  b.step.assign(rank, 1);
  b.end.assign(shape.begin(), shape.end());
  b.clamped.assign(rank, false);
  for (size_t k = 0; k < starts->size(); ++k) {
    FailureOr<int64_t> axis = normalizeAxis(n, axes[k], rank, "slice axis");
    if (failed(axis))
      return failure();
    int64_t extent = shape[*axis], step = steps[k];
    if (step == 0 || (step < 0 && !allowNegativeSteps))
      return n.emitError() << "step " << step << " on axis " << *axis
                           << " is not supported";
    auto clampIndex = [&](int64_t i, int64_t low, int64_t high) {
      bool open = i >= std::numeric_limits<int32_t>::max() ||
                  i <= std::numeric_limits<int32_t>::min();
      if (i < 0)
        i += extent;
      int64_t clamped = std::clamp(i, low, high);
      b.clamped[*axis] = b.clamped[*axis] || (clamped != i && !open);
      return clamped;
    };
    if (step > 0) {
      b.start[*axis] = clampIndex((*starts)[k], 0, extent);
      b.end[*axis] = clampIndex((*ends)[k], 0, extent);
    } else {
      b.start[*axis] = clampIndex((*starts)[k], 0, extent - 1);
      b.end[*axis] = clampIndex((*ends)[k], -1, extent - 1);
    }
    b.step[*axis] = step;
  }
  return b;
}

int64_t npu::onnx_import::SliceBounds::extent(size_t d) const {
  int64_t span = end[d] - start[d];
  if (step[d] > 0)
    return span <= 0 ? 0 : (span + step[d] - 1) / step[d];
  return span >= 0 ? 0 : (-span + (-step[d]) - 1) / (-step[d]);
}

static LogicalResult foldSlice(NodeImporter &n) {
  FailureOr<SliceBounds> b = sliceBounds(n, /*allowNegativeSteps=*/true);
  if (failed(b))
    return failure();
  const HostTensor &data = in(n, 0);
  SmallVector<int64_t> shape;
  for (size_t d = 0; d < data.shape.size(); ++d)
    shape.push_back(b->extent(d));
  HostTensor out = HostTensor::zeros(data.dtype, shape);
  SmallVector<int64_t> strides = stridesOf(data.shape), coord(shape.size(), 0);
  for (int64_t o = 0, count = out.numElements(); o < count; ++o) {
    int64_t from = 0;
    for (size_t d = 0; d < coord.size(); ++d)
      from += (b->start[d] + coord[d] * b->step[d]) * strides[d];
    copyElement(data, from, out, o);
    for (int64_t d = static_cast<int64_t>(coord.size()) - 1; d >= 0; --d) {
      if (++coord[d] < shape[d])
        break;
      coord[d] = 0;
    }
  }
  takeOpaqueFrom(n, {1, 2, 3, 4}, out);
  return n.setOutput(0, std::move(out));
}

static LogicalResult foldConstantOfShape(NodeImporter &n) {
  FailureOr<SmallVector<int64_t>> shape = n.intsInput(0, "shape");
  if (failed(shape))
    return failure();
  HostTensor fill = HostTensor::zeros(onnx::TensorProto::FLOAT, {1});
  if (const onnx::TensorProto *t = n.attrTensor("value")) {
    std::string error;
    FailureOr<HostTensor> data = readTensor(*t, n.graph.model.dir, error);
    if (failed(data) || data->numElements() != 1)
      return n.emitError() << "attribute 'value' must hold one element";
    fill = *data;
  }
  if (failed(n.checkFoldedShape(*shape)))
    return failure();
  HostTensor out = HostTensor::zeros(fill.dtype, *shape);
  for (int64_t i = 0, count = out.numElements(); i < count; ++i)
    copyElement(fill, 0, out, i);
  takeShapeFrom(n, 0, out);
  return n.setOutput(0, std::move(out));
}

static LogicalResult foldRange(NodeImporter &n) {
  const HostTensor &start = in(n, 0), &limit = in(n, 1), &delta = in(n, 2);
  double first = start.asDouble(0), step = delta.asDouble(0);
  if (step == 0)
    return n.emitError() << "delta must not be 0";
  // Clamped before the conversion: a bound from a malformed model may be
  // past int64, or NaN.
  double steps = std::ceil((limit.asDouble(0) - first) / step);
  int64_t count = !(steps <= double(kMaxFoldedElements))
                      ? kMaxFoldedElements + 1
                      : std::max<int64_t>(static_cast<int64_t>(steps), 0);
  if (failed(n.checkFoldedShape({count})))
    return failure();
  HostTensor out = HostTensor::zeros(start.dtype, {count});
  for (int64_t i = 0; i < count; ++i)
    out.set(i, first + i * step);
  // The limit only says how many elements there are: limit - start of them
  // when the step is 1 and the limit a line that starts at or above start.
  takeOpaqueFrom(n, {0, 2}, out);
  BatchForm end = limit.formAt(0);
  takeShapeFrom(n, 1, out,
                step == 1 && end.kind == BatchForm::Affine && end.slope > 0 &&
                    end.slope + end.offset >= first);
  return n.setOutput(0, std::move(out));
}

static NodeHandler foldBinaryNode(StringRef kind) {
  return [kind](NodeImporter &n) -> LogicalResult {
    if (kind == "Mod" && n.attrInt("fmod", 0) != 0 && !in(n, 0).isFloat())
      return n.unsupportedAttr("fmod", "1", "for integers");
    n.ignoreAttrs({"fmod"});
    FailureOr<HostTensor> out = foldBinary(n, kind, in(n, 0), in(n, 1));
    return failed(out) ? failure() : n.setOutput(0, std::move(*out));
  };
}

static NodeHandler foldUnaryNode(StringRef kind, double (*fn)(double)) {
  return [kind, fn](NodeImporter &n) -> LogicalResult {
    HostTensor out = in(n, 0);
    for (int64_t i = 0, count = out.numElements(); i < count; ++i) {
      out.set(i, fn(out.asDouble(i)));
      if (!out.batchForms.empty())
        out.setForm(i, applyUnaryForm(kind, out.formAt(i)));
    }
    return n.setOutput(0, std::move(out));
  };
}

/// ReduceMin, ReduceMax, ReduceSum and ReduceProd of a known tensor (an
/// image's extents in detection models' resize arithmetic), axes given as
/// the attribute or (ReduceSum) the input.
static NodeHandler foldReduce(StringRef kind) {
  return [kind](NodeImporter &n) -> LogicalResult {
    const HostTensor &x = in(n, 0);
    int64_t rank = x.shape.size();
    FailureOr<SmallVector<int64_t>> given = reduceAxes(n);
    if (failed(given))
      return failure();
    SmallVector<int64_t> axes = *given;
    bool keepdims = n.attrInt("keepdims", 1) != 0;
    if (axes.empty() && n.attrInt("noop_with_empty_axes", 0) != 0)
      return n.setOutput(0, x);
    SmallVector<bool> reduced(rank, axes.empty());
    for (int64_t axis : axes) {
      FailureOr<int64_t> d = normalizeAxis(n, axis, rank, "axes");
      if (failed(d))
        return failure();
      reduced[*d] = true;
    }
    SmallVector<int64_t> shape, kept;
    for (int64_t d = 0; d < rank; ++d) {
      if (!reduced[d])
        kept.push_back(d);
      if (!reduced[d] || keepdims)
        shape.push_back(reduced[d] ? 1 : x.shape[d]);
    }
    HostTensor out = HostTensor::zeros(x.dtype, shape);
    double init = kind == "ReduceMin"    ? INFINITY
                  : kind == "ReduceMax"  ? -INFINITY
                  : kind == "ReduceProd" ? 1
                                         : 0;
    std::vector<double> acc(out.numElements(), init);
    SmallVector<int64_t> strides = stridesOf(x.shape);
    auto outputIndex = [&](int64_t i) {
      int64_t o = 0;
      for (int64_t d : kept)
        o = o * x.shape[d] + i / strides[d] % x.shape[d];
      return o;
    };
    // The forms combine as the values do, from each output's first element.
    StringRef step = kind == "ReduceMin"    ? "Min"
                     : kind == "ReduceMax"  ? "Max"
                     : kind == "ReduceProd" ? "Mul"
                                            : "Add";
    std::vector<bool> started(out.numElements(), false);
    for (int64_t i = 0, count = x.numElements(); i < count; ++i) {
      int64_t o = outputIndex(i);
      double v = x.asDouble(i);
      if (!x.batchForms.empty())
        out.setForm(o, started[o] ? combineForms(step, out.formAt(o), acc[o],
                                                 x.formAt(i), v, !x.isFloat())
                                  : x.formAt(i));
      started[o] = true;
      acc[o] = kind == "ReduceMin"    ? std::min(acc[o], v)
               : kind == "ReduceMax"  ? std::max(acc[o], v)
               : kind == "ReduceProd" ? acc[o] * v
                                      : acc[o] + v;
    }
    for (auto [o, v] : llvm::enumerate(acc))
      out.set(o, v);
    takeOpaqueFrom(n, {1}, out);
    return n.setOutput(0, std::move(out));
  };
}

/// Tile of a known tensor (MViT's shape arithmetic tiles the sizes of its
/// token split).
static LogicalResult foldTile(NodeImporter &n) {
  FailureOr<SmallVector<int64_t>> repeats = tileRepeats(n);
  if (failed(repeats))
    return failure();
  const HostTensor &x = in(n, 0);
  SmallVector<int64_t> shape(x.shape);
  for (auto [size, count] : llvm::zip_equal(shape, *repeats))
    size *= count;
  if (failed(n.checkFoldedShape(shape)))
    return failure();
  HostTensor out = HostTensor::zeros(x.dtype, shape);
  SmallVector<int64_t> from = stridesOf(x.shape), to = stridesOf(shape);
  for (int64_t o = 0, count = out.numElements(); o < count; ++o) {
    int64_t i = 0;
    for (size_t d = 0; d < shape.size(); ++d)
      i += o / to[d] % shape[d] % x.shape[d] * from[d];
    copyElement(x, i, out, o);
  }
  takeShapeFrom(n, 1, out, /*exact=*/x.shapeForm == BatchForm::None);
  return n.setOutput(0, std::move(out));
}

static LogicalResult foldWhere(NodeImporter &n) {
  const HostTensor &cond = in(n, 0), &x = in(n, 1), &y = in(n, 2);
  FailureOr<Broadcast> b = broadcast(n, {&cond, &x, &y});
  if (failed(b))
    return failure();
  HostTensor out = HostTensor::zeros(x.dtype, b->shape);
  b->forEach([&](int64_t o, ArrayRef<int64_t> i) {
    if (cond.ints[i[0]])
      copyElement(x, i[1], out, o);
    else
      copyElement(y, i[2], out, o);
    if (cond.formAt(i[0]).kind != BatchForm::None)
      out.setForm(o, BatchForm::opaque());
  });
  return n.setOutput(0, std::move(out));
}

static LogicalResult foldExpand(NodeImporter &n) {
  FailureOr<SmallVector<int64_t>> shape = n.intsInput(1, "shape");
  if (failed(shape) || failed(n.checkFoldedShape(*shape)))
    return failure();
  HostTensor target = HostTensor::zeros(onnx::TensorProto::BOOL, *shape);
  const HostTensor &x = in(n, 0);
  FailureOr<Broadcast> b = broadcast(n, {&x, &target});
  if (failed(b))
    return failure();
  HostTensor out = HostTensor::zeros(x.dtype, b->shape);
  b->forEach(
      [&](int64_t o, ArrayRef<int64_t> i) { copyElement(x, i[0], out, o); });
  takeShapeFrom(n, 1, out, /*exact=*/x.shapeForm == BatchForm::None);
  return n.setOutput(0, std::move(out));
}

/// The unary form rule of a cast to `to`: f32, f64, int32 and int64 hold
/// every batch a device can; narrower types and bool do not.
static StringRef getCastKind(int32_t to) {
  switch (to) {
  case onnx::TensorProto::FLOAT:
  case onnx::TensorProto::DOUBLE:
    return "CastToFloat";
  case onnx::TensorProto::INT32:
  case onnx::TensorProto::INT64:
    return "CastToInteger";
  default:
    return "CastToNarrow";
  }
}

static LogicalResult foldCast(NodeImporter &n) {
  int32_t to = n.attrInt("to", 0);
  if (!fromONNXType(n.graph.context, to))
    return n.unsupportedAttr("to", dtypeName(to));
  n.ignoreAttrs({"saturate"});
  const HostTensor &x = in(n, 0);
  HostTensor out = HostTensor::zeros(to, x.shape);
  for (int64_t i = 0, count = x.numElements(); i < count; ++i) {
    if (x.isFloat())
      out.set(i, x.floats[i]);
    else
      out.setInt(i, x.ints[i]);
    if (!x.batchForms.empty())
      out.setForm(i, applyUnaryForm(getCastKind(to), x.formAt(i)));
  }
  return n.setOutput(0, std::move(out));
}

static LogicalResult foldTranspose(NodeImporter &n) {
  const HostTensor &x = in(n, 0);
  SmallVector<int64_t> perm = n.attrInts("perm");
  if (perm.empty())
    for (int64_t d = x.shape.size() - 1; d >= 0; --d)
      perm.push_back(d);
  return n.setOutput(0, x.transposed(perm));
}

static LogicalResult foldScatterND(NodeImporter &n) {
  std::string reduction = n.attrString("reduction", "none");
  if (reduction != "none")
    return n.unsupportedAttr("reduction", reduction);
  const HostTensor &data = in(n, 0), &indices = in(n, 1), &updates = in(n, 2);
  HostTensor out = data;
  int64_t depth = indices.shape.empty() ? 0 : indices.shape.back();
  if (depth < 1 || depth > static_cast<int64_t>(data.shape.size()))
    return n.emitError() << "indices " << formatShape(indices.shape)
                         << " do not index data " << formatShape(data.shape);
  SmallVector<int64_t> strides = stridesOf(data.shape);
  int64_t slice = depth ? strides[depth - 1] : data.numElements();
  int64_t rows = indices.numElements() / depth;
  if (updates.numElements() != rows * slice)
    return n.emitError() << "updates " << formatShape(updates.shape)
                         << " do not match indices "
                         << formatShape(indices.shape) << " into data "
                         << formatShape(data.shape);
  for (int64_t r = 0; r < rows; ++r) {
    int64_t base = 0;
    for (int64_t k = 0; k < depth; ++k) {
      int64_t i = indices.ints[r * depth + k];
      if (i < 0)
        i += data.shape[k];
      if (i < 0 || i >= data.shape[k])
        return n.emitError() << "index " << indices.ints[r * depth + k]
                             << " is out of range for dimension " << k
                             << " of extent " << data.shape[k];
      base += i * strides[k];
    }
    for (int64_t e = 0; e < slice; ++e)
      copyElement(updates, r * slice + e, out, base + e);
  }
  takeOpaqueFrom(n, {1}, out);
  return n.setOutput(0, std::move(out));
}

static LogicalResult foldIdentity(NodeImporter &n) {
  n.ignoreAttrs({"seed", "ratio"});
  n.aliasOutput(0, 0);
  return success();
}

const llvm::StringMap<NodeHandler> &npu::onnx_import::getConstantFolders() {
  static const llvm::StringMap<NodeHandler> folders = [] {
    llvm::StringMap<NodeHandler> m;
    m["Constant"] = foldConstant;
    m["Shape"] = foldShape;
    m["Size"] = foldSize;
    m["Gather"] = foldGather;
    m["Concat"] = foldConcat;
    m["Unsqueeze"] = [](NodeImporter &n) {
      return foldWithShape(n, unsqueezeShape(n));
    };
    m["Squeeze"] = [](NodeImporter &n) {
      return foldWithShape(n, squeezedShape(n));
    };
    m["Reshape"] = [](NodeImporter &n) {
      return foldWithShape(n, reshapeTarget(n), /*extents=*/true);
    };
    m["Slice"] = foldSlice;
    m["ConstantOfShape"] = foldConstantOfShape;
    m["Range"] = foldRange;
    for (StringRef kind :
         {"Add", "Sub", "Mul", "Div", "Pow", "Mod", "Max", "Min", "Equal",
          "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "And", "Or"})
      m[kind] = foldBinaryNode(kind);
    m["Neg"] = foldUnaryNode("Neg", [](double x) { return -x; });
    m["Reciprocal"] =
        foldUnaryNode("Reciprocal", [](double x) { return 1 / x; });
    m["Sqrt"] = foldUnaryNode("Sqrt", [](double x) { return std::sqrt(x); });
    m["Floor"] = foldUnaryNode("Floor", [](double x) { return std::floor(x); });
    m["Ceil"] = foldUnaryNode("Ceil", [](double x) { return std::ceil(x); });
    m["Abs"] = foldUnaryNode("Abs", [](double x) { return std::fabs(x); });
    m["Not"] =
        foldUnaryNode("Not", [](double x) { return x == 0 ? 1.0 : 0.0; });
    for (StringRef kind : {"ReduceMin", "ReduceMax", "ReduceSum", "ReduceProd"})
      m[kind] = foldReduce(kind);
    m["Where"] = foldWhere;
    m["Tile"] = foldTile;
    m["Expand"] = foldExpand;
    m["Cast"] = foldCast;
    m["Transpose"] = foldTranspose;
    m["ScatterND"] = foldScatterND;
    m["Identity"] = foldIdentity;
    return m;
  }();
  return folders;
}
