//===- FlashAttentionTiling.cpp - templates and tiling keys ---------------===//
//
// The template rules and GET_TILINGKEY of CANN's FlashAttentionScore, with the
// limits derived from the device model instead of written as literals: the
// vector block is the largest of six equal shares of vector memory in f32
// (32 KiB, 8 x 1024 on ascend910b), a cube/vector round is 16 of them. O(1)
// per call.
//
//===----------------------------------------------------------------------===//

#include "npu/Conversion/FlashAttentionTiling.h"
#include "npu/Device/DeviceModel.h"

#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <limits>

using namespace npu;
using namespace npu::attention;

namespace {
/// Vector memory holds inputs, outputs, intermediates and their double
/// buffers: the best split in CANN's FA design gives six shares, the
/// largest 32 KiB.
constexpr int64_t kVectorShares = 6;
/// Rows of a vector block (8 x 1024 f32).
constexpr int64_t kBlockRows = 8;
/// Cube work per vector block in one round (CANN's FA design: 1:16).
constexpr int64_t kCubeVectorRatio = 16;
/// The key's constant offset, 10^19.
constexpr uint64_t kKeyOffset = 10000000000000000000ULL;
constexpr unsigned kMaxDigits = 19;

int64_t align16(int64_t v) { return llvm::alignTo(v, kFractalAlign); }
} // namespace

llvm::SmallVector<unsigned, 13> TilingKeyFields::getDigits() const {
  auto d = [](auto e) { return static_cast<unsigned>(e); };
  return {d(ub0),          d(ub1),        d(block),        implMode,
          d(dtype),        d(layout),     d(sparse),       d(buffering),
          d(bmm1Format),   d(hasDropout), d(hasAttenMask), d(hasPse),
          d(enableL1Reuse)};
}

llvm::Expected<uint64_t>
attention::composeTilingKey(llvm::ArrayRef<unsigned> digits) {
  auto error = [](const llvm::Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "tiling key: " + message);
  };
  if (digits.size() > kMaxDigits)
    return error("at most " + llvm::Twine(kMaxDigits) + " fields, got " +
                 llvm::Twine(digits.size()));
  unsigned __int128 sum = 0, place = 1;
  for (auto [i, digit] : llvm::enumerate(digits)) {
    if (digit > 9)
      return error("field " + llvm::Twine(i) + " is " + llvm::Twine(digit) +
                   ", not a decimal digit");
    sum += place * digit;
    place *= 10;
  }
  unsigned __int128 key = sum + kKeyOffset;
  if (key > std::numeric_limits<uint64_t>::max())
    return error("10^19 plus the fields exceeds 2^64 - 1");
  return static_cast<uint64_t>(key);
}

uint64_t attention::getTilingKey(const TilingKeyFields &fields) {
  return llvm::cantFail(composeTilingKey(fields.getDigits()));
}

AttentionLimits attention::getAttentionLimits(const DeviceModel &device) {
  AttentionLimits limits;
  int64_t share = device.vectorBytes / kVectorShares / 4;
  limits.vectorBlock = int64_t(1)
                       << llvm::Log2_64(std::max<int64_t>(share, kBlockRows));
  limits.s2Inner = limits.vectorBlock / kBlockRows;
  limits.roundElements = limits.vectorBlock * kCubeVectorRatio;
  limits.vectorCores = device.getNumCores();
  limits.aiCores = device.clusters;
  return limits;
}

llvm::StringRef attention::stringifyForwardTemplate(ForwardTemplate t) {
  switch (t) {
  case ForwardTemplate::SplitS1S2:
    return "s1s2";
  case ForwardTemplate::SplitS1:
    return "s1";
  case ForwardTemplate::SplitB:
    return "b";
  }
  llvm_unreachable("unknown template");
}

ForwardTiling
attention::selectAttentionTemplate(const AttentionShape &shape,
                                   const AttentionLimits &limits) {
  ForwardTiling tiling;
  int64_t heads = shape.b * shape.n2 * shape.g;
  if (shape.s2 > limits.s2Inner) {
    tiling.kind = ForwardTemplate::SplitS1S2;
    tiling.s2Inner = limits.s2Inner;
    int64_t outer = heads * llvm::divideCeil(shape.s1, kS1Inner);
    tiling.s1Inner = outer > limits.vectorCores ? kS1InnerLarge : kS1Inner;
    tiling.bInner = 1;
    tiling.key.ub0 = Axis::S1;
    tiling.key.ub1 = Axis::S2;
    return tiling;
  }
  int64_t area = align16(shape.s1) * align16(shape.s2);
  if (shape.s2 > kTemplateCubeBlock || area > limits.roundElements / 2) {
    tiling.kind = ForwardTemplate::SplitS1;
    int64_t rows = limits.roundElements / align16(shape.s2);
    rows = std::max<int64_t>(kBlockRows, rows / kBlockRows * kBlockRows);
    tiling.s1Inner = std::min(rows, align16(shape.s1));
    tiling.s2Inner = shape.s2;
    tiling.bInner = 1;
    tiling.key.ub0 = Axis::S1;
    return tiling;
  }
  tiling.kind = ForwardTemplate::SplitB;
  int64_t perBatch = shape.n2 * shape.g * area;
  tiling.bInner =
      std::clamp<int64_t>(perBatch ? limits.roundElements / perBatch : shape.b,
                          1, std::max<int64_t>(shape.b, 1));
  tiling.s1Inner = shape.s1;
  tiling.s2Inner = shape.s2;
  tiling.key.ub0 = Axis::B;
  return tiling;
}

llvm::StringRef attention::stringifyBackwardTemplate(BackwardTemplate t) {
  switch (t) {
  case BackwardTemplate::BN2GS1S2_B:
    return "bn2gs1s2_b";
  case BackwardTemplate::N2GS1S2_BN1:
    return "n2gs1s2_bn1";
  case BackwardTemplate::S1S2_BN2:
    return "s1s2_bn2";
  case BackwardTemplate::S1S2_BN2GS1S2:
    return "s1s2_bn2gs1s2";
  }
  llvm_unreachable("unknown template");
}

BackwardTiling
attention::selectAttentionGradTemplate(const AttentionShape &shape,
                                       const AttentionLimits &limits) {
  auto make = [](BackwardTemplate kind, Axis ub0, Axis ub1, Axis block) {
    BackwardTiling tiling{kind, {}};
    tiling.key.ub0 = ub0;
    tiling.key.ub1 = ub1;
    tiling.key.block = block;
    return tiling;
  };
  // Saturating: lengths read at run time are ruled on at their bound,
  // 2^31 - 1, whose square times the heads passes 2^63.
  auto times = [](int64_t x, int64_t y) {
    uint64_t product = llvm::SaturatingMultiply(uint64_t(x), uint64_t(y));
    return static_cast<int64_t>(
        std::min<uint64_t>(product, std::numeric_limits<int64_t>::max()));
  };
  int64_t scores = times(shape.s1, shape.s2);
  // By priority, the smallest number first.
  if (times(times(shape.n2, shape.g), scores) < limits.vectorBlock)
    return make(BackwardTemplate::BN2GS1S2_B, Axis::B, Axis::None, Axis::B);
  if (times(shape.g, scores) < limits.vectorBlock)
    return make(BackwardTemplate::N2GS1S2_BN1, Axis::N2, Axis::None, Axis::G);
  if (shape.b * shape.n2 > limits.aiCores)
    return make(BackwardTemplate::S1S2_BN2, Axis::S1, Axis::S2, Axis::N2);
  return make(BackwardTemplate::S1S2_BN2GS1S2, Axis::S1, Axis::S2, Axis::S2);
}
