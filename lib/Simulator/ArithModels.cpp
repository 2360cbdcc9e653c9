//===- ArithModels.cpp - meaning and cost of arith and math ops -----------===//
//
// Scalar ops compute as LLVM does on the host: integers of any width wrap
// (values are held sign-extended from their width), floats compute in
// their own precision (f16 and bf16 through f32, rounded back), math
// functions call the libm function the JIT's math-to-libm calls. Where
// LLVM would produce poison (a division overflow, a shift by the width or
// more, a float-to-integer conversion out of range) the simulator reports
// an error instead of inventing a value. Each op costs one scalar cycle;
// constants are free.
//
//===----------------------------------------------------------------------===//

#include "IntegerSemantics.h"
#include "Models.h"
#include "VectorOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>

using namespace mlir;
using namespace npu;
using namespace npu::sim;

namespace {

template <IntBinaryFn fn> struct IntBinary {
  static LogicalResult simulate(OpExecution &exec) {
    IntResult r = fn(exec.getInt(0), exec.getInt(1), exec.getResultBits(0));
    if (r.error)
      return exec.emitOpError() << r.error;
    exec.setInt(0, r.value);
    exec.chargeScalar();
    return success();
  }
};

bool compareInt(arith::CmpIPredicate pred, int64_t a, int64_t b,
                unsigned bits) {
  uint64_t ua = asUnsigned(a, bits), ub = asUnsigned(b, bits);
  switch (pred) {
  case arith::CmpIPredicate::eq:
    return a == b;
  case arith::CmpIPredicate::ne:
    return a != b;
  case arith::CmpIPredicate::slt:
    return a < b;
  case arith::CmpIPredicate::sle:
    return a <= b;
  case arith::CmpIPredicate::sgt:
    return a > b;
  case arith::CmpIPredicate::sge:
    return a >= b;
  case arith::CmpIPredicate::ult:
    return ua < ub;
  case arith::CmpIPredicate::ule:
    return ua <= ub;
  case arith::CmpIPredicate::ugt:
    return ua > ub;
  case arith::CmpIPredicate::uge:
    return ua >= ub;
  }
  llvm_unreachable("unknown predicate");
}

struct CmpI {
  static LogicalResult simulate(OpExecution &exec) {
    auto cmp = cast<arith::CmpIOp>(exec.getOp());
    exec.setInt(0, compareInt(cmp.getPredicate(), exec.getInt(0),
                              exec.getInt(1), exec.getOperandBits(0)));
    exec.chargeScalar();
    return success();
  }
};

/// addui_extended, mulsi_extended, mului_extended: two results each.
struct AddUIExtended {
  static LogicalResult simulate(OpExecution &exec) {
    unsigned bits = exec.getResultBits(0);
    int64_t a = exec.getInt(0);
    uint64_t sum = uint64_t(a) + uint64_t(exec.getInt(1));
    exec.setInt(0, static_cast<int64_t>(sum));
    exec.setInt(1, asUnsigned(static_cast<int64_t>(sum), bits) <
                       asUnsigned(a, bits));
    exec.chargeScalar();
    return success();
  }
};

/// The full product's low and high halves; 128 bits hold any product of
/// two 64-bit values, signed or unsigned.
template <bool isSigned> struct MulExtended {
  static LogicalResult simulate(OpExecution &exec) {
    unsigned bits = exec.getResultBits(0);
    int64_t a = exec.getInt(0), b = exec.getInt(1);
    unsigned __int128 product =
        isSigned ? static_cast<unsigned __int128>(__int128(a) * __int128(b))
                 : static_cast<unsigned __int128>(asUnsigned(a, bits)) *
                       asUnsigned(b, bits);
    exec.setInt(0, static_cast<int64_t>(product));
    // The high half sign- or zero-extends from `bits` like any result.
    __int128 high = isSigned ? static_cast<__int128>(product) >> bits
                             : static_cast<__int128>(product >> bits);
    exec.setInt(1, static_cast<int64_t>(high));
    exec.chargeScalar();
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Float semantics
//===----------------------------------------------------------------------===//

/// `fn` in the precision of `kind`: double for f64, float otherwise,
/// rounded back to `kind`.
template <typename Fn> double inPrecision(ElementKind kind, double a, Fn fn) {
  if (kind == ElementKind::F64)
    return fn(a);
  return roundFloat(kind, fn(static_cast<float>(a)));
}
template <typename Fn>
double inPrecision(ElementKind kind, double a, double b, Fn fn) {
  if (kind == ElementKind::F64)
    return fn(a, b);
  return roundFloat(kind, fn(static_cast<float>(a), static_cast<float>(b)));
}

using FloatBinaryFn = double (*)(double, double, ElementKind);
using FloatUnaryFn = double (*)(double, ElementKind);

template <dev::BinaryKind kind>
double viaVectorBinary(double a, double b, ElementKind element) {
  return applyFloatBinary(kind, element, a, b);
}
double maxNumF(double a, double b, ElementKind k) {
  return inPrecision(k, a, b, [](auto x, auto y) { return std::fmax(x, y); });
}
double minNumF(double a, double b, ElementKind k) {
  return inPrecision(k, a, b, [](auto x, auto y) { return std::fmin(x, y); });
}
double remF(double a, double b, ElementKind k) {
  return inPrecision(k, a, b, [](auto x, auto y) { return std::fmod(x, y); });
}
double powF(double a, double b, ElementKind k) {
  return inPrecision(k, a, b, [](auto x, auto y) { return std::pow(x, y); });
}
double atan2F(double a, double b, ElementKind k) {
  return inPrecision(k, a, b, [](auto x, auto y) { return std::atan2(x, y); });
}
double copySignF(double a, double b, ElementKind k) {
  return inPrecision(k, a, b,
                     [](auto x, auto y) { return std::copysign(x, y); });
}

template <FloatBinaryFn fn> struct FloatBinary {
  static LogicalResult simulate(OpExecution &exec) {
    exec.setFloat(
        0, fn(exec.getFloat(0), exec.getFloat(1), exec.getResultKind(0)));
    exec.chargeScalar();
    return success();
  }
};

template <dev::UnaryKind kind>
double viaVectorUnary(double x, ElementKind element) {
  return applyFloatUnary(kind, element, x);
}

/// A unary libm function, by name, in both precisions.
#define NPU_FLOAT_UNARY(NAME, EXPR)                                            \
  double NAME(double x, ElementKind k) {                                       \
    return inPrecision(k, x, [](auto v) { return EXPR; });                     \
  }
NPU_FLOAT_UNARY(expF, std::exp(v))
NPU_FLOAT_UNARY(exp2F, std::exp2(v))
NPU_FLOAT_UNARY(expm1F, std::expm1(v))
NPU_FLOAT_UNARY(log2F, std::log2(v))
NPU_FLOAT_UNARY(log10F, std::log10(v))
NPU_FLOAT_UNARY(log1pF, std::log1p(v))
NPU_FLOAT_UNARY(sinF, std::sin(v))
NPU_FLOAT_UNARY(cosF, std::cos(v))
NPU_FLOAT_UNARY(tanF, std::tan(v))
NPU_FLOAT_UNARY(sinhF, std::sinh(v))
NPU_FLOAT_UNARY(coshF, std::cosh(v))
NPU_FLOAT_UNARY(asinF, std::asin(v))
NPU_FLOAT_UNARY(acosF, std::acos(v))
NPU_FLOAT_UNARY(atanF, std::atan(v))
NPU_FLOAT_UNARY(asinhF, std::asinh(v))
NPU_FLOAT_UNARY(acoshF, std::acosh(v))
NPU_FLOAT_UNARY(atanhF, std::atanh(v))
NPU_FLOAT_UNARY(cbrtF, std::cbrt(v))
NPU_FLOAT_UNARY(erfF, std::erf(v))
NPU_FLOAT_UNARY(floorF, std::floor(v))
NPU_FLOAT_UNARY(ceilF, std::ceil(v))
NPU_FLOAT_UNARY(roundF, std::round(v))
NPU_FLOAT_UNARY(roundEvenF, std::nearbyint(v))
NPU_FLOAT_UNARY(truncF, std::trunc(v))
#undef NPU_FLOAT_UNARY

template <FloatUnaryFn fn> struct FloatUnary {
  static LogicalResult simulate(OpExecution &exec) {
    exec.setFloat(0, fn(exec.getFloat(0), exec.getResultKind(0)));
    exec.chargeScalar();
    return success();
  }
};

/// x^n by repeated squaring, in the order of libgcc's and compiler-rt's
/// __powisf2 / __powidf2, which llvm.powi calls.
template <typename T> T powi(T x, int64_t n) {
  bool reciprocal = n < 0;
  T r = 1;
  while (true) {
    if (n & 1)
      r *= x;
    n /= 2;
    if (n == 0)
      break;
    x *= x;
  }
  return reciprocal ? T(1) / r : r;
}

struct FPowI {
  static LogicalResult simulate(OpExecution &exec) {
    ElementKind k = exec.getResultKind(0);
    double x = exec.getFloat(0);
    int64_t n = exec.getInt(1);
    exec.setFloat(0,
                  k == ElementKind::F64
                      ? powi<double>(x, n)
                      : roundFloat(k, powi<float>(static_cast<float>(x), n)));
    exec.chargeScalar();
    return success();
  }
};

struct FmaF {
  static LogicalResult simulate(OpExecution &exec) {
    ElementKind k = exec.getResultKind(0);
    double a = exec.getFloat(0), b = exec.getFloat(1), c = exec.getFloat(2);
    exec.setFloat(0, k == ElementKind::F64
                         ? std::fma(a, b, c)
                         : roundFloat(k, std::fma(static_cast<float>(a),
                                                  static_cast<float>(b),
                                                  static_cast<float>(c))));
    exec.chargeScalar();
    return success();
  }
};

bool compareFloat(arith::CmpFPredicate pred, double a, double b) {
  bool unordered = std::isnan(a) || std::isnan(b);
  switch (pred) {
  case arith::CmpFPredicate::AlwaysFalse:
    return false;
  case arith::CmpFPredicate::OEQ:
    return !unordered && a == b;
  case arith::CmpFPredicate::OGT:
    return !unordered && a > b;
  case arith::CmpFPredicate::OGE:
    return !unordered && a >= b;
  case arith::CmpFPredicate::OLT:
    return !unordered && a < b;
  case arith::CmpFPredicate::OLE:
    return !unordered && a <= b;
  case arith::CmpFPredicate::ONE:
    return !unordered && a != b;
  case arith::CmpFPredicate::ORD:
    return !unordered;
  case arith::CmpFPredicate::UEQ:
    return unordered || a == b;
  case arith::CmpFPredicate::UGT:
    return unordered || a > b;
  case arith::CmpFPredicate::UGE:
    return unordered || a >= b;
  case arith::CmpFPredicate::ULT:
    return unordered || a < b;
  case arith::CmpFPredicate::ULE:
    return unordered || a <= b;
  case arith::CmpFPredicate::UNE:
    return unordered || a != b;
  case arith::CmpFPredicate::UNO:
    return unordered;
  case arith::CmpFPredicate::AlwaysTrue:
    return true;
  }
  llvm_unreachable("unknown predicate");
}

struct CmpF {
  static LogicalResult simulate(OpExecution &exec) {
    auto cmp = cast<arith::CmpFOp>(exec.getOp());
    exec.setInt(0, compareFloat(cmp.getPredicate(), exec.getFloat(0),
                                exec.getFloat(1)));
    exec.chargeScalar();
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Constants, selection, casts
//===----------------------------------------------------------------------===//

struct Constant {
  static LogicalResult simulate(OpExecution &exec) {
    Attribute value = cast<arith::ConstantOp>(exec.getOp()).getValue();
    if (auto i = dyn_cast<IntegerAttr>(value)) {
      if (i.getValue().getBitWidth() > 64)
        return exec.emitOpError() << "has more than 64 bits";
      exec.setInt(0, i.getValue().getSExtValue());
    } else if (auto f = dyn_cast<FloatAttr>(value)) {
      exec.setFloat(0, f.getValueAsDouble());
    } else {
      return exec.emitOpError()
             << "constant of this kind is not supported by the simulator";
    }
    return success();
  }
};

struct Select {
  static LogicalResult simulate(OpExecution &exec) {
    // Copy before writing: the result slot is distinct, but the value
    // must not alias a slot the copy reads from.
    RtValue chosen = exec.getValue(exec.getInt(0) ? 1 : 2);
    exec.setValue(0, chosen);
    exec.chargeScalar();
    return success();
  }
};

/// extsi, trunci, index_cast: values are held sign-extended, so setInt's
/// wrap to the result width is the whole conversion.
struct SignedIntCast {
  static LogicalResult simulate(OpExecution &exec) {
    exec.setInt(0, exec.getInt(0));
    exec.chargeScalar();
    return success();
  }
};

/// extui, index_castui: zero-extend from the operand's width.
struct UnsignedIntCast {
  static LogicalResult simulate(OpExecution &exec) {
    exec.setInt(0, static_cast<int64_t>(
                       asUnsigned(exec.getInt(0), exec.getOperandBits(0))));
    exec.chargeScalar();
    return success();
  }
};

template <bool isSigned> struct IntToFloat {
  static LogicalResult simulate(OpExecution &exec) {
    ElementKind k = exec.getResultKind(0);
    int64_t v = exec.getInt(0);
    uint64_t u = asUnsigned(v, exec.getOperandBits(0));
    // Convert straight to the target precision: going through double first
    // would round twice.
    double r =
        k == ElementKind::F64
            ? (isSigned ? static_cast<double>(v) : static_cast<double>(u))
            : roundFloat(k, isSigned ? static_cast<float>(v)
                                     : static_cast<float>(u));
    exec.setFloat(0, r);
    exec.chargeScalar();
    return success();
  }
};

template <bool isSigned> struct FloatToInt {
  static LogicalResult simulate(OpExecution &exec) {
    double x = std::trunc(exec.getFloat(0));
    unsigned bits = exec.getResultBits(0);
    // The integers representable in `bits`, as doubles: [lo, hi).
    double lo = isSigned ? -std::ldexp(1.0, bits - 1) : 0.0;
    double hi = std::ldexp(1.0, isSigned ? bits - 1 : bits);
    if (!(x >= lo && x < hi))
      return exec.emitOpError()
             << "converts " << exec.getFloat(0) << ", which is out of range of "
             << (isSigned ? "signed" : "unsigned") << " i" << bits;
    exec.setInt(0, isSigned ? static_cast<int64_t>(x)
                            : static_cast<int64_t>(static_cast<uint64_t>(x)));
    exec.chargeScalar();
    return success();
  }
};

/// extf, truncf: round to the result's precision.
struct FloatCast {
  static LogicalResult simulate(OpExecution &exec) {
    exec.setFloat(0, roundFloat(exec.getResultKind(0), exec.getFloat(0)));
    exec.chargeScalar();
    return success();
  }
};

/// Same-width reinterpretation, through the bytes the value would occupy.
struct Bitcast {
  static LogicalResult simulate(OpExecution &exec) {
    ElementKind from = exec.getOperandKind(0), to = exec.getResultKind(0);
    uint8_t bytes[8] = {};
    if (isFloat(from))
      storeFloat(bytes, from, exec.getFloat(0));
    else
      storeInt(bytes, from, exec.getInt(0));
    if (isFloat(to))
      exec.setFloat(0, loadFloat(bytes, to));
    else
      exec.setInt(0, loadInt(bytes, to));
    exec.chargeScalar();
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Integer math
//===----------------------------------------------------------------------===//

template <int (*count)(uint64_t, unsigned)> struct BitCount {
  static LogicalResult simulate(OpExecution &exec) {
    unsigned bits = exec.getResultBits(0);
    exec.setInt(0, count(asUnsigned(exec.getInt(0), bits), bits));
    exec.chargeScalar();
    return success();
  }
};
int popCount(uint64_t v, unsigned) { return __builtin_popcountll(v); }
int leadingZeros(uint64_t v, unsigned bits) {
  return v == 0 ? bits : __builtin_clzll(v) - (64 - bits);
}
int trailingZeros(uint64_t v, unsigned bits) {
  return v == 0 ? bits : __builtin_ctzll(v);
}

struct AbsI {
  static LogicalResult simulate(OpExecution &exec) {
    int64_t v = exec.getInt(0);
    exec.setInt(0,
                v < 0 ? static_cast<int64_t>(0 - static_cast<uint64_t>(v)) : v);
    exec.chargeScalar();
    return success();
  }
};

} // namespace

void npu::sim::registerArithModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, arith::ArithDialect *) {
    using namespace arith;
    attachModel<Constant, ConstantOp>(ctx);
    attachModel<IntBinary<addI>, AddIOp>(ctx);
    attachModel<IntBinary<subI>, SubIOp>(ctx);
    attachModel<IntBinary<mulI>, MulIOp>(ctx);
    attachModel<IntBinary<divSI>, DivSIOp>(ctx);
    attachModel<IntBinary<remSI>, RemSIOp>(ctx);
    attachModel<IntBinary<ceilDivSI>, CeilDivSIOp>(ctx);
    attachModel<IntBinary<floorDivSI>, FloorDivSIOp>(ctx);
    attachModel<IntBinary<divUI>, DivUIOp>(ctx);
    attachModel<IntBinary<remUI>, RemUIOp>(ctx);
    attachModel<IntBinary<ceilDivUI>, CeilDivUIOp>(ctx);
    attachModel<IntBinary<maxSI>, MaxSIOp>(ctx);
    attachModel<IntBinary<minSI>, MinSIOp>(ctx);
    attachModel<IntBinary<maxUI>, MaxUIOp>(ctx);
    attachModel<IntBinary<minUI>, MinUIOp>(ctx);
    attachModel<IntBinary<andI>, AndIOp>(ctx);
    attachModel<IntBinary<orI>, OrIOp>(ctx);
    attachModel<IntBinary<xorI>, XOrIOp>(ctx);
    attachModel<IntBinary<shlI>, ShLIOp>(ctx);
    attachModel<IntBinary<shrSI>, ShRSIOp>(ctx);
    attachModel<IntBinary<shrUI>, ShRUIOp>(ctx);
    attachModel<AddUIExtended, AddUIExtendedOp>(ctx);
    attachModel<MulExtended<true>, MulSIExtendedOp>(ctx);
    attachModel<MulExtended<false>, MulUIExtendedOp>(ctx);
    attachModel<CmpI, CmpIOp>(ctx);
    attachModel<FloatBinary<viaVectorBinary<dev::BinaryKind::add>>, AddFOp>(
        ctx);
    attachModel<FloatBinary<viaVectorBinary<dev::BinaryKind::sub>>, SubFOp>(
        ctx);
    attachModel<FloatBinary<viaVectorBinary<dev::BinaryKind::mul>>, MulFOp>(
        ctx);
    attachModel<FloatBinary<viaVectorBinary<dev::BinaryKind::div>>, DivFOp>(
        ctx);
    attachModel<FloatBinary<viaVectorBinary<dev::BinaryKind::max>>, MaximumFOp>(
        ctx);
    attachModel<FloatBinary<viaVectorBinary<dev::BinaryKind::min>>, MinimumFOp>(
        ctx);
    attachModel<FloatBinary<maxNumF>, MaxNumFOp>(ctx);
    attachModel<FloatBinary<minNumF>, MinNumFOp>(ctx);
    attachModel<FloatBinary<remF>, RemFOp>(ctx);
    attachModel<FloatUnary<viaVectorUnary<dev::UnaryKind::neg>>, NegFOp>(ctx);
    attachModel<CmpF, CmpFOp>(ctx);
    attachModel<Select, SelectOp>(ctx);
    attachModel<SignedIntCast, ExtSIOp, TruncIOp, IndexCastOp>(ctx);
    attachModel<UnsignedIntCast, ExtUIOp, IndexCastUIOp>(ctx);
    attachModel<IntToFloat<true>, SIToFPOp>(ctx);
    attachModel<IntToFloat<false>, UIToFPOp>(ctx);
    attachModel<FloatToInt<true>, FPToSIOp>(ctx);
    attachModel<FloatToInt<false>, FPToUIOp>(ctx);
    attachModel<FloatCast, ExtFOp, TruncFOp>(ctx);
    attachModel<Bitcast, BitcastOp>(ctx);
  });
}

void npu::sim::registerMathModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, math::MathDialect *) {
    using namespace math;
    attachModel<FloatUnary<viaVectorUnary<dev::UnaryKind::abs>>, AbsFOp>(ctx);
    // libm's, as the JIT calls it: the vector unit's exp is its own.
    attachModel<FloatUnary<expF>, ExpOp>(ctx);
    attachModel<FloatUnary<viaVectorUnary<dev::UnaryKind::log>>, LogOp>(ctx);
    attachModel<FloatUnary<viaVectorUnary<dev::UnaryKind::sqrt>>, SqrtOp>(ctx);
    attachModel<FloatUnary<viaVectorUnary<dev::UnaryKind::rsqrt>>, RsqrtOp>(
        ctx);
    attachModel<FloatUnary<viaVectorUnary<dev::UnaryKind::tanh>>, TanhOp>(ctx);
    attachModel<FloatUnary<exp2F>, Exp2Op>(ctx);
    attachModel<FloatUnary<expm1F>, ExpM1Op>(ctx);
    attachModel<FloatUnary<log2F>, Log2Op>(ctx);
    attachModel<FloatUnary<log10F>, Log10Op>(ctx);
    attachModel<FloatUnary<log1pF>, Log1pOp>(ctx);
    attachModel<FloatUnary<sinF>, SinOp>(ctx);
    attachModel<FloatUnary<cosF>, CosOp>(ctx);
    attachModel<FloatUnary<tanF>, TanOp>(ctx);
    attachModel<FloatUnary<sinhF>, SinhOp>(ctx);
    attachModel<FloatUnary<coshF>, CoshOp>(ctx);
    attachModel<FloatUnary<asinF>, AsinOp>(ctx);
    attachModel<FloatUnary<acosF>, AcosOp>(ctx);
    attachModel<FloatUnary<atanF>, AtanOp>(ctx);
    attachModel<FloatUnary<asinhF>, AsinhOp>(ctx);
    attachModel<FloatUnary<acoshF>, AcoshOp>(ctx);
    attachModel<FloatUnary<atanhF>, AtanhOp>(ctx);
    attachModel<FloatUnary<cbrtF>, CbrtOp>(ctx);
    attachModel<FloatUnary<erfF>, ErfOp>(ctx);
    attachModel<FloatUnary<floorF>, FloorOp>(ctx);
    attachModel<FloatUnary<ceilF>, CeilOp>(ctx);
    attachModel<FloatUnary<roundF>, RoundOp>(ctx);
    attachModel<FloatUnary<roundEvenF>, RoundEvenOp>(ctx);
    attachModel<FloatUnary<truncF>, TruncOp>(ctx);
    attachModel<FloatBinary<powF>, PowFOp>(ctx);
    attachModel<FloatBinary<atan2F>, Atan2Op>(ctx);
    attachModel<FloatBinary<copySignF>, CopySignOp>(ctx);
    attachModel<FmaF, FmaOp>(ctx);
    attachModel<FPowI, FPowIOp>(ctx);
    attachModel<AbsI, AbsIOp>(ctx);
    attachModel<BitCount<popCount>, CtPopOp>(ctx);
    attachModel<BitCount<leadingZeros>, CountLeadingZerosOp>(ctx);
    attachModel<BitCount<trailingZeros>, CountTrailingZerosOp>(ctx);
  });
}
