//===- FuseAttention.cpp - attention subgraphs to npu.flash_attention -----===//
//
// Anchored at each softmax over the last axis, matches backwards
//   matmul(Q, K^T) -> reshapes, scalar factors, added terms -> softmax
//   -> matmul(P, V)
// where every intermediate has exactly one use. Q, K and V are read as
// views, transpose(source, perm), through the transposes exporters put
// around the heads. The logical dimensions are labelled B, N, S, D (B and
// N implicit, of size 1, when the matmuls have fewer than two batch
// dimensions); the input layout is the first of BNSD, BSND and SBH whose
// dimension order all three sources already have, so the fused operands
// are reshapes of them and no data moves. When the three disagree, BNSD
// on the transposed views.
//
// The scores are tracked as alpha * QK + T, T the sum of the added terms
// in the chain's current shape; flash_attention computes
// scale * (pse + QK), so scale = alpha and pse = T / alpha. Without terms,
// scalar factors on Q and K are read through as well.
//
// O(chain length + rank) per softmax.
//
//===----------------------------------------------------------------------===//

#include "npu/Dialect/NPU/NPUOps.h"
#include "npu/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace npu {
#define GEN_PASS_DEF_FUSEATTENTION
#include "npu/Transforms/Passes.h.inc"
} // namespace npu

using namespace mlir;
using namespace npu;
using namespace npu::graph;

namespace {

/// The factor by which `op` scales its operand 0, when it is a vs_mul or
/// vs_div by a one-element float constant.
std::optional<double> getScalarFactor(Operation *op) {
  if (!isa_and_nonnull<VSMulOp, VSDivOp>(op))
    return std::nullopt;
  auto constant = op->getOperand(1).getDefiningOp<ConstantOp>();
  auto elements =
      constant ? dyn_cast<DenseFPElementsAttr>(constant.getValue()) : nullptr;
  if (!elements || elements.getNumElements() != 1)
    return std::nullopt;
  double value = (*elements.getValues<APFloat>().begin()).convertToDouble();
  if (!isa<VSDivOp>(op))
    return value;
  if (value == 0)
    return std::nullopt;
  return 1.0 / value;
}

/// A tensor read as transpose(source, perm): dimension i of the view is
/// dimension perm[i] of the source.
struct View {
  Value source;
  SmallVector<int64_t> perm;

  /// `value` itself, with its two innermost dimensions swapped if asked.
  static View of(Value value, bool swapInnermost) {
    int64_t rank = cast<RankedTensorType>(value.getType()).getRank();
    View view{value, llvm::to_vector(llvm::seq<int64_t>(0, rank))};
    if (swapInnermost && rank >= 2)
      std::swap(view.perm[rank - 1], view.perm[rank - 2]);
    return view;
  }

  RankedTensorType sourceType() const {
    return cast<RankedTensorType>(source.getType());
  }

  SmallVector<int64_t> shape() const {
    SmallVector<int64_t> shape;
    for (int64_t p : perm)
      shape.push_back(sourceType().getDimSize(p));
    return shape;
  }

  /// Reads through transposes and, when `alpha` is given, through scalar
  /// factors, multiplying them into it.
  void peel(double *alpha) {
    while (Operation *op = source.getDefiningOp()) {
      if (auto transpose = dyn_cast<TransposeOp>(op)) {
        for (int64_t &p : perm)
          p = transpose.getPerms()[p];
        source = transpose.getInput();
        continue;
      }
      std::optional<double> factor = alpha ? getScalarFactor(op) : std::nullopt;
      if (!factor)
        return;
      *alpha *= *factor;
      source = op->getOperand(0);
    }
  }

  /// The labels of the source's dimensions, given those of the view's.
  std::string sourceLabels(StringRef viewLabels) const {
    std::string labels(perm.size(), '?');
    for (auto [i, p] : llvm::enumerate(perm))
      labels[p] = viewLabels[i];
    return labels;
  }
};

/// The layouts tried, in order, with their dimension order (SBH is
/// [S, B, N x D]).
constexpr std::pair<AttentionLayout, const char *> kLayoutOrders[] = {
    {AttentionLayout::BNSD, "BNSD"},
    {AttentionLayout::BSND, "BSND"},
    {AttentionLayout::SBH, "SBND"}};

/// One step between the QK matmul and the softmax, and which of its
/// operands carries the scores.
struct ChainStep {
  Operation *op;
  unsigned scoresOperand;
};

/// Everything the rewrite needs, found before the IR is touched.
struct AttentionMatch {
  MatmulOp qk, pv;
  SmallVector<ChainStep> chain; // In program order.
  bool hasTerms = false;
  View q, k, v;
  double alpha = 1.0;
  /// "BNSD", "NSD" or "SD": the labels of the views' dimensions.
  StringRef labels;
  int64_t batch, heads, querySeq, keySeq, headDim;
  AttentionLayout layout;
  bool viewsMatchLayout;
};

class AttentionMatcher {
public:
  /// Fills `match` or returns why `softmax` does not end an attention.
  std::optional<StringRef> run(SoftmaxOp softmax, AttentionMatch &match) {
    auto scores = cast<RankedTensorType>(softmax.getInput().getType());
    int64_t rank = scores.getRank();
    auto axis = static_cast<int64_t>(softmax.getAxis());
    if (axis != rank - 1 && axis != -1)
      return "softmax is not over the last axis";
    if (!softmax->hasOneUse())
      return "the probabilities have several users";
    match.pv = dyn_cast<MatmulOp>(*softmax->user_begin());
    if (!match.pv || match.pv.getLhs() != softmax.getResult() ||
        match.pv.getTransposeLhs() || match.pv.getBias())
      return "the probabilities are not the lhs of a plain matmul";
    if (auto why = matchChain(softmax.getInput(), match))
      return why;
    if (match.qk.getType() != scores)
      return "the scores change shape on the way to the softmax";
    return matchViews(match);
  }

private:
  /// Walks from the softmax input back to the QK matmul.
  std::optional<StringRef> matchChain(Value scores, AttentionMatch &match) {
    Value value = scores;
    while (true) {
      if (!value.hasOneUse())
        return "the scores have several users";
      Operation *op = value.getDefiningOp();
      if (auto qk = dyn_cast_or_null<MatmulOp>(op)) {
        if (qk.getBias())
          return "the scores matmul has a bias";
        match.qk = qk;
        std::reverse(match.chain.begin(), match.chain.end());
        return std::nullopt;
      }
      std::optional<unsigned> operand = getScoresOperand(op);
      if (!operand)
        return "the scores pass through an op other than reshape, scalar "
               "scaling and addition";
      match.hasTerms |= isa<VSAddOp, AddOp>(op);
      match.chain.push_back({op, *operand});
      value = op->getOperand(*operand);
    }
  }

  /// Which operand of a chain step carries the scores.
  static std::optional<unsigned> getScoresOperand(Operation *op) {
    if (isa_and_nonnull<ReshapeOp, VSAddOp>(op) || getScalarFactor(op))
      return 0;
    auto add = dyn_cast_or_null<AddOp>(op);
    if (!add)
      return std::nullopt;
    // Either operand may be the scores; the other is a term either way.
    // The one of the result's type that has a single use is taken, so that
    // the term does not broadcast the scores to a larger shape.
    for (unsigned i : {0u, 1u})
      if (add->getOperand(i).getType() == add.getType() &&
          add->getOperand(i).hasOneUse() && add->getOperand(i).getDefiningOp())
        return i;
    return std::nullopt;
  }

  std::optional<StringRef> matchViews(AttentionMatch &match) {
    MatmulOp qk = match.qk, pv = match.pv;
    double *alpha = match.hasTerms ? nullptr : &match.alpha;
    match.q = View::of(qk.getLhs(), qk.getTransposeLhs());
    match.k = View::of(qk.getRhs(), !qk.getTransposeRhs());
    match.v = View::of(pv.getRhs(), pv.getTransposeRhs());
    match.q.peel(alpha);
    match.k.peel(alpha);
    match.v.peel(nullptr);
    for (ChainStep step : match.chain)
      if (std::optional<double> factor = getScalarFactor(step.op))
        match.alpha *= *factor;
    return matchDims(match);
  }

  std::optional<StringRef> matchDims(AttentionMatch &match) {
    SmallVector<int64_t> q = match.q.shape(), k = match.k.shape(),
                         v = match.v.shape();
    for (const View *view : {&match.q, &match.k, &match.v})
      if (!view->sourceType().hasStaticShape())
        return "a dynamic shape";
    if (q.size() < 2 || q.size() > 4)
      return "more than two batch dimensions";
    if (k.size() != q.size() || v.size() != q.size() ||
        !llvm::equal(ArrayRef(q).drop_back(2), ArrayRef(k).drop_back(2)) ||
        !llvm::equal(ArrayRef(q).drop_back(2), ArrayRef(v).drop_back(2)))
      return "key and value batch dimensions differ from the query's";
    if (k.back() != q.back() || v.back() != q.back())
      return "the key or value head size differs from the query's";
    if (v[v.size() - 2] != k[k.size() - 2])
      return "key and value sequence lengths differ";
    Type element = match.q.sourceType().getElementType();
    if (!isa<Float16Type, BFloat16Type, Float32Type>(element) ||
        match.k.sourceType().getElementType() != element ||
        match.v.sourceType().getElementType() != element)
      return "not one f16, bf16 or f32 element type";
    size_t batchDims = q.size() - 2;
    match.labels = StringRef("BNSD").drop_front(2 - batchDims);
    match.batch = batchDims == 2 ? q[0] : 1;
    match.heads = batchDims >= 1 ? q[batchDims - 1] : 1;
    match.querySeq = q[batchDims];
    match.keySeq = k[batchDims];
    match.headDim = q.back();
    chooseLayout(match);
    return std::nullopt;
  }

  /// The first layout whose order the three sources have, else BNSD.
  static void chooseLayout(AttentionMatch &match) {
    for (auto [layout, order] : kLayoutOrders) {
      std::string present;
      for (char label : StringRef(order))
        if (match.labels.contains(label))
          present += label;
      if (llvm::all_of(
              std::initializer_list<const View *>{&match.q, &match.k, &match.v},
              [&](const View *view) {
                return view->sourceLabels(match.labels) == present;
              })) {
        match.layout = layout;
        match.viewsMatchLayout = true;
        return;
      }
    }
    match.layout = AttentionLayout::BNSD;
    match.viewsMatchLayout = false;
  }
};

/// Builds the fused op from a match.
class AttentionBuilder {
public:
  AttentionBuilder(AttentionMatch &match, PatternRewriter &rewriter)
      : match(match), rewriter(rewriter), loc(match.pv.getLoc()) {}

  void build() {
    rewriter.setInsertionPoint(match.pv);
    Value pse = match.hasTerms ? buildPse() : Value();
    View q = materialize(match.q), k = materialize(match.k),
         v = materialize(match.v);
    Value query = toLayout(q, match.querySeq);
    Type f32 = rewriter.getF32Type();
    auto statistics = RankedTensorType::get(
        {match.batch, match.heads, match.querySeq, 8}, f32);
    auto fused = rewriter.create<FlashAttentionOp>(
        loc, statistics, statistics, query.getType(), query,
        toLayout(k, match.keySeq), toLayout(v, match.keySeq),
        /*atten_mask=*/Value(), pse, /*drop_mask=*/Value(),
        /*seq_qlen=*/Value(), /*seq_kvlen=*/Value(), match.layout, match.heads,
        APFloat(match.alpha), APFloat(1.0),
        /*pre_tokens=*/2147483647, /*next_tokens=*/2147483647,
        /*sparse_mode=*/0, /*inner_precise=*/0, nullptr, nullptr, nullptr);
    // Back to the matmul's [G..., S1, D]: the query source's shape, then
    // the query view's permutation.
    Value out = rewriter.createOrFold<ReshapeOp>(loc, q.sourceType(),
                                                 fused.getAttentionOut());
    out = rewriter.createOrFold<TransposeOp>(loc, out, q.perm);
    rewriter.replaceOp(match.pv, out);
  }

private:
  /// The view itself when its source is in the layout's order, else the
  /// transposed tensor (which the layout, BNSD, then reads in order).
  View materialize(const View &view) {
    if (match.viewsMatchLayout)
      return view;
    Value transposed =
        rewriter.createOrFold<TransposeOp>(loc, view.source, view.perm);
    return View::of(transposed, /*swapInnermost=*/false);
  }

  /// The view's source reshaped to the layout's shape.
  Value toLayout(const View &view, int64_t seq) {
    int64_t b = match.batch, n = match.heads, d = match.headDim;
    SmallVector<int64_t> shape;
    switch (match.layout) {
    case AttentionLayout::BSND:
      shape = {b, seq, n, d};
      break;
    case AttentionLayout::SBH:
      shape = {seq, b, n * d};
      break;
    default:
      shape = {b, n, seq, d};
      break;
    }
    auto type =
        RankedTensorType::get(shape, view.sourceType().getElementType());
    return rewriter.createOrFold<ReshapeOp>(loc, type, view.source);
  }

  /// Sums the terms added along the chain, in the chain's shape at each
  /// step, and shapes the sum as pse takes it ([B, N, S1, S2],
  /// [1, N, S1, S2] or [B, N, 1, S2]), divided by alpha.
  Value buildPse() {
    Value sum;
    for (ChainStep step : match.chain) {
      Operation *op = step.op;
      auto scoresType =
          cast<RankedTensorType>(op->getOperand(step.scoresOperand).getType());
      if (isa<VSAddOp, AddOp>(op)) {
        Value term = op->getOperand(1 - step.scoresOperand);
        sum = sum ? rewriter.createOrFold<AddOp>(loc, sum, term) : term;
      } else if (sum && isa<ReshapeOp>(op)) {
        sum = rewriter.createOrFold<ReshapeOp>(
            loc, op->getResult(0).getType(),
            expandTo(sum, scoresType.getShape()));
      } else if (sum) {
        sum = scaleBy(sum, *getScalarFactor(op));
      }
    }
    sum = toPseShape(sum);
    return match.alpha == 1.0 ? sum : scaleBy(sum, 1.0 / match.alpha);
  }

  Value toPseShape(Value sum) {
    int64_t b = match.batch, n = match.heads, s1 = match.querySeq,
            s2 = match.keySeq;
    auto type = cast<RankedTensorType>(sum.getType());
    SmallVector<int64_t> shape(4 - std::min<int64_t>(type.getRank(), 4), 1);
    llvm::append_range(shape, type.getShape());
    sum = rewriter.createOrFold<ReshapeOp>(
        loc, RankedTensorType::get(shape, type.getElementType()), sum);
    bool fits = shape[1] == n && shape[3] == s2 &&
                ((shape[2] == s1 && (shape[0] == b || shape[0] == 1)) ||
                 (shape[2] == 1 && shape[0] == b));
    return fits ? sum : expandTo(sum, {b, n, s1, s2});
  }

  Value expandTo(Value value, ArrayRef<int64_t> shape) {
    if (cast<RankedTensorType>(value.getType()).getShape() == shape)
      return value;
    return rewriter.create<ExpandOp>(loc, value,
                                     rewriter.getDenseI64ArrayAttr(shape));
  }

  Value scaleBy(Value value, double factor) {
    Type element = getElementTypeOrSelf(value.getType());
    auto scalarType = RankedTensorType::get({}, element);
    Value scalar = rewriter.create<ConstantOp>(
        loc,
        DenseElementsAttr::get(
            scalarType, rewriter.getFloatAttr(element, factor).getValue()));
    return rewriter.create<VSMulOp>(loc, value, scalar);
  }

  AttentionMatch &match;
  PatternRewriter &rewriter;
  Location loc;
};

struct FuseAttentionPattern : OpRewritePattern<SoftmaxOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(SoftmaxOp softmax,
                                PatternRewriter &rewriter) const override {
    AttentionMatch match;
    if (std::optional<StringRef> why = AttentionMatcher().run(softmax, match))
      return rewriter.notifyMatchFailure(softmax, *why);
    AttentionBuilder(match, rewriter).build();
    return success();
  }
};

struct FuseAttentionPass
    : public npu::impl::FuseAttentionBase<FuseAttentionPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    // Without a softmax there is nothing to fuse; the greedy driver would
    // still fold and erase dead ops, which must not happen to a kernel
    // (npu-graph-to-device runs this on device-level functions too).
    if (!func.walk([](SoftmaxOp) { return WalkResult::interrupt(); })
             .wasInterrupted())
      return markAllAnalysesPreserved();
    auto countFused = [&] {
      int64_t count = 0;
      func.walk([&](FlashAttentionOp) { ++count; });
      return count;
    };
    int64_t before = countFused();
    RewritePatternSet patterns(&getContext());
    patterns.add<FuseAttentionPattern>(&getContext());
    if (failed(applyPatternsAndFoldGreedily(func, std::move(patterns))))
      return signalPassFailure();
    numFused += countFused() - before;
  }
};
} // namespace
