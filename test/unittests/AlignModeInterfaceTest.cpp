//===- AlignModeInterfaceTest.cpp - the AlignMode rules on C++-built ops --===//

#include "npu/Dialect/NPU/NPUOps.h"
#include "npu/InitAll.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace npu;
using namespace npu::graph;

namespace {

/// Builds ops into one function whose single argument is a 1x8x8x16 f32
/// image (a graph input).
class AlignModeTest : public ::testing::Test {
protected:
  AlignModeTest() : b(&ctx), loc(b.getUnknownLoc()) {
    DialectRegistry registry;
    registerAllDialects(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
    module = ModuleOp::create(loc);
    b.setInsertionPointToEnd(module->getBody());
    auto funcType = b.getFunctionType({imageType()}, {});
    func = b.create<func::FuncOp>(loc, "graph", funcType);
    b.setInsertionPointToEnd(func.addEntryBlock());
  }

  RankedTensorType imageType() {
    return RankedTensorType::get({1, 8, 8, 16}, b.getF32Type());
  }
  Value image() { return func.getArgument(0); }

  Value constant(ArrayRef<int64_t> shape) {
    auto type = RankedTensorType::get(shape, b.getF32Type());
    return b.create<ConstantOp>(loc, DenseElementsAttr::get(type, 1.0f));
  }

  Value conv(Value input) {
    Value filter = constant({32, 3, 3, 16});
    return b.create<Conv2DOp>(loc, ValueRange{input, filter},
                              ArrayRef<NamedAttribute>{});
  }

  Value slice(Value input, ArrayRef<int64_t> start, ArrayRef<int64_t> end) {
    return b.create<SliceOp>(
        loc, ValueRange{input},
        ArrayRef<NamedAttribute>{
            b.getNamedAttr("start", b.getDenseI64ArrayAttr(start)),
            b.getNamedAttr("end", b.getDenseI64ArrayAttr(end))});
  }

  static AlignMode modeOf(Value v) { return getAlignMode(v.getDefiningOp()); }

  MLIRContext ctx;
  OpBuilder b;
  Location loc;
  OwningOpRef<ModuleOp> module;
  func::FuncOp func;
};

TEST_F(AlignModeTest, InferredConvTypeAndAlignOnlyRule) {
  Value c = conv(image());
  EXPECT_EQ(c.getType(), RankedTensorType::get({1, 6, 6, 32}, b.getF32Type()));
  EXPECT_EQ(modeOf(c), AlignMode::ALIGN);
  EXPECT_TRUE(c.getDefiningOp()->hasTrait<RequiresAlignedLayout>());
}

TEST_F(AlignModeTest, ElementwiseAdaptsAndConstantsAdapt) {
  Value r = b.create<ReluOp>(loc, image());
  EXPECT_EQ(modeOf(r), AlignMode::BOTH);
  EXPECT_EQ(modeOf(constant({4, 4})), AlignMode::BOTH);
}

TEST_F(AlignModeTest, OddRankIsNotAligned) {
  EXPECT_EQ(modeOf(constant({4})), AlignMode::NALIGN);
  auto rank3 = RankedTensorType::get({1, 64, 16}, b.getF32Type());
  Value r = b.create<ReshapeOp>(loc, rank3, image());
  EXPECT_EQ(modeOf(r), AlignMode::NALIGN);
  // The rank rule beats the kernel's preference: a rank-3 matmul.
  Value lhs = constant({2, 4, 8}), rhs = constant({2, 8, 4});
  Value mm =
      b.create<MatmulOp>(loc, ValueRange{lhs, rhs}, ArrayRef<NamedAttribute>{});
  EXPECT_EQ(modeOf(mm), AlignMode::NALIGN);
}

TEST_F(AlignModeTest, SliceRule) {
  // Starts inside C and ends on a 64 boundary: dense.
  Value wide = constant({1, 2, 2, 128});
  EXPECT_EQ(modeOf(slice(wide, {0, 0, 0, 32}, {1, 2, 2, 64})),
            AlignMode::NALIGN);
  EXPECT_EQ(modeOf(slice(wide, {0, 0, 0, 0}, {1, 2, 2, 64})), AlignMode::ALIGN);
  EXPECT_EQ(modeOf(slice(wide, {0, 0, 0, 32}, {1, 2, 2, 48})),
            AlignMode::ALIGN);
}

TEST_F(AlignModeTest, BroadcastFollowsFullSizeProducer) {
  Value bias = constant({32});
  Value afterConv = b.create<VSAddOp>(loc, conv(image()), bias);
  EXPECT_EQ(modeOf(afterConv), AlignMode::ALIGN);
  Value afterInput = b.create<VSMulOp>(loc, image(), constant({16}));
  EXPECT_EQ(modeOf(afterInput), AlignMode::NALIGN);
  EXPECT_EQ(getAlignMode(afterInput.getDefiningOp(), AlignMode::ALIGN),
            AlignMode::ALIGN);
  // Chains of broadcast ops resolve to the first non-broadcast producer.
  Value chained = b.create<VSSubOp>(loc, afterConv, bias);
  EXPECT_EQ(modeOf(chained), AlignMode::ALIGN);
}

TEST_F(AlignModeTest, DevInfoPinsAnyOp) {
  Value c = conv(image());
  c.getDefiningOp()->setAttr(NPUDialect::getDevInfoAttrName(),
                             AlignModeAttr::get(&ctx, AlignMode::NALIGN));
  EXPECT_EQ(modeOf(c), AlignMode::NALIGN);
  Value r = b.create<ReluOp>(loc, image());
  r.getDefiningOp()->setAttr(NPUDialect::getDevInfoAttrName(),
                             AlignModeAttr::get(&ctx, AlignMode::ALIGN));
  EXPECT_EQ(modeOf(r), AlignMode::ALIGN);
}

TEST_F(AlignModeTest, ChannelNormFollowsItsDirection) {
  Value toAlign = b.create<ChannelNormOp>(loc, ChannelNormDirection::to_align,
                                          constant({4}));
  EXPECT_EQ(modeOf(toAlign), AlignMode::ALIGN);
  Value toNAlign = b.create<ChannelNormOp>(loc, ChannelNormDirection::to_nalign,
                                           conv(image()));
  EXPECT_EQ(modeOf(toNAlign), AlignMode::NALIGN);
}

TEST_F(AlignModeTest, GraphOutputsAndForeignOps) {
  Value c = conv(image());
  auto ret = b.create<func::ReturnOp>(loc, ValueRange{});
  EXPECT_EQ(getAlignMode(ret), AlignMode::NALIGN);
  EXPECT_EQ(getAlignMode(ret, AlignMode::ALIGN), AlignMode::ALIGN);
  b.setInsertionPoint(ret);
  Value sum = b.create<arith::AddFOp>(loc, c, c);
  EXPECT_EQ(modeOf(sum), AlignMode::UNKNOWN);
  EXPECT_TRUE(succeeded(verify(*module)));
}

} // namespace
