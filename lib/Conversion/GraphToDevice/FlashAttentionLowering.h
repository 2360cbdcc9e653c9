//===- FlashAttentionLowering.h - the attention lowerings' base -*- C++ -*-===//
//
// Private to lib/Conversion/GraphToDevice: the part of npu.flash_attention's
// and npu.flash_attention_grad's lowerings that both use
// (FlashAttentionForward.cpp, FlashAttentionBackward.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef NPU_LIB_CONVERSION_GRAPHTODEVICE_FLASHATTENTIONLOWERING_H
#define NPU_LIB_CONVERSION_GRAPHTODEVICE_FLASHATTENTIONLOWERING_H

#include "npu/Conversion/DeviceKernelOpInterface.h"
#include "npu/Conversion/FlashAttentionTiling.h"
#include "npu/Device/DeviceModel.h"
#include "npu/Dialect/NPU/NPUOps.h"
#include "npu/Dialect/NPUDev/KernelBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"

#include <array>
#include <limits>

namespace npu::attention {

// The lowerings are written in MLIR's vocabulary; this namespace is theirs
// alone.
using namespace mlir;

constexpr int64_t kCubeBlock = 128;
/// Cross-core flags. A vector task's: the cube's scores (and dP) are
/// ready, its output is ready. The cube's: flag v, vector task v of the
/// group has written its probabilities (one flag per vector task, so a
/// task that runs a step ahead cannot stand in for one that lags).
enum Flag : int64_t { kScoresReady = 0, kOutputReady = 1, kProbsReady = 0 };

/// The lowering of an attention op (OpT: npu.flash_attention or
/// npu.flash_attention_grad), what the forward's and the backward's kernels
/// share: sizes, views of the operands, work items, the vector side's score
/// preparation and online softmax. Each derives its kernel (build()) from
/// it.
template <typename OpT> struct AttentionLowering {
  KernelBuilder &k;
  OpT op;
  graph::AttentionGeometry g;
  graph::AttentionDiagonals band;
  const DeviceModel &device;
  Value query, key, value, maxOut, sumOut, out;
  /// TND's cumulative lengths given as data ([B] i64), or null.
  Value seqEndsQ, seqEndsKV;
  /// Optional inputs; attenMask only when the mode reads it.
  Value attenMask, pse, dropMask;
  Value wsScores, wsProbs, wsOutput, batchTable;
  Type element, f32, i32, i8;
  int64_t groups = 0, vectorsPerGroup = 0, s1Inner = 0, s2Inner = 0;
  /// Keys per matmul on the cube (the forward's base block).
  int64_t cubeKeys = kCubeBlock;
  int64_t rowsPerVector = 0, chunkRows = 0, items = 0;
  /// Items whose row statistics (m, l) the vector side keeps at once, and
  /// the bytes of scalars it keeps in vector memory besides.
  int64_t statisticSlots = 1, vectorScalarBytes = 0;
  /// Whether items visit their key blocks from getFirstVisitedBlock on,
  /// wrapping around, rather than from block 0. The online softmax gives
  /// the same result in any order, up to rounding.
  bool rotateKeyBlocks = false;
  attention::ForwardTiling tiling;
  /// Whether an item may take a query block per vector task, each K and V
  /// chunk serving all of them from cube memory (the forward; see
  /// mayReuseKeysAndValuesHere).
  bool mayReuseKeysAndValues = false;
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
    /// The keys some row of the item may see (band and prefix): [firstKey,
    /// endKey). A block's visit covers only these: at a causal diagonal
    /// the keys past the item's last row are neither multiplied nor
    /// masked.
    Value firstKey, endKey;
    /// Where the item's visit of its key blocks starts (rotateKeyBlocks),
    /// or null: block 0.
    Value rotation;
  };

  AttentionLowering(KernelBuilder &k, OpT op, graph::AttentionGeometry g,
                    const KernelOperands &io, const DeviceModel &device)
      : k(k), op(op), g(std::move(g)), device(device) {
    typename OpT::Adaptor in(io.operands, op);
    query = in.getQuery();
    key = in.getKey();
    value = in.getValue();
    Value mask = in.getAttenMask();
    if (mask &&
        graph::isAttentionMaskRead(op.getSparseMode(),
                                   cast<MemRefType>(mask.getType()).getShape()))
      attenMask = mask;
    pse = in.getPse();
    seqEndsQ = in.getSeqQlen();
    seqEndsKV = in.getSeqKvlen();
    dropMask = in.getDropMask();
    if constexpr (std::is_same_v<OpT, graph::FlashAttentionOp>) {
      maxOut = io.results[0];
      sumOut = io.results[1];
      out = io.results[2];
    }
    MLIRContext *ctx = op.getContext();
    element = getElementTypeOrSelf(op.getQuery());
    f32 = Float32Type::get(ctx);
    i32 = IntegerType::get(ctx, 32);
    i8 = IntegerType::get(ctx, 8);
    // With a length read at run time, the band of equal lengths: no shift,
    // which getDiagonal adds when the kernel runs.
    int64_t longest = std::numeric_limits<int32_t>::max();
    band = this->g.hasStaticLengths()
               ? graph::getAttentionBand(op).getDiagonals(0, this->g.seqQ,
                                                          this->g.seqKV)
               : graph::getAttentionBand(op).getDiagonals(0, longest, longest);
  }

  //===--- Lengths --------------------------------------------------------===//

  /// S1 and S2 where known; where read at run time, the longest the
  /// kernels take (positions are i32). Compile-time choices that only tune
  /// the kernel (the deal of items, the key's sparse field) assume it.
  int64_t getSeqQBound() const { return boundLength(g.seqQ); }
  int64_t getSeqKVBound() const { return boundLength(g.seqKV); }
  static int64_t boundLength(int64_t length) {
    return ShapedType::isDynamic(length) ? std::numeric_limits<int32_t>::max()
                                         : length;
  }

  /// S1 and S2 as values: constants, or read from the query's (key's)
  /// sequence axis.
  Value getSeqQ() { return getLength(query, g.seqQ); }
  Value getSeqKV() { return getLength(key, g.seqKV); }
  Value getLength(Value tensor, int64_t length) {
    if (!ShapedType::isDynamic(length))
      return k.index(length);
    if (Value ends = tensor == query ? seqEndsQ : seqEndsKV)
      return getLongestSequence(ends);
    return k.dim(tensor, *graph::getSequenceDim(g.layout));
  }

  /// End `b` of the cumulative lengths `ends`, and the one before it (0
  /// for the first batch).
  std::pair<Value, Value> getSequenceBounds(Value ends, Value b) {
    Value zero = k.index(0);
    Value before = k.max(zero, k.sub(b, k.index(1)));
    Value start =
        k.select(k.eq(b, zero), zero, k.toIndex(k.load(ends, {before})));
    return {start, k.toIndex(k.load(ends, {b}))};
  }

  /// The longest packed sequence of `ends`: a loop over the batches.
  Value getLongestSequence(Value ends) {
    return k.forLoop(k.index(0), k.index(g.batch), k.index(1), k.index(0),
                     [&](Value b, Value longest) {
                       auto [start, end] = getSequenceBounds(ends, b);
                       return k.max(longest, k.sub(end, start));
                     });
  }

  /// A launch that fails the kernel at the first batch whose end in `ends`
  /// (operand `name`) is below the one before it, or, for the last batch,
  /// is not `rows`: what the verifier checks of the attributes.
  void checkSequenceEnds(StringRef name, Value ends, Value tensor,
                         StringRef tensorName) {
    auto type = cast<MemRefType>(tensor.getType());
    std::string rowsText =
        type.isDynamicDim(0)
            ? ("the rows of " + tensorName).str()
            : ("the " + Twine(type.getDimSize(0)) + " rows").str();
    dev::LaunchOp launch = k.launch(1, [&](Value) {
      Value rows = k.dim(tensor, 0);
      Value last = k.index(g.batch - 1);
      Value first = k.forLoop(
          k.index(0), k.index(g.batch), k.index(1), k.index(-1),
          [&](Value b, Value bad) {
            auto [start, end] = getSequenceBounds(ends, b);
            Value rising = k.ge(end, start);
            Value fits = k.select(k.eq(b, last), k.eq(end, rows), rising);
            Value broken = k.eq(k.andI(rising, fits),
                                k.constant(k.builder().getI1Type(), 0));
            Value take = k.andI(k.lt(bad, k.index(0)), broken);
            return k.select(take, b, bad);
          });
      Type i64 = k.builder().getI64Type();
      Value found = k.alloc({1}, i64);
      k.vfill(found,
              k.builder().create<arith::IndexCastOp>(k.location(), i64, first));
      k.reportRows(found, ("'" + op->getName().getStringRef() + "' " + name +
                           " holds no cumulative lengths ending at " +
                           rowsText + ": batch {row}")
                              .str());
    });
    KernelBuilder::recordTiling(
        launch, {k.builder().getNamedAttr(
                    "strategy", k.builder().getStringAttr("check_sizes"))});
  }

  /// The shape the templates are chosen from, with sequence lengths `s1`
  /// and `s2`.
  attention::AttentionShape getShapeWith(int64_t s1, int64_t s2) const {
    return {g.batch, g.headsKV, g.getGroup(), s1, s2, g.headDim};
  }

  //===--- Sizes ----------------------------------------------------------===//

  LogicalResult chooseSizes() {
    return chooseSizes(getShapeWith(getSeqQBound(), getSeqKVBound()));
  }

  /// The template and tile sizes for `shape` (the op's own, or with lengths
  /// read at run time one that leads to the template to build a kernel of,
  /// and `reuse`: whether that kernel reuses K and V across its vector
  /// tasks' query blocks, as selectTemplateAtRunTime decides).
  LogicalResult chooseSizes(const attention::AttentionShape &shape,
                            bool reuse = false) {
    attention::AttentionLimits limits = attention::getAttentionLimits(device);
    cubeKeys = kCubeBlock;
    tiling = attention::selectAttentionTemplate(shape, limits);
    describeOp(tiling.key);
    // One (batch, head) per item; the cube's tiles stay within 128 rows
    // (a block per vector task with reuseKeysAndValues).
    s1Inner = std::clamp<int64_t>(tiling.s1Inner, 1, kCubeBlock);
    s1Inner = std::min(s1Inner, std::max<int64_t>(shape.s1, 1));
    s2Inner = std::min(limits.s2Inner, std::max<int64_t>(shape.s2, 1));
    if (failed(fitCubeTiles()))
      return failure();
    if (device.hasSplitCores()) {
      groups = device.getNumCores(dev::CoreKind::cube);
      vectorsPerGroup = device.getNumCores(dev::CoreKind::vector) / groups;
    } else {
      // A group's cube and vector tasks wait for each other, so all of them
      // hold a core at once: two vector tasks where three cores fit, one
      // on a device of two cores, and none can run on one.
      int64_t cores = device.getNumCores();
      if (cores < 2)
        return op.emitOpError("cannot be lowered: its cube and vector tasks "
                              "wait for each other, so they need two cores, "
                              "and device '")
               << device.name << "' has one";
      vectorsPerGroup = std::min<int64_t>(2, cores - 1);
      groups = cores / (1 + vectorsPerGroup);
    }
    vectorsPerGroup = std::max<int64_t>(1, vectorsPerGroup);
    if (g.hasStaticLengths() ? reusesAtStaticLengths() : reuse)
      reuseKeysAndValues();
    // Packed sequences differ in length; other batches are all S1 long,
    // which may be known only at run time: then every group is launched.
    items = 0;
    if (g.layout == graph::AttentionLayout::TND && g.hasStaticLengths())
      for (int64_t b = 0; b < g.batch; ++b)
        items += g.headsQ * llvm::divideCeil(g.getSeqQ(b), s1Inner);
    else if (g.hasStaticLengths())
      items = g.batch * g.headsQ * llvm::divideCeil(g.seqQ, s1Inner);
    if (g.hasStaticLengths())
      groups = std::min(groups, items);
    groups = std::max<int64_t>(1, groups);
    rowsPerVector = llvm::divideCeil(s1Inner, vectorsPerGroup);
    chunkRows = getChunkRows(rowsPerVector);
    if (chunkRows < 1)
      return op.emitOpError("cannot be lowered: a row of ")
             << s2Inner << " keys and head size " << g.headDim
             << " does not fit the vector memory of device '" << device.name
             << "'";
    return success();
  }

  /// The rows of a vector task's chunks when it owns `ownRows` query rows;
  /// below 1 when not even one row fits its memory.
  int64_t getChunkRows(int64_t ownRows) {
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
                          g.headDim * 4 + narrowRow + 2 * 8 * 4 + 16;
    int64_t fixed =
        ownRows * (g.headDim * 4 + (5 + 2 * statisticSlots) * 4 + 1) +
        vectorScalarBytes;
    int64_t room = device.vectorBytes - fixed;
    // Room for a second copy of the tiles a chunk loads and stores (S, P,
    // the optional inputs' tiles, O; the output rows and statistics an
    // item ends with), so that npu-pipeline-dma-loops can load the next
    // chunk while this one computes, and leave stores in flight; without
    // it, one copy.
    int64_t secondCopy =
        s2Inner * (4 + elementBytes + (attenMask ? 1 : 0) + (dropMask ? 1 : 0) +
                   (pse ? elementBytes : 0)) +
        g.headDim * 4 + narrowRow + 2 * 8 * 4;
    int64_t rows = std::min(ownRows, room / (perChunkRow + secondCopy));
    return rows >= 1 ? rows : std::min(ownRows, room / perChunkRow);
  }

  /// CANN's enableL1Reuse, where it pays: an item takes a query block of
  /// s1Inner rows for each vector task of its group, and each K and V
  /// chunk the cube loads serves all of them, in chunks of half as many
  /// keys so that the tiles fit cube memory. Each item then moves 1 / R of
  /// the K and V bytes per query row (R vector tasks): at S 4096 without a
  /// mask on ascend910b, 11.7% fewer bytes through the L2. With fewer,
  /// larger items the groups' loads balance worse, and at a causal diagonal
  /// a larger item masks more: measured slower at S 2048, S 1024 and
  /// causal (docs/flash-attention.md). So only without a mask or optional
  /// inputs, outside TND, where the tiles fit both memories
  /// (mayReuseKeysAndValuesHere), and with at least kReuseItemsPerGroup
  /// items per group (hasItemsToReuseFor).
  bool mayReuseKeysAndValuesHere() {
    return mayReuseKeysAndValues && vectorsPerGroup >= 2 &&
           g.layout != graph::AttentionLayout::TND &&
           tiling.key.sparse == attention::Sparse::None && !attenMask && !pse &&
           !dropMask && !hasPrefix() && cubeKeys >= 2 &&
           getCubeTileBytes(s1Inner * vectorsPerGroup, cubeKeys / 2) <=
               device.cubeBytes &&
           getChunkRows(s1Inner) >= 1;
  }
  static constexpr int64_t kReuseItemsPerGroup = 4;
  /// Whether `s1` query rows in items of `rows` leave kReuseItemsPerGroup
  /// items for each group: an i1 for a length read at run time.
  Value hasItemsToReuseFor(Value s1, int64_t rows) {
    int64_t heads = g.batch * g.headsQ;
    Value blocks = k.div(k.add(s1, k.index(rows - 1)), k.index(rows));
    return k.andI(k.ge(s1, k.index(rows)),
                  k.ge(k.mul(k.index(heads), blocks),
                       k.index(kReuseItemsPerGroup * groups)));
  }
  /// Whether a kernel of static lengths reuses K and V.
  bool reusesAtStaticLengths() {
    int64_t rows = s1Inner * vectorsPerGroup;
    return mayReuseKeysAndValuesHere() && g.seqQ >= rows &&
           g.batch * g.headsQ * int64_t(llvm::divideCeil(g.seqQ, rows)) >=
               kReuseItemsPerGroup * groups;
  }
  /// Items of a query block per vector task, in half as many keys per
  /// matmul.
  void reuseKeysAndValues() {
    s1Inner *= vectorsPerGroup;
    cubeKeys /= 2;
    tiling.key.enableL1Reuse = true;
  }

  /// Cube memory for items of `rows` query rows and matmuls of `keys`
  /// keys: Q and the K and V chunks in the input type, S in f32, P in the
  /// input type, O in f32.
  int64_t getCubeTileBytes(int64_t rows, int64_t keys) const {
    int64_t eb = element.getIntOrFloatBitWidth() / 8, d = g.headDim;
    return rows * d * eb + 2 * keys * d * eb + rows * keys * (4 + eb) +
           rows * d * 4;
  }

  /// Halves the query rows or the keys per cube matmul, the larger first,
  /// until the cube's tiles fit its memory (large head sizes: CANN takes D
  /// up to 512).
  LogicalResult fitCubeTiles() {
    int64_t d = g.headDim;
    auto bytes = [&] { return getCubeTileBytes(s1Inner, cubeKeys); };
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
    case graph::AttentionLayout::BSH:
    case graph::AttentionLayout::BSND:
      key.layout = Layout::BSND;
      break;
    case graph::AttentionLayout::SBH:
      key.layout = Layout::SBND;
      break;
    case graph::AttentionLayout::BNSD:
      key.layout = Layout::BNSD;
      break;
    case graph::AttentionLayout::TND:
      key.layout = Layout::TND;
      break;
    }
    // A band that reaches every (i, j) masks nothing.
    bool unbounded =
        band.low <= -(getSeqQBound() - 1) && band.high >= getSeqKVBound() - 1;
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
    if (g.layout == graph::AttentionLayout::BSH ||
        g.layout == graph::AttentionLayout::SBH) {
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
    case graph::AttentionLayout::BSH:
    case graph::AttentionLayout::BSND:
      return k.window(view, {b, s0, n, zero}, {one, rows, one, d}, {0, 2});
    case graph::AttentionLayout::SBH:
      return k.window(view, {s0, b, n, zero}, {rows, one, one, d}, {1, 2});
    case graph::AttentionLayout::BNSD:
      return k.window(view, {b, n, s0, zero}, {one, one, rows, d}, {0, 1});
    case graph::AttentionLayout::TND:
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
    if (g.layout == graph::AttentionLayout::TND)
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

  /// A buffer in global memory, allocated before the launches; a dynamic
  /// size is `like`'s in the same dimension (a length read at run time).
  Value globalBuffer(ArrayRef<int64_t> shape, Type type, Value like = {}) {
    OpBuilder &b = k.builder();
    SmallVector<Value> sizes;
    for (auto [d, size] : llvm::enumerate(shape))
      if (ShapedType::isDynamic(size))
        sizes.push_back(k.dim(like, d));
    return b.create<memref::AllocOp>(
        k.location(),
        MemRefType::get(shape, type, MemRefLayoutAttrInterface(),
                        dev::MemorySpaceAttr::get(b.getContext(),
                                                  dev::MemorySpace::global)),
        sizes);
  }

  /// A workspace of `slots` [s1Inner, cols] tiles per group.
  Value workspace(int64_t cols, Type type, int64_t slots = 2) {
    return globalBuffer({groups, slots, s1Inner, cols}, type);
  }

  /// Whether batches differ in their sequences or band (TND's packed
  /// sequences, the prefix modes' prefix): they then read a table, whose
  /// size follows the attributes that describe them. Other batches are
  /// computed from the batch index, so the kernel does not grow with B.
  bool batchesDiffer() {
    return g.layout == graph::AttentionLayout::TND || hasPrefix();
  }

  /// Per batch: where its sequences start and how long they are, its band
  /// (AttentionDiagonals, clamped to i32) and the index of its first item
  /// modulo the groups. Filled before the launch; O(B) stores, where the
  /// batches differ (null otherwise).
  Value buildBatchTable() {
    if (!batchesDiffer())
      return {};
    if (!g.hasStaticLengths())
      return buildRunTimeBatchTable();
    OpBuilder &b = k.builder();
    Value table = globalBuffer({std::max<int64_t>(g.batch, 1), kNumBatchFields},
                               b.getI64Type());
    graph::AttentionBand band = graph::getAttentionBand(op);
    int64_t itemBase = 0, keyItemBase = 0;
    for (int64_t batch = 0; batch < g.batch; ++batch) {
      int64_t seqQ = g.getSeqQ(batch), seqKV = g.getSeqKV(batch);
      graph::AttentionDiagonals d = band.getDiagonals(batch, seqQ, seqKV);
      int64_t values[kNumBatchFields] = {
          g.getStartQ(batch),
          seqQ,
          g.getStartKV(batch),
          seqKV,
          clampToI32(d.low),
          clampToI32(d.high),
          d.prefixEnd,
          sameGroupAcrossBatches ? 0 : itemBase % (2 * groups),
          keyItemBase % (2 * groups)};
      for (int64_t f = 0; f < kNumBatchFields; ++f)
        k.store(k.constant(b.getI64Type(), values[f]), table,
                {k.index(batch), k.index(f)});
      itemBase += g.headsQ * llvm::divideCeil(seqQ, s1Inner);
      keyItemBase += g.headsKV * llvm::divideCeil(seqKV, s2Inner);
    }
    return table;
  }

  /// buildBatchTable's table for lengths read at run time: a host loop
  /// over the batches reads each batch's sequences, from TND's cumulative
  /// ends or, in the other layouts, the lengths every batch shares. A
  /// batch's band is getDiagonals' for a sequence of no length, moved by
  /// S2 - S1 where the mode measures from the bottom right; modes 7 and 8
  /// give the batch they cut (the last, or the first, with queries) a band
  /// of its own; the prefix modes' prefix ends at min(prefix[b], S2).
  Value buildRunTimeBatchTable() {
    Type i64 = k.builder().getI64Type();
    Value table =
        globalBuffer({std::max<int64_t>(g.batch, 1), kNumBatchFields}, i64);
    bool prefixes = storePrefixes(table);
    Value sharedQ = seqEndsQ ? Value() : getSeqQ();
    Value sharedKV = seqEndsKV ? Value() : getSeqKV();
    auto boundsOf = [&](Value ends, Value shared, Value b) {
      if (ends)
        return getSequenceBounds(ends, b);
      Value start = k.mul(b, shared);
      return std::make_pair(start, k.add(start, shared));
    };
    graph::AttentionBand band = graph::getAttentionBand(op);
    bool cut = seqEndsQ && (band.sparseMode == 7 || band.sparseMode == 8);
    Value cutBatch = cut ? findCutBatch(band.sparseMode == 7) : Value();
    // The band of the cut batch (0 here) and of any other (1).
    band.bandBatch = 0;
    struct Band {
      graph::AttentionDiagonals diagonals;
      bool shifted;
    } bands[2];
    for (int64_t which : {0, 1}) {
      graph::AttentionDiagonals d = band.getDiagonals(which, 0, 0);
      bool shifted = band.getDiagonals(which, 0, 1).low != d.low;
      bands[which] = {d, shifted};
    }
    Value zero = k.index(0), one = k.index(1), period = k.index(2 * groups);
    k.forLoop(zero, k.index(g.batch), one, [&](Value b) {
      auto [startQ, endQ] = boundsOf(seqEndsQ, sharedQ, b);
      auto [startKV, endKV] = boundsOf(seqEndsKV, sharedKV, b);
      Value seqQ = k.sub(endQ, startQ), seqKV = k.sub(endKV, startKV);
      Value isCut = cut ? k.eq(b, cutBatch) : Value();
      auto diagonal = [&](bool low) {
        auto of = [&](const Band &band) {
          Value d = k.index(low ? band.diagonals.low : band.diagonals.high);
          if (band.shifted)
            d = k.add(d, k.sub(seqKV, seqQ));
          return clampToI32(d);
        };
        return cut ? k.select(isCut, of(bands[0]), of(bands[1])) : of(bands[1]);
      };
      // The item bases continue the previous batch's, modulo the period.
      Value before = k.max(zero, k.sub(b, one));
      auto base = [&](BatchField baseField, BatchField lengthField,
                      int64_t heads, int64_t block) {
        return k.ifThenElse(
            k.eq(b, zero), k.builder().getIndexType(), [&] { return zero; },
            [&] {
              auto field = [&](BatchField f) {
                return k.toIndex(k.load(table, {before, k.index(f)}));
              };
              Value blocks = ceilDiv(field(lengthField), block);
              return k.rem(
                  k.add(field(baseField), k.mul(k.index(heads), blocks)),
                  period);
            });
      };
      Value values[kNumBatchFields] = {
          startQ,
          seqQ,
          startKV,
          seqKV,
          diagonal(true),
          diagonal(false),
          prefixes
              ? k.min(k.toIndex(k.load(table, {b, k.index(kPrefixEnd)})), seqKV)
              : zero,
          sameGroupAcrossBatches ? zero
                                 : base(kItemBase, kSeqQ, g.headsQ, s1Inner),
          base(kKeyItemBase, kSeqKV, g.headsKV, s2Inner)};
      for (int64_t f = 0; f < kNumBatchFields; ++f)
        k.store(k.builder().create<arith::IndexCastOp>(k.location(), i64,
                                                       values[f]),
                table, {b, k.index(f)});
    });
    return table;
  }

  /// In the prefix modes, stores each batch's prefix (0 past the
  /// attribute's end) in `table`'s kPrefixEnd column, for
  /// buildRunTimeBatchTable's loop to cut at the batch's S2; whether it did.
  /// O(B) stores.
  bool storePrefixes(Value table) {
    if (!hasPrefix())
      return false;
    Type i64 = k.builder().getI64Type();
    graph::AttentionBand band = graph::getAttentionBand(op);
    for (int64_t b = 0; b < g.batch; ++b)
      k.store(
          k.constant(i64, b < int64_t(band.prefix.size()) ? band.prefix[b] : 0),
          table, {k.index(b), k.index(kPrefixEnd)});
    return true;
  }

  /// The batch modes 7 (`last`) and 8 cut: the last, or the first, whose
  /// sequence has queries; -1 when none has.
  Value findCutBatch(bool last) {
    Value none = k.index(-1);
    return k.forLoop(k.index(0), k.index(g.batch), k.index(1), none,
                     [&](Value b, Value found) {
                       auto [start, end] = getSequenceBounds(seqEndsQ, b);
                       Value hasQueries = k.lt(start, end);
                       Value take = last
                                        ? hasQueries
                                        : k.andI(hasQueries, k.eq(found, none));
                       return k.select(take, b, found);
                     });
  }

  /// Whether an item's work (the blocks its band reaches) grows with its
  /// block index (+1), shrinks (-1) or barely varies (0). A band open to
  /// the first key and bounded on the right (the causal modes) gives later
  /// query blocks more keys and earlier key blocks more queries.
  int workSlope(bool alongKeys) const {
    bool opensToStart = band.low <= -(getSeqQBound() - 1);
    bool opensToEnd = band.high >= getSeqKVBound() - 1;
    int slope = opensToStart == opensToEnd ? 0 : opensToStart ? 1 : -1;
    return alongKeys ? -slope : slope;
  }

  /// The items of all batches, batch by batch. Where their work varies
  /// (workSlope), a batch's items are ordered heaviest first (block by
  /// block, every head of a block together) and item t of this order (t
  /// counted across batches, or within the batch with
  /// sameGroupAcrossBatches) goes to group t mod 2G when that is below G,
  /// else to group 2G - 1 - (t mod 2G): a snake, which keeps each group's
  /// sum within one item of the mean (a causal S 2048, N 4 forward on 24
  /// groups: the mean, where dealing in turn gave 1.25 times it). Otherwise
  /// items go head by head, block by block, to group t mod G. Calls
  /// body(it, head, block, blocks) for `group`'s items, `it` holding its
  /// batch's fields and `blocks` the batch's blocks per head. O(1) per item.
  void forEachGroupItem(Value group, bool alongKeys,
                        function_ref<void(Item &, Value, Value, Value)> body) {
    int64_t blockSize = alongKeys ? s2Inner : s1Inner;
    int slope = workSlope(alongKeys);
    int64_t places = slope == 0 ? 1 : 2;
    Value heads = k.index(alongKeys ? g.headsKV : g.headsQ);
    Value zero = k.index(0), one = k.index(1), two = k.index(2);
    Value period = k.index(places * groups);
    // A place of the group in each period, relative to the batch (whose
    // base is below 2G).
    auto place = [&](Value base, Value at) {
      Value shifted = k.add(at, k.index(2 * groups));
      return k.rem(k.sub(shifted, base), period);
    };
    k.forLoop(zero, k.index(g.batch), one, [&](Value b) {
      Item it = readBatch(b);
      Value base = batchField(b, alongKeys ? kKeyItemBase : kItemBase);
      Value length = alongKeys ? it.seqKV : it.seqQ;
      Value padded = k.add(length, k.index(blockSize - 1));
      Value blocks = k.div(padded, k.index(blockSize));
      Value count = k.mul(blocks, heads);
      auto visit = [&](Value t) {
        auto [head, block] = decodeItem(t, heads, blocks, slope);
        body(it, head, block, blocks);
      };
      // The group's items of whole periods, and of the last part period.
      Value left = k.rem(count, period);
      auto below = [&](Value x) { return k.select(k.lt(x, left), one, zero); };
      Value wholePeriods = k.div(count, period);
      Value a = place(base, group);
      if (places == 1) {
        Value mine = k.add(wholePeriods, below(a));
        k.forLoop(zero, mine, one,
                  [&](Value j) { visit(k.add(k.mul(j, period), a)); });
        return;
      }
      Value mirrored = k.sub(k.index(2 * groups - 1), group);
      Value c = place(base, mirrored);
      Value first = k.min(a, c);
      Value second = k.max(a, c);
      Value firstInPart = below(first);
      Value secondInPart = below(second);
      Value inPart = k.add(firstInPart, secondInPart);
      Value mine = k.add(k.mul(wholePeriods, two), inPart);
      k.forLoop(zero, mine, one, [&](Value j) {
        Value periodStart = k.mul(k.div(j, two), period);
        Value isFirst = k.eq(k.rem(j, two), zero);
        visit(k.add(periodStart, k.select(isFirst, first, second)));
      });
    });
  }

  /// Item t of a batch's order (forEachGroupItem) as (head, block).
  std::pair<Value, Value> decodeItem(Value t, Value heads, Value blocks,
                                     int slope) {
    if (slope == 0) {
      Value head = k.div(t, blocks);
      return {head, k.rem(t, blocks)};
    }
    Value rank = k.div(t, heads);
    Value block = slope > 0 ? k.sub(k.sub(blocks, k.index(1)), rank) : rank;
    return {k.rem(t, heads), block};
  }

  /// Calls body(item) for group `group`'s (batch, query head, query block)
  /// items, with the key blocks their band reaches.
  void forEachItem(Value group, function_ref<void(const Item &)> body) {
    forEachGroupItem(group, /*alongKeys=*/false,
                     [&](Item &it, Value head, Value block, Value) {
                       it.n = head;
                       it.kvHead = k.div(it.n, k.index(g.getGroup()));
                       it.r0 = k.mul(block, k.index(s1Inner));
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
    auto itemsBefore = [&](int64_t heads, Value length, int64_t block) {
      Value blocks = ceilDiv(length, block);
      Value perBatch = k.mul(k.index(heads), blocks);
      return k.rem(k.mul(b, perBatch), k.index(2 * groups));
    };
    switch (f) {
    case kStartQ:
      return k.mul(b, getSeqQ());
    case kSeqQ:
      return getSeqQ();
    case kStartKV:
      return k.mul(b, getSeqKV());
    case kSeqKV:
      return getSeqKV();
    case kLow:
      return getDiagonal(band.low);
    case kHigh:
      return getDiagonal(band.high);
    case kPrefixEnd:
      return k.index(0);
    case kItemBase:
      return sameGroupAcrossBatches ? k.index(0)
                                    : itemsBefore(g.headsQ, getSeqQ(), s1Inner);
    case kKeyItemBase:
      return itemsBefore(g.headsKV, getSeqKV(), s2Inner);
    case kNumBatchFields:
      break;
    }
    llvm_unreachable("not a batch field");
  }

  /// A diagonal of the band (`diagonal` computed with the bounds of the
  /// lengths), clamped to i32: where the lengths are read at run time and
  /// the mode measures from the bottom right, moved by S2 - S1 at run time.
  Value getDiagonal(int64_t diagonal) {
    if (g.hasStaticLengths() || !graph::getAttentionBand(op).isShifted())
      return k.index(clampToI32(diagonal));
    // `band` was computed with equal lengths: `diagonal` holds no shift.
    Value shift = k.sub(getSeqKV(), getSeqQ());
    return clampToI32(k.add(k.index(diagonal), shift));
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
    it.firstKey = lo;
    it.endKey = k.add(hi, one);
    it.firstBlock = k.div(lo, k.index(s2Inner));
    Value endBlock = k.add(k.div(hi, k.index(s2Inner)), one);
    it.blocks = k.max(zero, k.sub(endBlock, it.firstBlock));
    // An empty band (hi < lo) reaches no block.
    it.blocks = k.select(k.lt(hi, lo), zero, it.blocks);
    if (rotateKeyBlocks)
      it.rotation = getFirstVisitedBlock(it);
  }

  /// The key block that item `it` visits first: the fractional part of
  /// its query block times the golden ratio (in 16-bit fixed point), scaled
  /// to its blocks. Successive query blocks of a head, which run on
  /// different cores at the same time, start far apart: their first reads
  /// of K and V miss the L2 on different lines, so each core fetches its
  /// own part of the head from HBM instead of all of them waiting for the
  /// first to fetch all of it.
  Value getFirstVisitedBlock(const Item &it) {
    // No call takes two builder calls as arguments: their order is the
    // compiler's (gcc and clang differ), and the IR must not depend on it.
    constexpr int64_t kOne = 1 << 16, kGolden = 40503; // 0.618... * 2^16
    Value one = k.index(kOne), golden = k.index(kGolden);
    Value block = k.div(it.r0, k.index(s1Inner));
    Value fraction = k.rem(k.mul(block, golden), one);
    return k.div(k.mul(fraction, it.blocks), one);
  }

  bool hasPrefix() {
    return op.getSparseMode() == 5 || op.getSparseMode() == 6;
  }

  /// Keys [c0, c0 + cols) of the `kb`-th key block `it` visits: the block's
  /// keys that some row of the item may see.
  std::pair<Value, Value> keyBlock(const Item &it, Value kb) {
    // kb < blocks, so blocks > 0 here, and the block holds a seen key.
    if (it.rotation)
      kb = k.rem(k.add(kb, it.rotation), it.blocks);
    Value block = k.add(it.firstBlock, kb);
    Value start = k.mul(block, k.index(s2Inner));
    Value c0 = k.max(start, it.firstKey);
    Value end = k.min(k.add(start, k.index(s2Inner)), it.endKey);
    return {c0, k.sub(end, c0)};
  }

  //===--- Vector side ----------------------------------------------------===//

  /// The vector task's buffers.
  struct VectorBuffers {
    Value scores, negInf, diff, below, above, probs, oChunk;
    Value rowIndex;
    /// Tiles of the optional inputs, and an f32 tile to widen them in;
    /// the prefix modes' "key past the prefix" tile.
    Value maskTile, pseTile, dropTile, wide, prefixTile;
    /// Per own row: the output sum, the statistics, and scratch; alpha
    /// (the rescaling exp(m - m') of a key block) for two blocks, as the
    /// forward folds a block's output in after the next block's softmax.
    Value acc, rowMax, rowSum, alpha, scratch, safeMax, constant, empty;
    /// m and l for statisticSlots items: rowMax and rowSum are slot 0's.
    Value rowMaxSlots, rowSumSlots;
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
    v.acc = k.alloc({rowsPerVector, g.headDim}, f32);
    v.rowMaxSlots = k.alloc({statisticSlots, rowsPerVector}, f32);
    v.rowSumSlots = k.alloc({statisticSlots, rowsPerVector}, f32);
    v = withStatisticSlot(v, k.index(0));
    v.alpha = k.alloc({2, rowsPerVector}, f32);
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

  /// `buf` with rowMax and rowSum those of statistics slot `slot`.
  VectorBuffers withStatisticSlot(VectorBuffers buf, Value slot) {
    OpFoldResult one = k.builder().getIndexAttr(1),
                 rows = k.builder().getIndexAttr(rowsPerVector);
    buf.rowMax =
        k.window(buf.rowMaxSlots, {slot, k.index(0)}, {one, rows}, {0});
    buf.rowSum =
        k.window(buf.rowSumSlots, {slot, k.index(0)}, {one, rows}, {0});
    return buf;
  }

  /// Own rows [r, r + rows) of slot `slot` of alpha.
  Value alphaRows(const VectorBuffers &buf, Value slot, Value r, Value rows) {
    return k.window(buf.alpha, {slot, r}, {k.builder().getIndexAttr(1), rows},
                    {0});
  }

  /// Sets the cube's flag of vector task `part` of `group` (flag ids are
  /// attributes: one guarded set_flag per part).
  void signalCube(Value part, Value group) {
    for (int64_t v = 0; v < vectorsPerGroup; ++v)
      k.ifThenElse(
          k.andI(k.ge(part, k.index(v)), k.lt(part, k.index(v + 1))),
          [&] { k.setFlag(kProbsReady + v, dev::CoreKind::cube, group); });
  }

  /// A vector task's group, its place in the group, and the first row of
  /// an item it owns: [own0, own0 + ownRows(rows, own0)).
  struct VectorTask {
    Value group, part, own0;
  };
  VectorTask decodeVectorTask(Value task) {
    VectorTask t;
    t.group = k.div(task, k.index(vectorsPerGroup));
    t.part = k.rem(task, k.index(vectorsPerGroup));
    t.own0 = k.mul(t.part, k.index(rowsPerVector));
    return t;
  }

  /// The rows of an item of `rows` query rows that a vector task starting
  /// at row own0 owns.
  Value ownRows(Value rows, Value own0) {
    Value zero = k.index(0);
    return k.max(zero, k.min(k.index(rowsPerVector), k.sub(rows, own0)));
  }

  /// for (r = 0; r < own; r += chunkRows) body(r, min(chunkRows, own - r)).
  void forEachChunk(Value own, function_ref<void(Value, Value)> body) {
    k.forLoop(k.index(0), own, k.index(chunkRows), [&](Value r) {
      body(r, k.min(k.index(chunkRows), k.sub(own, r)));
    });
  }

  /// One online softmax step of own rows [r, r + rows) over the prepared
  /// scores `s`: m' = max(m, rowmax(s)), alpha = exp(m - m'), l = l alpha +
  /// rowsum(P), m = m', with P = exp(s - m') left in `s` and alpha in
  /// slot `slot` of buf.alpha.
  void updateSoftmax(const VectorBuffers &buf, Value s, Value r, Value rows,
                     Value slot) {
    Value m = k.window(buf.rowMax, {r}, {rows});
    Value l = k.window(buf.rowSum, {r}, {rows});
    Value alpha = alphaRows(buf, slot, r, rows);
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
  /// [c0, c0 + cols)) that item `it`'s band (and prefix) leaves out. Every
  /// row of the chunk sees keys [i0 + rows - 1 + low, i0 + high], so only
  /// the columns before and after those are compared: at a causal
  /// diagonal, the chunk's last rows' worth of columns, not the block.
  void maskOutsideBand(const VectorBuffers &buf, const Item &it, Value s,
                       Value i0, Value rows, Value c0, Value cols) {
    Value one = k.index(1);
    Value end = k.add(c0, cols);
    Value seenFrom = k.add(k.sub(k.add(i0, rows), one), it.low);
    Value seenEnd = k.add(k.add(i0, it.high), one);
    maskColumns(buf, it, s, i0, rows, c0, c0, k.min(end, seenFrom));
    maskColumns(buf, it, s, i0, rows, c0, k.max(c0, seenEnd), end);
  }

  /// The band mask of maskOutsideBand on keys [from, to) of `s` (keys from
  /// c0), if any.
  void maskColumns(const VectorBuffers &buf, const Item &it, Value s, Value i0,
                   Value rows, Value c0, Value from, Value to) {
    Value cols = k.sub(to, from);
    k.ifThenElse(k.lt(k.index(0), cols), [&] {
      Value zero = k.index(0);
      Value scores = k.window(s, {zero, k.sub(from, c0)}, {rows, cols});
      Value diff = rowsOf(buf.diff, zero, rows, zero, cols);
      Value below = rowsOf(buf.below, zero, rows, zero, cols);
      Value above = rowsOf(buf.above, zero, rows, zero, cols);
      k.iota(diff, from, /*dimension=*/1);
      // Keys before the prefix end stay, whatever the band says.
      Value beyondPrefix;
      if (hasPrefix()) {
        beyondPrefix = rowsOf(buf.prefixTile, zero, rows, zero, cols);
        k.vcmpScalar(dev::ComparePredicate::ge, diff,
                     k.convert(it.prefixEnd, i32), beyondPrefix);
      }
      // diff[x, y] = (from + y) - (i0 + x).
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
      k.vselect(below, negInf, scores, scores);
    });
  }

  //===--- Lengths read at run time ---------------------------------------===//

  /// Fails naming what a kernel of lengths read at run time cannot take:
  /// with TND's lengths as data, a mask the mode reads.
  LogicalResult checkRunTimeLengthsSupported() {
    if (seqEndsQ && attenMask)
      return op.emitOpError("cannot be lowered with sequence lengths read at "
                            "run time: an atten_mask the mode reads needs "
                            "them known when the kernel is built");
    return success();
  }

  /// A launch that fails the kernel unless both lengths fit the kernels'
  /// i32 positions and each of `sameLength` (name, operand, dimension,
  /// whether it follows the query rather than the key) has its length.
  void checkRunTimeLengths(
      ArrayRef<std::tuple<StringRef, Value, int64_t, bool>> sameLength = {}) {
    // Lengths are read from the sequence axis, or TND's rows: its packed
    // sequences' ends (seq_qlen, seq_kvlen) are checked against those.
    bool tnd = g.layout == graph::AttentionLayout::TND;
    int64_t seq = graph::getSequenceDim(g.layout).value_or(0);
    auto isRunTime = [&](Value tensor) {
      return cast<MemRefType>(tensor.getType()).isDynamicDim(seq);
    };
    std::string name = ("'" + op->getName().getStringRef() + "' ").str();
    SmallVector<KernelBuilder::SizeCheck> checks;
    constexpr int64_t kLongest = std::numeric_limits<int32_t>::max();
    for (auto [what, tensor] : {std::pair(StringRef("query"), query),
                                std::pair(StringRef("key"), key)})
      if (isRunTime(tensor))
        checks.push_back({tensor, seq, nullptr, 0,
                          name + what.str() +
                              (tnd ? " has {row} rows"
                                   : " has sequence "
                                     "length {row}") +
                              ", past 2^31 - 1 (positions are i32)",
                          kLongest});
    if (isRunTime(key))
      checks.push_back({value, seq, key, seq,
                        name + "value has {row} " + (tnd ? "rows" : "keys") +
                            ", key has a different number"});
    // The optional inputs are [..., S1, S2] (pse's S1 may be 1).
    SmallVector<std::tuple<StringRef, Value, int64_t, bool>> lengths(
        sameLength);
    for (auto [what, operand] :
         {std::pair<StringRef, Value>{"atten_mask", attenMask},
          {"pse", pse},
          {"drop_mask", dropMask}}) {
      if (!operand)
        continue;
      auto type = cast<MemRefType>(operand.getType());
      int64_t rank = type.getRank();
      if (type.isDynamicDim(rank - 2))
        lengths.push_back({what, operand, rank - 2, true});
      if (type.isDynamicDim(rank - 1))
        lengths.push_back({what, operand, rank - 1, false});
    }
    for (auto [what, operand, dim, followsQuery] : lengths)
      if (isRunTime(followsQuery ? query : key))
        checks.push_back(
            {operand, dim, followsQuery ? query : key, seq,
             name + what.str() + " has length {row} in dimension " +
                 std::to_string(dim) + ", " + (followsQuery ? "query" : "key") +
                 " a different one"});
    if (!checks.empty())
      k.checkSizes(checks);
    if (seqEndsQ) {
      checkSequenceEnds("seq_qlen", seqEndsQ, query, "query");
      checkSequenceEnds("seq_kvlen", seqEndsKV, key, "key");
    }
  }

  /// Per template selectAttentionTemplate's rule may choose whatever S1
  /// and S2, a shape that leads to it: long keys with enough query blocks
  /// to fill the cores (s1s2, 128 rows), long keys with few (s1s2, 64
  /// rows), keys within a vector block (s1), a few keys and rows (b).
  /// Each kernel's on-chip buffers hold its template's longest blocks.
  std::array<attention::AttentionShape, 4> getTemplateShapes() const {
    using namespace attention;
    AttentionLimits limits = getAttentionLimits(device);
    int64_t longKeys = limits.s2Inner + 1;
    return {getShapeWith(kS1Inner * (limits.vectorCores + 1), longKeys),
            getShapeWith(kS1Inner, longKeys),
            getShapeWith(std::max(kS1InnerLarge, limits.roundElements),
                         limits.s2Inner),
            getShapeWith(kS1InnerLarge,
                         std::min(kTemplateCubeBlock, limits.s2Inner))};
  }

  /// Calls buildFor(shape, reuse) under the test selectAttentionTemplate's
  /// rule makes on S1 and S2 read at run time, for each of
  /// getTemplateShapes(): a kernel per template (two for S1S2, buildS1S2),
  /// one taken. Every kernel gives the right values at every length; the
  /// rule picks the one CANN would.
  void selectTemplateAtRunTime(
      function_ref<void(const attention::AttentionShape &, bool)> buildFor) {
    using namespace attention;
    AttentionLimits limits = getAttentionLimits(device);
    std::array<AttentionShape, 4> shapes = getTemplateShapes();
    Value s1 = getSeqQ(), s2 = getSeqKV();
    auto atMost = [&](Value v, int64_t limit) {
      return k.lt(v, k.index(limit + 1));
    };
    int64_t heads = g.batch * g.headsKV * g.getGroup();
    k.ifThenElse(
        atMost(s2, limits.s2Inner),
        [&] {
          Value area = k.mul(
              k.mul(ceilDiv(s1, kFractalAlign), ceilDiv(s2, kFractalAlign)),
              k.index(kFractalAlign * kFractalAlign));
          k.ifThenElse(
              k.andI(atMost(s2, kTemplateCubeBlock),
                     atMost(area, limits.roundElements / 2)),
              [&] { buildFor(shapes[3], false); },
              [&] { buildFor(shapes[2], false); });
        },
        [&] {
          Value outer = k.mul(k.index(heads), ceilDiv(s1, kS1Inner));
          k.ifThenElse(
              atMost(outer, limits.vectorCores),
              [&] { buildFor(shapes[1], false); },
              [&] { buildS1S2(shapes[0], s1, buildFor); });
        });
  }

  /// The S1S2 template's kernel, and where mayReuseKeysAndValuesHere
  /// allows, a second that reuses K and V, taken when the query length
  /// leaves enough items for it.
  void buildS1S2(
      const attention::AttentionShape &shape, Value s1,
      function_ref<void(const attention::AttentionShape &, bool)> buildFor) {
    if (failed(chooseSizes(shape)) || !mayReuseKeysAndValuesHere())
      return buildFor(shape, false);
    k.ifThenElse(
        hasItemsToReuseFor(s1, s1Inner * vectorsPerGroup),
        [&] { buildFor(shape, true); }, [&] { buildFor(shape, false); });
  }

  /// ceil(v / d) of a non-negative v.
  Value ceilDiv(Value v, int64_t d) {
    return k.div(k.add(v, k.index(d - 1)), k.index(d));
  }

  /// `v` clamped to i32, as the band's diagonals are stored.
  Value clampToI32(Value v) {
    return k.max(k.index(std::numeric_limits<int32_t>::min()),
                 k.min(v, k.index(std::numeric_limits<int32_t>::max())));
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
};

/// The kernel model of an attention op OpT lowered by `Lowering`: the
/// geometry, the sizes (so that a shape the device cannot hold is an error
/// even when there is no work), then the kernels unless
/// `Lowering::hasNoWork(geometry)`.
template <typename Lowering, typename OpT>
struct AttentionKernelModel : DeviceKernelOpInterface::ExternalModel<
                                  AttentionKernelModel<Lowering, OpT>, OpT> {
  LogicalResult buildDeviceKernels(Operation *op, OpBuilder &b,
                                   const KernelOperands &io,
                                   const DeviceModel &device,
                                   const KernelOptions &) const {
    FailureOr<graph::AttentionGeometry> g = graph::getAttentionGeometry(op);
    if (failed(g))
      return failure();
    KernelBuilder k(b, op->getLoc());
    Lowering lowering(k, cast<OpT>(op), *g, io, device);
    if (!g->hasStaticLengths()) {
      if (failed(lowering.checkRunTimeLengthsSupported()))
        return failure();
      return lowering.buildForRunTimeLengths();
    }
    if (failed(lowering.chooseSizes()))
      return failure();
    if (!Lowering::hasNoWork(*g))
      lowering.build();
    return success();
  }

  /// S1 and S2 may be read at run time (buildForRunTimeLengths).
  bool takesRunTimeSizes(Operation *) const { return true; }
};

/// The results' sizes in terms of the operands' (tensor.dim, folded when
/// static), so that lengths read at run time reach them: the forward's
/// softmax_max and softmax_sum are [B, N1, S1, 8] and attention_out is
/// shaped as the query; the backward's gradients as their inputs.
template <typename OpT>
struct AttentionResultShapes : ReifyRankedShapedTypeOpInterface::ExternalModel<
                                   AttentionResultShapes<OpT>, OpT> {
  LogicalResult reifyResultShapes(Operation *op, OpBuilder &b,
                                  ReifiedRankedShapedTypeDims &shapes) const {
    auto attention = cast<OpT>(op);
    Location loc = op->getLoc();
    auto sizesOf = [&](Value v) { return tensor::getMixedSizes(b, loc, v); };
    if constexpr (std::is_same_v<OpT, graph::FlashAttentionGradOp>) {
      shapes.push_back(sizesOf(attention.getQuery()));
      shapes.push_back(sizesOf(attention.getKey()));
      shapes.push_back(sizesOf(attention.getValue()));
      if (Value pse = attention.getPse())
        shapes.push_back(sizesOf(pse));
      return success();
    }
    Value query = attention.getQuery();
    SmallVector<OpFoldResult> statistics;
    for (auto [d, size] : llvm::enumerate(
             cast<RankedTensorType>(op->getResult(0).getType()).getShape()))
      statistics.push_back(
          ShapedType::isDynamic(size)
              ? tensor::getMixedSize(
                    b, loc, query,
                    graph::getSequenceDim(attention.getInputLayout())
                        .value_or(0))
              : b.getIndexAttr(size));
    shapes.push_back(statistics);
    shapes.push_back(statistics);
    shapes.push_back(sizesOf(query));
    return success();
  }
};

/// Attaches the kernel and result-shape models of OpT, lowered by Lowering.
template <typename Lowering, typename OpT>
void attachAttentionModels(MLIRContext *ctx) {
  OpT::template attachInterface<AttentionKernelModel<Lowering, OpT>,
                                AttentionResultShapes<OpT>>(*ctx);
}

} // namespace npu::attention

#endif // NPU_LIB_CONVERSION_GRAPHTODEVICE_FLASHATTENTIONLOWERING_H
