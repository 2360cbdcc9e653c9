//===- FlashAttentionForward.cpp - npu.flash_attention on the device ------===//
//
// FlashAttention forward as CANN's FlashAttentionScore splits it between core
// kinds, one npudev.mixed_launch of G groups, each a cube task and R vector
// tasks (ascend910b: an AIC and its two AIV). Work items are (batch, head,
// block of s1Inner query rows), dealt to the groups in turn. For each item the
// key blocks of s2Inner keys that the sparse mode's band reaches are
// visited in order (blocks the band misses entirely are skipped); per
// block, through a two-slot global workspace:
//   cube:   S = Q K^T (128-key base blocks) into ws_s      -> flag 0
//   vector: online softmax of its rows of S, in chunks of rows:
//           scale, band mask (-inf), m' = max(m, rowmax), P = exp(S - m'),
//           l = l e^(m - m') + rowsum(P); P into ws_p        -> flag 1
//   cube:   O = P V (accumulated over 128-key chunks) into ws_o -> flag 2
//   vector: acc = acc e^(m - m') + O
// The cube computes block k + 1's S before it waits for block k's P (the cube
// double issue of CANN's design), and the vector folds in block k's O after
// block k + 1's softmax, so neither waits for what it has just asked of the
// other; the two slots (of the workspace, and of e^(m - m')) make that safe
// without further flags. At the end of an item each vector task
// writes its rows: out = acc / l (0 where no key is visible),
// softmax_max = m and softmax_sum = l, 8 copies each. Nothing of size
// S1 x S2 is stored: the workspace is G x 2 tiles. Work O(B N S1 S2 D).
//
// pse is added to S before the scale, a read atten_mask sets -inf where it
// is 1, and drop_mask zeroes dropped probabilities (the kept ones divided
// by keep_prob) after their row sum: all on the vector side, tile by tile.
// Every layout (TND's packed sequences through a per-batch table of starts,
// lengths and bands) and every sparse mode.
//
//===----------------------------------------------------------------------===//

#include "FlashAttentionLowering.h"
#include "OperatorKernels.h"

using namespace mlir;
using namespace npu;
using namespace npu::graph;
using namespace npu::attention;

namespace {

/// The forward's kernel: one mixed launch (see above).
struct AttentionForwardLowering : AttentionLowering<FlashAttentionOp> {
  using AttentionLowering::AttentionLowering;

  /// No query rows: nothing to write.
  static bool hasNoWork(const AttentionGeometry &g) {
    return g.batch * g.headsQ * g.seqQ == 0;
  }

  //===--- Cube side ------------------------------------------------------===//

  void buildCube(Value group) {
    auto cube = [&](ArrayRef<int64_t> shape, Type type) {
      return k.alloc(shape, type, dev::MemorySpace::cube);
    };
    Value qTile = cube({s1Inner, g.headDim}, element);
    Value kTile = cube({cubeKeys, g.headDim}, element);
    Value sTile = cube({s1Inner, cubeKeys}, f32);
    Value pTile = cube({s1Inner, cubeKeys}, element);
    Value oTile = cube({s1Inner, g.headDim}, f32);
    Value d = k.index(g.headDim), zero = k.index(0);
    forEachItem(group, [&](const Item &it) {
      k.dma(headRows(query, true, it, it.n, it.r0, it.rows),
            rowsOf(qTile, zero, it.rows, zero, d));
      auto signalVectors = [&](int64_t flag) {
        for (int64_t v = 0; v < vectorsPerGroup; ++v)
          k.setFlag(flag, dev::CoreKind::vector,
                    k.add(k.mul(group, k.index(vectorsPerGroup)), k.index(v)));
      };
      auto scores = [&](Value kb) {
        Value c0, cols;
        std::tie(c0, cols) = keyBlock(it, kb);
        Value slot = k.rem(kb, k.index(2));
        forEachCubeBlock(cols, [&](Value cb, Value cc) {
          Value kRows = rowsOf(kTile, zero, cc, zero, d);
          k.dma(headRows(key, false, it, it.kvHead, k.add(c0, cb), cc), kRows);
          Value s = rowsOf(sTile, zero, it.rows, zero, cc);
          k.matmul(rowsOf(qTile, zero, it.rows, zero, d), kRows, s,
                   /*accumulate=*/false, /*transposeB=*/true);
          k.dma(s, slotTile(wsScores, group, slot, zero, it.rows, cb, cc));
        });
        signalVectors(kScoresReady);
      };
      auto output = [&](Value kb) {
        Value c0, cols;
        std::tie(c0, cols) = keyBlock(it, kb);
        Value slot = k.rem(kb, k.index(2));
        for (int64_t v = 0; v < vectorsPerGroup; ++v)
          k.waitFlag(kProbsReady + v);
        Value o = rowsOf(oTile, zero, it.rows, zero, d);
        forEachCubeBlock(cols, [&](Value cb, Value cc) {
          Value p = rowsOf(pTile, zero, it.rows, zero, cc);
          k.dma(slotTile(wsProbs, group, slot, zero, it.rows, cb, cc), p);
          Value vRows = rowsOf(kTile, zero, cc, zero, d);
          k.dma(headRows(value, false, it, it.kvHead, k.add(c0, cb), cc),
                vRows);
          // The first chunk starts the sum, the others add to it.
          k.ifThenElse(
              k.lt(cb, k.index(1)),
              [&] { k.matmul(p, vRows, o, /*accumulate=*/false); },
              [&] { k.matmul(p, vRows, o, /*accumulate=*/true); });
        });
        k.dma(o, slotTile(wsOutput, group, slot, zero, it.rows, zero, d));
        signalVectors(kOutputReady);
      };
      // Block k + 1's scores go out before block k's output is computed.
      k.forLoop(zero, k.add(it.blocks, k.index(1)), k.index(1), [&](Value kb) {
        k.ifThenElse(k.lt(kb, it.blocks), [&] { scores(kb); });
        k.ifThenElse(k.ge(kb, k.index(1)),
                     [&] { output(k.sub(kb, k.index(1))); });
      });
    });
  }

  /// for (cb = 0; cb < cols; cb += cubeKeys)
  ///   body(cb, min(cubeKeys, cols - cb)).
  void forEachCubeBlock(Value cols, function_ref<void(Value, Value)> body) {
    k.forLoop(k.index(0), cols, k.index(cubeKeys), [&](Value cb) {
      body(cb, k.min(k.index(cubeKeys), k.sub(cols, cb)));
    });
  }

  void buildVector(Value task) {
    VectorBuffers buf = allocVector();
    Value group = k.div(task, k.index(vectorsPerGroup));
    Value part = k.rem(task, k.index(vectorsPerGroup));
    double inf = std::numeric_limits<double>::infinity();
    k.vfill(buf.negInf, k.f32(-inf));
    Value zero = k.index(0);
    forEachItem(group, [&](const Item &it) {
      // This task's rows of the item: [own0, own0 + own) within it.
      Value own0 = k.mul(part, k.index(rowsPerVector));
      Value own =
          k.max(zero, k.min(k.index(rowsPerVector), k.sub(it.rows, own0)));
      k.vfill(buf.acc, k.f32(0));
      k.vfill(buf.rowMax, k.f32(-inf));
      k.vfill(buf.rowSum, k.f32(0));
      // Block k's softmax, then block k - 1's output folded in: the task
      // never waits for the output of the probabilities it just wrote.
      k.forLoop(zero, k.add(it.blocks, k.index(1)), k.index(1), [&](Value kb) {
        k.ifThenElse(k.lt(kb, it.blocks), [&] {
          Value c0, cols;
          std::tie(c0, cols) = keyBlock(it, kb);
          Value slot = k.rem(kb, k.index(2));
          k.waitFlag(kScoresReady);
          forEachChunk(own, [&](Value r, Value rows) {
            softmaxChunk(buf, it, group, slot, k.add(own0, r), r, rows, c0,
                         cols);
          });
          signalCube(part, group);
        });
        k.ifThenElse(k.ge(kb, k.index(1)), [&] {
          k.waitFlag(kOutputReady);
          Value slot = k.rem(k.sub(kb, k.index(1)), k.index(2));
          forEachChunk(own, [&](Value r, Value rows) {
            foldOutput(buf, group, slot, own0, r, rows);
          });
        });
      });
      forEachChunk(own, [&](Value r, Value rows) {
        writeRows(buf, it, k.add(it.r0, k.add(own0, r)), r, rows);
      });
    });
  }

  /// acc = acc alpha + O for own rows [r, r + rows) (item rows from own0 +
  /// r), O and alpha from slot `slot`.
  void foldOutput(const VectorBuffers &buf, Value group, Value slot, Value own0,
                  Value r, Value rows) {
    Value zero = k.index(0), d = k.index(g.headDim);
    Value o = rowsOf(buf.oChunk, zero, rows, zero, d);
    k.dma(slotTile(wsOutput, group, slot, k.add(own0, r), rows, zero, d), o);
    Value acc = rowsOf(buf.acc, r, rows, zero, d);
    k.vbinaryBroadcast(dev::BinaryKind::mul, acc, alphaRows(buf, slot, r, rows),
                       acc, 0);
    k.vbinary(dev::BinaryKind::add, acc, o, acc);
  }

  /// The online softmax of item rows [row, row + rows) (own rows [r, r +
  /// rows)) against keys [c0, c0 + cols).
  void softmaxChunk(const VectorBuffers &buf, const Item &it, Value group,
                    Value slot, Value row, Value r, Value rows, Value c0,
                    Value cols) {
    Value zero = k.index(0);
    Value s = rowsOf(buf.scores, zero, rows, zero, cols);
    k.dma(slotTile(wsScores, group, slot, row, rows, zero, cols), s);
    Value i0 = k.add(it.r0, row);
    prepareScores(buf, it, s, i0, rows, c0, cols);
    updateSoftmax(buf, s, r, rows, slot);
    if (dropMask) {
      Value keep = loadKeep(buf, it, i0, rows, c0, cols);
      applyDropout(s, keep);
    }
    Value p = rowsOf(buf.probs, zero, rows, zero, cols);
    if (element == f32)
      p = s;
    else
      k.vcast(s, p);
    k.dma(p, slotTile(wsProbs, group, slot, row, rows, zero, cols));
  }

  /// out = acc / l (0 where l = 0), softmax_max = m, softmax_sum = l.
  void writeRows(const VectorBuffers &buf, const Item &it, Value row, Value r,
                 Value rows) {
    Value zero = k.index(0), d = k.index(g.headDim);
    Value acc = rowsOf(buf.acc, r, rows, zero, d);
    Value m = k.window(buf.rowMax, {r}, {rows});
    Value l = k.window(buf.rowSum, {r}, {rows});
    k.vbinaryBroadcast(dev::BinaryKind::div, acc, rowSumDivisor(buf, r, rows),
                       acc, 0);
    Value target = headRows(out, true, it, it.n, row, rows);
    if (element == f32) {
      k.dma(acc, target);
    } else {
      Value narrow = rowsOf(buf.outNarrow, zero, rows, zero, d);
      k.vcast(acc, narrow);
      k.dma(narrow, target);
    }
    Value stats = rowsOf(buf.statsChunk, zero, rows, zero, k.index(8));
    for (auto [source, result] : {std::pair{m, maxOut}, {l, sumOut}}) {
      k.vfill(stats, k.f32(0));
      k.vbinaryBroadcast(dev::BinaryKind::add, stats, source, stats, 0);
      k.dma(stats, statisticsRows(result, it, row, rows));
    }
  }

  //===--- The kernel -----------------------------------------------------===//

  void build() {
    OpBuilder &b = k.builder();
    wsScores = workspace(s2Inner, f32);
    wsProbs = workspace(s2Inner, element);
    wsOutput = workspace(g.headDim, f32);
    batchTable = buildBatchTable();
    dev::MixedLaunchOp launch = k.mixedLaunch(
        groups, groups * vectorsPerGroup, [&](Value t) { buildCube(t); },
        [&](Value t) { buildVector(t); });
    recordTiling(launch);
    for (Value ws : {wsScores, wsProbs, wsOutput, batchTable})
      if (ws)
        b.create<memref::DeallocOp>(k.location(), ws);
  }

  void recordTiling(dev::MixedLaunchOp launch) {
    Builder b(launch.getContext());
    uint64_t key = attention::getTilingKey(tiling.key);
    launch->setAttr(
        "npudev.tiling",
        b.getDictionaryAttr(
            {b.getNamedAttr("strategy", b.getStringAttr("flash_attention")),
             b.getNamedAttr("template",
                            b.getStringAttr(attention::stringifyForwardTemplate(
                                tiling.kind))),
             b.getNamedAttr("tiling_key", b.getStringAttr(std::to_string(key))),
             b.getNamedAttr("s1_inner", b.getI64IntegerAttr(s1Inner)),
             b.getNamedAttr("s2_inner", b.getI64IntegerAttr(s2Inner)),
             b.getNamedAttr("groups", b.getI64IntegerAttr(groups))}));
  }
};

} // namespace

void npu::registerFlashAttentionKernelModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, NPUDialect *) {
    FlashAttentionOp::attachInterface<
        AttentionKernelModel<AttentionForwardLowering, FlashAttentionOp>>(*ctx);
  });
}
