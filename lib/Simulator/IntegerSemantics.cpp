//===- IntegerSemantics.cpp - integer ops as LLVM computes them -----------===//
//
// Values are held sign-extended from their width; results wrap. Where
// LLVM would give poison or trap (division by zero, the one overflowing
// signed quotient, a shift by the width or more) the result is an error.
//
//===----------------------------------------------------------------------===//

#include "IntegerSemantics.h"

#include <algorithm>
#include <limits>

using namespace npu::sim;

namespace {
IntResult wrapping(uint64_t v) { return {static_cast<int64_t>(v)}; }

/// Signed division's faults: by zero, and the one quotient that overflows.
const char *signedDivisionFault(int64_t a, int64_t b, unsigned bits) {
  if (b == 0)
    return "divides by zero";
  if (b == -1 && a == npu::sim::minSigned(bits))
    return "divides the most negative integer by -1, which overflows";
  return nullptr;
}

const char *kShiftFault = "shifts by at least the bit width";
} // namespace

namespace npu::sim {

uint64_t asUnsigned(int64_t v, unsigned bits) {
  return bits >= 64 ? static_cast<uint64_t>(v)
                    : static_cast<uint64_t>(v) & ((uint64_t(1) << bits) - 1);
}

int64_t minSigned(unsigned bits) {
  return bits >= 64 ? std::numeric_limits<int64_t>::min()
                    : -(int64_t(1) << (bits - 1));
}

IntResult addI(int64_t a, int64_t b, unsigned) {
  return wrapping(uint64_t(a) + uint64_t(b));
}
IntResult subI(int64_t a, int64_t b, unsigned) {
  return wrapping(uint64_t(a) - uint64_t(b));
}
IntResult mulI(int64_t a, int64_t b, unsigned) {
  return wrapping(uint64_t(a) * uint64_t(b));
}

IntResult divSI(int64_t a, int64_t b, unsigned bits) {
  if (const char *fault = signedDivisionFault(a, b, bits))
    return {0, fault};
  return {a / b};
}
IntResult remSI(int64_t a, int64_t b, unsigned bits) {
  if (const char *fault = signedDivisionFault(a, b, bits))
    return {0, fault};
  return {a % b};
}
IntResult ceilDivSI(int64_t a, int64_t b, unsigned bits) {
  if (const char *fault = signedDivisionFault(a, b, bits))
    return {0, fault};
  int64_t q = a / b;
  return {(a % b != 0 && ((a < 0) == (b < 0))) ? q + 1 : q};
}
IntResult floorDivSI(int64_t a, int64_t b, unsigned bits) {
  if (const char *fault = signedDivisionFault(a, b, bits))
    return {0, fault};
  int64_t q = a / b;
  return {(a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q};
}
IntResult divUI(int64_t a, int64_t b, unsigned bits) {
  if (asUnsigned(b, bits) == 0)
    return {0, "divides by zero"};
  return wrapping(asUnsigned(a, bits) / asUnsigned(b, bits));
}
IntResult remUI(int64_t a, int64_t b, unsigned bits) {
  if (asUnsigned(b, bits) == 0)
    return {0, "divides by zero"};
  return wrapping(asUnsigned(a, bits) % asUnsigned(b, bits));
}
IntResult ceilDivUI(int64_t a, int64_t b, unsigned bits) {
  uint64_t ua = asUnsigned(a, bits), ub = asUnsigned(b, bits);
  if (ub == 0)
    return {0, "divides by zero"};
  return wrapping(ua / ub + (ua % ub != 0));
}
IntResult maxSI(int64_t a, int64_t b, unsigned) { return {std::max(a, b)}; }
IntResult minSI(int64_t a, int64_t b, unsigned) { return {std::min(a, b)}; }
IntResult maxUI(int64_t a, int64_t b, unsigned bits) {
  return {asUnsigned(a, bits) >= asUnsigned(b, bits) ? a : b};
}
IntResult minUI(int64_t a, int64_t b, unsigned bits) {
  return {asUnsigned(a, bits) <= asUnsigned(b, bits) ? a : b};
}
IntResult andI(int64_t a, int64_t b, unsigned) { return {a & b}; }
IntResult orI(int64_t a, int64_t b, unsigned) { return {a | b}; }
IntResult xorI(int64_t a, int64_t b, unsigned) { return {a ^ b}; }

IntResult shlI(int64_t a, int64_t b, unsigned bits) {
  if (asUnsigned(b, bits) >= bits)
    return {0, kShiftFault};
  return wrapping(uint64_t(a) << b);
}
IntResult shrSI(int64_t a, int64_t b, unsigned bits) {
  if (asUnsigned(b, bits) >= bits)
    return {0, kShiftFault};
  return {a >> b};
}
IntResult shrUI(int64_t a, int64_t b, unsigned bits) {
  if (asUnsigned(b, bits) >= bits)
    return {0, kShiftFault};
  return wrapping(asUnsigned(a, bits) >> b);
}

} // namespace npu::sim
