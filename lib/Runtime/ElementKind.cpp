//===- ElementKind.cpp - element types both executors store ---------------===//
//
// f16 conversions follow the usual bit-level construction (exponent rebias,
// round to nearest even on the dropped mantissa bits, subnormals through one
// float addition); they agree with APFloat and with LLVM's fptrunc/fpext.
//
//===----------------------------------------------------------------------===//

#include "npu/Runtime/ElementKind.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/ErrorHandling.h"

using namespace npu;

std::optional<ElementKind> npu::getElementKind(mlir::Type type) {
  if (type.isIndex())
    return ElementKind::Index;
  if (type.isF16())
    return ElementKind::F16;
  if (type.isBF16())
    return ElementKind::BF16;
  if (type.isF32())
    return ElementKind::F32;
  if (type.isF64())
    return ElementKind::F64;
  if (!type.isSignlessInteger())
    return std::nullopt;
  switch (type.getIntOrFloatBitWidth()) {
  case 1:
    return ElementKind::I1;
  case 8:
    return ElementKind::I8;
  case 16:
    return ElementKind::I16;
  case 32:
    return ElementKind::I32;
  case 64:
    return ElementKind::I64;
  default:
    return std::nullopt;
  }
}

unsigned npu::getElementBytes(ElementKind kind) {
  switch (kind) {
  case ElementKind::I1:
  case ElementKind::I8:
    return 1;
  case ElementKind::I16:
  case ElementKind::F16:
  case ElementKind::BF16:
    return 2;
  case ElementKind::I32:
  case ElementKind::F32:
    return 4;
  case ElementKind::I64:
  case ElementKind::Index:
  case ElementKind::F64:
    return 8;
  }
  llvm_unreachable("unknown element kind");
}

unsigned npu::getIntegerBits(ElementKind kind) {
  return kind == ElementKind::I1 ? 1 : 8 * getElementBytes(kind);
}

const char *npu::getElementKindName(ElementKind kind) {
  static const char *names[] = {"i1",    "i8",  "i16",  "i32", "i64",
                                "index", "f16", "bf16", "f32", "f64"};
  return names[static_cast<unsigned>(kind)];
}

template <typename T> static T readAs(const uint8_t *p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}
template <typename T> static void writeAs(uint8_t *p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

static uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
}
static float floatOf(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}

float npu::halfToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  uint32_t exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  if (exponent == 0x1f)
    return floatOf(sign | 0x7f800000 | (mantissa << 13));
  if (exponent != 0)
    return floatOf(sign | ((exponent + 112) << 23) | (mantissa << 13));
  // Zero or subnormal: mantissa * 2^-24, exact in float.
  float magnitude = static_cast<float>(mantissa) * 0x1p-24f;
  return sign ? -magnitude : magnitude;
}

uint16_t npu::floatToHalf(float value) {
  uint32_t f = bitsOf(value);
  uint32_t sign = (f >> 16) & 0x8000;
  f &= 0x7fffffff;
  if (f >= 0x47800000) // |value| >= 65536, inf or NaN.
    return sign | (f > 0x7f800000 ? 0x7e00 | ((f >> 13) & 0x3ff) : 0x7c00);
  if (f < 0x38800000) {
    // Below the smallest normal half: adding 0.5 aligns the half's
    // subnormal step with float's last mantissa bit, so the FPU rounds to
    // nearest even for us.
    uint32_t magic = 126u << 23;
    return sign |
           static_cast<uint16_t>(bitsOf(floatOf(f) + floatOf(magic)) - magic);
  }
  uint32_t odd = (f >> 13) & 1;
  f += (static_cast<uint32_t>(15 - 127) << 23) + 0xfff + odd;
  return sign | static_cast<uint16_t>(f >> 13);
}

uint16_t npu::floatToBfloat(float value) {
  uint32_t f = bitsOf(value);
  if ((f & 0x7fffffff) > 0x7f800000) // NaN: keep it quiet and signed.
    return static_cast<uint16_t>((f >> 16) | 0x40);
  f += 0x7fff + ((f >> 16) & 1);
  return static_cast<uint16_t>(f >> 16);
}

int64_t npu::loadInt(const uint8_t *p, ElementKind kind) {
  switch (kind) {
  case ElementKind::I1:
    return readAs<uint8_t>(p) & 1;
  case ElementKind::I8:
    return readAs<int8_t>(p);
  case ElementKind::I16:
    return readAs<int16_t>(p);
  case ElementKind::I32:
    return readAs<int32_t>(p);
  case ElementKind::I64:
  case ElementKind::Index:
    return readAs<int64_t>(p);
  default:
    llvm_unreachable("not an integer element");
  }
}

double npu::loadFloat(const uint8_t *p, ElementKind kind) {
  switch (kind) {
  case ElementKind::F32:
    return readAs<float>(p);
  case ElementKind::F64:
    return readAs<double>(p);
  case ElementKind::F16:
    return halfToFloat(readAs<uint16_t>(p));
  case ElementKind::BF16:
    return bfloatToFloat(readAs<uint16_t>(p));
  default:
    llvm_unreachable("not a float element");
  }
}

int64_t npu::wrapInt(ElementKind kind, int64_t value) {
  switch (kind) {
  case ElementKind::I1:
    return value & 1;
  case ElementKind::I8:
    return static_cast<int8_t>(value);
  case ElementKind::I16:
    return static_cast<int16_t>(value);
  case ElementKind::I32:
    return static_cast<int32_t>(value);
  default:
    return value;
  }
}

double npu::roundFloat(ElementKind kind, double value) {
  switch (kind) {
  case ElementKind::F32:
    return static_cast<float>(value);
  case ElementKind::F16:
    return halfToFloat(floatToHalf(static_cast<float>(value)));
  case ElementKind::BF16:
    return bfloatToFloat(floatToBfloat(static_cast<float>(value)));
  default:
    return value;
  }
}

void npu::storeInt(uint8_t *p, ElementKind kind, int64_t value) {
  switch (kind) {
  case ElementKind::I1:
    return writeAs<uint8_t>(p, value & 1);
  case ElementKind::I8:
    return writeAs<int8_t>(p, static_cast<int8_t>(value));
  case ElementKind::I16:
    return writeAs<int16_t>(p, static_cast<int16_t>(value));
  case ElementKind::I32:
    return writeAs<int32_t>(p, static_cast<int32_t>(value));
  case ElementKind::I64:
  case ElementKind::Index:
    return writeAs<int64_t>(p, value);
  default:
    llvm_unreachable("not an integer element");
  }
}

void npu::storeFloat(uint8_t *p, ElementKind kind, double value) {
  switch (kind) {
  case ElementKind::F32:
    return writeAs<float>(p, static_cast<float>(value));
  case ElementKind::F64:
    return writeAs<double>(p, value);
  case ElementKind::F16:
    return writeAs<uint16_t>(p, floatToHalf(static_cast<float>(value)));
  case ElementKind::BF16:
    return writeAs<uint16_t>(p, floatToBfloat(static_cast<float>(value)));
  default:
    llvm_unreachable("not a float element");
  }
}
