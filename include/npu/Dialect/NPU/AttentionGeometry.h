//===- AttentionGeometry.h - sizes and masks of fused attention -*- C++ -*-===//
//
// What npu.flash_attention and npu.flash_attention_grad mean in numbers, in
// one place: the verifiers check it, the device lowering and the tests'
// reference read through it (docs/flash-attention.md).
//
//===----------------------------------------------------------------------===//

#ifndef NPU_DIALECT_NPU_ATTENTIONGEOMETRY_H
#define NPU_DIALECT_NPU_ATTENTIONGEOMETRY_H

#include "npu/Dialect/NPU/NPUDialect.h"

#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <limits>
#include <optional>

namespace npu::graph {

/// The sizes of an attention op's inputs, read through its layout.
struct AttentionGeometry {
  AttentionLayout layout = AttentionLayout::BSND;
  int64_t batch = 0;
  /// N1 (query heads, head_num) and N2 (key/value heads).
  int64_t headsQ = 0, headsKV = 0;
  /// S1 and S2; for TND the longest packed sequence. Either may be
  /// ShapedType::kDynamic: read at run time (outside TND from the shapes,
  /// in TND from the seq_qlen and seq_kvlen operands).
  int64_t seqQ = 0, seqKV = 0;
  /// TND: T1, the query's rows.
  int64_t rowsQ = 0;
  int64_t headDim = 0;
  /// TND with lengths as attributes only (empty otherwise: batch b starts
  /// at b x S, or where the seq_qlen operand says): where each
  /// packed sequence starts, the cumulative lengths with a leading 0, one
  /// more entry than batches. Nothing here grows with the batch of a
  /// layout that has a batch axis, which a type may make 2^40.
  llvm::SmallVector<int64_t> startsQ, startsKV;

  /// Whether S1 and S2 are known when the op is compiled.
  bool hasStaticLengths() const { return seqQ >= 0 && seqKV >= 0; }
  /// Query heads per key/value head (N1 / N2).
  int64_t getGroup() const { return headsQ / headsKV; }
  /// Where batch b's query (key/value) sequence starts along its axis.
  int64_t getStartQ(int64_t b) const {
    return startsQ.empty() ? b * seqQ : startsQ[b];
  }
  int64_t getStartKV(int64_t b) const {
    return startsKV.empty() ? b * seqKV : startsKV[b];
  }
  int64_t getSeqQ(int64_t b) const {
    return startsQ.empty() ? seqQ : startsQ[b + 1] - startsQ[b];
  }
  int64_t getSeqKV(int64_t b) const {
    return startsKV.empty() ? seqKV : startsKV[b + 1] - startsKV[b];
  }
  /// The element of (batch b, head n, position s, d) in the flat query
  /// tensor (`query` true) or key/value tensor.
  int64_t getOffset(bool query, int64_t b, int64_t n, int64_t s,
                    int64_t d) const;
  /// The row of (b, n, s) in softmax_max / softmax_sum, whose rows hold 8
  /// equal values: [B, N1, S1, 8], or [T1, N1, 8] for TND.
  int64_t getStatisticsRow(int64_t b, int64_t n, int64_t s) const;
  /// The shapes softmax_max / softmax_sum must have.
  llvm::SmallVector<int64_t> getStatisticsShape() const;
};

/// A sparse mode's band for one sequence: key j is visible from query i
/// when low <= j - i <= high, or j < prefixEnd.
struct AttentionDiagonals {
  /// |low| and |high| at most this: no limit.
  static constexpr int64_t kUnbounded = int64_t(1) << 40;
  int64_t low = -kUnbounded, high = kUnbounded, prefixEnd = 0;
};

/// Which key positions the sparse mode and tokens leave visible to a query
/// row, ignoring any explicit mask: the columns [first, last] of row i of
/// batch b (empty when last < first). A mode's band, as CANN defines it:
/// docs/flash-attention.md.
struct AttentionBand {
  int64_t sparseMode = 0;
  int64_t preTokens = std::numeric_limits<int32_t>::max();
  int64_t nextTokens = std::numeric_limits<int32_t>::max();
  /// Per batch, the leading keys modes 5 and 6 leave visible.
  llvm::SmallVector<int64_t> prefix;
  /// Modes 7 and 8: the packed sequence whose band next_tokens sets (the
  /// last non-empty one for 7, the first for 8); -1 otherwise.
  int64_t bandBatch = -1;

  /// Whether the band is measured from the bottom right, so that it moves
  /// by S2 - S1 (for some batch): getDiagonals(b, s1, s2) is then
  /// getDiagonals(b, s, s) moved by s2 - s1.
  bool isShifted() const;
  /// The band of batch `b`'s sequence of `seqQ` queries and `seqKV` keys.
  AttentionDiagonals getDiagonals(int64_t b, int64_t seqQ, int64_t seqKV) const;
  /// Visible keys of row `i` among `seqKV` keys, for a sequence of `seqQ`
  /// queries of batch `b`: [first, last] clamped to [0, seqKV - 1].
  std::pair<int64_t, int64_t>
  getVisibleRange(int64_t b, int64_t i, int64_t seqQ, int64_t seqKV) const;
  bool isVisible(int64_t b, int64_t i, int64_t j, int64_t seqQ,
                 int64_t seqKV) const;
};

/// The dimension of query, key and value that holds the sequence length
/// in `layout`; none for TND, whose lengths are attributes.
std::optional<int64_t> getSequenceDim(AttentionLayout layout);

/// Whether an atten_mask of `maskShape` is read in `sparseMode`: modes 2
/// to 8 derive their band from positions and take CANN's compressed mask
/// ([2048, 2048], or [3072, 2048] for mode 6) without reading it; any other
/// mask is read, and masks positions on top of the band.
bool isAttentionMaskRead(int64_t sparseMode, llvm::ArrayRef<int64_t> maskShape);

/// The geometry of an npu.flash_attention or npu.flash_attention_grad
/// (an error at the op if its shapes do not fit its layout).
mlir::FailureOr<AttentionGeometry> getAttentionGeometry(mlir::Operation *op);
/// The band of such an op's sparse mode and tokens (mode 0 without
/// atten_mask has none: CANN ignores pre_tokens and next_tokens there).
AttentionBand getAttentionBand(mlir::Operation *op);

} // namespace npu::graph

#endif // NPU_DIALECT_NPU_ATTENTIONGEOMETRY_H
