//===- NPUAttentionOps.td - FlashAttention ops -------------*- tablegen -*-===//
//
// Fused attention as CANN's FlashAttentionScore / FlashAttentionScoreGrad
// define it (docs/flash-attention.md states the semantics):
//
//   out = Dropout(Softmax(Mask(scale * (pse + Q K^T), mask)), keep_prob) V
//
// per batch and query head, with key/value head h / (N1 / N2) (grouped
// query attention). NALIGN: the operands are sequences of head vectors,
// not channel-aligned feature maps.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_ATTENTION_OPS_TD
#define NPU_ATTENTION_OPS_TD

include "npu/NPUOpBase.td"

defvar NPU_AttentionAlign =
    DeclareOpInterfaceMethods<NPU_AlignModeOpInterface, ["getAlignMode"]>;

def NPU_AttentionFloat : RankedTensorOf<[F16, BF16, F32]>;
def NPU_AttentionMask : RankedTensorOf<[I1, I8]>;
// TND's cumulative sequence lengths given as data: [B] i64.
def NPU_SequenceEnds : 1DTensorOf<[I64]>;

// The attributes both ops take (CANN's names and defaults).
defvar NPU_AttentionAttrs = (ins
    NPU_AttentionLayoutAttr:$input_layout,
    ConfinedAttr<I64Attr, [IntPositive]>:$head_num,
    F64Attr:$scale,
    DefaultValuedAttr<F64Attr, "1.0">:$keep_prob,
    DefaultValuedAttr<I64Attr, "2147483647">:$pre_tokens,
    DefaultValuedAttr<I64Attr, "2147483647">:$next_tokens,
    DefaultValuedAttr<ConfinedAttr<I64Attr, [IntMinValue<0>, IntMaxValue<8>]>,
                      "0">:$sparse_mode,
    DefaultValuedAttr<ConfinedAttr<I64Attr, [IntMinValue<0>, IntMaxValue<3>]>,
                      "0">:$inner_precise,
    OptionalAttr<DenseI64ArrayAttr>:$prefix,
    OptionalAttr<DenseI64ArrayAttr>:$actual_seq_qlen,
    OptionalAttr<DenseI64ArrayAttr>:$actual_seq_kvlen);

def NPU_FlashAttentionOp : NPU_Op<"flash_attention", [Pure,
    NPU_AttentionAlign, AttrSizedOperandSegments]> {
  let summary = "fused attention forward (FlashAttentionScore)";
  let description = [{
    `query`, `key` and `value` in `input_layout` (BSH, SBH: [B, S, N x D] /
    [S, B, N x D]; BSND, BNSD; TND: [T, N, D] with `actual_seq_qlen` and
    `actual_seq_kvlen` the cumulative lengths of the packed sequences, or
    with the operands `seq_qlen` and `seq_kvlen` holding them as data, read
    when the kernel runs, [B] i64 each). S1 and S2 may be `?` outside TND.
    `head_num` is N1, the query heads; the key and value heads N2 divide N1,
    and query head h reads key/value head h / (N1 / N2).

    For each batch b, query head h, query row i and key row j the score is
    `scale * (pse[b, h, i, j] + q_i . k_j)`; positions the mask removes
    are excluded from the softmax: `atten_mask` (1 = masked; [S1, S2],
    [B, 1, S1, S2] or [B, N1, S1, S2]) and the band of `sparse_mode`:
    0 keeps -pre_tokens <= j - i <= next_tokens when `atten_mask` is given
    and everything when it is not (CANN ignores the tokens then), 1 only
    the given mask,
    2 causal from the top left (j <= i), 3 causal from the bottom right
    (j - i <= S2 - S1), 4 the band of mode 0 counted from the bottom right,
    5 and 6 mode 3 plus the first `prefix[b]` keys, 7 and 8 causal per
    packed sequence (TND: 7 from the bottom right, 8 from the top left).
    With `drop_mask` (1 = keep, [B, N1, S1, S2]) kept probabilities are
    divided by `keep_prob`.

    Results: `softmax_max` and `softmax_sum`, [B, N1, S1, 8] f32 ([T1, N1,
    8] for TND; the 8 values of a row are equal), the row's maximum score
    and its sum of exp(score - max), which the backward op reads; and
    `attention_out`, shaped and typed as `query`. A row whose keys are all
    masked gives 0 output, softmax_max -inf and softmax_sum 0. Float
    inputs are computed in f32.
  }];
  let arguments = !con((ins NPU_AttentionFloat:$query,
      NPU_AttentionFloat:$key, NPU_AttentionFloat:$value,
      Optional<NPU_AttentionMask>:$atten_mask,
      Optional<NPU_AttentionFloat>:$pse,
      Optional<NPU_AttentionMask>:$drop_mask,
      Optional<NPU_SequenceEnds>:$seq_qlen,
      Optional<NPU_SequenceEnds>:$seq_kvlen), NPU_AttentionAttrs);
  let results = (outs RankedTensorOf<[F32]>:$softmax_max,
      RankedTensorOf<[F32]>:$softmax_sum, NPU_AttentionFloat:$attention_out);
  let assemblyFormat = [{
    $query `,` $key `,` $value (`mask` $atten_mask^)? (`pse` $pse^)?
    (`drop_mask` $drop_mask^)? (`seq_qlen` $seq_qlen^)?
    (`seq_kvlen` $seq_kvlen^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def NPU_FlashAttentionGradOp : NPU_Op<"flash_attention_grad", [Pure,
    NPU_AttentionAlign, AttrSizedOperandSegments]> {
  let summary = "fused attention backward (FlashAttentionScoreGrad)";
  let description = [{
    The gradients of `npu.flash_attention` with the same inputs and
    attributes, given `dy` (the gradient of attention_out) and the forward's
    `softmax_max`, `softmax_sum` and `attention_in` (its attention_out), as
    FlashAttention-2 computes them: P recomputed from the scores and the
    softmax statistics, D = rowsum(dy * attention_in), dV = P^T dy,
    dS = P * (dy V^T - D), dQ = scale * dS K, dK = scale * dS^T Q (summed
    over the query heads of a group for GQA). `dpse` (dS per position, as
    pse is shaped) is a result exactly when `pse` is given. dq, dk and dv
    are shaped and typed as query, key and value.

    `recompute_statistics` (default true) computes each row's max, sum and
    D = rowsum(P * dP') again from the scores instead of reading
    softmax_max, softmax_sum and attention_in: the same values where those
    are the forward's exact results, and more accurate in rows that see
    few keys, for one more pass over the scores. With false the op reads
    them, as CANN and FlashAttention-2 do (docs/flash-attention.md has
    the cost and the accuracy of each).
  }];
  let arguments = !con((ins NPU_AttentionFloat:$query,
      NPU_AttentionFloat:$key, NPU_AttentionFloat:$value,
      NPU_AttentionFloat:$dy, RankedTensorOf<[F32]>:$softmax_max,
      RankedTensorOf<[F32]>:$softmax_sum, NPU_AttentionFloat:$attention_in,
      Optional<NPU_AttentionMask>:$atten_mask,
      Optional<NPU_AttentionFloat>:$pse,
      Optional<NPU_AttentionMask>:$drop_mask,
      Optional<NPU_SequenceEnds>:$seq_qlen,
      Optional<NPU_SequenceEnds>:$seq_kvlen), NPU_AttentionAttrs,
      (ins DefaultValuedAttr<BoolAttr, "true">:$recompute_statistics));
  let results = (outs NPU_AttentionFloat:$dq, NPU_AttentionFloat:$dk,
      NPU_AttentionFloat:$dv, Optional<NPU_AttentionFloat>:$dpse);
  let assemblyFormat = [{
    $query `,` $key `,` $value `,` $dy `,` $softmax_max `,` $softmax_sum `,`
    $attention_in (`mask` $atten_mask^)? (`pse` $pse^)?
    (`drop_mask` $drop_mask^)? (`seq_qlen` $seq_qlen^)?
    (`seq_kvlen` $seq_kvlen^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

#endif // NPU_ATTENTION_OPS_TD
