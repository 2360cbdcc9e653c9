//===- LayoutTest.cpp - #npu.layout and storage sizes ---------------------===//

#include "npu/Dialect/NPU/NPUDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace npu;
using namespace npu::graph;

namespace {

class LayoutTest : public ::testing::Test {
protected:
  LayoutTest() { ctx.loadDialect<NPUDialect>(); }

  RankedTensorType tensor(ArrayRef<int64_t> shape, Type element,
                          std::optional<AlignMode> mode = std::nullopt) {
    Attribute encoding;
    if (mode)
      encoding = LayoutAttr::get(&ctx, *mode);
    return RankedTensorType::get(shape, element, encoding);
  }

  MLIRContext ctx;
  Builder b{&ctx};
};

TEST_F(LayoutTest, AlignedChannelIsPaddedToTheUnit) {
  // 1x7x7x3 f16: C = 3 pads to 64 elements of 2 bytes.
  EXPECT_EQ(getStorageSizeInBytes(
                tensor({1, 7, 7, 3}, b.getF16Type(), AlignMode::ALIGN)),
            1 * 7 * 7 * 64 * 2);
  EXPECT_EQ(
      getStorageSizeInBytes(tensor({2, 65}, b.getI8Type(), AlignMode::ALIGN)),
      2 * 128);
  // Already a multiple of the unit: no padding.
  EXPECT_EQ(
      getStorageSizeInBytes(tensor({2, 64}, b.getF32Type(), AlignMode::ALIGN)),
      2 * 64 * 4);
}

TEST_F(LayoutTest, DenseLayoutsAreNotPadded) {
  EXPECT_EQ(getStorageSizeInBytes(
                tensor({1, 7, 7, 3}, b.getF16Type(), AlignMode::NALIGN)),
            1 * 7 * 7 * 3 * 2);
  EXPECT_EQ(getStorageSizeInBytes(tensor({1, 7, 7, 3}, b.getF16Type())),
            1 * 7 * 7 * 3 * 2);
  // Sub-byte elements take a whole byte each.
  EXPECT_EQ(getStorageSizeInBytes(tensor({8}, b.getI1Type())), 8);
}

TEST_F(LayoutTest, EmptyAndUnknowableSizes) {
  EXPECT_EQ(
      getStorageSizeInBytes(tensor({0, 3}, b.getF32Type(), AlignMode::ALIGN)),
      0);
  EXPECT_EQ(
      getStorageSizeInBytes(tensor({ShapedType::kDynamic, 3}, b.getF32Type())),
      std::nullopt);
  EXPECT_EQ(getStorageSizeInBytes(
                tensor({int64_t(1) << 40, int64_t(1) << 40}, b.getF32Type())),
            std::nullopt);
}

TEST_F(LayoutTest, AlignedEncodingNeedsRankTwoOrFourPlus) {
  std::string message;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  auto emitError = [&] { return mlir::emitError(UnknownLoc::get(&ctx)); };
  Attribute align = LayoutAttr::get(&ctx, AlignMode::ALIGN);
  EXPECT_FALSE(RankedTensorType::getChecked(emitError, {2, 3, 4},
                                            b.getF32Type(), align));
  EXPECT_NE(message.find("rank 2 or at least 4"), std::string::npos) << message;
  EXPECT_TRUE(RankedTensorType::getChecked(emitError, {2, 3, 4, 5},
                                           b.getF32Type(), align));
  EXPECT_TRUE(canBeStoredAligned(2));
  EXPECT_FALSE(canBeStoredAligned(1));
  EXPECT_FALSE(canBeStoredAligned(3));
  EXPECT_TRUE(canBeStoredAligned(5));
}

TEST_F(LayoutTest, LayoutHelpers) {
  RankedTensorType plain = tensor({4, 8}, b.getF32Type());
  RankedTensorType aligned = withLayout(plain, AlignMode::ALIGN);
  EXPECT_EQ(getLayoutMode(aligned), AlignMode::ALIGN);
  EXPECT_EQ(getLayoutMode(plain), std::nullopt);
  EXPECT_EQ(stripLayout(aligned), plain);
  EXPECT_TRUE(areCompatibleIgnoringLayout({aligned}, {plain}));
  EXPECT_FALSE(
      areCompatibleIgnoringLayout({aligned}, {tensor({4, 9}, b.getF32Type())}));
  EXPECT_FALSE(areCompatibleIgnoringLayout({aligned}, TypeRange()));
}

} // namespace
