//===- AttentionReference.h - attention in float64, from the formulas -----===//
//
// Written from CANN's definitions (docs/flash-attention.md), not from the
// lowering or from AttentionBand: the tests compare both against it.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_TEST_UNITTESTS_ATTENTIONREFERENCE_H
#define NPU_TEST_UNITTESTS_ATTENTIONREFERENCE_H

#include <cstdint>
#include <vector>

namespace npu {
enum class ElementKind;
} // namespace npu

namespace npu::reference {

enum class Layout { BSH, SBH, BSND, BNSD, TND };

/// One attention problem. Sizes per batch come from `seqQ` / `seqKV`
/// (cumulative lengths for TND, else S1 and S2 for every batch).
struct Attention {
  Layout layout = Layout::BSND;
  int64_t batch = 1, headsQ = 1, headsKV = 1, seqQ = 1, seqKV = 1, headDim = 1;
  std::vector<int64_t> cumSeqQ, cumSeqKV; // TND only
  double scale = 1, keepProb = 1;
  int64_t sparseMode = 0, preTokens = 2147483647, nextTokens = 2147483647;
  std::vector<int64_t> prefix;
  /// Inputs in the layout's order.
  std::vector<double> q, k, v;
  /// Optional (empty: none). mask: 1 = masked, shaped [S1, S2],
  /// [B, 1, S1, S2] or [B, N1, S1, S2] (`maskShape`); pse shaped
  /// [B, N1, S1, S2], [B, N1, 1, S2] or [1, N1, S1, S2] (`pseShape`);
  /// drop: 1 = keep, [B, N1, S1, S2].
  std::vector<uint8_t> mask;
  std::vector<int64_t> maskShape;
  std::vector<double> pse;
  std::vector<int64_t> pseShape;
  std::vector<uint8_t> drop;

  int64_t getSeqQ(int64_t b) const;
  int64_t getSeqKV(int64_t b) const;
  /// Flat index of (b, head n, position s, d) in q (query) or k / v.
  int64_t index(bool query, int64_t b, int64_t n, int64_t s, int64_t d) const;
  /// Whether query row i of batch b, head n sees key j.
  bool visible(int64_t b, int64_t n, int64_t i, int64_t j) const;
  /// pse at (b, n, i, j), 0 without pse; and its flat index.
  int64_t pseIndex(int64_t b, int64_t n, int64_t i, int64_t j) const;
};

struct Forward {
  /// Shaped as q.
  std::vector<double> out;
  /// Per (b, n, i) in [B, N1, S1] order (TND: [T1, N1]): the row's maximum
  /// score (-inf when every key is masked) and sum of exp(score - max).
  std::vector<double> max, sum;
};

struct Gradients {
  std::vector<double> dq, dk, dv, dpse;
};

/// What the backward reads instead of recomputing it (CANN's
/// softmax_max, softmax_sum and attention_in): each row's max and sum,
/// ordered as Forward's, and an output shaped as q.
struct GivenStatistics {
  std::vector<double> max, sum, out;
};

/// The row index of (b, n, i) in Forward::max / sum.
int64_t statisticsRow(const Attention &a, int64_t b, int64_t n, int64_t i);

Forward forward(const Attention &a);
/// The same computed naively in `kind` (f32, f16 or bf16: every operation
/// rounds to it): the yardstick of the error criterion.
Forward forwardNaive(const Attention &a, ElementKind kind);
/// The gradients of sum(out * dy). With `given`, as CANN and
/// FlashAttention-2 define them from the given statistics: P = exp(S -
/// max) / sum and D = rowsum(dy * out) with the given max, sum and out.
Gradients backward(const Attention &a, const std::vector<double> &dy,
                   const GivenStatistics *given = nullptr);
/// The same computed naively in `kind` (f32, f16 or bf16).
Gradients backwardNaive(const Attention &a, const std::vector<double> &dy,
                        ElementKind kind,
                        const GivenStatistics *given = nullptr);

} // namespace npu::reference

#endif // NPU_TEST_UNITTESTS_ATTENTIONREFERENCE_H
