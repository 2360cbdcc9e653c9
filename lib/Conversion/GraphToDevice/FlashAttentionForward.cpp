//===- FlashAttentionForward.cpp - npu.flash_attention on the device ------===//
//
// FlashAttention forward as CANN's FlashAttentionScore splits it between core
// kinds, one npudev.mixed_launch of G groups, each a cube task and R vector
// tasks (ascend910b: an AIC and its two AIV). Work items are (batch, head,
// block of s1Inner query rows), dealt to the groups heaviest first
// (forEachGroupItem). For each item the key blocks of s2Inner keys that the
// sparse mode's band reaches are visited in order (blocks the band misses
// entirely are skipped); per block, through a two-slot global workspace:
//   cube:   S = Q K^T (128-key base blocks) into ws_s      -> flag 0
//   vector: online softmax of its rows of S, in chunks of rows:
//           scale, band mask (-inf), m' = max(m, rowmax), P = exp(S - m'),
//           l = l e^(m - m') + rowsum(P); P into ws_p        -> flag 1
//   cube:   O = P V (accumulated over 128-key chunks) into ws_o -> flag 2
//   vector: acc = acc e^(m - m') + O
// A step is an item's key block; steps follow one another across items.
// The cube computes step k's S together with step k - 2's O (cube double
// issue, as CANN's design has it: mm1 runs two blocks ahead of mm2), one
// 128-key chunk of each per iteration, so that its S stores and its P and
// V loads move at once; the vector folds in step k's O after step k + 1's
// softmax. Neither side waits for what it has just asked of the other; the
// two slots (of the workspace, and of e^(m - m')) make that safe without
// further flags. Each task keeps what the later half of a step needs in a
// small table of its own memory. At the end of an item each vector task
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
  AttentionForwardLowering(KernelBuilder &k, FlashAttentionOp op,
                           AttentionGeometry g, const KernelOperands &io,
                           const DeviceModel &device)
      : AttentionLowering(k, op, std::move(g), io, device) {
    // An item's m and l stay until its last output is folded in, after
    // the next item has begun.
    statisticSlots = 2;
    vectorScalarBytes = kNumStepFields * 8;
    rotateKeyBlocks = true;
    mayReuseKeysAndValues = true;
  }

  /// No query rows: nothing to write.
  static bool hasNoWork(const AttentionGeometry &g) {
    return g.batch * g.headsQ * g.seqQ == 0;
  }

  /// Lengths read at run time: a kernel per template, one taken
  /// (selectTemplateAtRunTime). Every template's sizes are checked first,
  /// so that one the device cannot hold is an error before any IR is built.
  LogicalResult buildForRunTimeLengths() {
    for (const AttentionShape &shape : getTemplateShapes())
      if (failed(chooseSizes(shape)))
        return failure();
    checkRunTimeLengths();
    selectTemplateAtRunTime([&](const AttentionShape &shape, bool reuse) {
      (void)chooseSizes(shape, reuse);
      build();
    });
    return success();
  }

  //===--- Cube side ------------------------------------------------------===//

  /// The cube task's tiles: Q, a chunk of K and of V, of S and of P, and O.
  struct CubeTiles {
    Value q, k, v, s, p, o;
  };

  void buildCube(Value group) {
    auto cube = [&](ArrayRef<int64_t> shape, Type type) {
      return k.alloc(shape, type, dev::MemorySpace::cube);
    };
    CubeTiles t;
    t.q = cube({s1Inner, g.headDim}, element);
    t.k = cube({cubeKeys, g.headDim}, element);
    t.v = cube({cubeKeys, g.headDim}, element);
    t.s = cube({s1Inner, cubeKeys}, f32);
    t.p = cube({s1Inner, cubeKeys}, element);
    t.o = cube({s1Inner, g.headDim}, f32);
    // Entry e holds the step whose output is next computed at a step
    // number congruent to e mod 2: two behind.
    Value steps = stepTable(dev::MemorySpace::cube, 2);
    Value zero = k.index(0), two = k.index(2);
    forEachItem(group, [&](const Item &it) {
      k.dma(headRows(query, true, it, it.n, it.r0, it.rows),
            rowsOf(t.q, zero, it.rows, zero, k.index(g.headDim)));
      k.forLoop(zero, it.blocks, k.index(1), [&](Value kb) {
        Value step = field(steps, kStep);
        Value slot = k.rem(step, two);
        cubeStep(t, group, steps, it, kb, slot);
        savePending(steps, it, kb, slot, zero, slot);
      });
    });
    // The last two steps' outputs.
    Value step = field(steps, kStep);
    for (int64_t behind : {2, 1})
      finishOutput(t, group, steps,
                   k.rem(k.add(step, k.index(2 - behind)), two));
  }

  /// Step `kb` of `it` (workspace slot `slot`): S = Q K^T, and O = P V of
  /// the step two behind (entry `slot`), once its probabilities are in.
  /// One loop interleaves their 128-key chunks, so that the S stores and
  /// the P and V loads move at once; where one has fewer chunks (a block
  /// clipped to the band, or no step pending) its later chunks are empty
  /// rather than a loop of their own, which would fill and drain a
  /// pipeline of its own.
  void cubeStep(const CubeTiles &t, Value group, Value steps, const Item &it,
                Value kb, Value slot) {
    Value c0, cols;
    std::tie(c0, cols) = keyBlock(it, kb);
    Value pending = k.lt(k.index(0), field(steps, kPending, slot));
    k.ifThenElse(pending, [&] { waitProbabilities(); });
    Value stored = field(steps, kKeys, slot);
    Value outCols = k.select(pending, stored, k.index(0));
    Value keys = k.max(cols, outCols);
    Item prev = pendingItem(steps, slot);
    Value outC0 = field(steps, kKey0, slot);
    forEachCubeBlock(keys, [&](Value cb) {
      scoresChunk(t, group, it, slot, c0, cb, chunkKeys(cols, cb));
      outputChunk(t, group, prev, slot, outC0, cb, chunkKeys(outCols, cb));
    });
    finishPending(steps, slot,
                  [&](const Item &prev) { storeOutput(t, group, prev, slot); });
    signalVectors(group, kScoresReady);
  }

  /// O = P V of the step in entry `entry`, if any, and its store.
  void finishOutput(const CubeTiles &t, Value group, Value steps, Value entry) {
    finishPending(steps, entry, [&](const Item &prev) {
      waitProbabilities();
      outputChunks(t, group, steps, entry);
      storeOutput(t, group, prev, entry);
    });
  }

  /// O = P V of the step in entry `entry`, chunk by chunk.
  void outputChunks(const CubeTiles &t, Value group, Value steps, Value entry) {
    Item prev = pendingItem(steps, entry);
    Value c0 = field(steps, kKey0, entry);
    Value cols = field(steps, kKeys, entry);
    forEachCubeBlock(cols, [&](Value cb) {
      outputChunk(t, group, prev, entry, c0, cb, chunkKeys(cols, cb));
    });
  }

  /// Keys [c0 + cb, c0 + cb + cc) of `it`: S = Q K^T into workspace slot
  /// `slot`.
  void scoresChunk(const CubeTiles &t, Value group, const Item &it, Value slot,
                   Value c0, Value cb, Value cc) {
    Value zero = k.index(0), d = k.index(g.headDim);
    Value kRows = rowsOf(t.k, zero, cc, zero, d);
    k.dma(headRows(key, false, it, it.kvHead, k.add(c0, cb), cc), kRows);
    Value s = rowsOf(t.s, zero, it.rows, zero, cc);
    k.matmul(rowsOf(t.q, zero, it.rows, zero, d), kRows, s,
             /*accumulate=*/false, /*transposeB=*/true);
    k.dma(s, slotTile(wsScores, group, slot, zero, it.rows, cb, cc));
  }

  /// Keys [c0 + cb, c0 + cb + cc) of `it`: O (+)= P V, P from workspace
  /// slot `slot`; the first chunk starts the sum.
  void outputChunk(const CubeTiles &t, Value group, const Item &it, Value slot,
                   Value c0, Value cb, Value cc) {
    Value zero = k.index(0), d = k.index(g.headDim);
    Value p = rowsOf(t.p, zero, it.rows, zero, cc);
    k.dma(slotTile(wsProbs, group, slot, zero, it.rows, cb, cc), p);
    Value vRows = rowsOf(t.v, zero, cc, zero, d);
    k.dma(headRows(value, false, it, it.kvHead, k.add(c0, cb), cc), vRows);
    Value o = rowsOf(t.o, zero, it.rows, zero, d);
    k.matmulSum(p, vRows, o, k.lt(cb, k.index(1)), /*transposeA=*/false,
                /*transposeB=*/false);
  }

  /// O into workspace slot `slot`, then the group's vector tasks told. The
  /// store is left in flight: a flag goes up only once the copies before
  /// it are done, and the next step's first write of O follows its loads,
  /// which complete after the store.
  void storeOutput(const CubeTiles &t, Value group, const Item &it,
                   Value slot) {
    Value zero = k.index(0), d = k.index(g.headDim);
    k.dmaStart(rowsOf(t.o, zero, it.rows, zero, d),
               slotTile(wsOutput, group, slot, zero, it.rows, zero, d));
    signalVectors(group, kOutputReady);
  }

  void waitProbabilities() {
    for (int64_t v = 0; v < vectorsPerGroup; ++v)
      k.waitFlag(kProbsReady + v);
  }

  void signalVectors(Value group, int64_t flag) {
    for (int64_t v = 0; v < vectorsPerGroup; ++v)
      k.setFlag(flag, dev::CoreKind::vector,
                k.add(k.mul(group, k.index(vectorsPerGroup)), k.index(v)));
  }

  /// for (cb = 0; cb < cols; cb += cubeKeys) body(cb).
  void forEachCubeBlock(Value cols, function_ref<void(Value)> body) {
    k.forLoop(k.index(0), cols, k.index(cubeKeys), body);
  }

  /// The keys of the chunk at `cb` of `cols` keys: none past them.
  Value chunkKeys(Value cols, Value cb) {
    Value left = k.sub(cols, cb);
    Value none = k.index(0);
    Value kept = k.max(none, left);
    return k.min(kept, k.index(cubeKeys));
  }

  /// The buffers a vector task writes an item's rows from (writeItemRows),
  /// [2, chunk, ...]: a chunk is computed into one copy while the chunk
  /// before it is still being stored from the other. The output rows in
  /// the input type (f16 / bf16 only), and softmax_max's and softmax_sum's
  /// (8 copies each).
  struct RowWriteBuffers {
    Value out, max, sum;
  } rowWrite;

  void buildVector(Value task) {
    VectorBuffers buf = allocVector();
    rowWrite.max = k.alloc({2, chunkRows, 8}, f32);
    rowWrite.sum = k.alloc({2, chunkRows, 8}, f32);
    if (element != f32)
      rowWrite.out = k.alloc({2, chunkRows, g.headDim}, element);
    VectorTask vt = decodeVectorTask(task);
    Value group = vt.group, part = vt.part, own0 = vt.own0;
    double inf = std::numeric_limits<double>::infinity();
    k.vfill(buf.negInf, k.f32(-inf));
    Value steps = stepTable(dev::MemorySpace::vector, 1);
    Value zero = k.index(0), one = k.index(1);
    forEachItem(group, [&](const Item &it) {
      Value own = ownRows(it.rows, own0);
      // The item's m and l: the last item's stay until its rows are out.
      Value items = field(steps, kItems);
      Value parity = k.rem(items, k.index(2));
      setField(steps, kItems, k.add(items, one));
      VectorBuffers cur = withStatisticSlot(buf, parity);
      k.vfill(cur.rowMax, k.f32(-inf));
      k.vfill(cur.rowSum, k.f32(0));
      // A step's softmax, then the step before it (of this item or the
      // last) folded in: the task never waits for the output of the
      // probabilities it has just written.
      k.forLoop(zero, it.blocks, one, [&](Value kb) {
        Value slot = k.rem(field(steps, kStep), k.index(2));
        Value c0, cols;
        std::tie(c0, cols) = keyBlock(it, kb);
        k.waitFlag(kScoresReady);
        forEachChunk(own, [&](Value r, Value rows) {
          softmaxChunk(cur, it, group, slot, k.add(own0, r), r, rows, c0, cols);
        });
        signalCube(part, group);
        foldPending(buf, steps, group, own0);
        savePending(steps, it, kb, slot, parity, zero);
      });
      // An item the band misses entirely: out = 0, m = -inf, l = 0.
      k.ifThenElse(k.lt(it.blocks, one), [&] {
        foldPending(buf, steps, group, own0);
        k.vfill(buf.acc, k.f32(0));
        writeItemRows(cur, it, own0, own);
      });
    });
    foldPending(buf, steps, group, own0);
  }

  /// Folds the pending step's output into acc (acc = O at its item's first
  /// step) and, at its item's last step, writes the item's rows.
  void foldPending(const VectorBuffers &buf, Value steps, Value group,
                   Value own0) {
    finishPending(steps, k.index(0), [&](const Item &it) {
      Value own = ownRows(it.rows, own0);
      Value slot = field(steps, kSlot);
      VectorBuffers cur = withStatisticSlot(buf, field(steps, kParity));
      k.waitFlag(kOutputReady);
      k.ifThenElse(k.lt(k.index(0), field(steps, kFirst)),
                   [&] { k.vfill(buf.acc, k.f32(0)); });
      forEachChunk(own, [&](Value r, Value rows) {
        foldOutput(cur, group, slot, own0, r, rows);
      });
      k.ifThenElse(k.lt(k.index(0), field(steps, kLast)),
                   [&] { writeItemRows(cur, it, own0, own); });
    });
  }

  //===--- Steps across items ---------------------------------------------===//

  /// A step is an item's key block. Each core kind finishes a step after
  /// it has begun the next, across items too, so what the finishing half
  /// needs of the pending step waits in a small table in the task's own
  /// memory.
  enum StepField : int64_t {
    kPending,
    kStep,
    kItems,
    kBatch,
    kHead,
    kKvHead,
    kRow0,
    kRows,
    kStartQ,
    kStartKV,
    kKey0,
    kKeys,
    kSlot,
    kFirst,
    kLast,
    kParity,
    kNumStepFields
  };

  /// A table of `entries` steps, none pending, with no step or item begun
  /// (the counts kStep and kItems are kept in entry 0).
  Value stepTable(dev::MemorySpace space, int64_t entries) {
    Value table =
        k.alloc({entries, kNumStepFields}, k.builder().getI64Type(), space);
    // An entry with no step pending reads as a step of no keys of item
    // (0, 0, 0): the cube's step reads it whole either way.
    for (int64_t e = 0; e < entries; ++e)
      for (int64_t f = 0; f < kNumStepFields; ++f)
        setField(table, StepField(f), k.index(0), k.index(e));
    return table;
  }

  void setField(Value table, StepField f, Value v, Value entry = {}) {
    k.store(k.convert(v, k.builder().getI64Type()), table,
            {entry ? entry : k.index(0), k.index(f)});
  }
  Value field(Value table, StepField f, Value entry = {}) {
    return k.toIndex(k.load(table, {entry ? entry : k.index(0), k.index(f)}));
  }

  /// Records key block `kb` of `it` (workspace slot `slot`, statistics
  /// slot `parity`) as the pending step of entry `entry`, and counts it.
  void savePending(Value table, const Item &it, Value kb, Value slot,
                   Value parity, Value entry) {
    Value c0, cols;
    std::tie(c0, cols) = keyBlock(it, kb);
    Value one = k.index(1), zero = k.index(0);
    Value last = k.ge(k.add(kb, one), it.blocks);
    std::pair<StepField, Value> fields[] = {
        {kBatch, it.b},
        {kHead, it.n},
        {kKvHead, it.kvHead},
        {kRow0, it.r0},
        {kRows, it.rows},
        {kStartQ, it.startQ},
        {kStartKV, it.startKV},
        {kKey0, c0},
        {kKeys, cols},
        {kSlot, slot},
        {kFirst, k.select(k.lt(kb, one), one, zero)},
        {kLast, k.select(last, one, zero)},
        {kParity, parity},
        {kPending, one}};
    for (auto [f, v] : fields)
      setField(table, f, v, entry);
    setField(table, kStep, k.add(field(table, kStep), one));
  }

  /// The item of entry `entry`'s step (the fields the finishing halves
  /// read).
  Item pendingItem(Value table, Value entry) {
    Item it;
    it.b = field(table, kBatch, entry);
    it.n = field(table, kHead, entry);
    it.kvHead = field(table, kKvHead, entry);
    it.r0 = field(table, kRow0, entry);
    it.rows = field(table, kRows, entry);
    it.startQ = field(table, kStartQ, entry);
    it.startKV = field(table, kStartKV, entry);
    return it;
  }

  /// Runs `body` on the item of entry `entry`'s step, if one is pending,
  /// and leaves none pending there.
  void finishPending(Value table, Value entry,
                     function_ref<void(const Item &)> body) {
    k.ifThenElse(k.lt(k.index(0), field(table, kPending, entry)), [&] {
      body(pendingItem(table, entry));
      setField(table, kPending, k.index(0), entry);
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
  /// Writes the item's rows [own0, own0 + own), chunk by chunk: out = acc
  /// / l (rounded to the input type), softmax_max = m and softmax_sum = l.
  /// A chunk is computed into the copy of its parity while the chunk before
  /// it is still being stored from the other, and its stores are started
  /// after one wait_all for those: a chunk costs the longer of its vector
  /// work and a store's latency, not three latencies.
  void writeItemRows(const VectorBuffers &buf, const Item &it, Value own0,
                     Value own) {
    Value zero = k.index(0), d = k.index(g.headDim), eight = k.index(8);
    forEachChunk(own, [&](Value r, Value rows) {
      Value copy = k.rem(k.div(r, k.index(chunkRows)), k.index(2));
      auto rowsOfCopy = [&](Value buffer, Value cols) {
        OpFoldResult one = k.builder().getIndexAttr(1);
        return k.window(buffer, {copy, zero, zero}, {one, rows, cols},
                        /*drop=*/{0});
      };
      Value acc = rowsOf(buf.acc, r, rows, zero, d);
      k.vbinaryBroadcast(dev::BinaryKind::div, acc, rowSumDivisor(buf, r, rows),
                         acc, 0);
      Value rowsOut = acc;
      if (element != f32) {
        rowsOut = rowsOfCopy(rowWrite.out, d);
        k.vcast(acc, rowsOut);
      }
      Value m = rowsOfCopy(rowWrite.max, eight);
      Value l = rowsOfCopy(rowWrite.sum, eight);
      for (auto [stats, source] : {std::pair{m, buf.rowMax}, {l, buf.rowSum}}) {
        k.vfill(stats, k.f32(0));
        k.vbinaryBroadcast(dev::BinaryKind::add, stats,
                           k.window(source, {r}, {rows}), stats, 0);
      }
      k.waitAll();
      Value row = k.add(it.r0, k.add(own0, r));
      k.dmaStart(rowsOut, headRows(out, true, it, it.n, row, rows));
      k.dmaStart(m, statisticsRows(maxOut, it, row, rows));
      k.dmaStart(l, statisticsRows(sumOut, it, row, rows));
    });
    // acc, m and l are overwritten by the next item.
    k.waitAll();
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
             // The report names the template (lengths read at run time
             // choose it as the kernel runs).
             b.getNamedAttr(
                 "step", b.getStringAttr(
                             attention::stringifyForwardTemplate(tiling.kind))),
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
    attachAttentionModels<AttentionForwardLowering, FlashAttentionOp>(ctx);
  });
}
