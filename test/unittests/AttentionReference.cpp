//===- AttentionReference.cpp - attention in float64, from the formulas ---===//
//
// Per batch b and query head n (key/value head n / (N1 / N2)), row i:
//   s_j = scale * (pse[b, n, i, j] + q_i . k_j) for each visible key j,
//   p_j = exp(s_j - max) / sum, dropped p'_j = drop ? p_j / keep_prob : 0,
//   out_i = sum_j p'_j v_j (0 when no key is visible).
// Backward (the gradient of sum(out * dy)):
//   dv_j += p'_j dy_i, dP'_j = dy_i . v_j, dP_j = drop ? dP'_j / keep : 0,
//   D_i = sum_j p_j dP_j, dS_j = p_j (dP_j - D_i),
//   dq_i += scale dS_j k_j, dk_j += scale dS_j q_i, dpse += scale dS_j.
// O(B N1 S1 S2 D).
//
//===----------------------------------------------------------------------===//

#include "AttentionReference.h"

#include "npu/Runtime/ElementKind.h"

#include <cmath>
#include <limits>

using namespace npu;
using namespace npu::reference;

int64_t Attention::getSeqQ(int64_t b) const {
  if (layout != Layout::TND)
    return seqQ;
  return cumSeqQ[b] - (b == 0 ? 0 : cumSeqQ[b - 1]);
}

int64_t Attention::getSeqKV(int64_t b) const {
  if (layout != Layout::TND)
    return seqKV;
  return cumSeqKV[b] - (b == 0 ? 0 : cumSeqKV[b - 1]);
}

int64_t Attention::index(bool query, int64_t b, int64_t n, int64_t s,
                         int64_t d) const {
  int64_t heads = query ? headsQ : headsKV, seq = query ? seqQ : seqKV;
  switch (layout) {
  case Layout::BSH:
  case Layout::BSND:
    return ((b * seq + s) * heads + n) * headDim + d;
  case Layout::SBH:
    return ((s * batch + b) * heads + n) * headDim + d;
  case Layout::BNSD:
    return ((b * heads + n) * seq + s) * headDim + d;
  case Layout::TND: {
    const std::vector<int64_t> &cum = query ? cumSeqQ : cumSeqKV;
    return (((b == 0 ? 0 : cum[b - 1]) + s) * heads + n) * headDim + d;
  }
  }
  return -1;
}

/// CANN's sparse modes, one formula each: true when (i, j) is masked.
static bool maskedByMode(const Attention &a, int64_t b, int64_t i, int64_t j) {
  int64_t s1 = a.getSeqQ(b), s2 = a.getSeqKV(b);
  switch (a.sparseMode) {
  case 0:
    // pre_tokens and next_tokens apply only with a mask (CANN).
    return !a.mask.empty() && (j - i > a.nextTokens || i - j > a.preTokens);
  case 1:
    return false;
  case 2:
    return j > i;
  case 3:
    return j > i + (s2 - s1);
  case 4:
    return j - i - (s2 - s1) > a.nextTokens || i - j + (s2 - s1) > a.preTokens;
  case 5:
  case 6:
    return j > i + (s2 - s1) && j >= a.prefix[b];
  case 7:
  case 8: {
    // The cut sequence: the last (7) or first (8) with queries.
    int64_t cut = -1;
    for (int64_t c = 0; c < a.batch; ++c) {
      int64_t candidate = a.sparseMode == 7 ? a.batch - 1 - c : c;
      if (a.getSeqQ(candidate) > 0) {
        cut = candidate;
        break;
      }
    }
    if (b == cut)
      return j > i + (s2 - s1) + a.nextTokens;
    return a.sparseMode == 7 ? j > i + (s2 - s1) : j > i;
  }
  }
  return true;
}

bool Attention::visible(int64_t b, int64_t n, int64_t i, int64_t j) const {
  if (maskedByMode(*this, b, i, j))
    return false;
  if (mask.empty())
    return true;
  bool compressed = sparseMode >= 2 && maskShape.size() == 2 &&
                    maskShape[1] == 2048 &&
                    maskShape[0] == (sparseMode == 6 ? 3072 : 2048);
  if (compressed)
    return true;
  int64_t s1 = seqQ, s2 = seqKV;
  int64_t at = maskShape.size() == 2 ? i * s2 + j
               : maskShape[1] == 1   ? (b * s1 + i) * s2 + j
                                     : ((b * headsQ + n) * s1 + i) * s2 + j;
  return mask[at] == 0;
}

int64_t Attention::pseIndex(int64_t b, int64_t n, int64_t i, int64_t j) const {
  int64_t pb = pseShape[0] == 1 ? 0 : b, pi = pseShape[2] == 1 ? 0 : i;
  return ((pb * headsQ + n) * pseShape[2] + pi) * seqKV + j;
}

int64_t npu::reference::statisticsRow(const Attention &a, int64_t b, int64_t n,
                                      int64_t i) {
  if (a.layout == Layout::TND)
    return ((b == 0 ? 0 : a.cumSeqQ[b - 1]) + i) * a.headsQ + n;
  return (b * a.headsQ + n) * a.seqQ + i;
}

namespace {
/// One query row's probabilities, computed in T: p (before dropout) and
/// p' (after), zero at masked keys.
template <typename T> struct Row {
  std::vector<T> p, dropped;
  T max = T(-std::numeric_limits<double>::infinity()), sum = T(0);
};

/// A number of element kind K: every operation rounds its result to K, as
/// a naive implementation in that type computes.
template <ElementKind K> struct Rounded {
  double v = 0;
  Rounded() = default;
  Rounded(double x) : v(roundFloat(K, x)) {}
  explicit operator double() const { return v; }
  Rounded operator+(Rounded o) const { return Rounded(v + o.v); }
  Rounded operator-(Rounded o) const { return Rounded(v - o.v); }
  Rounded operator*(Rounded o) const { return Rounded(v * o.v); }
  Rounded operator/(Rounded o) const { return Rounded(v / o.v); }
  Rounded &operator+=(Rounded o) { return *this = *this + o; }
  bool operator<(Rounded o) const { return v < o.v; }
  bool operator==(double x) const { return v == x; }
  friend Rounded exp(Rounded x) { return Rounded(std::exp(x.v)); }
};
using std::exp;

/// Row i of batch b, head n; with `given`, P from its max and sum.
template <typename T>
Row<T> computeRow(const Attention &a, int64_t b, int64_t n, int64_t i,
                  const GivenStatistics *given = nullptr) {
  int64_t s2 = a.getSeqKV(b), kvHead = n / (a.headsQ / a.headsKV);
  Row<T> row;
  std::vector<T> scores(s2);
  std::vector<bool> seen(s2);
  for (int64_t j = 0; j < s2; ++j) {
    seen[j] = a.visible(b, n, i, j);
    if (!seen[j])
      continue;
    T dot = a.pse.empty() ? T(0) : T(a.pse[a.pseIndex(b, n, i, j)]);
    for (int64_t d = 0; d < a.headDim; ++d)
      dot += T(a.q[a.index(true, b, n, i, d)]) *
             T(a.k[a.index(false, b, kvHead, j, d)]);
    scores[j] = T(a.scale) * dot;
    row.max = std::max(row.max, scores[j]);
  }
  row.p.assign(s2, 0);
  row.dropped.assign(s2, 0);
  for (int64_t j = 0; j < s2; ++j)
    if (seen[j])
      row.sum += exp(scores[j] - row.max);
  if (given) {
    row.max = T(given->max[statisticsRow(a, b, n, i)]);
    row.sum = T(given->sum[statisticsRow(a, b, n, i)]);
  }
  for (int64_t j = 0; j < s2; ++j) {
    if (!seen[j])
      continue;
    row.p[j] = exp(scores[j] - row.max) / row.sum;
    bool keep = a.drop.empty() ||
                a.drop[((b * a.headsQ + n) * a.seqQ + i) * a.seqKV + j];
    row.dropped[j] = keep ? row.p[j] / T(a.keepProb) : T(0);
  }
  return row;
}

int64_t rowsOf(const Attention &a) {
  if (a.layout == Layout::TND)
    return a.cumSeqQ.empty() ? 0 : a.cumSeqQ.back() * a.headsQ;
  return a.batch * a.headsQ * a.seqQ;
}

template <typename T> Forward forwardIn(const Attention &a) {
  Forward f;
  f.out.assign(a.q.size(), 0);
  f.max.assign(rowsOf(a), -std::numeric_limits<double>::infinity());
  f.sum.assign(rowsOf(a), 0);
  int64_t group = a.headsQ / a.headsKV;
  for (int64_t b = 0; b < a.batch; ++b)
    for (int64_t n = 0; n < a.headsQ; ++n)
      for (int64_t i = 0; i < a.getSeqQ(b); ++i) {
        Row<T> row = computeRow<T>(a, b, n, i);
        f.max[statisticsRow(a, b, n, i)] = double(row.max);
        f.sum[statisticsRow(a, b, n, i)] = double(row.sum);
        for (int64_t d = 0; d < a.headDim; ++d) {
          T out = T(0);
          for (int64_t j = 0; j < a.getSeqKV(b); ++j)
            out += row.dropped[j] * T(a.v[a.index(false, b, n / group, j, d)]);
          f.out[a.index(true, b, n, i, d)] = double(out);
        }
      }
  return f;
}
} // namespace

Forward npu::reference::forward(const Attention &a) {
  return forwardIn<double>(a);
}

Forward npu::reference::forwardNaive(const Attention &a, ElementKind kind) {
  switch (kind) {
  case ElementKind::F16:
    return forwardIn<Rounded<ElementKind::F16>>(a);
  case ElementKind::BF16:
    return forwardIn<Rounded<ElementKind::BF16>>(a);
  default:
    return forwardIn<float>(a);
  }
}

namespace {
/// The gradients computed in T: every product and sum rounded to T (the
/// sums are kept in doubles but each addition rounds).
template <typename T>
Gradients backwardIn(const Attention &a, const std::vector<double> &dy,
                     const GivenStatistics *given) {
  Gradients g;
  g.dq.assign(a.q.size(), 0);
  g.dk.assign(a.k.size(), 0);
  g.dv.assign(a.v.size(), 0);
  g.dpse.assign(a.pse.size(), 0);
  auto add = [](double &sum, T x) { sum = double(T(sum) + x); };
  int64_t group = a.headsQ / a.headsKV;
  for (int64_t b = 0; b < a.batch; ++b)
    for (int64_t n = 0; n < a.headsQ; ++n)
      for (int64_t i = 0; i < a.getSeqQ(b); ++i) {
        Row<T> row = computeRow<T>(a, b, n, i, given);
        int64_t s2 = a.getSeqKV(b), kv = n / group;
        std::vector<T> dp(s2, T(0));
        T rowDot = T(0);
        for (int64_t j = 0; j < s2; ++j) {
          if (row.p[j] == 0)
            continue;
          T dDropped = T(0);
          for (int64_t d = 0; d < a.headDim; ++d) {
            T dyValue = T(dy[a.index(true, b, n, i, d)]);
            dDropped += dyValue * T(a.v[a.index(false, b, kv, j, d)]);
            add(g.dv[a.index(false, b, kv, j, d)], row.dropped[j] * dyValue);
          }
          dp[j] = row.dropped[j] == 0 ? T(0) : dDropped / T(a.keepProb);
          rowDot += row.p[j] * dp[j];
        }
        if (given) {
          rowDot = T(0);
          for (int64_t d = 0; d < a.headDim; ++d) {
            int64_t at = a.index(true, b, n, i, d);
            rowDot += T(dy[at]) * T(given->out[at]);
          }
        }
        for (int64_t j = 0; j < s2; ++j) {
          if (row.p[j] == 0)
            continue;
          T ds = row.p[j] * (dp[j] - rowDot) * T(a.scale);
          for (int64_t d = 0; d < a.headDim; ++d) {
            add(g.dq[a.index(true, b, n, i, d)],
                ds * T(a.k[a.index(false, b, kv, j, d)]));
            add(g.dk[a.index(false, b, kv, j, d)],
                ds * T(a.q[a.index(true, b, n, i, d)]));
          }
          if (!a.pse.empty())
            add(g.dpse[a.pseIndex(b, n, i, j)], ds);
        }
      }
  return g;
}
} // namespace

Gradients npu::reference::backward(const Attention &a,
                                   const std::vector<double> &dy,
                                   const GivenStatistics *given) {
  return backwardIn<double>(a, dy, given);
}

Gradients npu::reference::backwardNaive(const Attention &a,
                                        const std::vector<double> &dy,
                                        ElementKind kind,
                                        const GivenStatistics *given) {
  switch (kind) {
  case ElementKind::F16:
    return backwardIn<Rounded<ElementKind::F16>>(a, dy, given);
  case ElementKind::BF16:
    return backwardIn<Rounded<ElementKind::BF16>>(a, dy, given);
  default:
    return backwardIn<float>(a, dy, given);
  }
}
