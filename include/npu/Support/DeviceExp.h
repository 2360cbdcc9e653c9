//===- DeviceExp.h - the vector unit's f32 exp, as both executors run it
//-*-===//
//
// npudev's vector exp (and the sigmoid built on it) is the device's own
// function, as a vector unit computes it, not libm's: a fixed sequence of
// operations, so that a loop of it vectorizes in the JIT and the simulator
// gives the same bits.
//
//   x = n ln2 + r, |r| <= ln2 / 2 (Cody-Waite, ln2 split in two floats);
//   e^r by its Taylor polynomial of degree 7 (Horner's rule);
//   e^x = e^r 2^(n/2) 2^(n - n/2), so a subnormal result rounds once.
//
// Every multiply-add is an fma, and nothing else multiplies then adds, so
// no compiler may contract the sequence into other bits. The simulator calls
// deviceExp; the JIT's loop lowering (LoopBuilders.cpp, buildDeviceExp)
// emits the same operations from the constants below. It is faithfully
// rounded: less than kDeviceExpMaxUlps unit in the last place from e^x
// (0.93 at worst over every 7th float; DeviceExpTest checks a sweep), and
// NaN (made quiet), the infinities, overflow and underflow are as libm's.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_SUPPORT_DEVICEEXP_H
#define NPU_SUPPORT_DEVICEEXP_H

#include <cmath>
#include <cstdint>
#include <cstring>

namespace npu::device_exp {

/// Inputs are clamped to [kLowest, kHighest] first: below, e^x rounds to 0;
/// above, it overflows. Both bound n to [-150, 128], where the two halves of
/// 2^n are normal floats.
inline constexpr float kLowest = -104.0f;
inline constexpr float kHighest = 89.0f;
/// 1.5 * 2^23: adding it rounds x log2(e) to an integer (to nearest, ties to
/// even), which the sum's low bits then hold.
inline constexpr float kRoundingShift = 12582912.0f;
inline constexpr float kLog2E = 1.44269504088896341f;
/// ln 2 = kLn2High + kLn2Low to about 2^-48.
inline constexpr float kLn2High = 0.693147182464599609375f;
inline constexpr float kLn2Low = -1.90465429995e-09f;
/// 1 / k! for k = 0 .. 7, each rounded to a float.
inline constexpr float kTaylor[] = {1.0f,       1.0f,       1.0f / 2,
                                    1.0f / 6,   1.0f / 24,  1.0f / 120,
                                    1.0f / 720, 1.0f / 5040};
inline constexpr int kExponentBias = 127;
inline constexpr int kMantissaBits = 23;

/// deviceExp's error is below this many units in the last place of e^x.
inline constexpr double kDeviceExpMaxUlps = 1.0;

inline uint32_t bitsOf(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, sizeof(bits));
  return bits;
}

/// 2^k for k in [-126, 127].
inline float powerOfTwo(int32_t k) {
  uint32_t bits = static_cast<uint32_t>(k + kExponentBias) << kMantissaBits;
  float x;
  std::memcpy(&x, &bits, sizeof(x));
  return x;
}

} // namespace npu::device_exp

namespace npu {

/// The device's e^x (see the file comment).
inline float deviceExp(float x) {
  using namespace device_exp;
  float clamped = x < kLowest ? kLowest : (x > kHighest ? kHighest : x);
  float shifted = std::fma(clamped, kLog2E, kRoundingShift);
  float n = shifted - kRoundingShift;
  float r = std::fma(n, -kLn2High, clamped);
  r = std::fma(n, -kLn2Low, r);
  float p = kTaylor[7];
  for (int k = 6; k >= 0; --k)
    p = std::fma(p, r, kTaylor[k]);
  // Unsigned: a NaN's bits may be anything, and the result is discarded.
  int32_t e = static_cast<int32_t>(bitsOf(shifted) - bitsOf(kRoundingShift));
  int32_t half = e >> 1;
  float result = p * powerOfTwo(half) * powerOfTwo(e - half);
  // x + x: a signalling NaN comes out quiet, as libm's would.
  return std::isnan(x) ? x + x : result;
}

} // namespace npu

#endif // NPU_SUPPORT_DEVICEEXP_H
