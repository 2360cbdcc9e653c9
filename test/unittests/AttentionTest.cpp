//===- AttentionTest.cpp - fused attention's semantics --------------------===//
//
// AttentionBand (what the lowering reads) against the reference's mask
// formulas, written separately from CANN's definitions, for every sparse
// mode; and the float64 reference's backward against finite differences of
// its forward, for every layout with GQA, pse, dropout and fully masked
// rows.
//
//===----------------------------------------------------------------------===//

#include "AttentionReference.h"

#include "npu/Dialect/NPU/NPUOps.h"
#include "npu/InitAll.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FormatVariadic.h"
#include "gtest/gtest.h"

#include <cmath>
#include <random>

using namespace mlir;
using namespace npu;
using namespace npu::graph;
namespace ref = npu::reference;

namespace {

class AttentionTest : public ::testing::Test {
protected:
  AttentionTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
  }

  /// The band of an npu.flash_attention over `a`'s sizes and attributes.
  AttentionBand parseBand(const ref::Attention &a) {
    bool tnd = a.layout == ref::Layout::TND;
    std::string extra;
    if (!a.prefix.empty())
      extra += ", prefix = array<i64: " + join(a.prefix) + ">";
    if (tnd)
      extra += ", actual_seq_qlen = array<i64: " + join(a.cumSeqQ) +
               ">, actual_seq_kvlen = array<i64: " + join(a.cumSeqKV) + ">";
    int64_t t1 = tnd ? a.cumSeqQ.back() : 0, t2 = tnd ? a.cumSeqKV.back() : 0;
    std::string q =
        tnd ? llvm::formatv("tensor<{0}x1x4xf32>", t1).str()
            : llvm::formatv("tensor<{0}x1x{1}x4xf32>", a.batch, a.seqQ).str();
    std::string k =
        tnd ? llvm::formatv("tensor<{0}x1x4xf32>", t2).str()
            : llvm::formatv("tensor<{0}x1x{1}x4xf32>", a.batch, a.seqKV).str();
    std::string stats =
        tnd ? llvm::formatv("tensor<{0}x1x8xf32>", t1).str()
            : llvm::formatv("tensor<{0}x1x{1}x8xf32>", a.batch, a.seqQ).str();
    // The mask's values do not matter to the band, only whether it is given.
    std::string mask =
        a.mask.empty()
            ? ""
            : llvm::formatv("tensor<{0}x{1}xi8>", a.seqQ, a.seqKV).str();
    std::string source = llvm::formatv(
        R"mlir(func.func @f(%q: {0}, %k: {1}{8}) {{
  %m, %s, %o = npu.flash_attention %q, %k, %k{9} {{input_layout = #npu.attention_layout<{2}>, head_num = 1, scale = 1.0, sparse_mode = {3}, pre_tokens = {4}, next_tokens = {5}{6}} : ({0}, {1}, {1}{10}) -> ({7}, {7}, {0})
  return
})mlir",
        q, k, tnd ? "TND" : "BNSD", a.sparseMode, a.preTokens, a.nextTokens,
        extra, stats, mask.empty() ? "" : ", %mask: " + mask,
        mask.empty() ? "" : " mask %mask", mask.empty() ? "" : ", " + mask);
    module = parseSourceString<ModuleOp>(source, &ctx);
    EXPECT_TRUE(module) << source;
    Operation *op = nullptr;
    module->walk([&](FlashAttentionOp fa) { op = fa; });
    return getAttentionBand(op);
  }

  static std::string join(const std::vector<int64_t> &values) {
    std::string s;
    for (int64_t v : values)
      s += (s.empty() ? "" : ", ") + std::to_string(v);
    return s;
  }

  MLIRContext ctx;
  OwningOpRef<ModuleOp> module;
};

/// Every (i, j) of every batch: the band and the reference agree.
void expectSameMask(const AttentionBand &band, const ref::Attention &a) {
  for (int64_t b = 0; b < a.batch; ++b)
    for (int64_t i = 0; i < a.getSeqQ(b); ++i)
      for (int64_t j = 0; j < a.getSeqKV(b); ++j)
        EXPECT_EQ(band.isVisible(b, i, j, a.getSeqQ(b), a.getSeqKV(b)),
                  a.visible(b, 0, i, j))
            << "mode " << a.sparseMode << " batch " << b << " row " << i
            << " key " << j;
}

TEST_F(AttentionTest, BandsMatchTheModesDefinitions) {
  struct Case {
    int64_t mode, s1, s2, pre, next;
    std::vector<int64_t> prefix;
  } cases[] = {
      {0, 13, 10, 9, -3, {}},
      {0, 13, 10, -3, 7, {}},
      {0, 6, 6, 2147483647, 2147483647, {}},
      {2, 7, 5, 0, 0, {}},
      {3, 13, 10, 0, 0, {}},
      {3, 5, 9, 0, 0, {}},
      {4, 13, 16, 6, 4, {}},
      {4, 16, 13, 2, 0, {}},
      {5, 10, 10, 0, 0, {4, 5}},
      {6, 6, 9, 0, 0, {3, 9}},
  };
  for (const Case &c : cases) {
    ref::Attention a;
    a.layout = ref::Layout::BNSD;
    a.batch = 2;
    a.seqQ = c.s1;
    a.seqKV = c.s2;
    a.sparseMode = c.mode;
    a.preTokens = c.pre;
    a.nextTokens = c.next;
    a.prefix = c.prefix;
    expectSameMask(parseBand(a), a);
    // Mode 0's tokens count only with a mask (here one that masks nothing).
    if (c.mode == 0) {
      a.maskShape = {c.s1, c.s2};
      a.mask.assign(c.s1 * c.s2, 0);
      expectSameMask(parseBand(a), a);
    }
  }
  // Mode 1 masks by atten_mask alone (which the parsed op would need).
  ref::Attention all;
  all.seqQ = 5;
  all.seqKV = 7;
  all.sparseMode = 1;
  all.preTokens = all.nextTokens = 1;
  AttentionBand allBand;
  allBand.sparseMode = 1;
  allBand.preTokens = allBand.nextTokens = 1;
  expectSameMask(allBand, all);
  // Varlen (TND): causal per packed sequence; the last (7) or first (8)
  // non-empty one is cut by next_tokens. Sequences of 3, 0, 2 and 0
  // queries over 4, 1, 6 and 2 keys.
  for (auto [mode, next] :
       {std::pair<int64_t, int64_t>{7, -2}, {7, 0}, {8, 1}, {8, -1}}) {
    ref::Attention a;
    a.layout = ref::Layout::TND;
    a.batch = 4;
    a.cumSeqQ = {3, 3, 5, 5};
    a.cumSeqKV = {4, 5, 11, 13};
    a.sparseMode = mode;
    a.preTokens = 100;
    a.nextTokens = next;
    expectSameMask(parseBand(a), a);
  }
}

/// A random problem; `dy` random too.
ref::Attention randomProblem(ref::Layout layout, int64_t mode, bool pse,
                             bool dropout, std::mt19937 &rng) {
  std::uniform_real_distribution<double> uniform(-1, 1);
  ref::Attention a;
  a.layout = layout;
  a.batch = 2;
  a.headsQ = 4;
  a.headsKV = 2;
  a.seqQ = 5;
  a.seqKV = 4;
  a.headDim = 3;
  a.scale = 0.7;
  a.sparseMode = mode;
  a.preTokens = 1;
  a.nextTokens = 0;
  int64_t totalQ = a.batch * a.seqQ, totalKV = a.batch * a.seqKV;
  if (layout == ref::Layout::TND) {
    a.cumSeqQ = {3, 3, 8};
    a.cumSeqKV = {4, 6, 9};
    a.batch = 3;
    a.seqQ = 5;
    a.seqKV = 3;
    totalQ = 8;
    totalKV = 9;
  }
  if (mode == 5)
    a.prefix = {2, 3};
  auto fill = [&](std::vector<double> &v, int64_t n) {
    v.resize(n);
    for (double &x : v)
      x = uniform(rng);
  };
  fill(a.q, totalQ * a.headsQ * a.headDim);
  fill(a.k, totalKV * a.headsKV * a.headDim);
  fill(a.v, totalKV * a.headsKV * a.headDim);
  if (pse) {
    a.pseShape = {a.batch, a.headsQ, 1, a.seqKV};
    fill(a.pse, a.batch * a.headsQ * a.seqKV);
  }
  if (dropout) {
    a.keepProb = 0.75;
    a.drop.resize(a.batch * a.headsQ * a.seqQ * a.seqKV);
    for (uint8_t &d : a.drop)
      d = rng() % 4 != 0;
  }
  return a;
}

double loss(const ref::Attention &a, const std::vector<double> &dy) {
  std::vector<double> out = ref::forward(a).out;
  double sum = 0;
  for (size_t i = 0; i < out.size(); ++i)
    sum += out[i] * dy[i];
  return sum;
}

/// Central differences of the loss along every element of `x`.
void expectGradient(ref::Attention &a, std::vector<double> &x,
                    const std::vector<double> &analytic,
                    const std::vector<double> &dy, const char *name) {
  ASSERT_EQ(x.size(), analytic.size()) << name;
  const double h = 1e-6;
  for (size_t i = 0; i < x.size(); ++i) {
    double saved = x[i];
    x[i] = saved + h;
    double up = loss(a, dy);
    x[i] = saved - h;
    double down = loss(a, dy);
    x[i] = saved;
    EXPECT_NEAR(analytic[i], (up - down) / (2 * h), 1e-6)
        << name << "[" << i << "]";
  }
}

TEST(AttentionReferenceTest, BackwardIsTheForwardsGradient) {
  std::mt19937 rng(5);
  struct Case {
    ref::Layout layout;
    int64_t mode;
    bool pse, dropout;
  } cases[] = {
      {ref::Layout::BSH, 0, true, false},  {ref::Layout::SBH, 3, false, true},
      {ref::Layout::BSND, 4, true, true},  {ref::Layout::BNSD, 5, false, false},
      {ref::Layout::BNSD, 2, true, true},  {ref::Layout::TND, 8, false, false},
      {ref::Layout::TND, 7, false, false},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE("layout " + std::to_string(static_cast<int>(c.layout)) +
                 ", mode " + std::to_string(c.mode));
    ref::Attention a = randomProblem(c.layout, c.mode, c.pse, c.dropout, rng);
    std::vector<double> dy(a.q.size());
    std::uniform_real_distribution<double> uniform(-1, 1);
    for (double &x : dy)
      x = uniform(rng);
    ref::Gradients g = ref::backward(a, dy);
    expectGradient(a, a.q, g.dq, dy, "dq");
    expectGradient(a, a.k, g.dk, dy, "dk");
    expectGradient(a, a.v, g.dv, dy, "dv");
    if (c.pse)
      expectGradient(a, a.pse, g.dpse, dy, "dpse");
  }
}

TEST(AttentionReferenceTest, FullyMaskedRowsGiveZero) {
  // Mode 3 with S1 > S2: the first S1 - S2 rows see no key.
  std::mt19937 rng(9);
  ref::Attention a = randomProblem(ref::Layout::BNSD, 3, false, false, rng);
  ref::Forward f = ref::forward(a);
  std::vector<double> dy(a.q.size(), 1.0);
  ref::Gradients g = ref::backward(a, dy);
  for (int64_t b = 0; b < a.batch; ++b)
    for (int64_t n = 0; n < a.headsQ; ++n) {
      int64_t row = ref::statisticsRow(a, b, n, 0);
      EXPECT_TRUE(std::isinf(f.max[row]) && f.max[row] < 0);
      EXPECT_EQ(f.sum[row], 0);
      for (int64_t d = 0; d < a.headDim; ++d) {
        EXPECT_EQ(f.out[a.index(true, b, n, 0, d)], 0);
        EXPECT_EQ(g.dq[a.index(true, b, n, 0, d)], 0);
      }
      // Row S1 - S2 sees key 0.
      EXPECT_GT(f.sum[ref::statisticsRow(a, b, n, a.seqQ - a.seqKV)], 0);
    }
  for (double x : g.dk)
    EXPECT_FALSE(std::isnan(x));
}

} // namespace
