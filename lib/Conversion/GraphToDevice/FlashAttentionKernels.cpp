//===- FlashAttentionKernels.cpp - npu.flash_attention on the device ------===//
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
// double issue of CANN's design), so cube and vector overlap; the two slots
// make that safe without further flags. At the end of an item each vector task
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

#include "KernelBuilder.h"
#include "OperatorKernels.h"
#include "npu/Conversion/DeviceKernelOpInterface.h"
#include "npu/Device/DeviceModel.h"
#include "npu/Conversion/FlashAttentionTiling.h"
#include "npu/Dialect/NPU/NPUOps.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/TypeUtilities.h"

#include <limits>

using namespace mlir;
using namespace npu;

namespace {

constexpr int64_t kCubeBlock = 128;
/// Cross-core flags. A vector task's: the cube's scores (and dP) are
/// ready, its output is ready. The cube's: flag v, vector task v of the
/// group has written its probabilities (one flag per vector task, so a
/// task that runs a step ahead cannot stand in for one that lags).
enum Flag : int64_t { kScoresReady = 0, kOutputReady = 1, kProbsReady = 0 };

/// The lowering of an attention op (OpT: npu.flash_attention, or
/// npu.flash_attention_grad, whose lowering derives from this): sizes,
/// views, work items and the vector side's score preparation are shared;
/// the forward's kernel is built by build().
template <typename OpT> struct AttentionLowering {
  KernelBuilder &k;
  OpT op;
  AttentionGeometry g;
  AttentionDiagonals band;
  const DeviceModel &device;
  Value query, key, value, maxOut, sumOut, out;
  /// Optional inputs; attenMask only when the mode reads it.
  Value attenMask, pse, dropMask;
  Value wsScores, wsProbs, wsOutput, batchTable;
  Type element, f32, i32, i8;
  int64_t groups = 0, vectorsPerGroup = 0, s1Inner = 0, s2Inner = 0;
  /// Keys per matmul on the cube (the forward's base block).
  int64_t cubeKeys = kCubeBlock;
  int64_t rowsPerVector = 0, chunkRows = 0, items = 0;
  attention::ForwardTiling tiling;
  /// Whether an item's group depends only on its place within its batch,
  /// so that one group sees a (head, query block) for every batch, in
  /// batch order (the backward's sum over a broadcast batch axis).
  bool sameGroupAcrossBatches = false;

  /// One work item: (batch, query head, block of query rows).
  struct Item {
    Value b, n, kvHead, r0, rows;
    /// The item's sequences and band (batchTable's fields).
    Value startQ, seqQ, startKV, seqKV, low, high, prefixEnd;
    /// The key blocks the band reaches: [firstBlock, firstBlock + blocks).
    Value firstBlock, blocks;
  };

  AttentionLowering(KernelBuilder &k, OpT op, AttentionGeometry g,
                    const KernelOperands &io, const DeviceModel &device)
      : k(k), op(op), g(std::move(g)), device(device) {
    typename OpT::Adaptor in(io.operands, op);
    query = in.getQuery();
    key = in.getKey();
    value = in.getValue();
    Value mask = in.getAttenMask();
    if (mask && isAttentionMaskRead(
                    op.getSparseMode(),
                    cast<MemRefType>(mask.getType()).getShape()))
      attenMask = mask;
    pse = in.getPse();
    dropMask = in.getDropMask();
    if constexpr (std::is_same_v<OpT, FlashAttentionOp>) {
      maxOut = io.results[0];
      sumOut = io.results[1];
      out = io.results[2];
    }
    MLIRContext *ctx = op.getContext();
    element = getElementTypeOrSelf(op.getQuery());
    f32 = Float32Type::get(ctx);
    i32 = IntegerType::get(ctx, 32);
    i8 = IntegerType::get(ctx, 8);
    band = getAttentionBand(op).getDiagonals(0, this->g.seqQ, this->g.seqKV);
  }

  //===--- Sizes ----------------------------------------------------------===//

  LogicalResult chooseSizes() {
    attention::AttentionLimits limits = attention::getAttentionLimits(device);
    tiling = attention::selectAttentionTemplate(
        {g.batch, g.headsKV, g.getGroup(), g.seqQ, g.seqKV, g.headDim}, limits);
    describeOp(tiling.key);
    // One (batch, head) per item; the cube's tiles stay within 128 rows.
    s1Inner = std::clamp<int64_t>(tiling.s1Inner, 1, kCubeBlock);
    s1Inner = std::min(s1Inner, std::max<int64_t>(g.seqQ, 1));
    s2Inner = std::min(limits.s2Inner, std::max<int64_t>(g.seqKV, 1));
    if (failed(fitCubeTiles()))
      return failure();
    if (device.hasSplitCores()) {
      groups = device.getNumCores(dev::CoreKind::cube);
      vectorsPerGroup = device.getNumCores(dev::CoreKind::vector) / groups;
    } else {
      vectorsPerGroup = 2;
      groups = device.getNumCores() / (1 + vectorsPerGroup);
    }
    // Packed sequences differ in length; other batches are all S1 long.
    items = 0;
    if (g.layout != AttentionLayout::TND)
      items = g.batch * g.headsQ * llvm::divideCeil(g.seqQ, s1Inner);
    else
      for (int64_t b = 0; b < g.batch; ++b)
        items += g.headsQ * llvm::divideCeil(g.getSeqQ(b), s1Inner);
    groups = std::max<int64_t>(1, std::min(groups, items));
    vectorsPerGroup = std::max<int64_t>(1, vectorsPerGroup);
    rowsPerVector = llvm::divideCeil(s1Inner, vectorsPerGroup);
    // Vector memory: per chunk row, the scores, the -inf row, the band's
    // key - query differences, two compare rows and the probabilities; per
    // own row, the accumulator and four statistics.
    int64_t elementBytes = element.getIntOrFloatBitWidth() / 8;
    // Optional inputs add their tiles and one f32 tile to widen them in.
    int64_t optional = (attenMask ? 1 : 0) + (dropMask ? 1 : 0) +
                       (hasPrefix() ? 1 : 0) + (pse ? elementBytes : 0) +
                       (pse || dropMask ? 4 : 0);
    // The output row is rounded to the input type in a tile of its own.
    int64_t narrowRow = element == f32 ? 0 : g.headDim * elementBytes;
    int64_t perChunkRow = s2Inner * (4 + 4 + 4 + 2 + elementBytes + optional) +
                          g.headDim * 4 + narrowRow + 8 * 4 + 16;
    int64_t fixed = rowsPerVector * (g.headDim * 4 + 6 * 4 + 1);
    int64_t room = device.vectorBytes - fixed;
    chunkRows = std::min(rowsPerVector, room / perChunkRow);
    if (chunkRows < 1)
      return op.emitOpError("cannot be lowered: a row of ")
             << s2Inner << " keys and head size " << g.headDim
             << " does not fit the vector memory of device '" << device.name
             << "'";
    return success();
  }

  /// Halves the query rows or the keys per cube matmul, the larger first,
  /// until the cube's tiles fit its memory (large head sizes: CANN takes D
  /// up to 512): Q and the K / V chunk in the input type, S in f32, P in
  /// the input type, O in f32.
  LogicalResult fitCubeTiles() {
    int64_t eb = element.getIntOrFloatBitWidth() / 8, d = g.headDim;
    auto bytes = [&] {
      return s1Inner * d * eb + cubeKeys * d * eb +
             s1Inner * cubeKeys * (4 + eb) + s1Inner * d * 4;
    };
    while (bytes() > device.cubeBytes && (s1Inner > 1 || cubeKeys > 1)) {
      int64_t &larger = s1Inner >= cubeKeys ? s1Inner : cubeKeys;
      larger = llvm::divideCeil(larger, 2);
    }
    if (bytes() <= device.cubeBytes)
      return success();
    return op.emitOpError("cannot be lowered: one query row and one key of "
                          "head size ")
           << d << " need " << bytes() << " bytes of cube memory, device '"
           << device.name << "' has " << device.cubeBytes;
  }

  /// The tiling key's fields that the op, not the template, decides.
  void describeOp(attention::TilingKeyFields &key) {
    using namespace attention;
    key.implMode = op.getInnerPrecise();
    key.dtype = element.isF16()    ? Dtype::Float16
                : element.isBF16() ? Dtype::BFloat16
                                   : Dtype::Float32;
    switch (g.layout) {
    case AttentionLayout::BSH:
    case AttentionLayout::BSND:
      key.layout = Layout::BSND;
      break;
    case AttentionLayout::SBH:
      key.layout = Layout::SBND;
      break;
    case AttentionLayout::BNSD:
      key.layout = Layout::BNSD;
      break;
    case AttentionLayout::TND:
      key.layout = Layout::TND;
      break;
    }
    // A band that reaches every (i, j) masks nothing.
    bool unbounded = band.low <= -(g.seqQ - 1) && band.high >= g.seqKV - 1;
    switch (op.getSparseMode()) {
    case 0:
      key.sparse = op.getAttenMask() ? Sparse::All
                   : unbounded       ? Sparse::None
                                     : Sparse::Band;
      break;
    case 1:
      key.sparse = Sparse::All;
      break;
    case 2:
    case 3:
      key.sparse = Sparse::Causal;
      break;
    case 5:
    case 6:
      key.sparse = Sparse::Prefix;
      break;
    default:
      key.sparse = Sparse::Band;
      break;
    }
    key.hasAttenMask = bool(op.getAttenMask());
    key.hasPse = bool(op.getPse());
    key.hasDropout = bool(op.getDropMask());
  }

  //===--- Views of the operands -----------------------------------------===//

  /// Rows [s0, s0 + rows) of item `it`'s sequence, head n, of `tensor`
  /// (query-shaped when `isQuery`), as a [rows, D] window.
  Value headRows(Value tensor, bool isQuery, const Item &it, Value n, Value s0,
                 Value rows) {
    Value b = it.b;
    OpBuilder &builder = k.builder();
    auto type = cast<MemRefType>(tensor.getType());
    int64_t heads = isQuery ? g.headsQ : g.headsKV;
    Value view = tensor;
    // BSH and SBH keep heads inside H: view H as [N, D].
    if (g.layout == AttentionLayout::BSH || g.layout == AttentionLayout::SBH) {
      SmallVector<int64_t> shape(type.getShape());
      shape.back() = heads;
      shape.push_back(g.headDim);
      auto viewType =
          MemRefType::get(shape, type.getElementType(),
                          MemRefLayoutAttrInterface(), type.getMemorySpace());
      view = builder.create<memref::ExpandShapeOp>(
          k.location(), viewType, tensor,
          ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}});
    }
    OpFoldResult one = builder.getIndexAttr(1),
                 d = builder.getIndexAttr(g.headDim);
    Value zero = k.index(0);
    switch (g.layout) {
    case AttentionLayout::BSH:
    case AttentionLayout::BSND:
      return k.window(view, {b, s0, n, zero}, {one, rows, one, d}, {0, 2});
    case AttentionLayout::SBH:
      return k.window(view, {s0, b, n, zero}, {rows, one, one, d}, {1, 2});
    case AttentionLayout::BNSD:
      return k.window(view, {b, n, s0, zero}, {one, one, rows, d}, {0, 1});
    case AttentionLayout::TND:
      return k.window(view,
                      {k.add(isQuery ? it.startQ : it.startKV, s0), n, zero},
                      {rows, one, d}, {1});
    }
    llvm_unreachable("unknown attention layout");
  }

  /// Rows [s0, s0 + rows) of item `it`'s head of per-row statistics
  /// (softmax_max, softmax_sum: [B, N1, S1, W], [T1, N1, W] for TND, W = 8):
  /// [rows, W].
  Value statisticsRows(Value stats, const Item &it, Value s0, Value rows) {
    OpBuilder &builder = k.builder();
    OpFoldResult one = builder.getIndexAttr(1),
                 width = builder.getIndexAttr(
                     cast<MemRefType>(stats.getType()).getShape().back());
    if (g.layout == AttentionLayout::TND)
      return k.window(stats, {k.add(it.startQ, s0), it.n, k.index(0)},
                      {rows, one, width}, {1});
    return k.window(stats, {it.b, it.n, s0, k.index(0)},
                    {one, one, rows, width}, {0, 1});
  }

  /// Slot `slot` of group `group` of a workspace, rows [r0, r0 + rows),
  /// columns [c0, c0 + cols).
  Value slotTile(Value ws, Value group, Value slot, Value r0, Value rows,
                 Value c0, Value cols) {
    OpBuilder &builder = k.builder();
    OpFoldResult one = builder.getIndexAttr(1);
    return k.window(ws, {group, slot, r0, c0}, {one, one, rows, cols}, {0, 1});
  }

  Value rowsOf(Value buffer, Value r0, Value rows, Value c0, Value cols) {
    return k.window(buffer, {r0, c0}, {rows, cols});
  }

  //===--- Work items -----------------------------------------------------===//

  /// Columns of the per-batch table the kernel reads its sequences from.
  enum BatchField : int64_t {
    kStartQ,
    kSeqQ,
    kStartKV,
    kSeqKV,
    kLow,
    kHigh,
    kPrefixEnd,
    kItemBase,
    /// The same for items over key blocks (the backward's dK / dV).
    kKeyItemBase,
    kNumBatchFields
  };

  /// A buffer in global memory, allocated before the launches.
  Value globalBuffer(ArrayRef<int64_t> shape, Type type) {
    OpBuilder &b = k.builder();
    return b.create<memref::AllocOp>(
        k.location(),
        MemRefType::get(shape, type, MemRefLayoutAttrInterface(),
                        dev::MemorySpaceAttr::get(b.getContext(),
                                                  dev::MemorySpace::global)));
  }

  /// A two-slot workspace of [s1Inner, cols] tiles per group.
  Value workspace(int64_t cols, Type type) {
    return globalBuffer({groups, 2, s1Inner, cols}, type);
  }

  /// Whether batches differ in their sequences or band (TND's packed
  /// sequences, the prefix modes' prefix): they then read a table, whose
  /// size follows the attributes that describe them. Other batches are
  /// computed from the batch index, so the kernel does not grow with B.
  bool batchesDiffer() {
    return g.layout == AttentionLayout::TND || hasPrefix();
  }

  /// Per batch: where its sequences start and how long they are, its band
  /// (AttentionDiagonals, clamped to i32) and the index of its first item
  /// modulo the groups. Filled before the launch; O(B) stores, where the
  /// batches differ (null otherwise).
  Value buildBatchTable() {
    if (!batchesDiffer())
      return {};
    OpBuilder &b = k.builder();
    Value table = globalBuffer({std::max<int64_t>(g.batch, 1), kNumBatchFields},
                               b.getI64Type());
    AttentionBand band = getAttentionBand(op);
    int64_t itemBase = 0, keyItemBase = 0;
    for (int64_t batch = 0; batch < g.batch; ++batch) {
      int64_t seqQ = g.getSeqQ(batch), seqKV = g.getSeqKV(batch);
      AttentionDiagonals d = band.getDiagonals(batch, seqQ, seqKV);
      int64_t values[kNumBatchFields] = {
          g.getStartQ(batch),  seqQ,
          g.getStartKV(batch), seqKV,
          clampToI32(d.low),   clampToI32(d.high),
          d.prefixEnd,         sameGroupAcrossBatches ? 0 : itemBase % groups,
          keyItemBase % groups};
      for (int64_t f = 0; f < kNumBatchFields; ++f)
        k.store(k.constant(b.getI64Type(), values[f]), table,
                {k.index(batch), k.index(f)});
      itemBase += g.headsQ * llvm::divideCeil(seqQ, s1Inner);
      keyItemBase += g.headsKV * llvm::divideCeil(seqKV, s2Inner);
    }
    return table;
  }

  /// The items of all batches, batch by batch, then head, then block of
  /// `blockSize` rows of the query (`alongKeys` false) or key sequence:
  /// item t goes to group t mod groups (query items with
  /// sameGroupAcrossBatches: their index within the batch mod groups). Calls
  /// body(it, local, blocks) for `group`'s, `it` holding its batch's fields,
  /// `local` its index within the batch and `blocks` the batch's blocks per
  /// head.
  void forEachGroupItem(Value group, bool alongKeys,
                        function_ref<void(Item &, Value, Value)> body) {
    int64_t blockSize = alongKeys ? s2Inner : s1Inner;
    int64_t heads = alongKeys ? g.headsKV : g.headsQ;
    k.forLoop(k.index(0), k.index(g.batch), k.index(1), [&](Value b) {
      Item it = readBatch(b);
      Value base = batchField(b, alongKeys ? kKeyItemBase : kItemBase);
      Value length = alongKeys ? it.seqKV : it.seqQ;
      Value blocks =
          k.div(k.add(length, k.index(blockSize - 1)), k.index(blockSize));
      Value count = k.mul(blocks, k.index(heads));
      Value first =
          k.rem(k.sub(k.add(group, k.index(groups)), base), k.index(groups));
      k.forLoop(first, count, k.index(groups),
                [&](Value local) { body(it, local, blocks); });
    });
  }

  /// Calls body(item) for group `group`'s (batch, query head, query block)
  /// items, with the key blocks their band reaches.
  void forEachItem(Value group, function_ref<void(const Item &)> body) {
    forEachGroupItem(group, /*alongKeys=*/false,
                     [&](Item &it, Value local, Value blocksQ) {
                       it.n = k.div(local, blocksQ);
                       it.kvHead = k.div(it.n, k.index(g.getGroup()));
                       it.r0 = k.mul(k.rem(local, blocksQ), k.index(s1Inner));
                       it.rows = k.min(k.index(s1Inner), k.sub(it.seqQ, it.r0));
                       reachedKeyBlocks(it);
                       body(it);
                     });
  }

  /// Field `f` of batch `b`: from the table where batches differ, else
  /// computed as buildBatchTable would have stored it.
  Value batchField(Value b, BatchField f) {
    if (batchTable)
      return k.toIndex(k.load(batchTable, {b, k.index(f)}));
    auto itemsBefore = [&](int64_t heads, int64_t length, int64_t block) {
      Value perBatch = k.index(heads * llvm::divideCeil(length, block));
      return k.rem(k.mul(b, perBatch), k.index(groups));
    };
    switch (f) {
    case kStartQ:
      return k.mul(b, k.index(g.seqQ));
    case kSeqQ:
      return k.index(g.seqQ);
    case kStartKV:
      return k.mul(b, k.index(g.seqKV));
    case kSeqKV:
      return k.index(g.seqKV);
    case kLow:
      return k.index(clampToI32(band.low));
    case kHigh:
      return k.index(clampToI32(band.high));
    case kPrefixEnd:
      return k.index(0);
    case kItemBase:
      return sameGroupAcrossBatches ? k.index(0)
                                    : itemsBefore(g.headsQ, g.seqQ, s1Inner);
    case kKeyItemBase:
      return itemsBefore(g.headsKV, g.seqKV, s2Inner);
    case kNumBatchFields:
      break;
    }
    llvm_unreachable("not a batch field");
  }

  /// An item of batch `b` with its sequences and band.
  Item readBatch(Value b) {
    auto field = [&](BatchField f) { return batchField(b, f); };
    Item it;
    it.b = b;
    it.startQ = field(kStartQ);
    it.seqQ = field(kSeqQ);
    it.startKV = field(kStartKV);
    it.seqKV = field(kSeqKV);
    it.low = field(kLow);
    it.high = field(kHigh);
    it.prefixEnd = field(kPrefixEnd);
    return it;
  }

  /// Rows [r0, r0 + rows) see keys [max(0, r0 + low), min(S2 - 1, r0 +
  /// rows - 1 + high)], and the prefix [0, prefixEnd): one range, since
  /// the prefix modes' band starts at key 0.
  void reachedKeyBlocks(Item &it) {
    Value zero = k.index(0), one = k.index(1);
    Value lo = k.max(zero, k.add(it.r0, it.low));
    Value hi = k.min(k.sub(it.seqKV, one),
                     k.sub(k.add(k.add(it.r0, it.rows), it.high), one));
    if (hasPrefix()) {
      Value withPrefix = k.lt(zero, it.prefixEnd);
      lo = k.select(withPrefix, zero, lo);
      hi = k.select(
          withPrefix,
          k.max(hi, k.min(k.sub(it.prefixEnd, one), k.sub(it.seqKV, one))), hi);
    }
    it.firstBlock = k.div(lo, k.index(s2Inner));
    Value endBlock = k.add(k.div(hi, k.index(s2Inner)), one);
    it.blocks = k.max(zero, k.sub(endBlock, it.firstBlock));
    // An empty band (hi < lo) reaches no block.
    it.blocks = k.select(k.lt(hi, lo), zero, it.blocks);
  }

  bool hasPrefix() {
    return op.getSparseMode() == 5 || op.getSparseMode() == 6;
  }

  /// Keys [c0, c0 + cols) of key block `kb` of `it`.
  std::pair<Value, Value> keyBlock(const Item &it, Value kb) {
    Value c0 = k.mul(k.add(it.firstBlock, kb), k.index(s2Inner));
    return {c0, k.min(k.index(s2Inner), k.sub(it.seqKV, c0))};
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

  //===--- Vector side ----------------------------------------------------===//

  /// The vector task's buffers.
  struct VectorBuffers {
    Value scores, negInf, diff, below, above, probs, oChunk, statsChunk;
    /// The output rows in the input type (f16 / bf16 only): [chunk, D].
    Value outNarrow;
    Value rowIndex;
    /// Tiles of the optional inputs, and an f32 tile to widen them in;
    /// the prefix modes' "key past the prefix" tile.
    Value maskTile, pseTile, dropTile, wide, prefixTile;
    /// Per own row: the output sum, the statistics, and scratch.
    Value acc, rowMax, rowSum, alpha, scratch, safeMax, constant, empty;
  };

  VectorBuffers allocVector() {
    VectorBuffers v;
    v.scores = k.alloc({chunkRows, s2Inner}, f32);
    v.negInf = k.alloc({chunkRows, s2Inner}, f32);
    v.diff = k.alloc({chunkRows, s2Inner}, i32);
    v.below = k.alloc({chunkRows, s2Inner}, i8);
    v.above = k.alloc({chunkRows, s2Inner}, i8);
    v.probs = k.alloc({chunkRows, s2Inner}, element);
    v.oChunk = k.alloc({chunkRows, g.headDim}, f32);
    v.statsChunk = k.alloc({chunkRows, 8}, f32);
    if (element != f32)
      v.outNarrow = k.alloc({chunkRows, g.headDim}, element);
    v.acc = k.alloc({rowsPerVector, g.headDim}, f32);
    v.rowMax = k.alloc({rowsPerVector}, f32);
    v.rowSum = k.alloc({rowsPerVector}, f32);
    v.alpha = k.alloc({rowsPerVector}, f32);
    v.scratch = k.alloc({rowsPerVector}, f32);
    v.safeMax = k.alloc({rowsPerVector}, f32);
    v.constant = k.alloc({rowsPerVector}, f32);
    v.empty = k.alloc({rowsPerVector}, i8);
    v.rowIndex = k.alloc({chunkRows}, i32);
    auto tileOf = [&](Value input) {
      return k.alloc({chunkRows, s2Inner}, getElementTypeOrSelf(input));
    };
    if (attenMask)
      v.maskTile = tileOf(attenMask);
    if (pse)
      v.pseTile = tileOf(pse);
    if (dropMask)
      v.dropTile = tileOf(dropMask);
    if (pse || dropMask)
      v.wide = k.alloc({chunkRows, s2Inner}, f32);
    if (hasPrefix())
      v.prefixTile = k.alloc({chunkRows, s2Inner}, i8);
    return v;
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
      k.forLoop(zero, it.blocks, k.index(1), [&](Value kb) {
        Value c0, cols;
        std::tie(c0, cols) = keyBlock(it, kb);
        Value slot = k.rem(kb, k.index(2));
        k.waitFlag(kScoresReady);
        forEachChunk(own, [&](Value r, Value rows) {
          softmaxChunk(buf, it, group, slot, k.add(own0, r), r, rows, c0, cols);
        });
        signalCube(part, group);
        k.waitFlag(kOutputReady);
        forEachChunk(own, [&](Value r, Value rows) {
          Value o = rowsOf(buf.oChunk, zero, rows, zero, k.index(g.headDim));
          k.dma(slotTile(wsOutput, group, slot, k.add(own0, r), rows, zero,
                         k.index(g.headDim)),
                o);
          Value acc = rowsOf(buf.acc, r, rows, zero, k.index(g.headDim));
          k.vbinaryBroadcast(dev::BinaryKind::mul, acc,
                             k.window(buf.alpha, {r}, {rows}), acc, 0);
          k.vbinary(dev::BinaryKind::add, acc, o, acc);
        });
      });
      forEachChunk(own, [&](Value r, Value rows) {
        writeRows(buf, it, k.add(it.r0, k.add(own0, r)), r, rows);
      });
    });
  }

  /// Sets the cube's flag of vector task `part` of `group` (flag ids are
  /// attributes: one guarded set_flag per part).
  void signalCube(Value part, Value group) {
    for (int64_t v = 0; v < vectorsPerGroup; ++v)
      k.ifThenElse(
          k.andI(k.ge(part, k.index(v)), k.lt(part, k.index(v + 1))),
          [&] { k.setFlag(kProbsReady + v, dev::CoreKind::cube, group); });
  }

  /// for (r = 0; r < own; r += chunkRows) body(r, min(chunkRows, own - r)).
  void forEachChunk(Value own, function_ref<void(Value, Value)> body) {
    k.forLoop(k.index(0), own, k.index(chunkRows), [&](Value r) {
      body(r, k.min(k.index(chunkRows), k.sub(own, r)));
    });
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
    updateSoftmax(buf, s, r, rows);
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

  /// One online softmax step of own rows [r, r + rows) over the prepared
  /// scores `s`: m' = max(m, rowmax(s)), alpha = exp(m - m'), l = l alpha +
  /// rowsum(P), m = m', with P = exp(s - m') left in `s` and alpha in
  /// buf.alpha.
  void updateSoftmax(const VectorBuffers &buf, Value s, Value r, Value rows) {
    Value m = k.window(buf.rowMax, {r}, {rows});
    Value l = k.window(buf.rowSum, {r}, {rows});
    Value alpha = k.window(buf.alpha, {r}, {rows});
    Value newMax = k.window(buf.scratch, {r}, {rows});
    Value safeMax = k.window(buf.safeMax, {r}, {rows});
    Value empty = k.window(buf.empty, {r}, {rows});
    Value zeros = k.window(buf.constant, {r}, {rows});
    // m' = max(m, rowmax(S)). A row that has seen no key keeps m' = -inf
    // and subtracts 0 instead, so that exp gives 0 rather than NaN.
    k.vreduce(dev::ReduceKind::max, s, newMax);
    k.vbinary(dev::BinaryKind::max, newMax, m, newMax);
    k.vcmpScalar(dev::ComparePredicate::eq, newMax,
                 k.f32(-std::numeric_limits<double>::infinity()), empty);
    k.vfill(zeros, k.f32(0));
    k.vselect(empty, zeros, newMax, safeMax);
    // alpha = exp(m - m'), then m = m'.
    k.vbinary(dev::BinaryKind::sub, m, safeMax, alpha);
    k.vunary(dev::UnaryKind::exp, alpha, alpha);
    k.vbinary(dev::BinaryKind::max, m, newMax, m);
    // P = exp(S - m'); l = l alpha + rowsum(P).
    k.vbinaryBroadcast(dev::BinaryKind::sub, s, safeMax, s, 0);
    k.vunary(dev::UnaryKind::exp, s, s);
    k.vreduce(dev::ReduceKind::sum, s, newMax);
    k.vbinary(dev::BinaryKind::mul, l, alpha, l);
    k.vbinary(dev::BinaryKind::add, l, newMax, l);
  }

  /// The scores `s` of query rows [i0, i0 + rows) and keys [c0, c0 +
  /// cols) as the softmax takes them: scale * (S + pse), -inf outside the
  /// band and where atten_mask is 1.
  void prepareScores(const VectorBuffers &buf, const Item &it, Value s,
                     Value i0, Value rows, Value c0, Value cols) {
    Value zero = k.index(0);
    if (pse)
      addPse(buf, s, it, i0, rows, c0, cols);
    k.vbinaryScalar(dev::BinaryKind::mul, s,
                    k.f32(op.getScale().convertToDouble()), s);
    maskOutsideBand(buf, it, s, i0, rows, c0, cols);
    if (attenMask) {
      Value mask = rowsOf(buf.maskTile, zero, rows, zero, cols);
      k.dma(positionTile(attenMask, it, i0, rows, c0, cols), mask);
      k.vselect(mask, rowsOf(buf.negInf, zero, rows, zero, cols), s, s);
    }
  }

  /// drop_mask's tile as f32 0 / 1, in buf.wide.
  Value loadKeep(const VectorBuffers &buf, const Item &it, Value i0, Value rows,
                 Value c0, Value cols) {
    Value zero = k.index(0);
    Value drop = rowsOf(buf.dropTile, zero, rows, zero, cols);
    Value keep = rowsOf(buf.wide, zero, rows, zero, cols);
    k.dma(positionTile(dropMask, it, i0, rows, c0, cols), drop);
    k.vcast(drop, keep);
    return keep;
  }

  /// x = x / keep_prob where kept, 0 where dropped.
  void applyDropout(Value x, Value keep) {
    k.vbinaryScalar(dev::BinaryKind::div, x,
                    k.f32(op.getKeepProb().convertToDouble()), x);
    k.vbinary(dev::BinaryKind::mul, x, keep, x);
  }

  /// The window of a [S1, S2] or [B | 1, N1 | 1, S1 | 1, S2] input at
  /// query rows [i0, i0 + rows) and keys [c0, c0 + cols): [rows, cols], or
  /// [cols] when its row axis is broadcast (size 1 where S1 is not: one row
  /// for every query). With S1 = 1 the row axis is the query's own.
  Value positionTile(Value input, const Item &it, Value i0, Value rows,
                     Value c0, Value cols) {
    ArrayRef<int64_t> shape = cast<MemRefType>(input.getType()).getShape();
    if (shape.size() == 2)
      return k.window(input, {i0, c0}, {rows, cols});
    OpFoldResult one = k.builder().getIndexAttr(1);
    Value zero = k.index(0);
    bool oneRow = shape[2] == 1 && g.seqQ != 1;
    SmallVector<unsigned> drop = {0, 1};
    if (oneRow)
      drop.push_back(2);
    return k.window(input,
                    {shape[0] == 1 ? zero : it.b, shape[1] == 1 ? zero : it.n,
                     oneRow ? zero : i0, c0},
                    {one, one, oneRow ? one : OpFoldResult(rows), cols}, drop);
  }

  /// S += pse, in f32.
  void addPse(const VectorBuffers &buf, Value s, const Item &it, Value i0,
              Value rows, Value c0, Value cols) {
    Value zero = k.index(0);
    Value window = positionTile(pse, it, i0, rows, c0, cols);
    bool oneRow = cast<MemRefType>(window.getType()).getRank() == 1;
    Value tile =
        oneRow ? k.window(buf.pseTile, {zero, zero}, {k.index(1), cols}, {0})
               : rowsOf(buf.pseTile, zero, rows, zero, cols);
    k.dma(window, tile);
    if (element != f32) {
      Value wide =
          oneRow ? k.window(buf.wide, {zero, zero}, {k.index(1), cols}, {0})
                 : rowsOf(buf.wide, zero, rows, zero, cols);
      k.vcast(tile, wide);
      tile = wide;
    }
    if (oneRow)
      k.vbinaryBroadcast(dev::BinaryKind::add, s, tile, s, 1);
    else
      k.vbinary(dev::BinaryKind::add, s, tile, s);
  }

  /// Sets to -inf the scores of `s` (query rows [i0, i0 + rows), keys
  /// [c0, c0 + cols)) that item `it`'s band (and prefix) leaves out;
  /// skipped when the chunk lies inside the band.
  void maskOutsideBand(const VectorBuffers &buf, const Item &it, Value s,
                       Value i0, Value rows, Value c0, Value cols) {
    // Over the chunk j - i ranges over [c0 - (i0 + rows - 1), c0 + cols - 1
    // - i0].
    Value lowest = k.sub(c0, k.sub(k.add(i0, rows), k.index(1)));
    Value highest = k.sub(k.sub(k.add(c0, cols), k.index(1)), i0);
    Value inside = k.andI(k.ge(lowest, it.low), k.ge(it.high, highest));
    k.ifThenElse(
        inside, [] {},
        [&] {
          Value zero = k.index(0);
          Value diff = rowsOf(buf.diff, zero, rows, zero, cols);
          Value below = rowsOf(buf.below, zero, rows, zero, cols);
          Value above = rowsOf(buf.above, zero, rows, zero, cols);
          k.iota(diff, c0, /*dimension=*/1);
          // Keys before the prefix end stay, whatever the band says.
          Value beyondPrefix;
          if (hasPrefix()) {
            beyondPrefix = rowsOf(buf.prefixTile, zero, rows, zero, cols);
            k.vcmpScalar(dev::ComparePredicate::ge, diff,
                         k.convert(it.prefixEnd, i32), beyondPrefix);
          }
          // diff[x, y] = (c0 + y) - (i0 + x).
          Value rowIndex = k.window(buf.rowIndex, {zero}, {rows});
          k.iota(rowIndex, i0);
          k.vbinaryBroadcast(dev::BinaryKind::sub, diff, rowIndex, diff, 0);
          k.vcmpScalar(dev::ComparePredicate::lt, diff, k.convert(it.low, i32),
                       below);
          k.vcmpScalar(dev::ComparePredicate::gt, diff, k.convert(it.high, i32),
                       above);
          k.vbinary(dev::BinaryKind::Or, below, above, below);
          if (beyondPrefix)
            k.vbinary(dev::BinaryKind::And, below, beyondPrefix, below);
          Value negInf = rowsOf(buf.negInf, zero, rows, zero, cols);
          k.vselect(below, negInf, s, s);
        });
  }

  static int64_t clampToI32(int64_t v) {
    return std::clamp<int64_t>(v, std::numeric_limits<int32_t>::min(),
                               std::numeric_limits<int32_t>::max());
  }

  /// Own rows [r, r + rows) of l, with 1 where l = 0: only a row that saw
  /// no key has l = 0, and what it divides is 0 too, and 0 / 1 = 0.
  Value rowSumDivisor(const VectorBuffers &buf, Value r, Value rows) {
    Value l = k.window(buf.rowSum, {r}, {rows});
    Value divisor = k.window(buf.scratch, {r}, {rows});
    Value isZero = k.window(buf.empty, {r}, {rows});
    Value ones = k.window(buf.constant, {r}, {rows});
    k.vcmpScalar(dev::ComparePredicate::eq, l, k.f32(0), isZero);
    k.vfill(ones, k.f32(1));
    k.vselect(isZero, ones, l, divisor);
    return divisor;
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

//===----------------------------------------------------------------------===//
// Backward
//===----------------------------------------------------------------------===//

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
/// match this S to the last bit (dv 3x). Then the vector tasks
/// recompute P = exp(prepared S - m) / l and write P' (P through the
/// dropout) and dS = scale P (dP' - D); the cube accumulates. Launch 1
/// takes (batch, key/value head, key block)
/// items and accumulates dV += P'^T dY and dK += dS^T Q over every query
/// head of the group and every query block the band reaches; launch 2
/// takes (batch, query head, query block) items and accumulates
/// dQ += dS K over the key blocks. Every output element is summed by one
/// task in a fixed order, so the bytes do not depend on timing or
/// threads. dpse is written over a zero fill: for a pse of the full shape
/// by launch 2's vector tasks; for one broadcast over the query rows
/// ([B, N1, 1, S2]) summed by launch 1's cube as ones^T dS over the query
/// blocks of each head; for one broadcast over the batch ([1, N1, S1, S2])
/// added up by launch 2's vector tasks, each of which sees a (head, query
/// block) for every batch in batch order. Outputs of f16 / bf16 are summed in
/// f32 scratch and rounded by a last vector launch. As in the forward the cube
/// issues step t + 1 before it consumes step t; its Q / dY (launch 1) or K / V
/// (launch 2) tiles have two slots for that.
struct AttentionBackwardLowering : AttentionLowering<FlashAttentionGradOp> {
  using Base = AttentionLowering<FlashAttentionGradOp>;
  /// softmax_max, softmax_sum and attention_in are not read: launch 0
  /// recomputes what they stand for (see above).
  Value dy, statMax;
  Value dq, dk, dv, dpse;
  /// Where the cube's sums go: the outputs, or f32 scratch copies.
  Value dqSum, dkSum, dvSum;
  Value wsDp, wsDs, zeros;
  /// Per query row, from launch 0: m, l and D = rowsum(P * dP'), each
  /// shaped as the statistics with one column.
  Value rowMaxes, rowSums, rowDots;
  /// The launches: the rows' statistics, dK and dV over key blocks, dQ
  /// over query blocks.
  enum class Pass { Statistics, KeysValues, Queries };
  /// How dpse is formed from dS (see above), and where it is summed (dpse
  /// itself, or an f32 scratch copy when it is a sum in f16 / bf16).
  enum class PseGrad {
    None,
    Full,
    SumRows,
    SumBatches
  } pseGrad = PseGrad::None;
  Value dpseSum, ones;

  AttentionBackwardLowering(KernelBuilder &k, FlashAttentionGradOp op,
                            AttentionGeometry g, const KernelOperands &io,
                            const DeviceModel &device)
      : Base(k, op, std::move(g), io, device) {
    FlashAttentionGradOp::Adaptor in(io.operands, op);
    dy = in.getDy();
    statMax = in.getSoftmaxMax();
    dq = io.results[0];
    dk = io.results[1];
    dv = io.results[2];
    if (pse)
      dpse = io.results[3];
  }

  /// The forward's sizes, then how dpse is reduced.
  LogicalResult chooseSizes() {
    if (failed(Base::chooseSizes()))
      return failure();
    if (pse) {
      ArrayRef<int64_t> shape = cast<MemRefType>(pse.getType()).getShape();
      // The verifier admits [B, N1, S1, S2], [B, N1, 1, S2], [1, N1, S1,
      // S2]; a size that is both (B = 1 or S1 = 1) is the full shape.
      pseGrad = shape[0] == g.batch && shape[2] == g.seqQ ? PseGrad::Full
                : shape[2] == 1                           ? PseGrad::SumRows
                                                          : PseGrad::SumBatches;
      sameGroupAcrossBatches = pseGrad == PseGrad::SumBatches;
    }
    // Square blocks of 128, 64 or 32 rows, the largest whose tiles fit
    // cube memory: Q, dY (two slots each), K, V (two slots in launch 2),
    // S, P', dS, two f32 sums, and a row of ones and its f32 sum.
    int64_t eb = element.getIntOrFloatBitWidth() / 8, d = g.headDim;
    int64_t block = kCubeBlock;
    auto cubeBytes = [&](int64_t n) {
      return n * d * eb * 8 + n * n * (4 + 2 * eb) + 2 * n * d * 4 +
             n * (eb + 4);
    };
    while (block > 8 && cubeBytes(block) > device.cubeBytes)
      block /= 2;
    s1Inner = std::min(block, std::max<int64_t>(g.seqQ, 1));
    s2Inner = std::min(block, std::max<int64_t>(g.seqKV, 1));
    rowsPerVector = llvm::divideCeil(s1Inner, vectorsPerGroup);
    // Vector memory: the forward's buffers (allocVector) and, per chunk
    // row, dP and P' (f32), dS (input type), three row statistics.
    int64_t perChunkRow = s2Inner * (4 + 4 + 4 + 2 + eb + 4 + 4 + eb +
                                     (pse || dropMask ? 4 + eb : 0) +
                                     (attenMask || dropMask ? 2 : 0) + 1) +
                          d * 4 + 64;
    int64_t fixed = rowsPerVector * (d * 4 + 8 * 4);
    chunkRows =
        std::min(rowsPerVector, (device.vectorBytes - fixed) / perChunkRow);
    if (chunkRows < 1)
      return op.emitOpError("cannot be lowered: a block of ")
             << s2Inner << " keys and head size " << g.headDim
             << " does not fit the vector memory of device '" << device.name
             << "'";
    return success();
  }

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
    int64_t total = cast<MemRefType>(target.getType()).getNumElements();
    if (total == 0)
      return;
    Value flatTarget = flat(target);
    Value flatSource = source ? flat(source) : Value();
    int64_t tasks = device.getNumCores(dev::CoreKind::vector);
    int64_t chunk = std::min(device.vectorBytes / 16, total);
    auto launch = k.launch(tasks, [&](Value tid) {
      Value wide = k.alloc({chunk}, f32);
      Value narrow = k.alloc({chunk}, getElementTypeOrSelf(target));
      k.forLoop(k.mul(tid, k.index(chunk)), k.index(total),
                k.index(tasks * chunk), [&](Value j) {
                  Value n = k.min(k.index(chunk), k.sub(k.index(total), j));
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
    return globalBuffer(cast<MemRefType>(out.getType()).getShape(), f32);
  }

  void build() {
    dqSum = sumBuffer(dq);
    dkSum = sumBuffer(dk);
    dvSum = sumBuffer(dv);
    wsScores = workspace(s2Inner, f32);
    wsDp = workspace(s2Inner, f32);
    wsProbs = workspace(s2Inner, element);
    wsDs = workspace(s2Inner, element);
    batchTable = buildBatchTable();
    // The cube cannot fill: its sums start from a zero tile in global
    // memory.
    int64_t rows = std::max(s1Inner, s2Inner);
    zeros = globalBuffer({rows, g.headDim}, f32);
    elementwiseLaunch(Value(), zeros, "zeros",
                      [&](Value, Value to) { k.vfill(to, k.f32(0)); });
    rowMaxes = rowBuffer();
    rowSums = rowBuffer();
    rowDots = rowBuffer();
    if (dpse) {
      dpseSum = pseGrad == PseGrad::Full ? dpse : sumBuffer(dpse);
      Type sumType = getElementTypeOrSelf(dpseSum);
      elementwiseLaunch(Value(), dpseSum, "zero_dpse", [&](Value, Value to) {
        k.vfill(to, k.floatConstant(sumType, 0));
      });
    }
    if (pseGrad == PseGrad::SumRows) {
      ones = globalBuffer({1, s1Inner}, element);
      elementwiseLaunch(Value(), ones, "ones", [&](Value, Value to) {
        k.vfill(to, k.floatConstant(element, 1));
      });
    }
    for (auto [pass, step] : {std::pair{Pass::Statistics, "statistics"},
                              {Pass::KeysValues, "dk_dv"},
                              {Pass::Queries, "dq"}}) {
      dev::MixedLaunchOp launch = k.mixedLaunch(
          groups, groups * vectorsPerGroup,
          [&, pass = pass](Value t) { buildCube(t, pass); },
          [&, pass = pass](Value t) { buildVector(t, pass); });
      launch->setAttr("npudev.tiling", gradTiling(step));
    }
    // Sums in f32 scratch are rounded into their outputs.
    std::tuple<Value, Value, StringRef> sums[] = {
        {dqSum, dq, "round_dq"},
        {dkSum, dk, "round_dk"},
        {dvSum, dv, "round_dv"},
        {dpseSum, dpse, "round_dpse"}};
    for (auto [sum, out, step] : sums)
      if (sum != out)
        round(sum, out, step);
    for (Value buffer : {wsScores, wsDp, wsProbs, wsDs, batchTable, zeros,
                         rowMaxes, rowSums, rowDots, ones})
      if (buffer)
        k.builder().create<memref::DeallocOp>(k.location(), buffer);
    for (auto [sum, out, step] : sums)
      if (sum != out)
        k.builder().create<memref::DeallocOp>(k.location(), sum);
  }

  /// One f32 per query row, shaped as the statistics with one column.
  Value rowBuffer() {
    SmallVector<int64_t> shape(cast<MemRefType>(statMax.getType()).getShape());
    shape.back() = 1;
    return globalBuffer(shape, f32);
  }

  DictionaryAttr gradTiling(StringRef step) {
    Builder b(op.getContext());
    attention::BackwardTiling tiling = attention::selectAttentionGradTemplate(
        {g.batch, g.headsKV, g.getGroup(), g.seqQ, g.seqKV, g.headDim},
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
         b.getNamedAttr("block", b.getI64IntegerAttr(s1Inner)),
         b.getNamedAttr("groups", b.getI64IntegerAttr(groups))});
  }

  //===--- Steps ----------------------------------------------------------===//

  /// One step: query rows [r0, r0 + rows) of head n, keys [c0, c0 + cols).
  struct Step {
    Item it;
    Value r0, rows, c0, cols, slot;
    /// Launch 1: the step's query block among its head's `headBlocks`.
    Value headBlock, headBlocks;
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
          s.slot = k.rem(t, k.index(2));
          return s;
        };
        body(it, it.blocks, step);
      });
      return;
    }
    forEachKeyItem(group, [&](Item &it, Value c0, Value cols, Value qFirst,
                              Value qBlocks) {
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
        s.c0 = c0;
        s.cols = cols;
        s.slot = k.rem(t, k.index(2));
        return s;
      };
      body(it, k.mul(qBlocks, k.index(g.getGroup())), step);
    });
  }

  /// Items (batch, key/value head, key block) of `group`, with the query
  /// blocks that reach the key block: rows [c0 - high, c0 + cols - 1 -
  /// low], or every row when the block starts inside the prefix.
  void
  forEachKeyItem(Value group,
                 function_ref<void(Item &, Value, Value, Value, Value)> body) {
    forEachGroupItem(
        group, /*alongKeys=*/true, [&](Item &it, Value local, Value blocksKV) {
          it.kvHead = k.div(local, blocksKV);
          it.n = k.mul(it.kvHead, k.index(g.getGroup()));
          Value c0 = k.mul(k.rem(local, blocksKV), k.index(s2Inner));
          Value cols = k.min(k.index(s2Inner), k.sub(it.seqKV, c0));
          Value zero = k.index(0), one = k.index(1);
          Value lo = k.max(zero, k.sub(c0, it.high));
          Value hi = k.min(k.sub(it.seqQ, one),
                           k.sub(k.sub(k.add(c0, cols), one), it.low));
          if (hasPrefix()) {
            Value inPrefix = k.lt(c0, it.prefixEnd);
            lo = k.select(inPrefix, zero, lo);
            hi = k.select(inPrefix, k.sub(it.seqQ, one), hi);
          }
          Value qFirst = k.div(lo, k.index(s1Inner));
          Value qBlocks = k.max(
              zero, k.sub(k.add(k.div(hi, k.index(s1Inner)), one), qFirst));
          qBlocks = k.select(k.lt(hi, lo), zero, qBlocks);
          body(it, c0, cols, qFirst, qBlocks);
        });
  }

  //===--- Cube side ------------------------------------------------------===//

  /// The cube tiles of a launch's steps.
  struct CubeTiles {
    Value qTiles, dyTiles, kTiles, vTiles, sTile, pTile, dsTile;
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
    CubeTiles tiles;
    Value qTiles = tiles.qTiles = cube({2, s1Inner, d}, element);
    Value dyTiles = tiles.dyTiles = cube({2, s1Inner, d}, element);
    Value kTiles = tiles.kTiles = cube({2, s2Inner, d}, element);
    Value vTiles = tiles.vTiles = cube({2, s2Inner, d}, element);
    Value sTile = tiles.sTile = cube({s1Inner, s2Inner}, f32);
    if (pass != Pass::Statistics) {
      tiles.pTile = cube({s1Inner, s2Inner}, element);
      tiles.dsTile = cube({s1Inner, s2Inner}, element);
    }
    Value zero = k.index(0), dIdx = k.index(d);
    if (keys) {
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
      return k.window(tiles, {slot, zero, zero},
                      {k.builder().getIndexAttr(1), rows, dIdx}, {0});
    };
    forEachItemOf(
        group, pass,
        [&](Item &it, Value steps, function_ref<Step(Value)> stepAt) {
          // Fixed for the item: K, V (launch 1) or Q, dY (launch 2), in slot
          // 0 of their tiles; the sums start at zero.
          Step first = stepAt(zero);
          if (keys) {
            k.dma(headRows(key, false, it, it.kvHead, first.c0, first.cols),
                  slotRows(kTiles, zero, first.cols));
            k.dma(headRows(value, false, it, it.kvHead, first.c0, first.cols),
                  slotRows(vTiles, zero, first.cols));
            for (Value sum : {sumA, sumB})
              k.dma(rowsOf(zeros, zero, first.cols, zero, dIdx),
                    rowsOf(sum, zero, first.cols, zero, dIdx));
          } else {
            k.dma(headRows(query, true, it, it.n, it.r0, it.rows),
                  slotRows(qTiles, zero, it.rows));
            k.dma(headRows(dy, true, it, it.n, it.r0, it.rows),
                  slotRows(dyTiles, zero, it.rows));
            if (sumQ)
              k.dma(rowsOf(zeros, zero, it.rows, zero, dIdx),
                    rowsOf(sumQ, zero, it.rows, zero, dIdx));
          }
          auto signalVectors = [&](int64_t flag) {
            for (int64_t v = 0; v < vectorsPerGroup; ++v)
              k.setFlag(
                  flag, dev::CoreKind::vector,
                  k.add(k.mul(group, k.index(vectorsPerGroup)), k.index(v)));
          };
          // The tiles that vary by step, in the step's slot.
          auto varying = [&](const Step &s) {
            Value qs = keys ? s.slot : zero, ks = keys ? zero : s.slot;
            return std::make_tuple(
                slotRows(qTiles, qs, s.rows), slotRows(dyTiles, qs, s.rows),
                slotRows(kTiles, ks, s.cols), slotRows(vTiles, ks, s.cols));
          };
          auto issue = [&](Value t) {
            Step s = stepAt(t);
            Value q, dyRows, kRows, vRows;
            std::tie(q, dyRows, kRows, vRows) = varying(s);
            if (keys) {
              k.dma(headRows(query, true, s.it, s.it.n, s.r0, s.rows), q);
              k.dma(headRows(dy, true, s.it, s.it.n, s.r0, s.rows), dyRows);
            } else {
              k.dma(headRows(key, false, s.it, s.it.kvHead, s.c0, s.cols),
                    kRows);
              k.dma(headRows(value, false, s.it, s.it.kvHead, s.c0, s.cols),
                    vRows);
            }
            Value sRows = rowsOf(sTile, zero, s.rows, zero, s.cols);
            k.matmul(q, kRows, sRows, /*accumulate=*/false,
                     /*transposeB=*/true);
            k.dma(sRows, slotTile(wsScores, group, s.slot, zero, s.rows, zero,
                                  s.cols));
            k.matmul(dyRows, vRows, sRows, /*accumulate=*/false,
                     /*transposeB=*/true);
            k.dma(sRows,
                  slotTile(wsDp, group, s.slot, zero, s.rows, zero, s.cols));
            signalVectors(kScoresReady);
          };
          // Once the vector tasks are done with a step's slot, launches 1
          // and 2 take its P' and dS into their sums.
          auto consume = [&](Value t) {
            for (int64_t v = 0; v < vectorsPerGroup; ++v)
              k.waitFlag(kProbsReady + v);
            if (pass == Pass::Statistics)
              return;
            Step s = stepAt(t);
            Value q, dyRows, kRows, vRows;
            std::tie(q, dyRows, kRows, vRows) = varying(s);
            accumulateStep(tiles, group, s, q, dyRows, kRows);
          };
          k.forLoop(zero, k.add(steps, k.index(1)), k.index(1), [&](Value t) {
            k.ifThenElse(k.lt(t, steps), [&] { issue(t); });
            k.ifThenElse(k.ge(t, k.index(1)),
                         [&] { consume(k.sub(t, k.index(1))); });
          });
          if (keys) {
            k.dma(rowsOf(sumA, zero, first.cols, zero, dIdx),
                  headRows(dkSum, false, it, it.kvHead, first.c0, first.cols));
            k.dma(rowsOf(sumB, zero, first.cols, zero, dIdx),
                  headRows(dvSum, false, it, it.kvHead, first.c0, first.cols));
          } else if (sumQ) {
            k.dma(rowsOf(sumQ, zero, it.rows, zero, dIdx),
                  headRows(dqSum, true, it, it.n, it.r0, it.rows));
          }
        });
  }

  /// Step `s`'s P' and dS (from the workspace) into the sums: dV += P'^T
  /// dY and dK += dS^T Q (and dpse rows) in launch 1, dQ += dS K in
  /// launch 2.
  void accumulateStep(const CubeTiles &tiles, Value group, const Step &s,
                      Value q, Value dyRows, Value kRows) {
    Value zero = k.index(0), dIdx = k.index(g.headDim);
    Value p = rowsOf(tiles.pTile, zero, s.rows, zero, s.cols);
    Value ds = rowsOf(tiles.dsTile, zero, s.rows, zero, s.cols);
    k.dma(slotTile(wsProbs, group, s.slot, zero, s.rows, zero, s.cols), p);
    k.dma(slotTile(wsDs, group, s.slot, zero, s.rows, zero, s.cols), ds);
    if (!tiles.sumA) {
      k.matmul(ds, kRows, rowsOf(tiles.sumQ, zero, s.rows, zero, dIdx),
               /*accumulate=*/true);
      return;
    }
    auto dvOp = k.builder().create<dev::MatmulOp>(
        k.location(), p, dyRows, rowsOf(tiles.sumB, zero, s.cols, zero, dIdx),
        /*accumulate=*/true);
    dvOp.setTransposeA(true);
    auto dkOp = k.builder().create<dev::MatmulOp>(
        k.location(), ds, q, rowsOf(tiles.sumA, zero, s.cols, zero, dIdx),
        /*accumulate=*/true);
    dkOp.setTransposeA(true);
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
    k.ifThenElse(
        k.lt(s.headBlock, k.index(1)),
        [&] { k.matmul(ones, ds, sum, /*accumulate=*/false); },
        [&] { k.matmul(ones, ds, sum, /*accumulate=*/true); });
    k.ifThenElse(k.ge(k.add(s.headBlock, k.index(1)), s.headBlocks), [&] {
      k.dma(k.window(row, {zero, zero}, {b.getIndexAttr(1), s.cols}, {0}),
            positionTile(dpseSum, s.it, zero, k.index(1), s.c0, s.cols));
    });
  }

  //===--- Vector side ----------------------------------------------------===//

  struct GradBuffers {
    VectorBuffers base;
    Value dp, dropped, ds, rowD;
    /// Launch 0: per own row, the running sum of exp(S - m) dP'.
    Value dotSum;
  };

  void buildVector(Value task, Pass pass) {
    GradBuffers buf;
    buf.base = allocVector();
    buf.dp = k.alloc({chunkRows, s2Inner}, f32);
    buf.dropped = k.alloc({chunkRows, s2Inner}, f32);
    buf.ds = k.alloc({chunkRows, s2Inner}, element);
    buf.rowD = k.alloc({chunkRows}, f32);
    buf.dotSum = k.alloc({rowsPerVector}, f32);
    Value group = k.div(task, k.index(vectorsPerGroup));
    Value part = k.rem(task, k.index(vectorsPerGroup));
    k.vfill(buf.base.negInf, k.f32(-std::numeric_limits<double>::infinity()));
    Value zero = k.index(0);
    Value own0 = k.mul(part, k.index(rowsPerVector));
    auto ownRows = [&](Value rows) {
      return k.max(zero, k.min(k.index(rowsPerVector), k.sub(rows, own0)));
    };
    bool statistics = pass == Pass::Statistics;
    forEachItemOf(
        group, pass, [&](Item &it, Value steps, function_ref<Step(Value)> at) {
          if (statistics)
            startStatistics(buf);
          k.forLoop(zero, steps, k.index(1), [&](Value t) {
            Step s = at(t);
            k.waitFlag(kScoresReady);
            forEachChunk(ownRows(s.rows), [&](Value r, Value rows) {
              if (statistics)
                statisticsChunk(buf, s, group, k.add(own0, r), r, rows);
              else
                gradChunk(buf, s, group, k.add(own0, r), rows,
                          pass == Pass::Queries);
            });
            signalCube(part, group);
          });
          if (statistics)
            forEachChunk(ownRows(it.rows), [&](Value r, Value rows) {
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

  /// Rows [row, row + rows) of step `st`'s scores from the workspace,
  /// prepared as the softmax takes them (prepareScores).
  Value loadPreparedScores(const VectorBuffers &v, const Step &st, Value group,
                           Value row, Value rows) {
    Value zero = k.index(0);
    Value s = rowsOf(v.scores, zero, rows, zero, st.cols);
    k.dma(slotTile(wsScores, group, st.slot, row, rows, zero, st.cols), s);
    prepareScores(v, st.it, s, k.add(st.r0, row), rows, st.c0, st.cols);
    return s;
  }

  /// Launch 0's step on rows [row, row + rows) (own rows [r, r + rows)):
  /// the online softmax over the block's prepared scores, and the sum of
  /// exp(S - m) dP' rescaled with it.
  void statisticsChunk(const GradBuffers &buf, const Step &st, Value group,
                       Value row, Value r, Value rows) {
    const VectorBuffers &v = buf.base;
    Value zero = k.index(0), cols = st.cols;
    Value i0 = k.add(st.r0, row);
    Value s = loadPreparedScores(v, st, group, row, rows);
    updateSoftmax(v, s, r, rows);
    Value dp = rowsOf(buf.dp, zero, rows, zero, cols);
    k.dma(slotTile(wsDp, group, st.slot, row, rows, zero, cols), dp);
    if (dropMask)
      applyDropout(dp, loadKeep(v, st.it, i0, rows, st.c0, cols));
    // sum = sum alpha + rowsum(exp(S - m') dP').
    Value blockSum = k.window(buf.rowD, {zero}, {rows});
    Value sum = k.window(buf.dotSum, {r}, {rows});
    k.vbinary(dev::BinaryKind::mul, s, dp, dp);
    k.vreduce(dev::ReduceKind::sum, dp, blockSum);
    k.vbinary(dev::BinaryKind::mul, sum, k.window(v.alpha, {r}, {rows}), sum);
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

  /// Rows [row, row + rows) of step `s`'s block: P', dS (and dpse).
  void gradChunk(const GradBuffers &buf, const Step &st, Value group, Value row,
                 Value rows, bool writeDpse) {
    const VectorBuffers &v = buf.base;
    Value zero = k.index(0), cols = st.cols;
    Value i0 = k.add(st.r0, row);
    Value s = loadPreparedScores(v, st, group, row, rows);
    // P = exp(S - m) / l with the forward's statistics; a row that saw no
    // key (m = -inf, l = 0) gets P = 0.
    Value m = k.window(v.rowMax, {zero}, {rows});
    Value l = k.window(v.rowSum, {zero}, {rows});
    Value empty = k.window(v.empty, {zero}, {rows});
    Value constant = k.window(v.constant, {zero}, {rows});
    k.dma(statisticColumn(rowMaxes, st.it, i0, rows), m);
    k.dma(statisticColumn(rowSums, st.it, i0, rows), l);
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
    Value rowD = k.window(buf.rowD, {zero}, {rows});
    k.dma(statisticColumn(rowDots, st.it, i0, rows), rowD);
    // dP' (through the dropout) and P'.
    Value dp = rowsOf(buf.dp, zero, rows, zero, cols);
    k.dma(slotTile(wsDp, group, st.slot, row, rows, zero, cols), dp);
    Value dropped = s;
    if (dropMask) {
      Value keep = loadKeep(v, st.it, i0, rows, st.c0, cols);
      applyDropout(dp, keep);
      dropped = rowsOf(buf.dropped, zero, rows, zero, cols);
      k.vbinary(dev::BinaryKind::mul, s, keep, dropped);
      k.vbinaryScalar(dev::BinaryKind::div, dropped,
                      k.f32(op.getKeepProb().convertToDouble()), dropped);
    }
    storeAs(dropped, rowsOf(v.probs, zero, rows, zero, cols),
            slotTile(wsProbs, group, st.slot, row, rows, zero, cols));
    // dS = scale P (dP' - D).
    k.vbinaryBroadcast(dev::BinaryKind::sub, dp, rowD, dp, 0);
    k.vbinary(dev::BinaryKind::mul, s, dp, dp);
    k.vbinaryScalar(dev::BinaryKind::mul, dp,
                    k.f32(op.getScale().convertToDouble()), dp);
    Value ds = rowsOf(buf.ds, zero, rows, zero, cols);
    storeAs(dp, ds, slotTile(wsDs, group, st.slot, row, rows, zero, cols));
    if (!writeDpse || pseGrad == PseGrad::None || pseGrad == PseGrad::SumRows)
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

  /// Writes f32 `x` to `target` in the input type (through `narrow`).
  void storeAs(Value x, Value narrow, Value target) {
    if (element == f32) {
      k.dma(x, target);
      return;
    }
    k.vcast(x, narrow);
    k.dma(narrow, target);
  }

  /// Column 0 of softmax_max / softmax_sum for rows [i0, i0 + rows).
  Value statisticColumn(Value stats, const Item &it, Value i0, Value rows) {
    Value tile = statisticsRows(stats, it, i0, rows);
    return k.window(tile, {k.index(0), k.index(0)},
                    {rows, k.builder().getIndexAttr(1)}, {1});
  }
};

} // namespace

namespace {

/// Builds `lowering`'s kernels unless the op has no work (`empty`); the
/// sizes are chosen first, so a shape the device cannot hold is an error
/// even then.
template <typename Lowering>
LogicalResult buildUnlessEmpty(Lowering &lowering, bool empty) {
  if (failed(lowering.chooseSizes()))
    return failure();
  if (!empty)
    lowering.build();
  return success();
}

struct FlashAttentionKernelModel
    : DeviceKernelOpInterface::ExternalModel<FlashAttentionKernelModel,
                                             FlashAttentionOp> {
  LogicalResult buildDeviceKernels(Operation *op, OpBuilder &b,
                                   const KernelOperands &io,
                                   const DeviceModel &device,
                                   const KernelOptions &) const {
    FailureOr<AttentionGeometry> g = getAttentionGeometry(op);
    if (failed(g))
      return failure();
    KernelBuilder k(b, op->getLoc());
    AttentionLowering<FlashAttentionOp> lowering(
        k, cast<FlashAttentionOp>(op), *g, io, device);
    return buildUnlessEmpty(lowering, g->batch * g->headsQ * g->seqQ == 0);
  }
};

struct FlashAttentionGradKernelModel
    : DeviceKernelOpInterface::ExternalModel<FlashAttentionGradKernelModel,
                                             FlashAttentionGradOp> {
  LogicalResult buildDeviceKernels(Operation *op, OpBuilder &b,
                                   const KernelOperands &io,
                                   const DeviceModel &device,
                                   const KernelOptions &) const {
    FailureOr<AttentionGeometry> g = getAttentionGeometry(op);
    if (failed(g))
      return failure();
    KernelBuilder k(b, op->getLoc());
    AttentionBackwardLowering lowering(k, cast<FlashAttentionGradOp>(op), *g,
                                       io, device);
    return buildUnlessEmpty(lowering,
                            g->batch * g->headsQ * (g->seqQ + g->seqKV) == 0);
  }
};

} // namespace

void npu::registerFlashAttentionKernelModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, NPUDialect *) {
    FlashAttentionOp::attachInterface<FlashAttentionKernelModel>(*ctx);
    FlashAttentionGradOp::attachInterface<FlashAttentionGradKernelModel>(
        *ctx);
  });
}
