//===- VectorOps.cpp - semantics of npudev vector and cube ops ------------===//
//
// Whole-buffer loops, one per op; elementwise ops walk their views in
// lockstep (a plain loop when all are contiguous). O(elements) each, sort
// and unique O(n log n), matmul O(M N K).
//
//===----------------------------------------------------------------------===//

#include "VectorOps.h"
#include "IntegerSemantics.h"
#include "npu/Dialect/NPUDev/Semantics.h"
#include "npu/Support/DeviceExp.h"
#include "npu/Support/Ordering.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>

using namespace npu;
using namespace npu::dev;
using namespace npu::sim;

namespace {

/// Steps `index` to the next one in row-major order over `sizes`; false
/// after the last.
bool advanceIndex(llvm::MutableArrayRef<int64_t> index,
                  llvm::ArrayRef<int64_t> sizes) {
  for (int d = static_cast<int>(index.size()) - 1; d >= 0; --d) {
    if (++index[d] < sizes[d])
      return true;
    index[d] = 0;
  }
  return false;
}

/// Calls fn(std::array of linear indices) for every element of `views`,
/// which share one shape, in row-major order.
template <size_t N, typename Fn>
void forEachZipped(const std::array<const MemRefView *, N> &views, Fn fn) {
  const MemRefView &first = *views[0];
  int64_t count = first.getNumElements();
  if (count == 0)
    return;
  std::array<int64_t, N> linear;
  if (llvm::all_of(views,
                   [](const MemRefView *v) { return v->isContiguous(); })) {
    for (int64_t i = 0; i < count; ++i) {
      for (size_t k = 0; k < N; ++k)
        linear[k] = views[k]->offset + i;
      fn(linear);
    }
    return;
  }
  llvm::SmallVector<int64_t, 4> index(first.getRank(), 0);
  do {
    for (size_t k = 0; k < N; ++k)
      linear[k] = views[k]->linearize(index);
    fn(linear);
  } while (advanceIndex(index, first.sizes));
}

/// Calls fn(firstLinearIndex, length, stride) for every innermost row.
template <typename Fn> void forEachRow(const MemRefView &view, Fn fn) {
  if (view.getRank() == 0) {
    fn(view.offset, 1, 1);
    return;
  }
  MemRefView outer = view;
  int64_t length = outer.sizes.pop_back_val();
  int64_t stride = outer.strides.pop_back_val();
  if (outer.getNumElements() == 0)
    return;
  if (outer.getRank() == 0) {
    fn(view.offset, length, stride);
    return;
  }
  llvm::SmallVector<int64_t, 4> index(outer.getRank(), 0);
  do
    fn(outer.linearize(index), length, stride);
  while (advanceIndex(index, outer.sizes));
}

/// IEEE maximum/minimum as llvm.maximum / llvm.minimum: NaN wins, +0 > -0.
/// Which NaN: the first NaN operand, quieted (a + a keeps its sign and
/// payload), as the JIT's lowering makes it (FloatMinMaxPatterns.cpp).
template <typename T> T maximum(T a, T b) {
  if (std::isnan(a))
    return a + a;
  if (std::isnan(b))
    return b + b;
  if (a == b)
    return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
template <typename T> T minimum(T a, T b) {
  if (std::isnan(a))
    return a + a;
  if (std::isnan(b))
    return b + b;
  if (a == b)
    return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

template <typename T> T floatBinary(BinaryKind kind, T a, T b) {
  switch (kind) {
  case BinaryKind::add:
    return a + b;
  case BinaryKind::sub:
    return a - b;
  case BinaryKind::mul:
    return a * b;
  case BinaryKind::div:
    return a / b;
  case BinaryKind::max:
    return maximum(a, b);
  case BinaryKind::min:
    return minimum(a, b);
  default:
    break;
  }
  llvm_unreachable("integer-only op on floats");
}

/// The vector unit's exp: the device's own in f32 (and in the narrower
/// floats, computed in f32), libm's in f64.
template <typename T> T deviceExpOf(T x) {
  if constexpr (std::is_same_v<T, float>)
    return deviceExp(x);
  else
    return std::exp(x);
}

template <typename T> T floatUnary(UnaryKind kind, T x) {
  switch (kind) {
  case UnaryKind::abs:
    return std::fabs(x);
  case UnaryKind::neg:
    return -x;
  case UnaryKind::relu:
    return maximum(x, T(0));
  case UnaryKind::exp:
    return deviceExpOf(x);
  case UnaryKind::log:
    return std::log(x);
  case UnaryKind::sqrt:
    return std::sqrt(x);
  case UnaryKind::rsqrt:
    return T(1) / std::sqrt(x);
  case UnaryKind::recip:
    return T(1) / x;
  case UnaryKind::tanh:
    return std::tanh(x);
  case UnaryKind::sigmoid:
    return T(1) / (T(1) + deviceExpOf(-x));
  case UnaryKind::erf:
    return std::erf(x);
  }
  llvm_unreachable("unknown unary op");
}

int64_t intUnary(UnaryKind kind, ElementKind element, int64_t x) {
  switch (kind) {
  case UnaryKind::abs:
    return wrapInt(element, x < 0 ? 0 - static_cast<uint64_t>(x) : x);
  case UnaryKind::neg:
    return wrapInt(element, 0 - static_cast<uint64_t>(x));
  case UnaryKind::relu:
    return x > 0 ? x : 0;
  default:
    llvm_unreachable("float-only unary op on integers");
  }
}

template <typename T> bool compare(ComparePredicate pred, T a, T b) {
  switch (pred) {
  case ComparePredicate::eq:
    return a == b;
  case ComparePredicate::ne:
    return !(a == b);
  case ComparePredicate::lt:
    return a < b;
  case ComparePredicate::le:
    return a <= b;
  case ComparePredicate::gt:
    return a > b;
  case ComparePredicate::ge:
    return a >= b;
  }
  llvm_unreachable("unknown predicate");
}

/// Writes 1 or 0 into an element of any kind.
void storeFlag(uint8_t *p, ElementKind kind, bool flag) {
  if (isFloat(kind))
    storeFloat(p, kind, flag ? 1.0 : 0.0);
  else
    storeInt(p, kind, flag ? 1 : 0);
}

//===----------------------------------------------------------------------===//
// Fast paths: contiguous views of a native type, one typed loop (which the
// compiler vectorizes) instead of an element-kind dispatch per element. They
// compute exactly what the generic path does.
//===----------------------------------------------------------------------===//

bool allContiguous(std::initializer_list<const MemRefView *> views) {
  return llvm::all_of(views,
                      [](const MemRefView *v) { return v->isContiguous(); });
}

template <typename T> T *dataOf(const MemRefView &v) {
  return reinterpret_cast<T *>(v.address(v.offset));
}

/// o[i] = op(a[i], b[i]), or op(a[i], *b) when `scalarB`.
template <typename T, typename Op>
void zipLoop(const T *a, const T *b, bool scalarB, T *o, int64_t n, Op op) {
  if (scalarB) {
    T y = *b;
    for (int64_t i = 0; i < n; ++i)
      o[i] = op(a[i], y);
    return;
  }
  for (int64_t i = 0; i < n; ++i)
    o[i] = op(a[i], b[i]);
}

template <typename T>
void floatBinaryLoop(BinaryKind kind, const T *a, const T *b, bool scalarB,
                     T *o, int64_t n) {
  switch (kind) {
  case BinaryKind::add:
    return zipLoop(a, b, scalarB, o, n, [](T x, T y) { return x + y; });
  case BinaryKind::sub:
    return zipLoop(a, b, scalarB, o, n, [](T x, T y) { return x - y; });
  case BinaryKind::mul:
    return zipLoop(a, b, scalarB, o, n, [](T x, T y) { return x * y; });
  case BinaryKind::div:
    return zipLoop(a, b, scalarB, o, n, [](T x, T y) { return x / y; });
  case BinaryKind::max:
    return zipLoop(a, b, scalarB, o, n, maximum<T>);
  case BinaryKind::min:
    return zipLoop(a, b, scalarB, o, n, minimum<T>);
  default:
    break;
  }
  llvm_unreachable("integer-only op on floats");
}

/// Integer ops that cannot fail, wrapping through the unsigned type `U`;
/// false for division, which takes the generic path for its zero check.
template <typename T, typename U = std::make_unsigned_t<T>>
bool intBinaryLoop(BinaryKind kind, const T *a, const T *b, bool scalarB, T *o,
                   int64_t n) {
  switch (kind) {
  case BinaryKind::add:
    zipLoop(a, b, scalarB, o, n, [](T x, T y) { return T(U(x) + U(y)); });
    return true;
  case BinaryKind::sub:
    zipLoop(a, b, scalarB, o, n, [](T x, T y) { return T(U(x) - U(y)); });
    return true;
  case BinaryKind::mul:
    zipLoop(a, b, scalarB, o, n, [](T x, T y) { return T(U(x) * U(y)); });
    return true;
  case BinaryKind::max:
    zipLoop(a, b, scalarB, o, n, [](T x, T y) { return std::max(x, y); });
    return true;
  case BinaryKind::min:
    zipLoop(a, b, scalarB, o, n, [](T x, T y) { return std::min(x, y); });
    return true;
  case BinaryKind::And:
    zipLoop(a, b, scalarB, o, n, [](T x, T y) { return T(x & y); });
    return true;
  case BinaryKind::Or:
    zipLoop(a, b, scalarB, o, n, [](T x, T y) { return T(x | y); });
    return true;
  case BinaryKind::Xor:
    zipLoop(a, b, scalarB, o, n, [](T x, T y) { return T(x ^ y); });
    return true;
  default:
    // Division, remainder and shifts can fail: the generic path checks.
    return false;
  }
}

/// The fast path of vbinary (`b` a view) and vbinary_scalar (`b` null and
/// `scalar` given); false when it does not apply.
bool binaryFast(BinaryKind kind, const MemRefView &a, const MemRefView *b,
                ScalarValue scalar, const MemRefView &o) {
  if (!allContiguous({&a, &o}) || (b && !b->isContiguous()))
    return false;
  int64_t n = o.getNumElements();
  auto run = [&](auto tag, auto scalarValue, auto loop) {
    using T = decltype(tag);
    T y = static_cast<T>(scalarValue);
    return loop(kind, dataOf<T>(a), b ? dataOf<T>(*b) : &y, !b, dataOf<T>(o),
                n);
  };
  switch (o.getKind()) {
  case ElementKind::F32:
    run(float(), scalar.f, floatBinaryLoop<float>);
    return true;
  case ElementKind::F64:
    run(double(), scalar.f, floatBinaryLoop<double>);
    return true;
  case ElementKind::I32:
    return run(int32_t(), scalar.i, intBinaryLoop<int32_t>);
  case ElementKind::I64:
  case ElementKind::Index:
    return run(int64_t(), scalar.i, intBinaryLoop<int64_t>);
  default:
    return false;
  }
}

/// The fast path of vfill; false when it does not apply.
bool fillFast(ScalarValue value, const MemRefView &o) {
  if (!o.isContiguous())
    return false;
  int64_t n = o.getNumElements();
  switch (o.getKind()) {
  case ElementKind::F32:
    std::fill_n(dataOf<float>(o), n, static_cast<float>(value.f));
    return true;
  case ElementKind::F64:
    std::fill_n(dataOf<double>(o), n, value.f);
    return true;
  case ElementKind::I32:
    std::fill_n(dataOf<int32_t>(o), n, static_cast<int32_t>(value.i));
    return true;
  case ElementKind::I64:
  case ElementKind::Index:
    std::fill_n(dataOf<int64_t>(o), n, value.i);
    return true;
  default:
    return false;
  }
}
} // namespace

MemRefView npu::sim::rowOf(const MemRefView &view, int64_t i) {
  MemRefView row = view;
  row.offset += i * view.strides.front();
  row.sizes.erase(row.sizes.begin());
  row.strides.erase(row.strides.begin());
  return row;
}

double npu::sim::applyFloatUnary(UnaryKind kind, ElementKind element,
                                 double x) {
  return element == ElementKind::F64
             ? floatUnary<double>(kind, x)
             : roundFloat(element,
                          floatUnary<float>(kind, static_cast<float>(x)));
}

double npu::sim::applyFloatBinary(BinaryKind kind, ElementKind element,
                                  double a, double b) {
  if (element == ElementKind::F64)
    return floatBinary<double>(kind, a, b);
  return roundFloat(element, floatBinary<float>(kind, static_cast<float>(a),
                                                static_cast<float>(b)));
}

/// The scalar function of an integer `kind` (IntegerSemantics.h).
static IntBinaryFn getIntBinaryFn(BinaryKind kind) {
  switch (kind) {
  case BinaryKind::add:
    return addI;
  case BinaryKind::sub:
    return subI;
  case BinaryKind::mul:
    return mulI;
  case BinaryKind::div:
    return divSI;
  case BinaryKind::max:
    return maxSI;
  case BinaryKind::min:
    return minSI;
  case BinaryKind::And:
    return andI;
  case BinaryKind::Or:
    return orI;
  case BinaryKind::Xor:
    return xorI;
  case BinaryKind::rem:
    return remSI;
  case BinaryKind::shl:
    return shlI;
  case BinaryKind::shrs:
    return shrSI;
  case BinaryKind::shru:
    return shrUI;
  }
  llvm_unreachable("unknown binary op");
}

OpError npu::sim::applyIntBinary(BinaryKind kind, ElementKind element,
                                 int64_t a, int64_t b, int64_t &result) {
  unsigned bits = element == ElementKind::Index
                      ? 64
                      : static_cast<unsigned>(getElementBytes(element) * 8);
  IntResult r = getIntBinaryFn(kind)(a, b, bits);
  if (r.error)
    return r.error;
  result = wrapInt(element, r.value);
  return {};
}

OpError npu::sim::applyBinary(BinaryKind kind, const MemRefView &lhs,
                              const MemRefView &rhs, const MemRefView &out) {
  if (binaryFast(kind, lhs, &rhs, {}, out))
    return {};
  ElementKind element = out.getKind();
  OpError error;
  forEachZipped<3>({&lhs, &rhs, &out}, [&](const std::array<int64_t, 3> &i) {
    uint8_t *o = out.address(i[2]);
    if (isFloat(element)) {
      storeFloat(o, element,
                 applyFloatBinary(kind, element,
                                  loadFloat(lhs.address(i[0]), element),
                                  loadFloat(rhs.address(i[1]), element)));
      return;
    }
    int64_t r = 0;
    OpError e =
        applyIntBinary(kind, element, loadInt(lhs.address(i[0]), element),
                       loadInt(rhs.address(i[1]), element), r);
    if (!e.empty() && error.empty())
      error = e;
    storeInt(o, element, r);
  });
  return error;
}

OpError npu::sim::applyBinaryScalar(BinaryKind kind, const MemRefView &in,
                                    ScalarValue scalar, const MemRefView &out) {
  if (binaryFast(kind, in, nullptr, scalar, out))
    return {};
  ElementKind element = out.getKind();
  OpError error;
  forEachZipped<2>({&in, &out}, [&](const std::array<int64_t, 2> &i) {
    uint8_t *o = out.address(i[1]);
    if (isFloat(element)) {
      storeFloat(o, element,
                 applyFloatBinary(kind, element,
                                  loadFloat(in.address(i[0]), element),
                                  scalar.f));
      return;
    }
    int64_t r = 0;
    OpError e = applyIntBinary(kind, element,
                               loadInt(in.address(i[0]), element), scalar.i, r);
    if (!e.empty() && error.empty())
      error = e;
    storeInt(o, element, r);
  });
  return error;
}

void npu::sim::applyUnary(UnaryKind kind, const MemRefView &in,
                          const MemRefView &out) {
  ElementKind element = out.getKind();
  forEachZipped<2>({&in, &out}, [&](const std::array<int64_t, 2> &i) {
    uint8_t *o = out.address(i[1]);
    if (!isFloat(element)) {
      storeInt(o, element,
               intUnary(kind, element, loadInt(in.address(i[0]), element)));
      return;
    }
    storeFloat(
        o, element,
        applyFloatUnary(kind, element, loadFloat(in.address(i[0]), element)));
  });
}

void npu::sim::applyCompare(ComparePredicate pred, const MemRefView &lhs,
                            const MemRefView &rhs, const MemRefView &out) {
  ElementKind element = lhs.getKind();
  forEachZipped<3>({&lhs, &rhs, &out}, [&](const std::array<int64_t, 3> &i) {
    bool flag = isFloat(element)
                    ? compare(pred, loadFloat(lhs.address(i[0]), element),
                              loadFloat(rhs.address(i[1]), element))
                    : compare(pred, loadInt(lhs.address(i[0]), element),
                              loadInt(rhs.address(i[1]), element));
    storeFlag(out.address(i[2]), out.getKind(), flag);
  });
}

void npu::sim::applyCompareScalar(ComparePredicate pred, const MemRefView &in,
                                  ScalarValue scalar, const MemRefView &out) {
  ElementKind element = in.getKind();
  forEachZipped<2>({&in, &out}, [&](const std::array<int64_t, 2> &i) {
    bool flag =
        isFloat(element)
            ? compare(pred, loadFloat(in.address(i[0]), element), scalar.f)
            : compare(pred, loadInt(in.address(i[0]), element), scalar.i);
    storeFlag(out.address(i[1]), out.getKind(), flag);
  });
}

void npu::sim::applySelect(const MemRefView &mask, const MemRefView &onTrue,
                           const MemRefView &onFalse, const MemRefView &out) {
  unsigned bytes = getElementBytes(out.getKind());
  ElementKind maskKind = mask.getKind();
  forEachZipped<4>(
      {&mask, &onTrue, &onFalse, &out}, [&](const std::array<int64_t, 4> &i) {
        bool set = isFloat(maskKind)
                       ? loadFloat(mask.address(i[0]), maskKind) != 0
                       : loadInt(mask.address(i[0]), maskKind) != 0;
        std::memmove(out.address(i[3]),
                     set ? onTrue.address(i[1]) : onFalse.address(i[2]), bytes);
      });
}

void npu::sim::applyReduce(ReduceKind kind, ScalarValue identity,
                           ElementKind accumulator, const MemRefView &in,
                           const MemRefView &out) {
  ElementKind element = in.getKind();
  BinaryKind combine = getReductionCombiner(kind);
  // Rows come in row-major order, as the elements of `out` do.
  std::vector<int64_t> targets;
  out.forEachElement([&](int64_t i) { targets.push_back(i); });
  size_t row = 0;
  forEachRow(in, [&](int64_t base, int64_t length, int64_t stride) {
    int64_t target = targets[row++];
    if (isFloat(element)) {
      double acc = identity.f;
      for (int64_t k = 0; k < length; ++k)
        acc =
            applyFloatBinary(combine, accumulator, acc,
                             loadFloat(in.address(base + k * stride), element));
      storeFloat(out.address(target), element, acc);
      return;
    }
    int64_t acc = identity.i;
    for (int64_t k = 0; k < length; ++k)
      (void)applyIntBinary(combine, element, acc,
                           loadInt(in.address(base + k * stride), element),
                           acc);
    storeInt(out.address(target), element, wrapInt(element, acc));
  });
}

void npu::sim::applyCast(const MemRefView &in, const MemRefView &out) {
  ElementKind from = in.getKind(), to = out.getKind();
  forEachZipped<2>({&in, &out}, [&](const std::array<int64_t, 2> &i) {
    const uint8_t *src = in.address(i[0]);
    uint8_t *dst = out.address(i[1]);
    if (isFloat(from) && isFloat(to))
      return storeFloat(dst, to, loadFloat(src, from));
    if (!isFloat(from) && !isFloat(to))
      return storeInt(dst, to, loadInt(src, from));
    if (!isFloat(from))
      return storeFloat(dst, to, static_cast<double>(loadInt(src, from)));
    // Float to integer truncates toward zero; out-of-range values saturate
    // (they are undefined in the JIT).
    double v = std::trunc(loadFloat(src, from));
    double lo = static_cast<double>(std::numeric_limits<int64_t>::min());
    double hi = static_cast<double>(std::numeric_limits<int64_t>::max());
    storeInt(dst, to,
             std::isnan(v) ? 0 : static_cast<int64_t>(std::clamp(v, lo, hi)));
  });
}

void npu::sim::applyFill(ScalarValue value, const MemRefView &out) {
  if (fillFast(value, out))
    return;
  ElementKind element = out.getKind();
  out.forEachElement([&](int64_t i) {
    if (isFloat(element))
      storeFloat(out.address(i), element, value.f);
    else
      storeInt(out.address(i), element, value.i);
  });
}

void npu::sim::applyTranspose(const MemRefView &in, const MemRefView &out) {
  unsigned bytes = getElementBytes(in.getKind());
  for (int64_t r = 0; r < in.sizes[0]; ++r)
    for (int64_t c = 0; c < in.sizes[1]; ++c)
      std::memmove(out.address(out.linearize({c, r})),
                   in.address(in.linearize({r, c})), bytes);
}

void npu::sim::copyView(const MemRefView &source, const MemRefView &target) {
  unsigned bytes = getElementBytes(source.getKind());
  if (source.isContiguous() && target.isContiguous()) {
    // An empty view may have no storage; memmove's pointers must be valid.
    if (int64_t elements = source.getNumElements())
      std::memmove(target.address(target.offset), source.address(source.offset),
                   elements * bytes);
    return;
  }
  forEachZipped<2>({&source, &target}, [&](const std::array<int64_t, 2> &i) {
    std::memmove(target.address(i[1]), source.address(i[0]), bytes);
  });
}

/// Checks indices[i] against `rows` rows and calls fn(i, index).
template <typename Fn>
static OpError forEachIndex(const MemRefView &indices, int64_t rows, Fn fn) {
  ElementKind kind = indices.getKind();
  for (int64_t i = 0; i < indices.sizes[0]; ++i) {
    int64_t index = loadInt(indices.address(indices.linearize({i})), kind);
    if (index < 0 || index >= rows)
      return "index " + std::to_string(index) + " at position " +
             std::to_string(i) + " is out of range [0, " +
             std::to_string(rows) + ")";
    fn(i, index);
  }
  return {};
}

OpError npu::sim::applyGather(const MemRefView &source,
                              const MemRefView &indices,
                              const MemRefView &out) {
  return forEachIndex(indices, source.sizes[0], [&](int64_t i, int64_t index) {
    copyView(rowOf(source, index), rowOf(out, i));
  });
}

OpError npu::sim::applyScatter(const MemRefView &source,
                               const MemRefView &indices,
                               const MemRefView &out) {
  return forEachIndex(indices, out.sizes[0], [&](int64_t i, int64_t index) {
    copyView(rowOf(source, i), rowOf(out, index));
  });
}

void npu::sim::applyCumsum(ElementKind accumulator, const MemRefView &in,
                           const MemRefView &out) {
  ElementKind element = in.getKind();
  llvm::SmallVector<std::pair<int64_t, int64_t>> outRows;
  forEachRow(out, [&](int64_t base, int64_t, int64_t stride) {
    outRows.push_back({base, stride});
  });
  size_t row = 0;
  forEachRow(in, [&](int64_t base, int64_t length, int64_t stride) {
    auto [outBase, outStride] = outRows[row++];
    double accF = 0;
    int64_t accI = 0;
    for (int64_t k = 0; k < length; ++k) {
      const uint8_t *src = in.address(base + k * stride);
      uint8_t *dst = out.address(outBase + k * outStride);
      if (isFloat(element)) {
        accF = applyFloatBinary(BinaryKind::add, accumulator, accF,
                                loadFloat(src, element));
        storeFloat(dst, element, accF);
      } else {
        (void)applyIntBinary(BinaryKind::add, element, accI,
                             loadInt(src, element), accI);
        storeInt(dst, element, accI);
      }
    }
  });
}

/// Reads `length` elements from `base` by `stride` as doubles or integers.
template <typename T>
static std::vector<T> loadValues(const MemRefView &in, int64_t base,
                                 int64_t length, int64_t stride) {
  ElementKind element = in.getKind();
  std::vector<T> values(length);
  for (int64_t k = 0; k < length; ++k) {
    const uint8_t *p = in.address(base + k * stride);
    if constexpr (std::is_same_v<T, double>)
      values[k] = loadFloat(p, element);
    else
      values[k] = loadInt(p, element);
  }
  return values;
}

/// Reads a row into doubles or integers, sorts it, and hands it to `fn`.
template <typename T, typename Fn>
static void withSortedRow(const MemRefView &in, int64_t base, int64_t length,
                          int64_t stride, Fn fn) {
  std::vector<T> values = loadValues<T>(in, base, length, stride);
  sortValues(values);
  fn(values);
}

template <typename T>
static void storeValues(const MemRefView &out, int64_t base, int64_t stride,
                        const std::vector<T> &values) {
  ElementKind element = out.getKind();
  for (size_t k = 0; k < values.size(); ++k) {
    uint8_t *p = out.address(base + k * stride);
    if constexpr (std::is_same_v<T, double>)
      storeFloat(p, element, values[k]);
    else
      storeInt(p, element, values[k]);
  }
}

void npu::sim::applySort(const MemRefView &in, const MemRefView &out) {
  llvm::SmallVector<std::pair<int64_t, int64_t>> outRows;
  forEachRow(out, [&](int64_t base, int64_t, int64_t stride) {
    outRows.push_back({base, stride});
  });
  size_t row = 0;
  forEachRow(in, [&](int64_t base, int64_t length, int64_t stride) {
    auto [outBase, outStride] = outRows[row++];
    if (isFloat(in.getKind()))
      withSortedRow<double>(in, base, length, stride, [&](auto &values) {
        storeValues(out, outBase, outStride, values);
      });
    else
      withSortedRow<int64_t>(in, base, length, stride, [&](auto &values) {
        storeValues(out, outBase, outStride, values);
      });
  });
}

void npu::sim::applySortPairs(const MemRefView &keys, const MemRefView &out,
                              const MemRefView &values,
                              const MemRefView &outValues) {
  auto sortAndStore = [&](auto tag) {
    using K = decltype(tag);
    int64_t n = keys.sizes[0];
    std::vector<K> k = loadValues<K>(keys, keys.offset, n, keys.strides[0]);
    std::vector<int64_t> v =
        loadValues<int64_t>(values, values.offset, n, values.strides[0]);
    sortPairs(k, v);
    storeValues(out, out.offset, out.strides[0], k);
    storeValues(outValues, outValues.offset, outValues.strides[0], v);
  };
  if (isFloat(keys.getKind()))
    sortAndStore(double{});
  else
    sortAndStore(int64_t{});
}

void npu::sim::applyMerge(const MemRefView &a, const MemRefView &b,
                          const MemRefView &out, const MemRefView *aValues,
                          const MemRefView *bValues,
                          const MemRefView *outValues) {
  auto load = [](auto tag, const MemRefView &v) {
    return loadValues<decltype(tag)>(v, v.offset, v.sizes[0], v.strides[0]);
  };
  auto merge = [&](auto tag) {
    auto ka = load(tag, a), kb = load(tag, b);
    std::vector<int64_t> va, vb, mergedValues;
    if (outValues) {
      va = load(int64_t{}, *aValues);
      vb = load(int64_t{}, *bValues);
    }
    decltype(ka) merged;
    mergeRuns(ka, kb, [&](bool fromB, size_t i) {
      merged.push_back(fromB ? kb[i] : ka[i]);
      if (outValues)
        mergedValues.push_back(fromB ? vb[i] : va[i]);
    });
    storeValues(out, out.offset, out.strides[0], merged);
    if (outValues)
      storeValues(*outValues, outValues->offset, outValues->strides[0],
                  mergedValues);
  };
  if (isFloat(a.getKind()))
    merge(double{});
  else
    merge(int64_t{});
}

int64_t npu::sim::applyUnique(const MemRefView &in, const MemRefView &out) {
  int64_t count = 0;
  auto keepDistinct = [&](auto &values) {
    values.erase(std::unique(values.begin(), values.end()), values.end());
    count = values.size();
    storeValues(out, out.offset, out.strides[0], values);
  };
  if (isFloat(in.getKind()))
    withSortedRow<double>(in, in.offset, in.sizes[0], in.strides[0],
                          keepDistinct);
  else
    withSortedRow<int64_t>(in, in.offset, in.sizes[0], in.strides[0],
                           keepDistinct);
  return count;
}

/// Copies `v` (2-D) into a row-major array of `T`.
template <typename T> static std::vector<T> packMatrix(const MemRefView &v) {
  std::vector<T> packed;
  packed.reserve(v.getNumElements());
  ElementKind kind = v.getKind();
  v.forEachElement([&](int64_t i) {
    if constexpr (std::is_floating_point_v<T>)
      packed.push_back(static_cast<T>(loadFloat(v.address(i), kind)));
    else
      packed.push_back(loadInt(v.address(i), kind));
  });
  return packed;
}

/// c[i, :] = fma(a[i, p], b[p, :], c[i, :]) for p in k order: each c[i, j]
/// still accumulates its products in k order, one fused multiply-add each,
/// but the j loop vectorizes. Cloned per x86 level so that fma is the
/// instruction where the host has it.
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3",
                             "default"))) static void
fmaRows(const float *a, const float *b, float *c, int64_t m, int64_t k,
        int64_t n) {
  for (int64_t i = 0; i < m; ++i)
    for (int64_t p = 0; p < k; ++p) {
      float x = a[i * k + p];
      const float *row = b + p * n;
      float *out = c + i * n;
      for (int64_t j = 0; j < n; ++j)
        out[j] = std::fma(x, row[j], out[j]);
    }
}

void npu::sim::applyMatmul(const MemRefView &a, const MemRefView &b,
                           const MemRefView &c, bool accumulate) {
  ElementKind acc = c.getKind();
  int64_t m = a.sizes[0], k = a.sizes[1], n = b.sizes[1];
  if (isFloat(a.getKind())) {
    // Inputs widened to f32 once; accumulation in f32 as on the cube unit.
    std::vector<float> pa = packMatrix<float>(a), pb = packMatrix<float>(b);
    std::vector<float> pc =
        accumulate ? packMatrix<float>(c) : std::vector<float>(m * n, 0.0f);
    fmaRows(pa.data(), pb.data(), pc.data(), m, k, n);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j)
        storeFloat(c.address(c.linearize({i, j})), acc, pc[i * n + j]);
    return;
  }
  std::vector<int64_t> pa = packMatrix<int64_t>(a), pb = packMatrix<int64_t>(b);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      uint8_t *cij = c.address(c.linearize({i, j}));
      int64_t sum = accumulate ? loadInt(cij, acc) : 0;
      for (int64_t p = 0; p < k; ++p)
        sum = wrapInt(acc, sum + pa[i * k + p] * pb[p * n + j]);
      storeInt(cij, acc, sum);
    }
  }
}

MemRefView npu::sim::transposedView(const MemRefView &view) {
  MemRefView t = view;
  std::swap(t.sizes[0], t.sizes[1]);
  std::swap(t.strides[0], t.strides[1]);
  return t;
}
