//===- ElementKind.h - element types both executors store -------*- C++ -*-===//
//
// The scalar element types the simulator and the JIT's runtime exchange with
// the host, their sizes, and exact conversions between stored bytes and the
// values the executors compute with (integers as sign-extended int64_t,
// floats as double; f16 and bf16 round to nearest even, as LLVM's fptrunc).
// One definition, so that the executors and the verifiers cannot disagree on
// which element types exist.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_RUNTIME_ELEMENTKIND_H
#define NPU_RUNTIME_ELEMENTKIND_H

#include <cstdint>
#include <cstring>
#include <optional>

namespace mlir {
class Type;
} // namespace mlir

namespace npu {

/// The element types the executors store.
enum class ElementKind { I1, I8, I16, I32, I64, Index, F16, BF16, F32, F64 };

/// Returns the kind of `type`, or std::nullopt if the executors cannot store
/// it (e.g. i4, f8, complex).
std::optional<ElementKind> getElementKind(mlir::Type type);
/// Bytes one element of `kind` occupies.
unsigned getElementBytes(ElementKind kind);
/// Bits of an integer kind (1 for i1, 64 for index).
unsigned getIntegerBits(ElementKind kind);
inline bool isFloat(ElementKind kind) { return kind >= ElementKind::F16; }
/// The lower-case MLIR spelling of `kind` ("f32", "i8", "index").
const char *getElementKindName(ElementKind kind);

/// IEEE half and bfloat16 from and to float, rounding to nearest even.
float halfToFloat(uint16_t bits);
uint16_t floatToHalf(float value);
inline float bfloatToFloat(uint16_t bits) {
  uint32_t wide = static_cast<uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &wide, sizeof(f));
  return f;
}
uint16_t floatToBfloat(float value);

/// Reads or writes one element at `p`.
int64_t loadInt(const uint8_t *p, ElementKind kind);
double loadFloat(const uint8_t *p, ElementKind kind);
void storeInt(uint8_t *p, ElementKind kind, int64_t value);
void storeFloat(uint8_t *p, ElementKind kind, double value);

/// A 16-bit float element (F16 or BF16) as stored: its bits, for code that
/// moves such elements without a native type.
template <ElementKind Kind> struct Float16Bits {
  static_assert(Kind == ElementKind::F16 || Kind == ElementKind::BF16);
  uint16_t bits;
};
/// Rounds `value` to what an element of `kind` holds (float: to nearest
/// representable; integer: wraps to the width, sign-extended).
double roundFloat(ElementKind kind, double value);
int64_t wrapInt(ElementKind kind, int64_t value);
/// Wraps `value` to a `bits`-wide two's complement integer, sign-extended,
/// as LLVM's iN arithmetic does (i1 is 0 or -1 sign-extended; callers that
/// want 0/1 use the low bit).
inline int64_t wrapToBits(int64_t value, unsigned bits) {
  if (bits >= 64)
    return value;
  unsigned shift = 64 - bits;
  return static_cast<int64_t>(static_cast<uint64_t>(value) << shift) >> shift;
}

} // namespace npu

#endif // NPU_RUNTIME_ELEMENTKIND_H
