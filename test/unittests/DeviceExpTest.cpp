//===- DeviceExpTest.cpp - the device's exp is within an ulp of e^x -------===//
//
// deviceExp against e^x in double precision, from its definition (libm's
// f64 exp, far more accurate than an f32 result needs): over a sweep of
// every float's bit pattern at a prime stride, the error stays below
// kDeviceExpMaxUlps units in the last place of e^x's binade (subnormal
// units below the normal range); the edges (overflow, underflow, the
// infinities, NaN made quiet, zero) are exact.
//
//===----------------------------------------------------------------------===//

#include "npu/Support/DeviceExp.h"

#include "llvm/ADT/bit.h"
#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace npu;

namespace {

/// |got - e^x| in units of the last place of floats in e^x's binade
/// (2^-149 below the normal range), so that an error below 1 means got is
/// one of the two floats around e^x; an infinite result must be the
/// rounded one.
double ulpError(float x, float got) {
  double exact = std::exp(static_cast<double>(x));
  float rounded = static_cast<float>(exact);
  if (std::isinf(rounded) || std::isinf(got))
    return got == rounded ? 0.0 : std::numeric_limits<double>::infinity();
  int exponent;
  std::frexp(exact, &exponent);
  double ulp = std::ldexp(1.0, std::max(exponent - 24, -149));
  return std::fabs(static_cast<double>(got) - exact) / ulp;
}

TEST(DeviceExpTest, WithinItsBoundOverTheFloats) {
  double worst = 0;
  float worstAt = 0;
  // A prime stride: every exponent, and the low mantissa bits take every
  // value.
  constexpr uint64_t kStride = 251;
  for (uint64_t bits = 0; bits < (uint64_t(1) << 32); bits += kStride) {
    float x = llvm::bit_cast<float>(static_cast<uint32_t>(bits));
    if (std::isnan(x))
      continue;
    double error = ulpError(x, deviceExp(x));
    if (error > worst) {
      worst = error;
      worstAt = x;
    }
  }
  EXPECT_LT(worst, device_exp::kDeviceExpMaxUlps)
      << "at x = " << worstAt << " (" << std::hexfloat << worstAt << ")";
}

TEST(DeviceExpTest, EdgesAreExact) {
  constexpr float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(deviceExp(0.0f), 1.0f);
  EXPECT_EQ(deviceExp(-0.0f), 1.0f);
  EXPECT_EQ(deviceExp(inf), inf);
  EXPECT_EQ(deviceExp(-inf), 0.0f);
  EXPECT_TRUE(std::isnan(deviceExp(std::numeric_limits<float>::quiet_NaN())));
  // A signalling NaN comes out quiet, as from libm.
  float quieted = deviceExp(std::numeric_limits<float>::signaling_NaN());
  EXPECT_TRUE(std::isnan(quieted));
  EXPECT_NE(device_exp::bitsOf(quieted) & 0x00400000u, 0u);
  // The largest x whose e^x rounds to a finite float, and the next float.
  float lastFinite = 88.7228317f;
  EXPECT_TRUE(std::isfinite(deviceExp(lastFinite)));
  EXPECT_EQ(deviceExp(std::nextafter(lastFinite, inf)), inf);
  // Results in the subnormal range round once: the smallest subnormal,
  // and zero past half of it.
  EXPECT_EQ(deviceExp(-103.9f), std::ldexp(1.0f, -149));
  EXPECT_EQ(deviceExp(-104.0f), 0.0f);
  EXPECT_EQ(deviceExp(-1000.0f), 0.0f);
  EXPECT_EQ(deviceExp(1000.0f), inf);
}

} // namespace
