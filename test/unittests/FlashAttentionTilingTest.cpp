//===- FlashAttentionTilingTest.cpp - CANN's FA templates and keys --------===//
//
// Expected values are worked out by hand from the text of CANN's FA/FAG
// design (FlashAttentionScore / FlashAttentionScoreGrad) and the public
// tiling_type.h values, not produced by the code under test.
//
//===----------------------------------------------------------------------===//

#include "npu/Conversion/FlashAttentionTiling.h"
#include "npu/Device/DeviceModel.h"

#include "gtest/gtest.h"

#include <limits>

using namespace npu;
using namespace npu::attention;

namespace {

AttentionLimits ascend() {
  return getAttentionLimits(
      llvm::cantFail(DeviceModel::getPreset("ascend910b")));
}

TEST(FlashAttentionTiling, LimitsOfAscend910bAreCANNs) {
  AttentionLimits l = ascend();
  EXPECT_EQ(l.vectorBlock, 8 * 1024); // 32 KiB of f32
  EXPECT_EQ(l.s2Inner, 1024);
  EXPECT_EQ(l.roundElements, 128 * 1024);
  EXPECT_EQ(l.vectorCores, 48);
  EXPECT_EQ(l.aiCores, 24);
  // mlu590: 512 KiB / 6 / 4 bytes = 21845 -> 16384.
  AttentionLimits m =
      getAttentionLimits(llvm::cantFail(DeviceModel::getPreset("mlu590")));
  EXPECT_EQ(m.vectorBlock, 16384);
  EXPECT_EQ(m.s2Inner, 2048);
}

TEST(FlashAttentionTiling, KeyOfThePublishedExample) {
  // GET_TILINGKEY(S1, S2, NONE, implMode 0, FLOAT16, BSND, Sparse ANY,
  // BIG_DOUBLE_BUFFER, ND, no dropout, mask, no pse, no L1 reuse): digits
  // from the most significant: 0 0 1 0 0 2 2 0 0 0 9 4 3.
  TilingKeyFields f;
  f.ub0 = Axis::S1;
  f.ub1 = Axis::S2;
  f.block = Axis::None;
  f.sparse = Sparse::Any;
  f.hasAttenMask = true;
  EXPECT_EQ(getTilingKey(f), 10000000010022000943ULL);
}

TEST(FlashAttentionTiling, KeysPastTwoToTheSixtyFourAreErrors) {
  auto digitsOf = [](llvm::StringRef decimal) {
    llvm::SmallVector<unsigned> digits;
    for (char c : llvm::reverse(decimal))
      digits.push_back(c - '0');
    return digits;
  };
  // 10^19 + 8446744073709551615 = 2^64 - 1 exactly.
  llvm::Expected<uint64_t> max =
      composeTilingKey(digitsOf("8446744073709551615"));
  ASSERT_TRUE(!!max);
  EXPECT_EQ(*max, std::numeric_limits<uint64_t>::max());
  llvm::Expected<uint64_t> over =
      composeTilingKey(digitsOf("8446744073709551616"));
  ASSERT_FALSE(!!over);
  EXPECT_EQ(llvm::toString(over.takeError()),
            "tiling key: 10^19 plus the fields exceeds 2^64 - 1");
  llvm::Expected<uint64_t> nines =
      composeTilingKey(digitsOf("9999999999999999999"));
  EXPECT_FALSE(!!nines);
  llvm::consumeError(nines.takeError());
  llvm::Expected<uint64_t> twenty =
      composeTilingKey(digitsOf("10000000000000000000"));
  ASSERT_FALSE(!!twenty);
  EXPECT_EQ(llvm::toString(twenty.takeError()),
            "tiling key: at most 19 fields, got 20");
  llvm::Expected<uint64_t> notDigit = composeTilingKey({3, 12});
  ASSERT_FALSE(!!notDigit);
  EXPECT_EQ(llvm::toString(notDigit.takeError()),
            "tiling key: field 1 is 12, not a decimal digit");
  EXPECT_EQ(llvm::cantFail(composeTilingKey({})), 10000000000000000000ULL);
}

TEST(FlashAttentionTiling, ForwardTemplates) {
  AttentionLimits l = ascend();
  // S2 4096 > 1024: S1S2. B1 N8 S1 4096: 8 * 64 outer tiles > 48 cores.
  ForwardTiling t = selectAttentionTemplate({1, 8, 1, 4096, 4096, 128}, l);
  EXPECT_EQ(t.kind, ForwardTemplate::SplitS1S2);
  EXPECT_EQ(t.s1Inner, 128);
  EXPECT_EQ(t.s2Inner, 1024);
  EXPECT_EQ(t.key.ub0, Axis::S1);
  EXPECT_EQ(t.key.ub1, Axis::S2);
  // B1 N1 S1 1024 S2 2048: 16 outer tiles fit the cores, s1 inner 64.
  t = selectAttentionTemplate({1, 1, 1, 1024, 2048, 64}, l);
  EXPECT_EQ(t.kind, ForwardTemplate::SplitS1S2);
  EXPECT_EQ(t.s1Inner, 64);
  // S2 exactly 1024 is not > 1024, but > 128: S1, 131072 / 1024 = 128 rows.
  t = selectAttentionTemplate({2, 4, 1, 4096, 1024, 128}, l);
  EXPECT_EQ(t.kind, ForwardTemplate::SplitS1);
  EXPECT_EQ(t.s1Inner, 128);
  EXPECT_EQ(t.key.ub0, Axis::S1);
  EXPECT_EQ(t.key.ub1, Axis::None);
  // S2 128, S1 1024: 1024 * 128 = 131072 > 65536: S1, 1024 rows fit.
  t = selectAttentionTemplate({1, 1, 1, 1024, 128, 64}, l);
  EXPECT_EQ(t.kind, ForwardTemplate::SplitS1);
  EXPECT_EQ(t.s1Inner, 1024);
  // S2 72 (aligned 80), S1 500 (aligned 512): 40960 <= 65536: B template,
  // 131072 / (2 * 3 * 40960) = 0 -> at least 1 batch entry.
  t = selectAttentionTemplate({4, 2, 3, 500, 72, 72}, l);
  EXPECT_EQ(t.kind, ForwardTemplate::SplitB);
  EXPECT_EQ(t.bInner, 1);
  EXPECT_EQ(t.key.ub0, Axis::B);
  // S 64 x 64, N2 2, G 4: 131072 / 32768 = 4 batch entries, of 16.
  t = selectAttentionTemplate({16, 2, 4, 64, 64, 64}, l);
  EXPECT_EQ(t.kind, ForwardTemplate::SplitB);
  EXPECT_EQ(t.bInner, 4);
  // No keys: the B template over the whole (empty) batch.
  t = selectAttentionTemplate({3, 1, 1, 0, 0, 64}, l);
  EXPECT_EQ(t.kind, ForwardTemplate::SplitB);
  EXPECT_EQ(t.bInner, 3);
  EXPECT_EQ(stringifyForwardTemplate(ForwardTemplate::SplitS1S2), "s1s2");
}

TEST(FlashAttentionTiling, BackwardTemplatesByPriority) {
  AttentionLimits l = ascend();
  // N2 * G * S1 * S2 = 1 * 2 * 32 * 32 = 2048 < 8192: priority 10000.
  BackwardTiling t = selectAttentionGradTemplate({2, 1, 2, 32, 32, 64}, l);
  EXPECT_EQ(t.kind, BackwardTemplate::BN2GS1S2_B);
  EXPECT_EQ(t.key.ub0, Axis::B);
  EXPECT_EQ(t.key.ub1, Axis::None);
  EXPECT_EQ(t.key.block, Axis::B);
  // N2 * G * S1 * S2 = 8192 is not < 8192; G * S1 * S2 = 2048: 11000.
  t = selectAttentionGradTemplate({2, 4, 2, 32, 32, 64}, l);
  EXPECT_EQ(t.kind, BackwardTemplate::N2GS1S2_BN1);
  EXPECT_EQ(t.key.ub0, Axis::N2);
  EXPECT_EQ(t.key.block, Axis::G);
  // B * N2 = 32 > 24 AI cores: 15000.
  t = selectAttentionGradTemplate({8, 4, 1, 1024, 1024, 128}, l);
  EXPECT_EQ(t.kind, BackwardTemplate::S1S2_BN2);
  EXPECT_EQ(t.key.ub1, Axis::S2);
  EXPECT_EQ(t.key.block, Axis::N2);
  // B * N2 = 8: the fallback, 16000.
  t = selectAttentionGradTemplate({1, 8, 1, 1024, 1024, 128}, l);
  EXPECT_EQ(t.kind, BackwardTemplate::S1S2_BN2GS1S2);
  EXPECT_EQ(t.key.block, Axis::S2);
  EXPECT_EQ(static_cast<int>(BackwardTemplate::S1S2_BN2GS1S2), 16000);
  // Lengths read at run time are ruled on at 2^31 - 1: N2 * G * S1 * S2
  // passes 2^63 and must count as large, not wrap below the vector block.
  int64_t longest = std::numeric_limits<int32_t>::max();
  t = selectAttentionGradTemplate({1, 4, 4, longest, longest, 128}, l);
  EXPECT_EQ(t.kind, BackwardTemplate::S1S2_BN2GS1S2);
  EXPECT_EQ(stringifyBackwardTemplate(BackwardTemplate::N2GS1S2_BN1),
            "n2gs1s2_bn1");
}

} // namespace
