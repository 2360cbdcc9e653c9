//===- DecomposeConv3D.cpp - conv3d as conv2d per depth tap --------------===//
//
// y[n, d] = sum over kd of conv2d(x[n, d sd + kd dd - pad], w[:, kd]): for
// each depth tap, the depth slices it reads (a strided slice of the input,
// padded in depth first) with the batch and output depth merged into one
// batch of N Do images, convolved by the filter's kd plane; the KD results
// are added, the bias carried by the first. One rewrite per conv3d,
// O(KD) ops; the work stays the convolution's.
//
//===----------------------------------------------------------------------===//

#include "npu/Dialect/NPU/NPUOps.h"
#include "npu/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace npu {
#define GEN_PASS_DEF_DECOMPOSECONV3D
#include "npu/Transforms/Passes.h.inc"
} // namespace npu

using namespace mlir;
using namespace npu;
using namespace npu::graph;

namespace {

struct DecomposeConv3DPattern : OpRewritePattern<Conv3DOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(Conv3DOp op,
                                PatternRewriter &rewriter) const override {
    auto result = cast<RankedTensorType>(op.getType());
    if (result.getNumElements() == 0) {
      rewriter.replaceOpWithNewOp<ConstantOp>(
          op, result, DenseElementsAttr::get(result, ArrayRef<Attribute>()));
      return success();
    }
    Location loc = op.getLoc();
    auto filter = cast<RankedTensorType>(op.getFilter().getType());
    ArrayRef<int64_t> w = filter.getShape(), y = result.getShape();
    ArrayRef<int64_t> strides = op.getStrides(), padding = op.getPadding(),
                      dilations = op.getDilations();
    Value padded =
        padDepth(rewriter, loc, op.getInput(), padding[0], padding[1]);
    Value sum;
    for (int64_t kd = 0; kd < w[1]; ++kd) {
      Value images = depthSlices(rewriter, loc, padded, kd * dilations[0],
                                 strides[0], y[1]);
      Value plane = filterPlane(rewriter, loc, op.getFilter(), kd);
      Value conv = rewriter.create<Conv2DOp>(
          loc, images, plane, kd == 0 ? op.getBias() : Value(),
          rewriter.getDenseI64ArrayAttr(strides.drop_front()),
          rewriter.getDenseI64ArrayAttr(padding.drop_front(2)),
          rewriter.getDenseI64ArrayAttr(dilations.drop_front()),
          op.getGroupsAttr());
      sum = sum ? rewriter.create<AddOp>(loc, sum, conv).getResult() : conv;
    }
    rewriter.replaceOpWithNewOp<ReshapeOp>(op, result, sum);
    return success();
  }

  /// `x` padded with zeros before and after along the depth.
  static Value padDepth(PatternRewriter &rewriter, Location loc, Value x,
                        int64_t low, int64_t high) {
    if (low == 0 && high == 0)
      return x;
    return rewriter.create<PadOp>(
        loc, x, rewriter.getDenseI64ArrayAttr({0, low, 0, 0, 0}),
        rewriter.getDenseI64ArrayAttr({0, high, 0, 0, 0}),
        rewriter.getF64FloatAttr(0.0));
  }

  /// The `depths` depth slices from `first` every `step`, as a batch of
  /// N depths images [N depths, H, W, C].
  static Value depthSlices(PatternRewriter &rewriter, Location loc, Value x,
                           int64_t first, int64_t step, int64_t depths) {
    ArrayRef<int64_t> shape = cast<RankedTensorType>(x.getType()).getShape();
    int64_t last = first + step * (depths - 1) + 1;
    if (first != 0 || step != 1 || last != shape[1])
      x = rewriter.create<SliceOp>(
          loc, x, rewriter.getDenseI64ArrayAttr({0, first, 0, 0, 0}),
          rewriter.getDenseI64ArrayAttr(
              {shape[0], last, shape[2], shape[3], shape[4]}),
          rewriter.getDenseI64ArrayAttr({1, step, 1, 1, 1}));
    return reshape(rewriter, loc, x,
                   {shape[0] * depths, shape[2], shape[3], shape[4]});
  }

  /// Filter plane kd, [O, KH, KW, I].
  static Value filterPlane(PatternRewriter &rewriter, Location loc, Value w,
                           int64_t kd) {
    ArrayRef<int64_t> shape = cast<RankedTensorType>(w.getType()).getShape();
    Value plane = w;
    if (shape[1] != 1)
      plane = rewriter.create<SliceOp>(
          loc, w, rewriter.getDenseI64ArrayAttr({0, kd, 0, 0, 0}),
          rewriter.getDenseI64ArrayAttr(
              {shape[0], kd + 1, shape[2], shape[3], shape[4]}),
          DenseI64ArrayAttr());
    return reshape(rewriter, loc, plane,
                   {shape[0], shape[2], shape[3], shape[4]});
  }

  static Value reshape(PatternRewriter &rewriter, Location loc, Value x,
                       ArrayRef<int64_t> shape) {
    auto type = cast<RankedTensorType>(x.getType());
    return rewriter.create<ReshapeOp>(
        loc, RankedTensorType::get(shape, type.getElementType()), x);
  }
};

struct DecomposeConv3DPass
    : public npu::impl::DecomposeConv3DBase<DecomposeConv3DPass> {
  void runOnOperation() override {
    SmallVector<Operation *> convs;
    getOperation().walk([&](Conv3DOp op) { convs.push_back(op); });
    RewritePatternSet patterns(&getContext());
    patterns.add<DecomposeConv3DPattern>(&getContext());
    GreedyRewriteConfig config;
    config.strictMode = GreedyRewriteStrictness::ExistingOps;
    if (failed(applyOpPatternsAndFold(convs, std::move(patterns), config)))
      return signalPassFailure();
  }
};

} // namespace
