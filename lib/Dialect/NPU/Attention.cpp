//===- Attention.cpp - fused attention: geometry, bands, verifiers --------===//
//
// The verifiers read every size through AttentionGeometry (the layout
// decides which axis is which) and then check each relation with a message
// naming the operand, the sizes and the rule. O(rank + batch).
//
//===----------------------------------------------------------------------===//

#include "OpDiagnostics.h"
#include "npu/Dialect/NPU/NPUOps.h"

#include "mlir/IR/TypeUtilities.h"

#include <algorithm>
#include <cstdio>

using namespace mlir;
using namespace npu::graph;

//===----------------------------------------------------------------------===//
// AttentionGeometry
//===----------------------------------------------------------------------===//

int64_t AttentionGeometry::getOffset(bool query, int64_t b, int64_t n,
                                     int64_t s, int64_t d) const {
  int64_t heads = query ? headsQ : headsKV;
  int64_t seq = query ? seqQ : seqKV;
  switch (layout) {
  case AttentionLayout::BSH:
  case AttentionLayout::BSND:
    return ((b * seq + s) * heads + n) * headDim + d;
  case AttentionLayout::SBH:
    return ((s * batch + b) * heads + n) * headDim + d;
  case AttentionLayout::BNSD:
    return ((b * heads + n) * seq + s) * headDim + d;
  case AttentionLayout::TND:
    return ((query ? getStartQ(b) : getStartKV(b)) + s) * heads * headDim +
           n * headDim + d;
  }
  llvm_unreachable("unknown attention layout");
}

int64_t AttentionGeometry::getStatisticsRow(int64_t b, int64_t n,
                                            int64_t s) const {
  if (layout == AttentionLayout::TND)
    return (getStartQ(b) + s) * headsQ + n;
  return (b * headsQ + n) * seqQ + s;
}

SmallVector<int64_t> AttentionGeometry::getStatisticsShape() const {
  if (layout == AttentionLayout::TND)
    return {rowsQ, headsQ, 8};
  return {batch, headsQ, seqQ, 8};
}

//===----------------------------------------------------------------------===//
// AttentionBand
//===----------------------------------------------------------------------===//

bool AttentionBand::isShifted() const {
  return (sparseMode >= 3 && sparseMode <= 7) ||
         (sparseMode == 8 && bandBatch >= 0);
}

AttentionDiagonals AttentionBand::getDiagonals(int64_t b, int64_t seqQ,
                                               int64_t seqKV) const {
  constexpr int64_t kAll = AttentionDiagonals::kUnbounded;
  // Visible: -before <= j - i - shift <= after.
  int64_t shift = 0, before = kAll, after = kAll;
  switch (sparseMode) {
  case 0:
    before = preTokens;
    after = nextTokens;
    break;
  case 1:
    break;
  case 2:
    after = 0;
    break;
  case 3:
  case 5:
  case 6:
    shift = seqKV - seqQ;
    after = 0;
    break;
  case 4:
    shift = seqKV - seqQ;
    before = preTokens;
    after = nextTokens;
    break;
  case 7:
  case 8:
    // A long sequence split across devices: each packed sequence is causal
    // (7 from the bottom right, 8 from the top left) except the one cut
    // (7 the last non-empty, 8 the first), whose band ends next_tokens
    // past the bottom-right diagonal.
    shift = sparseMode == 7 || b == bandBatch ? seqKV - seqQ : 0;
    after = b == bandBatch ? nextTokens : 0;
    break;
  }
  AttentionDiagonals d;
  d.low = shift - std::min(before, kAll);
  d.high = shift + std::min(after, kAll);
  // The prefix modes also show the first prefix[b] keys.
  if ((sparseMode == 5 || sparseMode == 6) && b < (int64_t)prefix.size())
    d.prefixEnd = std::min(prefix[b], seqKV);
  return d;
}

std::pair<int64_t, int64_t>
AttentionBand::getVisibleRange(int64_t b, int64_t i, int64_t seqQ,
                               int64_t seqKV) const {
  AttentionDiagonals d = getDiagonals(b, seqQ, seqKV);
  int64_t first = std::max<int64_t>(0, i + d.low);
  int64_t last = std::min<int64_t>(seqKV - 1, i + d.high);
  // The prefix keys [0, prefixEnd) join the band, which starts at 0 in
  // the prefix modes: one range still.
  if (d.prefixEnd > 0) {
    first = 0;
    last = std::max(last, d.prefixEnd - 1);
  }
  return {first, last};
}

bool AttentionBand::isVisible(int64_t b, int64_t i, int64_t j, int64_t seqQ,
                              int64_t seqKV) const {
  auto [first, last] = getVisibleRange(b, i, seqQ, seqKV);
  return j >= first && j <= last;
}

std::optional<int64_t> npu::graph::getSequenceDim(AttentionLayout layout) {
  switch (layout) {
  case AttentionLayout::BSH:
  case AttentionLayout::BSND:
    return 1;
  case AttentionLayout::SBH:
    return 0;
  case AttentionLayout::BNSD:
    return 2;
  case AttentionLayout::TND:
    return std::nullopt;
  }
  llvm_unreachable("unknown attention layout");
}

bool npu::graph::isAttentionMaskRead(int64_t sparseMode,
                                     ArrayRef<int64_t> maskShape) {
  if (sparseMode < 2 || maskShape.size() != 2 || maskShape[1] != 2048)
    return true;
  return maskShape[0] != (sparseMode == 6 ? 3072 : 2048);
}

//===----------------------------------------------------------------------===//
// Verifiers
//===----------------------------------------------------------------------===//

namespace {

/// `v` as a person writes it: 0.5, 1e-09.
std::string formatNumber(double v) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", v);
  return text;
}

ArrayRef<int64_t> shapeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}

/// Reads the geometry of an attention op from its query and key, checking
/// each relation as it goes.
template <typename OpT> struct AttentionChecker {
  OpT op;
  AttentionGeometry g;

  InFlightDiagnostic error() { return op.emitOpError(); }

  /// The query's or key's (B, S, N, D) through the layout.
  LogicalResult readSides() {
    g.layout = op.getInputLayout();
    int64_t rank =
        g.layout == AttentionLayout::BSND || g.layout == AttentionLayout::BNSD
            ? 4
            : 3;
    for (auto [name, v] : {std::pair<StringRef, Value>{"query", op.getQuery()},
                           {"key", op.getKey()},
                           {"value", op.getValue()}}) {
      auto type = cast<RankedTensorType>(v.getType());
      if (type.getRank() != rank)
        return error() << name << " must have rank " << rank << " for layout "
                       << stringifyAttentionLayout(g.layout) << ", got "
                       << type;
      // TND's rows (T) may be read at run time, with its lengths.
      int64_t dynamicDim = getSequenceDim(g.layout).value_or(0);
      for (auto [d, size] : llvm::enumerate(type.getShape()))
        if (ShapedType::isDynamic(size) && dynamicDim != int64_t(d))
          return error() << name << " must have a static shape except its "
                         << (g.layout == AttentionLayout::TND
                                 ? "rows"
                                 : "sequence length")
                         << " (dimension " << dynamicDim << "), got " << type;
    }
    if (op.getKey().getType() != op.getValue().getType())
      return error() << "key and value must have one type, got "
                     << op.getKey().getType() << " and "
                     << op.getValue().getType();
    if (getElementTypeOrSelf(op.getQuery()) !=
        getElementTypeOrSelf(op.getKey()))
      return error() << "query and key must have one element type, got "
                     << getElementTypeOrSelf(op.getQuery()) << " and "
                     << getElementTypeOrSelf(op.getKey());
    ArrayRef<int64_t> q = shapeOf(op.getQuery()), k = shapeOf(op.getKey());
    int64_t n1 = op.getHeadNum();
    int64_t batchQ = 0, batchK = 0;
    switch (g.layout) {
    case AttentionLayout::BSH:
    case AttentionLayout::SBH: {
      bool bsh = g.layout == AttentionLayout::BSH;
      batchQ = bsh ? q[0] : q[1];
      batchK = bsh ? k[0] : k[1];
      g.seqQ = bsh ? q[1] : q[0];
      g.seqKV = bsh ? k[1] : k[0];
      if (q[2] % n1 != 0)
        return error() << "query's hidden size " << q[2]
                       << " is not a multiple of head_num " << n1;
      g.headDim = q[2] / n1;
      g.headsQ = n1;
      if (g.headDim == 0 || k[2] % g.headDim != 0)
        return error() << "key's hidden size " << k[2]
                       << " is not a multiple of the head size " << g.headDim;
      g.headsKV = k[2] / g.headDim;
      break;
    }
    case AttentionLayout::BSND:
    case AttentionLayout::BNSD: {
      bool bsnd = g.layout == AttentionLayout::BSND;
      batchQ = q[0];
      batchK = k[0];
      g.seqQ = bsnd ? q[1] : q[2];
      g.seqKV = bsnd ? k[1] : k[2];
      g.headsQ = bsnd ? q[2] : q[1];
      g.headsKV = bsnd ? k[2] : k[1];
      g.headDim = q[3];
      if (k[3] != q[3])
        return error() << "query and key head sizes differ: " << q[3] << " vs "
                       << k[3];
      break;
    }
    case AttentionLayout::TND:
      g.headsQ = q[1];
      g.headsKV = k[1];
      g.headDim = q[2];
      if (k[2] != q[2])
        return error() << "query and key head sizes differ: " << q[2] << " vs "
                       << k[2];
      break;
    }
    if (g.layout != AttentionLayout::TND && batchQ != batchK)
      return error() << "query and key batch sizes differ: " << batchQ << " vs "
                     << batchK;
    g.batch = batchQ;
    if (g.headsQ != n1)
      return error() << "query has " << g.headsQ << " heads but head_num is "
                     << n1;
    if (g.headsKV == 0 || g.headsQ % g.headsKV != 0)
      return error() << "query heads " << g.headsQ
                     << " are not a multiple of key/value heads " << g.headsKV;
    return success();
  }

  /// Sequence starts per batch; for TND from the cumulative lengths, or
  /// none when those are data (seq_qlen, seq_kvlen), read at run time.
  LogicalResult readSequences() {
    auto qlen = op.getActualSeqQlenAttr(), kvlen = op.getActualSeqKvlenAttr();
    Value qData = op.getSeqQlen(), kvData = op.getSeqKvlen();
    if (g.layout != AttentionLayout::TND) {
      if (qlen || kvlen)
        return error() << "actual_seq_qlen and actual_seq_kvlen are for "
                          "layout TND only";
      if (qData || kvData)
        return error() << "seq_qlen and seq_kvlen are for layout TND only";
      return success();
    }
    g.rowsQ = shapeOf(op.getQuery())[0];
    if (qData || kvData)
      return readSequenceOperands(qlen || kvlen);
    for (auto [name, v] : {std::pair<StringRef, Value>{"query", op.getQuery()},
                           {"key", op.getKey()}})
      if (ShapedType::isDynamic(shapeOf(v)[0]))
        return error() << name << "'s rows are read at run time ("
                       << v.getType()
                       << "), so its lengths must be too: give seq_qlen and "
                          "seq_kvlen instead of actual_seq_qlen and "
                          "actual_seq_kvlen";
    if (!qlen || !kvlen)
      return error() << "layout TND needs actual_seq_qlen and "
                        "actual_seq_kvlen";
    if (qlen.size() != kvlen.size())
      return error() << "actual_seq_qlen has " << qlen.size()
                     << " batches but actual_seq_kvlen " << kvlen.size();
    g.batch = qlen.size();
    for (auto [name, lens, total, starts, longest] :
         {std::make_tuple(StringRef("actual_seq_qlen"), qlen.asArrayRef(),
                          shapeOf(op.getQuery())[0], &g.startsQ, &g.seqQ),
          std::make_tuple(StringRef("actual_seq_kvlen"), kvlen.asArrayRef(),
                          shapeOf(op.getKey())[0], &g.startsKV, &g.seqKV)}) {
      starts->assign(1, 0);
      for (auto [b, end] : llvm::enumerate(lens)) {
        if (end < starts->back())
          return error() << name << " must be cumulative (non-decreasing), "
                         << "but batch " << b << " ends at " << end
                         << " before " << starts->back();
        *longest = std::max(*longest, end - starts->back());
        starts->push_back(end);
      }
      if (starts->back() != total)
        return error() << name << " ends at " << starts->back()
                       << " but the tensor holds " << total << " rows";
    }
    return success();
  }

  /// TND's cumulative lengths as operands: the number of batches only;
  /// the lengths are read at run time.
  LogicalResult readSequenceOperands(bool alsoAttributes) {
    Value qData = op.getSeqQlen(), kvData = op.getSeqKvlen();
    if (alsoAttributes)
      return error() << "takes the sequence lengths as attributes or as the "
                        "seq_qlen and seq_kvlen operands, not both";
    if (!qData || !kvData)
      return error() << "layout TND needs both seq_qlen and seq_kvlen";
    int64_t batchQ = shapeOf(qData)[0], batchKV = shapeOf(kvData)[0];
    if (ShapedType::isDynamic(batchQ) || batchQ != batchKV)
      return error() << "seq_qlen and seq_kvlen must have one static number "
                        "of batches, got "
                     << qData.getType() << " and " << kvData.getType();
    g.batch = batchQ;
    g.seqQ = g.seqKV = ShapedType::kDynamic;
    // Without batches no length accounts for the rows (and no run-time
    // check of the ends would see them).
    int64_t rowsKV = shapeOf(op.getKey())[0];
    if (g.batch == 0 && (g.rowsQ != 0 || rowsKV != 0))
      return error() << "seq_qlen and seq_kvlen hold no batch, but query has "
                     << op.getQuery().getType() << " and key "
                     << op.getKey().getType() << ": their rows must be 0";
    return success();
  }

  /// A shape `value` must have, one of `allowed`.
  LogicalResult checkShape(StringRef name, Value value,
                           ArrayRef<SmallVector<int64_t>> allowed) {
    ArrayRef<int64_t> shape = shapeOf(value);
    if (llvm::any_of(allowed, [&](const SmallVector<int64_t> &s) {
          return ArrayRef<int64_t>(s) == shape;
        }))
      return success();
    InFlightDiagnostic diag = error() << name << " must be shaped ";
    llvm::interleave(
        allowed,
        [&](const SmallVector<int64_t> &s) {
          diag << npu::graph::detail::formatShape(s);
        },
        [&] { diag << " or "; });
    return diag << ", got " << value.getType();
  }

  LogicalResult checkOptionalInputs() {
    int64_t b = g.batch, n1 = g.headsQ, s1 = g.seqQ, s2 = g.seqKV;
    bool tnd = g.layout == AttentionLayout::TND;
    int64_t mode = op.getSparseMode();
    if (Value mask = op.getAttenMask()) {
      // Modes 2 to 8 derive their band from positions; CANN has them take
      // a compressed mask of the band, accepted here and not read.
      SmallVector<SmallVector<int64_t>> shapes = {
          {s1, s2}, {b, 1, s1, s2}, {b, n1, s1, s2}};
      if (mode >= 2)
        shapes.push_back({mode == 6 ? 3072 : 2048, 2048});
      if (failed(checkShape("atten_mask", mask, shapes)))
        return failure();
    } else if (mode == 1) {
      return error() << "sparse_mode 1 (all mask) needs atten_mask";
    }
    if (Value pse = op.getPse()) {
      if (tnd)
        return error() << "pse is not supported with layout TND";
      if (getElementTypeOrSelf(pse) != getElementTypeOrSelf(op.getQuery()))
        return error() << "pse must have the query's element type, got "
                       << pse.getType();
      if (failed(checkShape(
              "pse", pse, {{b, n1, s1, s2}, {b, n1, 1, s2}, {1, n1, s1, s2}})))
        return failure();
    }
    double keep = op.getKeepProb().convertToDouble();
    if (!(keep > 0 && keep <= 1))
      return error() << "keep_prob must be in (0, 1], got "
                     << formatNumber(keep);
    Value drop = op.getDropMask();
    if (keep < 1 && !drop)
      return error() << "keep_prob " << formatNumber(keep)
                     << " needs drop_mask";
    if (drop) {
      if (tnd)
        return error() << "drop_mask is not supported with layout TND";
      if (failed(checkShape("drop_mask", drop, {{b, n1, s1, s2}})))
        return failure();
    }
    if ((mode == 7 || mode == 8) && !tnd)
      return error() << "sparse_mode " << mode
                     << " (causal per packed sequence) needs layout TND";
    auto prefix = op.getPrefixAttr();
    if (mode == 5 || mode == 6) {
      if (!prefix || static_cast<int64_t>(prefix.size()) != b)
        return error() << "sparse_mode " << mode << " needs prefix with one "
                       << "entry per batch (" << b << ")";
      for (auto [i, p] : llvm::enumerate(prefix.asArrayRef()))
        if (p < 0 || (!ShapedType::isDynamic(s2) && p > s2))
          return error() << "prefix[" << i << "] = " << p << " is outside [0, "
                         << s2 << "]";
    } else if (prefix) {
      return error() << "prefix is for sparse_mode 5 and 6 only";
    }
    return success();
  }

  /// `name` must be typed as `like` (shape and element type).
  LogicalResult checkTypedAs(StringRef name, Value v, StringRef likeName,
                             Value like) {
    if (v.getType() == like.getType())
      return success();
    return error() << name << " must have " << likeName << "'s type "
                   << like.getType() << ", got " << v.getType();
  }

  LogicalResult checkStatistics(StringRef name, Value v) {
    SmallVector<int64_t> expected = g.getStatisticsShape();
    if (shapeOf(v) == ArrayRef<int64_t>(expected))
      return success();
    InFlightDiagnostic diag = error() << name << " must be shaped ";
    diag << npu::graph::detail::formatShape(expected);
    return diag << " (f32), got " << v.getType();
  }

  LogicalResult verifyCommon() {
    if (failed(readSides()) || failed(readSequences()) ||
        failed(checkOptionalInputs()))
      return failure();
    return success();
  }
};

template <typename OpT> AttentionChecker<OpT> makeChecker(OpT op) {
  return AttentionChecker<OpT>{op, {}};
}

} // namespace

LogicalResult FlashAttentionOp::verify() {
  auto c = makeChecker(*this);
  if (failed(c.verifyCommon()) ||
      failed(c.checkStatistics("softmax_max", getSoftmaxMax())) ||
      failed(c.checkStatistics("softmax_sum", getSoftmaxSum())))
    return failure();
  return c.checkTypedAs("attention_out", getAttentionOut(), "query",
                        getQuery());
}

LogicalResult FlashAttentionGradOp::verify() {
  auto c = makeChecker(*this);
  if (failed(c.verifyCommon()) ||
      failed(c.checkStatistics("softmax_max", getSoftmaxMax())) ||
      failed(c.checkStatistics("softmax_sum", getSoftmaxSum())) ||
      failed(c.checkTypedAs("dy", getDy(), "query", getQuery())) ||
      failed(c.checkTypedAs("attention_in", getAttentionIn(), "query",
                            getQuery())) ||
      failed(c.checkTypedAs("dq", getDq(), "query", getQuery())) ||
      failed(c.checkTypedAs("dk", getDk(), "key", getKey())) ||
      failed(c.checkTypedAs("dv", getDv(), "value", getValue())))
    return failure();
  if (bool(getPse()) != bool(getDpse()))
    return emitOpError() << (getPse() ? "has pse but no dpse result"
                                      : "has a dpse result but no pse");
  if (getPse())
    return c.checkTypedAs("dpse", getDpse(), "pse", getPse());
  return success();
}

AlignMode FlashAttentionOp::getAlignMode() { return AlignMode::NALIGN; }
AlignMode FlashAttentionGradOp::getAlignMode() { return AlignMode::NALIGN; }

FailureOr<AttentionGeometry> npu::graph::getAttentionGeometry(Operation *op) {
  if (auto fa = dyn_cast<FlashAttentionOp>(op)) {
    auto c = makeChecker(fa);
    if (failed(c.readSides()) || failed(c.readSequences()))
      return failure();
    return c.g;
  }
  auto grad = cast<FlashAttentionGradOp>(op);
  auto c = makeChecker(grad);
  if (failed(c.readSides()) || failed(c.readSequences()))
    return failure();
  return c.g;
}

AttentionBand npu::graph::getAttentionBand(Operation *op) {
  AttentionBand band;
  auto read = [&](auto typed) {
    band.sparseMode = typed.getSparseMode();
    band.preTokens = typed.getPreTokens();
    band.nextTokens = typed.getNextTokens();
    // CANN's mode 0 without atten_mask computes every position: pre_tokens
    // and next_tokens count only when a mask is given.
    if (band.sparseMode == 0 && !typed.getAttenMask())
      band.preTokens = band.nextTokens = AttentionDiagonals::kUnbounded;
    if (auto prefix = typed.getPrefixAttr())
      band.prefix.assign(prefix.asArrayRef().begin(),
                         prefix.asArrayRef().end());
    int64_t mode = typed.getSparseMode();
    auto qlen = typed.getActualSeqQlenAttr();
    if ((mode != 7 && mode != 8) || !qlen)
      return;
    // The last (7) or first (8) packed sequence with any query.
    ArrayRef<int64_t> ends = qlen.asArrayRef();
    for (int64_t i = 0, e = ends.size(); i < e; ++i) {
      int64_t b = mode == 7 ? e - 1 - i : i;
      if (ends[b] > (b == 0 ? 0 : ends[b - 1])) {
        band.bandBatch = b;
        break;
      }
    }
  };
  if (auto fa = dyn_cast<FlashAttentionOp>(op))
    read(fa);
  else
    read(cast<FlashAttentionGradOp>(op));
  return band;
}
