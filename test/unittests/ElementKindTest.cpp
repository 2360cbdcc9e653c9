//===- ElementKindTest.cpp - f16 and bf16 conversions against APFloat -----===//
//
// The executors' bit-level f16/bf16 conversions (lib/Runtime) against
// LLVM's APFloat, round to nearest even: every half value one way, and
// edge cases plus a million random floats (fixed seed) the other way.
//
//===----------------------------------------------------------------------===//

#include "npu/Runtime/ElementKind.h"

#include "llvm/ADT/APFloat.h"
#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <random>

using namespace npu;

namespace {

uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
}

float floatOf(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}

/// `f` rounded to `semantics` by APFloat, as 16 bits.
uint16_t referenceNarrow(float f, const llvm::fltSemantics &semantics) {
  llvm::APFloat value(f);
  bool lost;
  value.convert(semantics, llvm::APFloat::rmNearestTiesToEven, &lost);
  return static_cast<uint16_t>(value.bitcastToAPInt().getZExtValue());
}

TEST(ElementKindTest, EveryHalfWidensExactly) {
  for (uint32_t h = 0; h <= 0xffff; ++h) {
    llvm::APFloat reference(llvm::APFloat::IEEEhalf(), llvm::APInt(16, h));
    float expected = reference.convertToFloat();
    float got = halfToFloat(static_cast<uint16_t>(h));
    if (std::isnan(expected))
      EXPECT_TRUE(std::isnan(got)) << std::hex << h;
    else
      EXPECT_EQ(bitsOf(got), bitsOf(expected)) << std::hex << h;
  }
}

/// Floats that exercise every branch of the narrowing: zeros, the half and
/// bfloat subnormal ranges and their boundaries, ties, overflow, inf, NaN.
std::vector<float> edgeFloats() {
  std::vector<float> values = {
      0.0f,       -0.0f,    1.0f,         -1.0f,    65504.0f,  65519.0f,
      65520.0f,   65536.0f, 1e10f,        0x1p-14f, 0x1p-24f,  0x1p-25f,
      0x1.8p-25f, 0x1p-26f, 0x1.ffcp-15f, INFINITY, -INFINITY, NAN};
  // Every tie between two adjacent halves in [1, 2): 1 + (2k+1) * 2^-11.
  for (int k = 0; k < 1024; ++k)
    values.push_back(1.0f + (2 * k + 1) * 0x1p-11f);
  return values;
}

TEST(ElementKindTest, NarrowingRoundsToNearestEven) {
  std::vector<float> values = edgeFloats();
  std::mt19937 rng(2024);
  for (int i = 0; i < 1000000; ++i)
    values.push_back(floatOf(static_cast<uint32_t>(rng())));
  for (float f : values) {
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(halfToFloat(floatToHalf(f))));
      EXPECT_TRUE(std::isnan(bfloatToFloat(floatToBfloat(f))));
      continue;
    }
    EXPECT_EQ(floatToHalf(f), referenceNarrow(f, llvm::APFloat::IEEEhalf()))
        << std::hexfloat << f;
    EXPECT_EQ(floatToBfloat(f), referenceNarrow(f, llvm::APFloat::BFloat()))
        << std::hexfloat << f;
  }
}

TEST(ElementKindTest, WrapToBitsIsLLVMsTruncation) {
  EXPECT_EQ(wrapToBits(8, 4), -8);
  EXPECT_EQ(wrapToBits(7, 4), 7);
  EXPECT_EQ(wrapToBits(-9, 4), 7);
  EXPECT_EQ(wrapToBits(1, 1), -1);
  EXPECT_EQ(wrapToBits(2, 1), 0);
  EXPECT_EQ(wrapToBits(INT64_MIN, 64), INT64_MIN);
  EXPECT_EQ(wrapToBits(0x80000000LL, 32), INT32_MIN);
}

} // namespace
