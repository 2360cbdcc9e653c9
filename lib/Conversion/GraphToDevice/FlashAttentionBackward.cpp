//===- FlashAttentionBackward.cpp - npu.flash_attention_grad --------------===//
//
// npu.flash_attention_grad on the device, from the part of the forward's
// lowering both share (FlashAttentionLowering.h): see
// AttentionBackwardLowering. Work O(B N S1 S2 D), in one to three mixed
// launches and the launches around them; host loops O(B N2 S2 / block)
// deal the key-block items.
//
//===----------------------------------------------------------------------===//

#include "FlashAttentionLowering.h"
#include "OperatorKernels.h"

using namespace mlir;
using namespace npu;
using namespace npu::graph;
using namespace npu::attention;

namespace {

/// npu.flash_attention_grad as FlashAttention-2 computes it, in three mixed
/// launches that share one step: for a block of query rows and a block of
/// keys, the cube computes S = Q K^T and dP = dY V^T into the workspace
/// (flag 0), and the vector tasks consume them (flag 1). Launch 0 takes
/// (batch, query head, query block) items and recomputes each row's
/// statistics m (max), l (sum of exp(S - m)) and D = rowsum(P * dP') with
/// an online softmax over its key blocks, rather than reading softmax_max,
/// softmax_sum and D = rowsum(dY * O) from the forward: D from dY * O
/// carries O's rounding, which dP - D does not cancel as the softmax's own
/// backward does (in a row that sees few keys, dq came out 6x the error of
/// a plain f32 implementation), and statistics computed elsewhere do not
/// match this S to the last bit (dv 3x). With recompute_statistics = false
/// the op reads them as CANN does: a vector launch takes D = rowsum(dY * O)
/// in place of launch 0, a quarter of the work saved. Then the vector tasks
/// recompute P = exp(prepared S - m) / l and write P' (P through the
/// dropout) and dS = scale P (dP' - D); the cube accumulates. Launch 1
/// takes (batch, key/value head, key block)
/// items and accumulates dV += P'^T dY and dK += dS^T Q over every query
/// head of the group and every query block the band reaches, and dQ +=
/// dS K into a partial sum per (group, head): its items go in contiguous
/// runs balanced by work, so a group's run touches the heads of one range
/// and the partials number at most G + B N2 - 1; a vector launch adds each
/// head's partials up in group order. S and dP are then computed once per
/// visited block pair past the statistics. With a dpse summed over the
/// batches, launch 1 keeps the snake's items and launch 2 takes (batch,
/// query head, query block) items and accumulates dQ += dS K over the key
/// blocks, computing S and dP again. Every output element is summed by one
/// task, or partial by partial, in a fixed order, so the bytes do not
/// depend on timing or threads. dpse is written over a zero fill: for a pse
/// of the full shape by the vector tasks of the launch that computes dS
/// last; for one broadcast over the query rows
/// ([B, N1, 1, S2]) summed by launch 1's cube as ones^T dS over the query
/// blocks of each head; for one broadcast over the batch ([1, N1, S1, S2])
/// added up by launch 2's vector tasks, each of which sees a (head, query
/// block) for every batch in batch order. Outputs of f16 / bf16 are summed in
/// f32 scratch and rounded by a last vector launch. As in the forward the cube
/// runs ahead of the vector tasks: it computes step t while they work on the
/// steps before, takes step t - kLag into its sums, and loads step t + 1's
/// Q / dY (launch 1) or K / V (launches 0 and 2) meanwhile.
struct AttentionBackwardLowering : AttentionLowering<FlashAttentionGradOp> {
  using Base = AttentionLowering<FlashAttentionGradOp>;

  /// In iteration t the cube computes step t's S and dP and takes step
  /// t - kLag's P' and dS into its sums, so that neither side waits for
  /// what it has just asked of the other: the vector tasks' steps t - 1 and
  /// t - 2 may still be running. The workspaces have a slot per step in
  /// flight, and the cube's tiles that vary by step a ring from step
  /// t - kLag's to step t + 1's, loading.
  static constexpr int64_t kLag = 3;
  static constexpr int64_t kTileSlots = kLag + 2;
  /// Launch 0's cube keeps no sums, so it may run further ahead at the
  /// cost of workspace slots alone. With kLag slots a step's flag and the
  /// slot it frees made a chain of two steps' latencies (the cube's stores,
  /// the vector tasks' loads) that set the pace, not either side's work.
  static constexpr int64_t kStatisticsLag = 4;

  /// No query and no key rows: no gradient to write.
  static bool hasNoWork(const AttentionGeometry &g) {
    return g.batch * g.headsQ * (g.seqQ + g.seqKV) == 0;
  }
  /// softmax_max, softmax_sum and attention_in are read only with
  /// recompute_statistics = false; otherwise launch 0 recomputes what they
  /// stand for (see above), and they are read only to check their lengths
  /// when those are read at run time.
  Value dy, statMax, statSum, attentionIn;
  Value dq, dk, dv, dpse;
  /// Where the cube's sums go: the outputs, or f32 scratch copies.
  Value dqSum, dkSum, dvSum;
  Value wsDp, wsDs, zeros;
  /// Per query row, from launch 0: m, l and D = rowsum(P * dP'), each
  /// shaped as the statistics with one column. Read from the operands
  /// instead: softmax_max, softmax_sum (column 0 of each) and D =
  /// rowsum(dY * O) from buildRowDots.
  Value rowMaxes, rowSums, rowDots;
  bool readsStatistics() { return !op.getRecomputeStatistics(); }
  /// The launches: the rows' statistics, dK and dV over key blocks, dQ
  /// over query blocks.
  enum class Pass { Statistics, KeysValues, Queries };
  /// How far the cube runs ahead in `pass`, and the workspace slots of its
  /// steps in flight.
  static int64_t getLag(Pass pass) {
    return pass == Pass::Statistics ? kStatisticsLag : kLag;
  }
  /// How dpse is formed from dS (see above), and where it is summed (dpse
  /// itself, or an f32 scratch copy when it is a sum in f16 / bf16).
  enum class PseGrad {
    None,
    Full,
    SumRows,
    SumBatches
  } pseGrad = PseGrad::None;
  Value dpseSum, ones;
  /// With mergesQueries: launch 1's runs of items per group and the groups
  /// per head (buildKeyRuns), and the partial sums of dQ.
  Value keyRuns, headGroups, dqParts;
  /// Per partial of dQ, the query rows its run reached: [lo, hi).
  Value partialReach;

  AttentionBackwardLowering(KernelBuilder &k, FlashAttentionGradOp op,
                            AttentionGeometry g, const KernelOperands &io,
                            const DeviceModel &device)
      : Base(k, op, std::move(g), io, device) {
    FlashAttentionGradOp::Adaptor in(io.operands, op);
    dy = in.getDy();
    statMax = in.getSoftmaxMax();
    statSum = in.getSoftmaxSum();
    attentionIn = in.getAttentionIn();
    dq = io.results[0];
    dk = io.results[1];
    dv = io.results[2];
    if (pse)
      dpse = io.results[3];
  }

  /// Lengths read at run time: one kernel, its blocks chosen for the
  /// longest lengths (they depend on memory, not on the lengths, once
  /// these pass a block), after a launch that checks the operands that
  /// follow query's and key's lengths.
  LogicalResult buildForRunTimeLengths() {
    if (failed(chooseSizes()))
      return failure();
    // The statistics' query axis: [B, N1, S1, 8], or TND's [T1, N1, 8].
    int64_t seq = getSequenceDim(g.layout).value_or(0);
    int64_t statsSeq = getSequenceDim(g.layout) ? 2 : 0;
    checkRunTimeLengths({{"dy", dy, seq, true},
                         {"attention_in", attentionIn, seq, true},
                         {"softmax_max", statMax, statsSeq, true},
                         {"softmax_sum", statSum, statsSeq, true}});
    build();
    return success();
  }

  /// The forward's sizes, then how dpse is reduced.
  LogicalResult chooseSizes() {
    if (failed(Base::chooseSizes()))
      return failure();
    if (pse) {
      ArrayRef<int64_t> shape = cast<MemRefType>(pse.getType()).getShape();
      // The verifier admits [B, N1, S1, S2], [B, N1, 1, S2], [1, N1, S1,
      // S2]; a size that is both (B = 1 or S1 = 1) is the full shape. The
      // batch axis decides first: [1, N1, 1, S2] with S1 = 1 and B > 1 is
      // shared by the batches, not by the rows.
      pseGrad = shape[0] == g.batch && shape[2] == g.seqQ ? PseGrad::Full
                : shape[0] != g.batch                     ? PseGrad::SumBatches
                                                          : PseGrad::SumRows;
      sameGroupAcrossBatches = pseGrad == PseGrad::SumBatches;
    }
    // Square blocks of 128, 64 or 32 rows, the largest whose tiles fit
    // cube memory; then, for each launch, twice that along the axis its
    // items span where cube and vector memory still hold it: query rows for
    // launches 0 and 2, keys for launch 1. A step loads the pair of tiles
    // that varies by step (K and V, or Q and dY) and pays fixed costs
    // (copy latencies, two flags, instruction issue); the wider fixed axis
    // doubles the work they are spread over. Cube memory holds the
    // varying pair (kTileSlots slots each) and the fixed pair (one each),
    // S and dP, P' and dS, the f32 sums, and for launch 1 a
    // row of ones and its f32 sum.
    int64_t eb = element.getIntOrFloatBitWidth() / 8, d = g.headDim;
    auto cubeBytes = [&](int64_t s1, int64_t s2, bool alongRows) {
      int64_t varying = alongRows ? s2 : s1, fixed = alongRows ? s1 : s2;
      int64_t pairs = (kTileSlots * varying + fixed) * 2 * d * eb;
      int64_t sums = alongRows ? s1 * d * 4
                               : 2 * s2 * d * 4 + s1 * eb + s2 * 4 +
                                     (mergesQueries() ? s1 * d * 4 : 0);
      int64_t sets = scoreSets(alongRows ? Pass::Queries : Pass::KeysValues);
      return pairs + s1 * s2 * (2 * 4 * sets + 2 * eb) + sums;
    };
    int64_t block = kCubeBlock;
    auto fits = [&](int64_t s1, int64_t s2, bool alongRows) {
      return cubeBytes(s1, s2, alongRows) <= device.cubeBytes;
    };
    while (block > 8 &&
           !(fits(block, block, true) && fits(block, block, false)))
      block /= 2;
    auto widened = [&](bool alongRows) {
      int64_t s1 = alongRows ? 2 * block : block;
      int64_t s2 = alongRows ? block : 2 * block;
      if (2 * block <= kCubeBlock && fits(s1, s2, alongRows)) {
        Blocks wide = makeBlocks(s1, s2);
        if (wide.chunkRows >= 1)
          return wide;
      }
      return makeBlocks(block, block);
    };
    queryBlocks = widened(/*alongRows=*/true);
    keyBlocks = widened(/*alongRows=*/false);
    for (const Blocks &b : {queryBlocks, keyBlocks})
      if (b.chunkRows < 1)
        return op.emitOpError("cannot be lowered: a block of ")
               << b.s2 << " keys and head size " << g.headDim
               << " does not fit the vector memory of device '" << device.name
               << "'";
    useBlocks(queryBlocks);
    return success();
  }

  /// Sets of S and dP cube tiles: two in launches 0 and 2, so that a step's
  /// stores move while the next step is computed; one in launch 1, whose
  /// f32 sums take the room.
  static int64_t scoreSets(Pass pass) {
    return pass == Pass::KeysValues ? 1 : 2;
  }

  /// Blocks of s1 query rows by s2 keys, each vector task's share of the
  /// rows and the rows of its chunks.
  struct Blocks {
    int64_t s1 = 0, s2 = 0, rowsPerVector = 0, chunkRows = 0;
  };
  /// The blocks of launches 0 and 2 (items of query rows) and of launch 1
  /// (items of keys).
  Blocks queryBlocks, keyBlocks;

  /// Blocks of at most s1 x s2 (no more than the sequences).
  Blocks makeBlocks(int64_t s1, int64_t s2) const {
    Blocks b;
    b.s1 = std::min(s1, std::max<int64_t>(getSeqQBound(), 1));
    b.s2 = std::min(s2, std::max<int64_t>(getSeqKVBound(), 1));
    b.rowsPerVector = llvm::divideCeil(b.s1, vectorsPerGroup);
    b.chunkRows = vectorChunkRows(b.s1, b.s2);
    return b;
  }

  /// The sizes the kernel builders read, from `b`.
  void useBlocks(const Blocks &b) {
    s1Inner = b.s1;
    s2Inner = b.s2;
    rowsPerVector = b.rowsPerVector;
    chunkRows = b.chunkRows;
  }

  /// The rows of a vector task's chunk for blocks of s1 query rows by s2
  /// keys. Below 1 when not even one row fits.
  int64_t vectorChunkRows(int64_t s1, int64_t s2) const {
    int64_t own = llvm::divideCeil(s1, vectorsPerGroup);
    return std::min(own, (device.vectorBytes - ownRowBytes(own)) /
                             chunkRowBytes(s2));
  }

  /// Vector memory per chunk row for blocks of s2 keys: the forward's
  /// buffers (allocVector) and dP and P' (f32), dS (input type), three
  /// row statistics.
  int64_t chunkRowBytes(int64_t s2) const {
    int64_t eb = element.getIntOrFloatBitWidth() / 8;
    return s2 * (4 + 4 + 4 + 2 + eb + 4 + 4 + eb +
                 (pse || dropMask ? 4 + eb : 0) +
                 (attenMask || dropMask ? 2 : 0) + 1) +
           g.headDim * 4 + 64;
  }

  /// Vector memory for `own` rows' accumulators and statistics.
  int64_t ownRowBytes(int64_t own) const { return own * (g.headDim * 4 + 36); }

  //===--- Host-side buffers and the launches around the main two -------===//

  /// `buffer` (global, contiguous) as one flat row.
  Value flat(Value buffer) {
    auto type = cast<MemRefType>(buffer.getType());
    ReassociationIndices all;
    for (int64_t d = 0; d < type.getRank(); ++d)
      all.push_back(d);
    return k.builder().create<memref::CollapseShapeOp>(
        k.location(), buffer, ArrayRef<ReassociationIndices>{all});
  }

  /// A vector launch over the elements of `target` in chunks: `body(from,
  /// to, n)` with `from` / `to` windows of n elements.
  void elementwiseLaunch(Value source, Value target, StringRef step,
                         function_ref<void(Value, Value)> body) {
    auto type = cast<MemRefType>(target.getType());
    // A length read at run time leaves the count to the kernel.
    int64_t bound = type.hasStaticShape() ? type.getNumElements()
                                          : std::numeric_limits<int64_t>::max();
    if (bound == 0)
      return;
    Value flatTarget = flat(target);
    Value flatSource = source ? flat(source) : Value();
    int64_t tasks = device.getNumCores(dev::CoreKind::vector);
    int64_t chunk = std::min(device.vectorBytes / 16, bound);
    auto launch = k.launch(tasks, [&](Value tid) {
      Value total =
          type.hasStaticShape() ? k.index(bound) : k.dim(flatTarget, 0);
      Value wide = k.alloc({chunk}, f32);
      Value narrow = k.alloc({chunk}, getElementTypeOrSelf(target));
      k.forLoop(k.mul(tid, k.index(chunk)), total, k.index(tasks * chunk),
                [&](Value j) {
                  Value n = k.min(k.index(chunk), k.sub(total, j));
                  Value from = k.window(wide, {k.index(0)}, {n});
                  Value to = k.window(narrow, {k.index(0)}, {n});
                  if (flatSource)
                    k.dma(k.window(flatSource, {j}, {n}), from);
                  body(from, to);
                  k.dma(to, k.window(flatTarget, {j}, {n}));
                });
    });
    KernelBuilder::recordStep(launch, "flash_attention_grad", step, "chunk",
                              chunk);
  }

  /// out = round(sum) for f16 / bf16 outputs.
  void round(Value sum, Value out, StringRef step) {
    elementwiseLaunch(sum, out, step,
                      [&](Value from, Value to) { k.vcast(from, to); });
  }

  /// Sums in f32: the output itself, or a scratch copy.
  Value sumBuffer(Value out) {
    if (element == f32)
      return out;
    return globalBuffer(cast<MemRefType>(out.getType()).getShape(), f32, out);
  }

  void build() {
    // Merged, the last launch adds dQ's partials up into dq itself.
    dqSum = mergesQueries() ? dq : sumBuffer(dq);
    dkSum = sumBuffer(dk);
    dvSum = sumBuffer(dv);
    // The batch table's item bases count query blocks for launches 0 and
    // 2, key blocks for launch 1.
    s1Inner = queryBlocks.s1;
    s2Inner = keyBlocks.s2;
    batchTable = buildBatchTable();
    // The cube cannot fill: an item without steps copies its sums from a
    // zero tile in global memory.
    int64_t rows = std::max(queryBlocks.s1, keyBlocks.s2);
    zeros = globalBuffer({rows, g.headDim}, f32);
    elementwiseLaunch(Value(), zeros, "zeros",
                      [&](Value, Value to) { k.vfill(to, k.f32(0)); });
    rowMaxes = readsStatistics() ? statMax : rowBuffer();
    rowSums = readsStatistics() ? statSum : rowBuffer();
    rowDots = rowBuffer();
    if (readsStatistics())
      buildRowDots();
    if (dpse) {
      dpseSum = pseGrad == PseGrad::Full ? dpse : sumBuffer(dpse);
      Type sumType = getElementTypeOrSelf(dpseSum);
      elementwiseLaunch(Value(), dpseSum, "zero_dpse", [&](Value, Value to) {
        k.vfill(to, k.floatConstant(sumType, 0));
      });
    }
    if (pseGrad == PseGrad::SumRows) {
      ones = globalBuffer({1, keyBlocks.s1}, element);
      elementwiseLaunch(Value(), ones, "ones", [&](Value, Value to) {
        k.vfill(to, k.floatConstant(element, 1));
      });
    }
    if (mergesQueries()) {
      useBlocks(keyBlocks);
      buildKeyRuns();
      buildQueryPartials();
    }
    for (auto [pass, step] : {std::pair{Pass::Statistics, "statistics"},
                              {Pass::KeysValues, "dk_dv"},
                              {Pass::Queries, "dq"}}) {
      if ((pass == Pass::Statistics && readsStatistics()) ||
          (pass == Pass::Queries && mergesQueries()))
        continue;
      if (pass == Pass::KeysValues && mergesQueries())
        step = "dq_dk_dv";
      useBlocks(pass == Pass::KeysValues ? keyBlocks : queryBlocks);
      int64_t slots = getLag(pass);
      wsScores = workspace(s2Inner, f32, slots);
      wsDp = workspace(s2Inner, f32, slots);
      wsProbs = workspace(s2Inner, element, slots);
      wsDs = workspace(s2Inner, element, slots);
      dev::MixedLaunchOp launch = k.mixedLaunch(
          groups, groups * vectorsPerGroup,
          [&, pass = pass](Value t) { buildCube(t, pass); },
          [&, pass = pass](Value t) { buildVector(t, pass); });
      launch->setAttr("npudev.tiling", gradTiling(step));
      for (Value buffer : {wsScores, wsDp, wsProbs, wsDs})
        k.builder().create<memref::DeallocOp>(k.location(), buffer);
    }
    if (mergesQueries())
      buildQuerySums();
    // Sums in f32 scratch are rounded into their outputs.
    std::tuple<Value, Value, StringRef> sums[] = {
        {dqSum, dq, "round_dq"},
        {dkSum, dk, "round_dk"},
        {dvSum, dv, "round_dv"},
        {dpseSum, dpse, "round_dpse"}};
    for (auto [sum, out, step] : sums)
      if (sum != out)
        round(sum, out, step);
    for (Value buffer : {batchTable, zeros, rowMaxes, rowSums, rowDots, ones,
                         keyRuns, headGroups, partialReach, dqParts})
      if (buffer && buffer != statMax && buffer != statSum)
        k.builder().create<memref::DeallocOp>(k.location(), buffer);
    for (auto [sum, out, step] : sums)
      if (sum != out)
        k.builder().create<memref::DeallocOp>(k.location(), sum);
  }

  /// A vector launch writing D = rowsum(dY * O) per query row into rowDots,
  /// in f32 from dy and attention_in: each task takes its own rows of its
  /// group's query-block items (as launch 0 would), in chunks of both
  /// operands' rows. O(B N1 S1 D).
  void buildRowDots() {
    useBlocks(queryBlocks);
    bool widen = element != f32;
    int64_t eb = element.getIntOrFloatBitWidth() / 8;
    int64_t rowBytes = g.headDim * 2 * (eb + (widen ? 4 : 0)) + 4;
    int64_t chunk = std::max<int64_t>(
        1, std::min(rowsPerVector, device.vectorBytes / rowBytes));
    dev::LaunchOp launch = k.launch(groups * vectorsPerGroup, [&](Value task) {
      Value dyTile = k.alloc({chunk, g.headDim}, element);
      Value outTile = k.alloc({chunk, g.headDim}, element);
      Value dyWide = widen ? k.alloc({chunk, g.headDim}, f32) : dyTile;
      Value outWide = widen ? k.alloc({chunk, g.headDim}, f32) : outTile;
      Value dots = k.alloc({chunk}, f32);
      VectorTask vt = decodeVectorTask(task);
      Value group = vt.group, own0 = vt.own0;
      Value zero = k.index(0), d = k.index(g.headDim);
      forEachItem(group, [&](const Item &it) {
        Value own = ownRows(it.rows, own0);
        k.forLoop(zero, own, k.index(chunk), [&](Value r) {
          Value rows = k.min(k.index(chunk), k.sub(own, r));
          Value i0 = k.add(it.r0, k.add(own0, r));
          auto load = [&](Value tensor, Value tile, Value wide) {
            Value narrow = rowsOf(tile, zero, rows, zero, d);
            k.dmaStart(headRows(tensor, true, it, it.n, i0, rows), narrow);
            return std::make_pair(narrow, rowsOf(wide, zero, rows, zero, d));
          };
          auto [dyRows, dyF32] = load(dy, dyTile, dyWide);
          auto [outRows, outF32] = load(attentionIn, outTile, outWide);
          k.waitAll();
          if (widen) {
            k.vcast(dyRows, dyF32);
            k.vcast(outRows, outF32);
          }
          Value dotRows = k.window(dots, {zero}, {rows});
          k.vbinary(dev::BinaryKind::mul, dyF32, outF32, dyF32);
          k.vreduce(dev::ReduceKind::sum, dyF32, dotRows);
          k.dma(dotRows, statisticColumn(rowDots, it, i0, rows));
        });
      });
    });
    KernelBuilder::recordStep(launch, "flash_attention_grad", "row_dots",
                              "chunk", chunk);
  }

  /// One f32 per query row, shaped as the statistics with one column.
  Value rowBuffer() {
    SmallVector<int64_t> shape(cast<MemRefType>(statMax.getType()).getShape());
    shape.back() = 1;
    return globalBuffer(shape, f32, statMax);
  }

  DictionaryAttr gradTiling(StringRef step) {
    Builder b(op.getContext());
    attention::BackwardTiling tiling = attention::selectAttentionGradTemplate(
        getShapeWith(getSeqQBound(), getSeqKVBound()),
        attention::getAttentionLimits(device));
    describeOp(tiling.key);
    uint64_t key = attention::getTilingKey(tiling.key);
    return b.getDictionaryAttr(
        {b.getNamedAttr("strategy", b.getStringAttr("flash_attention_grad")),
         b.getNamedAttr("step", b.getStringAttr(step)),
         b.getNamedAttr("template",
                        b.getStringAttr(
                            attention::stringifyBackwardTemplate(tiling.kind))),
         b.getNamedAttr("tiling_key", b.getStringAttr(std::to_string(key))),
         b.getNamedAttr("s1_inner", b.getI64IntegerAttr(s1Inner)),
         b.getNamedAttr("s2_inner", b.getI64IntegerAttr(s2Inner)),
         b.getNamedAttr("groups", b.getI64IntegerAttr(groups))});
  }

  //===--- Steps ----------------------------------------------------------===//

  /// One step: query rows [r0, r0 + rows) of head n, keys [c0, c0 + cols).
  struct Step {
    Item it;
    /// `slot` is the step's workspace slot (t mod getLag(pass));
    /// `tileSlot` its slot in the cube's ring of varying tiles (t mod
    /// kTileSlots).
    Value r0, rows, c0, cols, slot, tileSlot;
    /// Launch 1: the step's query block among its head's `headBlocks`.
    Value headBlock, headBlocks;
    /// A merged launch 1: whether no earlier item of the group's run
    /// reached the step's query block, so that the step sets its partial
    /// rows of dQ instead of adding to them (an i1).
    Value freshPartial;
  };

  /// Calls body(it, steps, stepAt) for each item of `group` in `pass`:
  /// launch 1 (KeysValues) over key blocks, each with every query head of
  /// its group and every query block the band reaches; launches 0 and 2
  /// over query blocks, each with the key blocks it reaches. stepAt(t)
  /// gives step t < steps of the item.
  void forEachItemOf(
      Value group, Pass pass,
      function_ref<void(Item &, Value steps, function_ref<Step(Value)>)> body) {
    if (pass != Pass::KeysValues) {
      forEachItem(group, [&](const Item &item) {
        Item it = item;
        auto step = [&](Value t) {
          Step s;
          s.it = it;
          s.r0 = it.r0;
          s.rows = it.rows;
          std::tie(s.c0, s.cols) = keyBlock(it, t);
          s.slot = k.rem(t, k.index(getLag(pass)));
          s.tileSlot = k.rem(t, k.index(kTileSlots));
          return s;
        };
        body(it, it.blocks, step);
      });
      return;
    }
    forEachKeyItem(group, [&](Item &it, const KeyBlockReach &reach) {
      Value qFirst = reach.qFirst, qBlocks = reach.qBlocks;
      // Steps exist only when qBlocks > 0; the divisor stays positive
      // for the step the cube decodes before its loop.
      Value divisor = k.max(qBlocks, k.index(1));
      auto step = [&](Value t) {
        Step s;
        s.it = it;
        s.it.n =
            k.add(k.mul(it.kvHead, k.index(g.getGroup())), k.div(t, divisor));
        s.headBlock = k.rem(t, divisor);
        s.headBlocks = qBlocks;
        s.r0 = k.mul(k.add(qFirst, s.headBlock), k.index(s1Inner));
        s.rows = k.min(k.index(s1Inner), k.sub(it.seqQ, s.r0));
        s.c0 = reach.c0;
        s.cols = reach.cols;
        s.slot = k.rem(t, k.index(getLag(pass)));
        s.tileSlot = k.rem(t, k.index(kTileSlots));
        if (reach.reachedBefore)
          s.freshPartial =
              k.ge(k.add(qFirst, s.headBlock), reach.reachedBefore);
        return s;
      };
      body(it, k.mul(qBlocks, k.index(g.getGroup())), step);
    });
  }

  /// Key block `block` of an item's head: its keys [c0, c0 + cols) and
  /// the query blocks that reach it, [qFirst, qFirst + qBlocks): rows
  /// [c0 - high, c0 + cols - 1 - low], or every row when the block starts
  /// inside the prefix.
  /// In a run (buildKeyRuns), `reachedBefore` ends the query blocks its
  /// earlier key blocks of the head reached: [0, reachedBefore), since a
  /// key block's reach neither starts nor ends before its predecessor's
  /// (the band moves right with the keys; prefix blocks, which reach every
  /// row, come first) and leaves no gap (a band is at least a key wide).
  struct KeyBlockReach {
    Value c0, cols, qFirst, qBlocks, reachedBefore;
  };
  KeyBlockReach reachOfKeyBlock(const Item &it, Value block) {
    int64_t s1 = s1Inner, s2 = s2Inner;
    KeyBlockReach r;
    r.c0 = k.mul(block, k.index(s2));
    r.cols = k.min(k.index(s2), k.sub(it.seqKV, r.c0));
    Value zero = k.index(0), one = k.index(1);
    Value lo = k.max(zero, k.sub(r.c0, it.high));
    Value hi = k.min(k.sub(it.seqQ, one),
                     k.sub(k.sub(k.add(r.c0, r.cols), one), it.low));
    if (hasPrefix()) {
      Value inPrefix = k.lt(r.c0, it.prefixEnd);
      lo = k.select(inPrefix, zero, lo);
      hi = k.select(inPrefix, k.sub(it.seqQ, one), hi);
    }
    r.qFirst = k.div(lo, k.index(s1));
    Value qBlocks =
        k.max(zero, k.sub(k.add(k.div(hi, k.index(s1)), one), r.qFirst));
    r.qBlocks = k.select(k.lt(hi, lo), zero, qBlocks);
    return r;
  }

  /// Items (batch, key/value head, key block) of `group`, with the query
  /// blocks that reach the key block (reachOfKeyBlock): the group's run
  /// when dQ is summed with dK and dV (keyRuns), else forEachGroupItem's.
  void forEachKeyItem(Value group,
                      function_ref<void(Item &, const KeyBlockReach &)> body) {
    auto visit = [&](Item &it, Value head, Value block) {
      it.kvHead = head;
      it.n = k.mul(it.kvHead, k.index(g.getGroup()));
      return reachOfKeyBlock(it, block);
    };
    if (keyRuns) {
      forEachRunItem(group,
                     [&](Item &it, Value head, Value block, Value runFirst) {
                       KeyBlockReach r = visit(it, head, block);
                       r.reachedBefore = reachEnd(it, runFirst, block);
                       body(it, r);
                     });
      return;
    }
    forEachGroupItem(group, /*alongKeys=*/true,
                     [&](Item &it, Value head, Value block, Value) {
                       body(it, visit(it, head, block));
                     });
  }

  /// The end of the query blocks that key blocks [from, to) of `it`'s
  /// head reach together: 0 when the range is empty (KeyBlockReach).
  Value reachEnd(const Item &it, Value from, Value to) {
    Value zero = k.index(0), one = k.index(1);
    KeyBlockReach last = reachOfKeyBlock(it, k.max(zero, k.sub(to, one)));
    return k.select(k.lt(from, to), k.add(last.qFirst, last.qBlocks), zero);
  }

  //===--- dQ summed with dK and dV ---------------------------------------===//

  /// Whether launch 1 also sums dQ += dS K, into one partial sum per
  /// (group, head) that a last launch adds up, so that no launch computes
  /// S and dP again for dQ alone. Not with a dpse summed over the batches:
  /// its sum takes one vector task per element, in batch order, which
  /// launch 2's dealing gives and launch 1's does not.
  bool mergesQueries() const { return pseGrad != PseGrad::SumBatches; }

  /// Heads (batch, key/value head) in order: hg = b N2 + kvHead.
  int64_t getNumHeads() const { return g.batch * g.headsKV; }

  /// Head hg's batch fields, with its key/value head.
  Item readHead(Value hg) {
    Item it = readBatch(k.div(hg, k.index(g.headsKV)));
    it.kvHead = k.rem(hg, k.index(g.headsKV));
    return it;
  }

  /// table[row, column] = v, an index stored in an i64 table.
  void storeIndex(Value table, Value row, int64_t column, Value v) {
    Type i64 = k.builder().getI64Type();
    k.store(k.builder().create<arith::IndexCastOp>(k.location(), i64, v), table,
            {row, k.index(column)});
  }

  /// Launch 1's blocks of `it`'s keys.
  Value keyBlocksOf(const Item &it) { return ceilDiv(it.seqKV, keyBlocks.s2); }

  /// What a key item whose block has `reach` costs launch 1: a step per
  /// query head of the group and query block reaching it, and one for the
  /// item (its K, V loads and sums).
  Value keyItemWork(const KeyBlockReach &reach) {
    Value steps = k.mul(reach.qBlocks, k.index(g.getGroup()));
    return k.add(steps, k.index(1));
  }

  /// for hg over the heads, for each key block of hg: state = body(hg, it,
  /// block, state), `it` holding hg's batch and key/value head, after
  /// beforeHead(hg). Returns the state.
  SmallVector<Value> foldKeyItems(
      ValueRange init,
      function_ref<SmallVector<Value>(Value, const Item &, Value, ValueRange)>
          body,
      function_ref<void(Value)> beforeHead = nullptr) {
    Value zero = k.index(0), one = k.index(1);
    return k.forLoopCarrying(zero, k.index(getNumHeads()), one, init,
                             [&](Value hg, ValueRange state) {
                               Item it = readHead(hg);
                               if (beforeHead)
                                 beforeHead(hg);
                               return k.forLoopCarrying(
                                   zero, keyBlocksOf(it), one, state,
                                   [&](Value block, ValueRange inner) {
                                     return body(hg, it, block, inner);
                                   });
                             });
  }

  /// Deals launch 1's items in contiguous runs balanced by their work
  /// (keyItemWork), head by head, key block by key block: item j, with
  /// work c_j before it and w_j its own out of W, goes to group
  /// floor((c_j + w_j / 2) G / W), the share its midpoint falls in. A
  /// group's sum is then within half the largest item of W / G, and it
  /// touches the heads of one range. Fills keyRuns ([G + 1, 2] i64: where
  /// group g's run starts, as (head, key block); group g + 1's start ends
  /// it) and headGroups ([heads, 2]: the first and last group whose run
  /// has an item of the head). Host loops, O(B N2 S2 / s2Inner).
  void buildKeyRuns() {
    Type i64 = k.builder().getI64Type();
    keyRuns = globalBuffer({groups + 1, 2}, i64);
    partialReach = globalBuffer({groups + getNumHeads() - 1, 2}, i64);
    headGroups = globalBuffer({std::max<int64_t>(getNumHeads(), 1), 2}, i64);
    Value zero = k.index(0), one = k.index(1), total = k.index(getNumHeads());
    // Runs not started by an item are empty: (heads, 0) ends the last head.
    k.forLoop(zero, k.index(groups + 1), one, [&](Value grp) {
      storeIndex(keyRuns, grp, 0, k.select(k.eq(grp, zero), zero, total));
      storeIndex(keyRuns, grp, 1, zero);
    });
    Value work = foldKeyItems(zero, [&](Value, const Item &it, Value block,
                                        ValueRange sum) {
                   return SmallVector<Value>{
                       k.add(sum[0], keyItemWork(reachOfKeyBlock(it, block)))};
                 }).front();
    Value twiceWork = k.mul(k.max(work, one), k.index(2));
    Value no = k.constant(k.builder().getI1Type(), 0);
    foldKeyItems(
        {zero, zero, no},
        [&](Value hg, const Item &it, Value block, ValueRange state) {
          Value c = state[0], lastOwner = state[1], reached = state[2];
          KeyBlockReach reach = reachOfKeyBlock(it, block);
          Value w = keyItemWork(reach);
          Value mid = k.add(k.mul(c, k.index(2)), w);
          Value owner = k.div(k.mul(mid, k.index(groups)), twiceWork);
          Value first = k.eq(block, zero);
          k.ifThenElse(first, [&] { storeIndex(headGroups, hg, 0, owner); });
          storeIndex(headGroups, hg, 1, owner);
          // The groups after the previous item's start their runs here;
          // those before `owner` get none, and reach no row of hg.
          k.forLoop(k.add(lastOwner, one), k.add(owner, one), one,
                    [&](Value grp) {
                      storeIndex(keyRuns, grp, 0, hg);
                      storeIndex(keyRuns, grp, 1, block);
                      storeIndex(partialReach, k.add(hg, grp), 0, zero);
                      storeIndex(partialReach, k.add(hg, grp), 1, zero);
                    });
          reached = recordReachedRows(
              hg, owner, reach, k.select(first, first, k.lt(lastOwner, owner)),
              reached);
          return SmallVector<Value>{k.add(c, w), owner, reached};
        },
        [&](Value hg) {
          // No group until the head's first item is dealt.
          storeIndex(headGroups, hg, 0, one);
          storeIndex(headGroups, hg, 1, zero);
        });
  }

  /// Widens the query rows the run of `owner` reached in head hg
  /// (partialReach's row of its partial, [lo, hi)) by an item's `reach`:
  /// `startsPair` when the item is the pair's first, `reached` whether an
  /// earlier one of the pair reached a row. Empty reaches (keys no query
  /// sees, before or past the band) leave it: their blocks' qFirst lies
  /// outside what the pair's steps write. Returns the new `reached`.
  Value recordReachedRows(Value hg, Value owner, const KeyBlockReach &reach,
                          Value startsPair, Value reached) {
    Value slot = k.add(hg, owner), zero = k.index(0);
    auto put = [&](int64_t column, Value v) {
      storeIndex(partialReach, slot, column, v);
    };
    k.ifThenElse(startsPair, [&] {
      put(0, zero);
      put(1, zero);
    });
    reached =
        k.select(startsPair, k.constant(k.builder().getI1Type(), 0), reached);
    Value reaches = k.lt(zero, reach.qBlocks);
    k.ifThenElse(reaches, [&] {
      k.ifThenElse(
          reached, [] {},
          [&] { put(0, k.mul(reach.qFirst, k.index(s1Inner))); });
      put(1, k.mul(k.add(reach.qFirst, reach.qBlocks), k.index(s1Inner)));
    });
    return k.select(reaches, reaches, reached);
  }

  /// Calls visit(it, head, block, first) for the items of `group`'s run
  /// (buildKeyRuns), in order: from (head0, block0), its start, to (head1,
  /// block1), the next group's; `first` is the run's first key block of the
  /// head.
  void forEachRunItem(Value group,
                      function_ref<void(Item &, Value, Value, Value)> visit) {
    Value zero = k.index(0), one = k.index(1);
    auto runStart = [&](Value grp, int64_t column) {
      return k.toIndex(k.load(keyRuns, {grp, k.index(column)}));
    };
    Value next = k.add(group, one);
    Value head0 = runStart(group, 0), block0 = runStart(group, 1);
    Value head1 = runStart(next, 0), block1 = runStart(next, 1);
    Value heads = k.index(getNumHeads());
    k.forLoop(head0, k.min(k.add(head1, one), heads), one, [&](Value hg) {
      Item it = readHead(hg);
      Value from = k.select(k.eq(hg, head0), block0, zero);
      Value to = k.select(k.eq(hg, head1), block1, keyBlocksOf(it));
      k.forLoop(from, to, one, [&](Value block) {
        Item item = it;
        visit(item, it.kvHead, block, from);
      });
    });
  }

  /// Rows [r0, r0 + rows) of query head n in the partial sum of dQ of
  /// (group, `it`'s head hg): slot hg + group, which no other pair takes,
  /// since a group's heads follow the previous group's.
  Value partialRows(const Item &it, Value n, Value group, Value r0,
                    Value rows) {
    OpFoldResult one = k.builder().getIndexAttr(1);
    Value hg = k.add(k.mul(it.b, k.index(g.headsKV)), it.kvHead);
    Value within = k.sub(n, k.mul(it.kvHead, k.index(g.getGroup())));
    return k.window(dqParts, {k.add(hg, group), within, r0, k.index(0)},
                    {one, one, rows, k.index(g.headDim)}, {0, 1});
  }
  /// Step `s`'s rows in its partial sum of dQ.
  Value partialRows(const Step &s, Value group) {
    return partialRows(s.it, s.it.n, group, s.r0, s.rows);
  }

  /// The partial sums of dQ: [G + heads - 1, G_q, longest S1, D] f32. Not
  /// filled: a step that first reaches a query block of its run sets its
  /// rows (Step::freshPartial), and the sum reads only the rows a run
  /// reached (buildQuerySums).
  void buildQueryPartials() {
    int64_t slots = groups + getNumHeads() - 1;
    SmallVector<int64_t> shape = {slots, g.getGroup(), ShapedType::kDynamic,
                                  g.headDim};
    SmallVector<Value> sizes;
    if (g.hasStaticLengths()) {
      int64_t longest = 0;
      for (int64_t b = 0; b < g.batch; ++b)
        longest = std::max(longest, g.getSeqQ(b));
      shape[2] = longest;
    } else {
      Value zero = k.index(0);
      sizes.push_back(k.forLoop(zero, k.index(g.batch), k.index(1), zero,
                                [&](Value b, Value longest) {
                                  return k.max(longest, batchField(b, kSeqQ));
                                }));
    }
    OpBuilder &b = k.builder();
    dqParts = b.create<memref::AllocOp>(
        k.location(),
        MemRefType::get(shape, f32, MemRefLayoutAttrInterface(),
                        dev::MemorySpaceAttr::get(b.getContext(),
                                                  dev::MemorySpace::global)),
        sizes);
  }

  /// A vector launch adding up the partial sums of dQ into dq (rounded for
  /// f16 / bf16): each task takes its own rows of its group's query-block
  /// items, and per chunk of them adds the partials of the groups that
  /// touched the head, in group order, kPartialsInFlight at a time: their
  /// loads move together, so a head touched by that many groups waits for
  /// one copy's latency, not for one per group. O(B N1 S1 D (G / (B N2) +
  /// 1)).
  static constexpr int64_t kPartialsInFlight = 4;
  void buildQuerySums() {
    useBlocks(queryBlocks);
    bool narrow = element != f32;
    int64_t d = g.headDim, eb = element.getIntOrFloatBitWidth() / 8;
    int64_t rowBytes = d * (4 + kPartialsInFlight * 4 + (narrow ? eb : 0));
    int64_t chunk = std::max<int64_t>(
        1, std::min(rowsPerVector, device.vectorBytes / rowBytes));
    dev::LaunchOp launch = k.launch(groups * vectorsPerGroup, [&](Value task) {
      Value sum = k.alloc({chunk, d}, f32);
      Value parts = k.alloc({kPartialsInFlight, chunk, d}, f32);
      // A head's partials' reached rows: at most every group touches it.
      Value reachRows = k.alloc({groups, 2}, k.builder().getI64Type());
      Value out = narrow ? k.alloc({chunk, d}, element) : sum;
      VectorTask vt = decodeVectorTask(task);
      Value zero = k.index(0), one = k.index(1), dIdx = k.index(d);
      forEachItem(vt.group, [&](const Item &it) {
        Value hg = k.add(k.mul(it.b, k.index(g.headsKV)), it.kvHead);
        auto groupOf = [&](int64_t column) {
          return k.toIndex(k.load(headGroups, {hg, k.index(column)}));
        };
        Value first = groupOf(0), last = groupOf(1);
        Value own = ownRows(it.rows, vt.own0);
        Value touching = k.max(zero, k.sub(k.add(last, one), first));
        Value reach = rowsOf(reachRows, zero, touching, zero, k.index(2));
        k.ifThenElse(k.lt(zero, touching), [&] {
          k.dma(rowsOf(partialReach, k.add(hg, first), touching, zero,
                       k.index(2)),
                reach);
        });
        k.forLoop(zero, own, k.index(chunk), [&](Value r) {
          Value rows = k.min(k.index(chunk), k.sub(own, r));
          Value i0 = k.add(it.r0, k.add(vt.own0, r));
          Value sumRows = rowsOf(sum, zero, rows, zero, dIdx);
          Value inFlight = k.index(kPartialsInFlight);
          k.vfill(sumRows, k.f32(0));
          // Partial j of the batch starting at group `from`: the rows of
          // [i0, i0 + rows) its run reached, at `offset` in the chunk.
          auto forEachReached =
              [&](Value from, Value count,
                  function_ref<void(Value, Value, Value, Value)> body) {
                k.forLoop(zero, count, one, [&](Value j) {
                  Value grp = k.add(from, j);
                  auto [offset, reached] =
                      reachedRows(reach, k.sub(grp, first), i0, rows);
                  k.ifThenElse(k.lt(zero, reached),
                               [&, offset = offset, reached = reached] {
                                 body(j, grp, offset, reached);
                               });
                });
              };
          k.forLoop(first, k.add(last, one), inFlight, [&](Value from) {
            Value count = k.min(inFlight, k.sub(k.add(last, one), from));
            forEachReached(
                from, count, [&](Value j, Value grp, Value offset, Value n) {
                  k.dmaStart(partialRows(it, it.n, grp, k.add(i0, offset), n),
                             partSlot(parts, j, offset, n, dIdx));
                });
            k.waitAll();
            forEachReached(from, count,
                           [&](Value j, Value, Value offset, Value n) {
                             Value at = rowsOf(sum, offset, n, zero, dIdx);
                             k.vbinary(dev::BinaryKind::add, at,
                                       partSlot(parts, j, offset, n, dIdx), at);
                           });
          });
          Value outRows = rowsOf(out, zero, rows, zero, dIdx);
          if (narrow)
            k.vcast(sumRows, outRows);
          k.dma(outRows, headRows(dq, true, it, it.n, i0, rows));
        });
      });
    });
    KernelBuilder::recordStep(launch, "flash_attention_grad", "dq_sum", "chunk",
                              chunk);
  }

  /// Rows [offset, offset + n) of slot j of `parts` ([slots, rows, d]).
  Value partSlot(Value parts, Value j, Value offset, Value n, Value d) {
    Value zero = k.index(0);
    return k.window(parts, {j, offset, zero},
                    {k.builder().getIndexAttr(1), n, d}, {0});
  }

  /// The rows of [i0, i0 + rows) that group first + j's run reached in
  /// head hg, as (offset from i0, count), from `reach`: partialReach's rows
  /// of the head's partials, copied to vector memory.
  std::pair<Value, Value> reachedRows(Value reach, Value j, Value i0,
                                      Value rows) {
    auto bound = [&](int64_t column) {
      return k.toIndex(k.load(reach, {j, k.index(column)}));
    };
    Value lo = bound(0), hi = bound(1);
    Value end = k.add(i0, rows);
    Value a = k.min(k.max(i0, lo), end);
    Value b = k.max(k.min(end, hi), a);
    return {k.sub(a, i0), k.sub(b, a)};
  }

  //===--- Cube side ------------------------------------------------------===//

  /// The cube tiles of a launch's steps.
  struct CubeTiles {
    Value qTiles, dyTiles, kTiles, vTiles, sTile, dpTile, pTile, dsTile;
    /// Launch 1 sums dK (A) and dV (B) over its key block, launch 2 dQ
    /// over its query block; launch 1 sums dpse rows with a row of ones.
    Value sumA, sumB, sumQ, onesRow, dpseRow;
  };

  void buildCube(Value group, Pass pass) {
    bool keys = pass == Pass::KeysValues;
    auto cube = [&](ArrayRef<int64_t> shape, Type type) {
      return k.alloc(shape, type, dev::MemorySpace::cube);
    };
    int64_t d = g.headDim;
    // Q and dY vary by step in launch 1, K and V in launches 0 and 2: those
    // have a ring of kTileSlots tiles, the fixed pair one tile each.
    int64_t qSlots = keys ? kTileSlots : 1, kSlots = keys ? 1 : kTileSlots;
    CubeTiles tiles;
    Value qTiles = tiles.qTiles = cube({qSlots, s1Inner, d}, element);
    Value dyTiles = tiles.dyTiles = cube({qSlots, s1Inner, d}, element);
    Value kTiles = tiles.kTiles = cube({kSlots, s2Inner, d}, element);
    Value vTiles = tiles.vTiles = cube({kSlots, s2Inner, d}, element);
    // dP has a tile of its own, so that S's store can move while dP is
    // computed; launches 0 and 2 have two sets (see scoreSets).
    int64_t sets = scoreSets(pass);
    Value sTile = tiles.sTile = cube({sets, s1Inner, s2Inner}, f32);
    Value dpTile = tiles.dpTile = cube({sets, s1Inner, s2Inner}, f32);
    // P' and dS: an iteration loads them and takes them into the sums.
    if (keys)
      tiles.pTile = cube({1, s1Inner, s2Inner}, element);
    if (pass != Pass::Statistics)
      tiles.dsTile = cube({1, s1Inner, s2Inner}, element);
    Value zero = k.index(0), dIdx = k.index(d);
    if (keys) {
      if (mergesQueries())
        tiles.sumQ = cube({s1Inner, d}, f32);
      tiles.sumA = cube({s2Inner, d}, f32);
      tiles.sumB = cube({s2Inner, d}, f32);
      if (pseGrad == PseGrad::SumRows) {
        tiles.onesRow = cube({1, s1Inner}, element);
        tiles.dpseRow = cube({1, s2Inner}, f32);
        k.dma(ones, tiles.onesRow);
      }
    } else if (pass == Pass::Queries) {
      tiles.sumQ = cube({s1Inner, d}, f32);
    }
    Value sumA = tiles.sumA, sumB = tiles.sumB, sumQ = tiles.sumQ;
    auto slotRows = [&](Value tiles, Value slot, Value rows) {
      return tileOf(tiles, slot, rows, dIdx);
    };
    forEachItemOf(
        group, pass,
        [&](Item &it, Value steps, function_ref<Step(Value)> stepAt) {
          // Fixed for the item: K, V (launch 1) or Q, dY (launches 0 and
          // 2), loaded with step 0's varying pair (issue waits for all
          // four, and for the previous item's sums on their way out).
          Step first = stepAt(zero);
          if (keys) {
            k.dmaStart(
                headRows(key, false, it, it.kvHead, first.c0, first.cols),
                slotRows(kTiles, zero, first.cols));
            k.dmaStart(
                headRows(value, false, it, it.kvHead, first.c0, first.cols),
                slotRows(vTiles, zero, first.cols));
          } else {
            k.dmaStart(headRows(query, true, it, it.n, it.r0, it.rows),
                       slotRows(qTiles, zero, it.rows));
            k.dmaStart(headRows(dy, true, it, it.n, it.r0, it.rows),
                       slotRows(dyTiles, zero, it.rows));
          }
          auto signalVectors = [&](int64_t flag) {
            for (int64_t v = 0; v < vectorsPerGroup; ++v)
              k.setFlag(
                  flag, dev::CoreKind::vector,
                  k.add(k.mul(group, k.index(vectorsPerGroup)), k.index(v)));
          };
          // The tiles that vary by step, in the step's slot of the ring.
          auto varying = [&](const Step &s) {
            Value qs = keys ? s.tileSlot : zero, ks = keys ? zero : s.tileSlot;
            return std::make_tuple(
                slotRows(qTiles, qs, s.rows), slotRows(dyTiles, qs, s.rows),
                slotRows(kTiles, ks, s.cols), slotRows(vTiles, ks, s.cols));
          };
          // Starts loading step t's varying pair; the two loads move
          // together. Returns the token of the second.
          auto startLoads = [&](Value t) {
            Step s = stepAt(t);
            auto [q, dyRows, kRows, vRows] = varying(s);
            if (keys) {
              k.dmaStart(headRows(query, true, s.it, s.it.n, s.r0, s.rows), q);
              return k.dmaStart(headRows(dy, true, s.it, s.it.n, s.r0, s.rows),
                                dyRows);
            }
            k.dmaStart(headRows(key, false, s.it, s.it.kvHead, s.c0, s.cols),
                       kRows);
            return k.dmaStart(
                headRows(value, false, s.it, s.it.kvHead, s.c0, s.cols), vRows);
          };
          // Step t's S and dP into set t mod `sets`, each stored as soon
          // as it is computed.
          auto compute = [&](Value t) {
            Step s = stepAt(t);
            auto [q, dyRows, kRows, vRows] = varying(s);
            Value set = k.rem(t, k.index(sets));
            k.matmul(q, kRows, setRows(sTile, set, s), /*accumulate=*/false,
                     /*transposeB=*/true);
            storeTile(setRows(sTile, set, s), wsScores, s, group);
            k.matmul(dyRows, vRows, setRows(dpTile, set, s),
                     /*accumulate=*/false, /*transposeB=*/true);
            return storeTile(setRows(dpTile, set, s), wsDp, s, group);
          };
          auto consume = [&](Value t) {
            Step s = stepAt(t);
            auto [q, dyRows, kRows, vRows] = varying(s);
            accumulateStep(tiles, s, k.eq(t, zero), q, dyRows, kRows);
          };
          // A merged launch 1 takes step t into dK and dV while its partial
          // rows of dQ load into `partial`, adds dS K to them and starts
          // storing them back; returns the store's token.
          bool merged = keys && tiles.sumQ;
          auto consumeWithPartial = [&](Value t, Value partial,
                                        Value partialLoaded) {
            Step s = stepAt(t);
            auto [q, dyRows, kRows, vRows] = varying(s);
            accumulateStep(tiles, s, k.eq(t, zero), q, dyRows, kRows);
            k.wait(partialLoaded);
            k.matmulSum(setRows(tiles.dsTile, zero, s), kRows, partial,
                        s.freshPartial, /*transposeA=*/false,
                        /*transposeB=*/false);
            return k.dmaStart(partial, partialRows(s, group));
          };
          auto waitForVectors = [&] {
            for (int64_t v = 0; v < vectorsPerGroup; ++v)
              k.waitFlag(kProbsReady + v);
          };
          Value lag = k.index(getLag(pass));
          // Iteration t waits for the vector tasks to finish step t - lag
          // and starts loading its P' and dS, starts step t + 1's pair,
          // computes and stores step t's S and dP, tells the vector tasks,
          // and takes step t - lag into the sums: the vector tasks' steps
          // t - lag + 1 .. t - 1 are still free to run (lag: getLag(pass)),
          // and the loads of P' and dS move while step t is computed. The
          // vector tasks are told when a step's stores are issued: a flag is
          // set once the copies issued before it are done. Before computing,
          // the iteration waits
          //  - with one set of S and dP (launch 1), for the previous one's
          //    stores of S and dP, which read the tiles this step's matmuls
          //    write: for everything it started, but in a merged launch 1
          //    for the store of dP alone (copies complete in order), so that
          //    the partial rows of dQ it stored last move meanwhile. Their
          //    tile is loaded again only after that store;
          //  - with two, for step t's pair alone, which covers step t - 2's
          //    stores from the set step t is computed into (copies complete
          //    in order). Step t - 1's stores stay in flight, and step t's
          //    queue behind them: the copy engine, not its latency, sets the
          //    pace.
          // The sums wait for the loads of P' and dS, not for step t's
          // stores.
          Type token = dev::TokenType::get(k.builder().getContext());
          auto startLoadsIf = [&](Value cond, Value t) {
            return k.ifThenElse(
                cond, token, [&] { return startLoads(t); },
                [&] { return k.completedToken(); });
          };
          // The tokens carried from iteration to iteration: with two sets,
          // step t's pair (`loaded`); in a merged launch 1, the previous
          // step's store of dP (`stored`) and of its partial rows of dQ
          // (`added`).
          struct Carried {
            Value loaded, stored, added;
          };
          auto iteration = [&](Value t, const Carried &in) {
            Value next = k.add(t, k.index(1)), hasNext = k.lt(next, steps);
            Value inFlight = k.lt(t, steps);
            Value taken = k.sub(t, lag), takes = k.ge(t, lag);
            if (in.stored)
              k.wait(in.stored);
            else if (!in.loaded)
              k.waitAll();
            Value taking;
            if (pass == Pass::Statistics)
              k.ifThenElse(takes, waitForVectors);
            else
              taking = k.ifThenElse(
                  takes, token,
                  [&] {
                    waitForVectors();
                    return loadProbsAndDs(tiles, group, stepAt(taken));
                  },
                  [&] { return k.completedToken(); });
            Carried out;
            if (in.loaded) {
              out.loaded = startLoadsIf(hasNext, next);
              k.wait(in.loaded);
            } else {
              k.ifThenElse(hasNext, [&] { startLoads(next); });
            }
            auto computeAndSignal = [&] {
              Value stored = compute(t);
              signalVectors(kScoresReady);
              return stored;
            };
            // A token not started here is complete: past the steps nothing
            // is computed again, and before step kLag no partial is stored.
            // (Carrying the previous one instead would tie tokens in a
            // cycle through the loop, which the JIT cannot drop.)
            auto completed = [&] { return k.completedToken(); };
            if (merged)
              out.stored =
                  k.ifThenElse(inFlight, token, computeAndSignal, completed);
            else
              k.ifThenElse(inFlight, [&] { computeAndSignal(); });
            if (merged)
              out.added = k.ifThenElse(
                  takes, token,
                  [&] {
                    Step s = stepAt(taken);
                    Value partial =
                        rowsOf(tiles.sumQ, zero, s.rows, zero, dIdx);
                    k.wait(in.added);
                    // Rows the run reached before hold its sum so far.
                    Value partialLoaded =
                        k.ifThenElse(s.freshPartial, token, completed, [&] {
                          return k.dmaStart(partialRows(s, group), partial);
                        });
                    k.wait(taking);
                    return consumeWithPartial(taken, partial, partialLoaded);
                  },
                  completed);
            else if (taking)
              k.ifThenElse(takes, [&] {
                k.wait(taking);
                consume(taken);
              });
            return out;
          };
          auto pack = [](const Carried &c) {
            SmallVector<Value> values;
            for (Value v : {c.loaded, c.stored, c.added})
              if (v)
                values.push_back(v);
            return values;
          };
          Carried init;
          if (sets == 2) {
            init.loaded = startLoadsIf(k.lt(zero, steps), zero);
          } else {
            k.ifThenElse(k.lt(zero, steps), [&] { startLoads(zero); });
          }
          if (merged) {
            // Iteration 0 waits for its loads and the previous item's
            // stores here.
            k.waitAll();
            init.stored = init.added = k.completedToken();
          }
          Value end = k.add(steps, lag), one = k.index(1);
          k.forLoopCarrying(
              zero, end, one, pack(init), [&](Value t, ValueRange carried) {
                Carried in = init;
                unsigned i = 0;
                for (Value *v : {&in.loaded, &in.stored, &in.added})
                  if (*v)
                    *v = carried[i++];
                return pack(iteration(t, in));
              });
          // The sums go out while the next item loads. An item without
          // steps (a key block no query reaches) writes zeros.
          auto storeSum = [&](Value sum, Value rows, Value target) {
            Value tile = rowsOf(sum, zero, rows, zero, dIdx);
            k.ifThenElse(k.eq(steps, zero), [&] {
              k.waitAll();
              k.dma(rowsOf(zeros, zero, rows, zero, dIdx), tile);
            });
            k.dmaStart(tile, target);
          };
          if (keys) {
            storeSum(
                sumA, first.cols,
                headRows(dkSum, false, it, it.kvHead, first.c0, first.cols));
            storeSum(
                sumB, first.cols,
                headRows(dvSum, false, it, it.kvHead, first.c0, first.cols));
          } else if (pass == Pass::Queries) {
            storeSum(sumQ, it.rows,
                     headRows(dqSum, true, it, it.n, it.r0, it.rows));
          }
        });
    k.waitAll();
  }

  /// Starts storing `tile`, step `s`'s S or dP, into its workspace slot;
  /// returns the copy's token.
  Value storeTile(Value tile, Value ws, const Step &s, Value group) {
    Value zero = k.index(0);
    return k.dmaStart(tile,
                      slotTile(ws, group, s.slot, zero, s.rows, zero, s.cols));
  }

  /// Starts loading step `s`'s P' (launch 1 only: dQ needs only dS) and dS
  /// from the workspace into their tiles; returns the token of the last
  /// (copies complete in order).
  Value loadProbsAndDs(const CubeTiles &tiles, Value group, const Step &s) {
    Value zero = k.index(0);
    if (tiles.pTile)
      k.dmaStart(slotTile(wsProbs, group, s.slot, zero, s.rows, zero, s.cols),
                 setRows(tiles.pTile, zero, s));
    return k.dmaStart(slotTile(wsDs, group, s.slot, zero, s.rows, zero, s.cols),
                      setRows(tiles.dsTile, zero, s));
  }

  /// Rows [0, rows) and columns [0, cols) of tile `index` of `tiles` (a
  /// ring or set of cube tiles, [n, rows, cols]).
  Value tileOf(Value tiles, Value index, Value rows, Value cols) {
    Value zero = k.index(0);
    return k.window(tiles, {index, zero, zero},
                    {k.builder().getIndexAttr(1), rows, cols}, {0});
  }

  /// Step `s`'s block in set `set` of a [n, s1, s2] tile.
  Value setRows(Value tiles, Value set, const Step &s) {
    return tileOf(tiles, set, s.rows, s.cols);
  }

  /// Step `s`'s P' and dS into the sums: dV += P'^T dY and dK += dS^T Q
  /// (and dpse rows) in launch 1, dQ += dS K in launch 2. An item's first
  /// step (`first`) sets the sums instead.
  void accumulateStep(const CubeTiles &tiles, const Step &s, Value first,
                      Value q, Value dyRows, Value kRows) {
    Value zero = k.index(0), dIdx = k.index(g.headDim);
    Value ds = setRows(tiles.dsTile, zero, s);
    if (!tiles.sumA) {
      k.matmulSum(ds, kRows, rowsOf(tiles.sumQ, zero, s.rows, zero, dIdx),
                  first, /*transposeA=*/false, /*transposeB=*/false);
      return;
    }
    k.matmulSum(setRows(tiles.pTile, zero, s), dyRows,
                rowsOf(tiles.sumB, zero, s.cols, zero, dIdx), first,
                /*transposeA=*/true, /*transposeB=*/false);
    k.matmulSum(ds, q, rowsOf(tiles.sumA, zero, s.cols, zero, dIdx), first,
                /*transposeA=*/true, /*transposeB=*/false);
    if (tiles.dpseRow)
      sumDpseRow(s, ds, tiles.onesRow, tiles.dpseRow);
  }

  /// dpse[b, n, 0, keys] = sum over the head's query blocks of ones^T dS,
  /// summed in `row` and written after the head's last block.
  void sumDpseRow(const Step &s, Value ds, Value onesRow, Value row) {
    OpBuilder &b = k.builder();
    Value zero = k.index(0);
    Value ones = k.window(onesRow, {zero, zero}, {b.getIndexAttr(1), s.rows});
    Value sum = k.window(row, {zero, zero}, {b.getIndexAttr(1), s.cols});
    k.matmulSum(ones, ds, sum, k.lt(s.headBlock, k.index(1)),
                /*transposeA=*/false, /*transposeB=*/false);
    k.ifThenElse(k.ge(k.add(s.headBlock, k.index(1)), s.headBlocks), [&] {
      k.dma(k.window(row, {zero, zero}, {b.getIndexAttr(1), s.cols}, {0}),
            positionTile(dpseSum, s.it, zero, k.index(1), s.c0, s.cols));
    });
  }

  //===--- Vector side ----------------------------------------------------===//

  struct GradBuffers {
    VectorBuffers base;
    Value dp, dropped, ds, rowD;
    /// Launch 0: per own row, the running sum of exp(S - m) dP'; a second
    /// set of S and dP tiles when a step is one chunk and they fit.
    Value dotSum, nextScores, nextDp;
  };

  /// Whether launch 0's vector tasks load step t + 1's S and dP while they
  /// work on step t: when a step is one chunk and a second set of both
  /// fits vector memory in place of the tiles launch 0 does not use (P'
  /// through the dropout, and dS).
  bool prefetchesStatistics() const {
    if (chunkRows < rowsPerVector)
      return false;
    int64_t eb = element.getIntOrFloatBitWidth() / 8;
    int64_t extra = (4 - eb) * s2Inner * chunkRows;
    return ownRowBytes(rowsPerVector) + chunkRows * chunkRowBytes(s2Inner) +
               extra <=
           device.vectorBytes;
  }

  void buildVector(Value task, Pass pass) {
    bool statistics = pass == Pass::Statistics;
    bool prefetch = statistics && prefetchesStatistics();
    GradBuffers buf;
    buf.base = allocVector();
    buf.dp = k.alloc({chunkRows, s2Inner}, f32);
    if (!statistics) {
      buf.dropped = k.alloc({chunkRows, s2Inner}, f32);
      buf.ds = k.alloc({chunkRows, s2Inner}, element);
    }
    if (prefetch) {
      buf.nextScores = k.alloc({chunkRows, s2Inner}, f32);
      buf.nextDp = k.alloc({chunkRows, s2Inner}, f32);
    }
    buf.rowD = k.alloc({chunkRows}, f32);
    buf.dotSum = k.alloc({rowsPerVector}, f32);
    VectorTask vt = decodeVectorTask(task);
    Value group = vt.group, part = vt.part, own0 = vt.own0;
    k.vfill(buf.base.negInf, k.f32(-std::numeric_limits<double>::infinity()));
    Value zero = k.index(0);
    forEachItemOf(
        group, pass, [&](Item &it, Value steps, function_ref<Step(Value)> at) {
          if (statistics)
            startStatistics(buf);
          if (prefetch)
            statisticsSteps(buf, group, part, own0, ownRows(it.rows, own0),
                            steps, at);
          else
            k.forLoop(zero, steps, k.index(1), [&](Value t) {
              Step s = at(t);
              k.waitFlag(kScoresReady);
              forEachChunk(ownRows(s.rows, own0), [&](Value r, Value rows) {
                if (statistics) {
                  ScoreRows loaded = startScoreLoads(
                      buf.base.scores, buf.dp, s, group, k.add(own0, r), rows);
                  k.waitAll();
                  statisticsChunk(buf, s, loaded, k.add(own0, r), r, rows);
                } else
                  gradChunk(buf, s, group, k.add(own0, r), rows, pass);
              });
              signalCube(part, group);
            });
          if (statistics)
            forEachChunk(ownRows(it.rows, own0), [&](Value r, Value rows) {
              writeStatistics(buf, it, k.add(it.r0, k.add(own0, r)), r, rows);
            });
        });
  }

  /// m = -inf, l = 0 and the sum of exp(S - m) dP' = 0 for the own rows.
  void startStatistics(const GradBuffers &buf) {
    k.vfill(buf.base.rowMax, k.f32(-std::numeric_limits<double>::infinity()));
    k.vfill(buf.base.rowSum, k.f32(0));
    k.vfill(buf.dotSum, k.f32(0));
  }

  /// Where a step's S and dP rows land in vector memory.
  struct ScoreRows {
    Value s, dp;
  };

  /// Starts loading rows [row, row + rows) of step `st`'s tile of workspace
  /// `ws` into `tile` ([chunkRows, s2Inner]); returns where they land. The
  /// caller starts its other loads, so that their latencies overlap, waits
  /// once, and prepares the scores as the softmax takes them
  /// (prepareScores).
  Value startLoad(Value ws, Value tile, const Step &st, Value group, Value row,
                  Value rows) {
    Value zero = k.index(0);
    Value rowsIn = rowsOf(tile, zero, rows, zero, st.cols);
    k.dmaStart(slotTile(ws, group, st.slot, row, rows, zero, st.cols), rowsIn);
    return rowsIn;
  }

  /// Starts loading rows [row, row + rows) of step `st`'s S and dP into
  /// `scores` and `dps`.
  ScoreRows startScoreLoads(Value scores, Value dps, const Step &st,
                            Value group, Value row, Value rows) {
    Value s = startLoad(wsScores, scores, st, group, row, rows);
    return {s, startLoad(wsDp, dps, st, group, row, rows)};
  }

  /// Launch 0's steps of an item whose own rows are one chunk: step t + 1's
  /// S and dP load (into the other set) while step t is worked on.
  void statisticsSteps(const GradBuffers &buf, Value group, Value part,
                       Value own0, Value rows, Value steps,
                       function_ref<Step(Value)> at) {
    Value zero = k.index(0), two = k.index(2);
    // Set t mod 2 of a tile: `first` or `second`.
    auto setOf = [&](Value t, Value first, Value second) {
      return k.ifThenElse(
          k.eq(k.rem(t, two), zero), first.getType(), [&] { return first; },
          [&] { return second; });
    };
    auto sets = [&](Value t) {
      return std::make_pair(setOf(t, buf.base.scores, buf.nextScores),
                            setOf(t, buf.dp, buf.nextDp));
    };
    auto load = [&](Value t) {
      auto [scores, dps] = sets(t);
      k.waitFlag(kScoresReady);
      startScoreLoads(scores, dps, at(t), group, own0, rows);
    };
    k.ifThenElse(k.lt(zero, steps), [&] { load(zero); });
    k.forLoop(zero, steps, k.index(1), [&](Value t) {
      Step st = at(t);
      Value next = k.add(t, k.index(1));
      k.waitAll();
      k.ifThenElse(k.lt(next, steps), [&] { load(next); });
      auto [scores, dps] = sets(t);
      ScoreRows loaded{rowsOf(scores, zero, rows, zero, st.cols),
                       rowsOf(dps, zero, rows, zero, st.cols)};
      k.ifThenElse(k.lt(zero, rows),
                   [&] { statisticsChunk(buf, st, loaded, own0, zero, rows); });
      signalCube(part, group);
    });
  }

  /// Launch 0's step on rows [row, row + rows) (own rows [r, r + rows)),
  /// whose S and dP are loaded: the online softmax over the block's
  /// prepared scores, and the sum of exp(S - m) dP' rescaled with it.
  void statisticsChunk(const GradBuffers &buf, const Step &st,
                       const ScoreRows &loaded, Value row, Value r,
                       Value rows) {
    const VectorBuffers &v = buf.base;
    Value zero = k.index(0), cols = st.cols;
    Value i0 = k.add(st.r0, row);
    Value s = loaded.s, dp = loaded.dp;
    prepareScores(v, st.it, s, i0, rows, st.c0, cols);
    updateSoftmax(v, s, r, rows, k.index(0));
    if (dropMask)
      applyDropout(dp, loadKeep(v, st.it, i0, rows, st.c0, cols));
    // sum = sum alpha + rowsum(exp(S - m') dP').
    Value blockSum = k.window(buf.rowD, {zero}, {rows});
    Value sum = k.window(buf.dotSum, {r}, {rows});
    k.vbinary(dev::BinaryKind::mul, s, dp, dp);
    k.vreduce(dev::ReduceKind::sum, dp, blockSum);
    k.vbinary(dev::BinaryKind::mul, sum, alphaRows(v, k.index(0), r, rows),
              sum);
    k.vbinary(dev::BinaryKind::add, sum, blockSum, sum);
  }

  /// Writes m, l and D = sum / l (0 where l = 0: the row saw no key) of
  /// query rows [row, row + rows) (own rows [r, r + rows)).
  void writeStatistics(const GradBuffers &buf, const Item &it, Value row,
                       Value r, Value rows) {
    const VectorBuffers &v = buf.base;
    Value sum = k.window(buf.dotSum, {r}, {rows});
    k.vbinary(dev::BinaryKind::div, sum, rowSumDivisor(v, r, rows), sum);
    k.dma(k.window(v.rowMax, {r}, {rows}),
          statisticColumn(rowMaxes, it, row, rows));
    k.dma(k.window(v.rowSum, {r}, {rows}),
          statisticColumn(rowSums, it, row, rows));
    k.dma(sum, statisticColumn(rowDots, it, row, rows));
  }

  /// Rows [row, row + rows) of step `s`'s block: P' for launch 1's dV, dS,
  /// and dpse from launch 2.
  void gradChunk(const GradBuffers &buf, const Step &st, Value group, Value row,
                 Value rows, Pass pass) {
    bool writeProbs = pass == Pass::KeysValues;
    // dpse of the full shape is dS itself, written by whichever launch
    // computes dS last.
    bool writeDpse =
        pass == (mergesQueries() ? Pass::KeysValues : Pass::Queries);
    const VectorBuffers &v = buf.base;
    Value zero = k.index(0), cols = st.cols;
    Value i0 = k.add(st.r0, row);
    // S, m, l, D and dP' move together.
    Value s = startLoad(wsScores, v.scores, st, group, row, rows);
    Value m = k.window(v.rowMax, {zero}, {rows});
    Value l = k.window(v.rowSum, {zero}, {rows});
    Value rowD = k.window(buf.rowD, {zero}, {rows});
    k.dmaStart(statisticColumn(rowMaxes, st.it, i0, rows), m);
    k.dmaStart(statisticColumn(rowSums, st.it, i0, rows), l);
    k.dmaStart(statisticColumn(rowDots, st.it, i0, rows), rowD);
    Value dp = startLoad(wsDp, buf.dp, st, group, row, rows);
    k.waitAll();
    prepareScores(v, st.it, s, i0, rows, st.c0, cols);
    // P = exp(S - m) / l with the forward's statistics; a row that saw no
    // key (m = -inf, l = 0) gets P = 0.
    Value empty = k.window(v.empty, {zero}, {rows});
    Value constant = k.window(v.constant, {zero}, {rows});
    k.vcmpScalar(dev::ComparePredicate::eq, m,
                 k.f32(-std::numeric_limits<double>::infinity()), empty);
    k.vfill(constant, k.f32(0));
    k.vselect(empty, constant, m, m);
    k.vcmpScalar(dev::ComparePredicate::eq, l, k.f32(0), empty);
    k.vfill(constant, k.f32(1));
    k.vselect(empty, constant, l, l);
    k.vbinaryBroadcast(dev::BinaryKind::sub, s, m, s, 0);
    k.vunary(dev::UnaryKind::exp, s, s);
    k.vbinaryBroadcast(dev::BinaryKind::div, s, l, s, 0);
    // dP' (through the dropout) and P'.
    Value dropped = s;
    if (dropMask) {
      Value keep = loadKeep(v, st.it, i0, rows, st.c0, cols);
      applyDropout(dp, keep);
      if (writeProbs) {
        dropped = rowsOf(buf.dropped, zero, rows, zero, cols);
        k.vbinary(dev::BinaryKind::mul, s, keep, dropped);
        k.vbinaryScalar(dev::BinaryKind::div, dropped,
                        k.f32(op.getKeepProb().convertToDouble()), dropped);
      }
    }
    if (writeProbs)
      storeAs(dropped, rowsOf(v.probs, zero, rows, zero, cols),
              slotTile(wsProbs, group, st.slot, row, rows, zero, cols));
    // dS = scale P (dP' - D).
    k.vbinaryBroadcast(dev::BinaryKind::sub, dp, rowD, dp, 0);
    k.vbinary(dev::BinaryKind::mul, s, dp, dp);
    k.vbinaryScalar(dev::BinaryKind::mul, dp,
                    k.f32(op.getScale().convertToDouble()), dp);
    Value ds = rowsOf(buf.ds, zero, rows, zero, cols);
    storeAs(dp, ds, slotTile(wsDs, group, st.slot, row, rows, zero, cols));
    // P' was stored while dS was computed. In f32 the stores read S and dP
    // themselves, which the next chunk loads over, and dpse reuses the
    // buffers: both wait for the stores. Otherwise they stay in flight: the
    // cube's flag is set once they are done, and the next chunk's wait for
    // its loads covers them (a core's copies complete in order) before it
    // writes P' and dS again.
    bool writesDpse = writeDpse && (pseGrad == PseGrad::Full ||
                                    pseGrad == PseGrad::SumBatches);
    if (element == f32 || writesDpse)
      k.waitAll();
    if (!writesDpse)
      return;
    Value target = positionTile(dpseSum, st.it, i0, rows, st.c0, cols);
    if (pseGrad == PseGrad::Full) {
      k.dma(element == f32 ? dp : ds, target);
    } else {
      // Summed over batches: this task saw the same rows of batches 0 .. b - 1
      // before.
      Value sum = rowsOf(buf.dropped, zero, rows, zero, cols);
      k.dma(target, sum);
      k.vbinary(dev::BinaryKind::add, sum, dp, sum);
      k.dma(sum, target);
    }
  }

  /// Starts writing f32 `x` to `target` in the input type (through
  /// `narrow`); neither may change until a wait.
  void storeAs(Value x, Value narrow, Value target) {
    if (element == f32) {
      k.dmaStart(x, target);
      return;
    }
    k.vcast(x, narrow);
    k.dmaStart(narrow, target);
  }

  /// Column 0 of softmax_max / softmax_sum for rows [i0, i0 + rows).
  Value statisticColumn(Value stats, const Item &it, Value i0, Value rows) {
    Value tile = statisticsRows(stats, it, i0, rows);
    return k.window(tile, {k.index(0), k.index(0)},
                    {rows, k.builder().getIndexAttr(1)}, {1});
  }
};

} // namespace

void npu::registerFlashAttentionGradKernelModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, NPUDialect *) {
    attachAttentionModels<AttentionBackwardLowering, FlashAttentionGradOp>(ctx);
  });
}
