//===- GetIndicePairsKernels.cpp - get_indice_pairs on the device ---------===//
//
// Two strategies (docs/sparse-conv.md), all sizes from the shapes and the
// device model. Rows are taken in tiles of T (a power of two sized from
// vector memory, at most the input needs); the input is padded to Lp =
// roundUp(L + 1, T) rows whose keys are the sentinel (the key type's maximum),
// so every tile is whole and every sorted array ends in a sentinel.
//
// First, in both: each input site's key over the input shape (payload: its
// row), with bad batch indices and coordinates reported; the Lp keys are
// sorted (DeviceSort.cpp) and a repeated site reported.
// Default (and transposed) convolution, sort strategy:
//  1. expand: per row tile and offset k, the output site each input site
//     reaches, as a key b*V + (z*H + y)*W + x over the output shape (the
//     sentinel when it reaches none), with payload k*Lp + i, and the count
//     of valid candidates of (k, tile);
//  2. sort the K*Lp keys;
//  3. count the first element of each run of equal keys per sorted tile,
//     scan the counts (num_act_out is the total), then number the runs:
//     each run's key is decoded into its out_indices row, and its row
//     reaches the candidates by their payloads.
// Grid strategy (one i32 cell per output site, filled with -1): every
// candidate marks its site's cell; the marked cells are counted per chunk,
// scanned and numbered in place, in ascending order with no sort at all;
// a lookup gathers each candidate's row from its cell.
// Submanifold: each candidate finds its site by a vectorised lower_bound
// in the sorted input keys, log2 Lp rounds of dma_gather (sort), or by one
// gather from the grid, where every input row was written into its cell.
// Both then write the pairs: per offset a scan over the tile counts gives
// each tile's first slot and an on-chip prefix sum the slot of each pair,
// so pairs stay in ascending input order; unused slots hold -1.
// Work: sort O(K L log(K L)) (default) or O(K L log L) (subm); grid
// O(K L + batch V + L log L). Global workspace O(K L), plus the grid's
// 4 batch V bytes; on chip O(T).
//
//===----------------------------------------------------------------------===//

#include "DeviceSort.h"
#include "OperatorKernels.h"
#include "npu/Conversion/DeviceKernelOpInterface.h"
#include "npu/Device/DeviceModel.h"
#include "npu/Dialect/NPU/NPUOps.h"

#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace npu;
using namespace npu::graph;
using dev::BinaryKind;
using dev::ComparePredicate;

namespace {

/// On-chip bytes per row of a tile the largest kernel (the lookup) needs
/// besides its reach tables (4 bytes per kernel offset per dimension) and
/// its six key-type buffers: columns 16, seven i32 masks and rows 28,
/// three search buffers 12, and 4 to spare.
constexpr int64_t kFixedBytesPerTileRow = 60;
/// A reached coordinate that is none: negative, and the minimum of three
/// of them stays far from overflow.
constexpr int64_t kNoReach = -(int64_t(1) << 30);
/// Smallest tile worth a vector instruction.
constexpr int64_t kMinTile = 16;
/// `auto` takes the grid strategy when the grid needs at most this share
/// of global memory: the rest is the network's.
constexpr int64_t kGridBudgetDivisor = 16;

/// Bytes of the grid strategy's dense grid (one i32 per output site), or
/// nullopt if that overflows.
std::optional<int64_t> getGridBytes(const SparseConvGeometry &g) {
  std::optional<int64_t> cells = llvm::checkedMul(g.batch, g.getOutVolume());
  if (!cells)
    return std::nullopt;
  return llvm::checkedMul<int64_t>(*cells, 4);
}

/// "grid" or "sort": the requested strategy, or for "auto" the grid when
/// it fits the device's budget and has no more cells than there are
/// candidates (K L): filling and scanning it then costs about one pass
/// over the candidates, where sorting or searching costs log passes. A
/// sparse input in a large shape (the subm shape of mlu-ops'
/// get_indice_pairs design: 340 million cells for 6.7 million candidates)
/// takes the sort.
StringRef selectPairsStrategy(const SparseConvGeometry &g, int64_t rows,
                              std::optional<int64_t> bytes,
                              const DeviceModel &device, StringRef requested) {
  if (requested != "auto")
    return requested;
  bool fits = bytes && *bytes <= device.globalBytes / kGridBudgetDivisor;
  bool dense = fits && *bytes / 4 <= rows * g.getKernelVolume();
  return dense ? "grid" : "sort";
}

/// The largest tile (a power of two) whose buffers fit vector memory.
int64_t getLargestTile(const SparseConvGeometry &g, const DeviceModel &device) {
  const auto &kernel = g.kernel;
  int64_t rowBytes = kFixedBytesPerTileRow +
                     4 * (kernel[0] + kernel[1] + kernel[2]) +
                     6 * (g.needsWideKeys() ? 8 : 4);
  return int64_t(1) << llvm::Log2_64(
             std::max<int64_t>(1, device.vectorBytes / rowBytes));
}

/// The tile for L sites: the smallest power of two above L (at least
/// kMinTile), at most the largest that fits. Padding a small input to a
/// big tile would sort mostly sentinels.
int64_t selectPairsTile(int64_t sites, int64_t largest) {
  return std::min<int64_t>(
      largest, std::max<int64_t>(kMinTile, llvm::PowerOf2Ceil(sites + 1)));
}

/// Each tile a module whose L is read at run time holds kernels for,
/// ascending: the largest that fits, divided by 8 while at least kMinTile
/// (buildTileChain says which the kernel takes: a tile at most 8 times
/// selectPairsTile's for the sort, at most 8 times smaller for the grid).
SmallVector<int64_t> getRunTimeTiles(int64_t largest) {
  SmallVector<int64_t> tiles;
  for (int64_t tile = largest; tile >= kMinTile; tile /= 8)
    tiles.insert(tiles.begin(), tile);
  if (tiles.empty())
    tiles.push_back(largest);
  return tiles;
}

/// The shapes and buffers of one get_indice_pairs lowering.
struct PairsLowering {
  KernelBuilder &k;
  SparseConvGeometry geometry;
  /// L (static, or read at run time), Lp and Lp / T.
  Extent rows, paddedRows, rowTiles;
  int64_t offsets; // K
  int64_t tile, tasks;
  /// The grid strategy: output rows found in a dense grid of the output
  /// sites instead of by search in sorted keys.
  bool useGrid;
  Type keyType, i32;
  int64_t sentinel;
  Value indices, outIndices, pairs, pairCounts, rowCount;
  /// Per candidate (k * Lp + i): its output row or -1.
  Value candidateRows;
  /// Per (k, row tile): the number of pairs, then the first slot.
  Value tileCounts, tileBases;
  /// Grid strategy: per output site (its key), its row or -1; default
  /// mode: per candidate (k * Lp + i), its site's key or -1.
  Value grid, candidateKeys;

  /// The lowering with tiles of `tile` rows (for a static L,
  /// selectPairsTile's).
  PairsLowering(KernelBuilder &k, GetIndicePairsOp op, const KernelOperands &io,
                const DeviceModel &device, StringRef strategy, int64_t tile)
      : k(k), geometry(op.getGeometry()), tile(tile),
        useGrid(strategy == "grid") {
    indices = GetIndicePairsOp::Adaptor(io.operands, op).getIndices();
    outIndices = io.results[0];
    pairs = io.results[1];
    pairCounts = io.results[2];
    rowCount = io.rowCounts[0];
    int64_t sites = cast<MemRefType>(indices.getType()).getDimSize(0);
    offsets = geometry.getKernelVolume();
    bool wide = geometry.needsWideKeys();
    if (ShapedType::isDynamic(sites)) {
      // Lp = roundUp(L + 1, T) = (L + T) / T * T.
      rows = {0, k.dim(indices, 0)};
      rowTiles = {0, k.div(k.add(rows.value, k.index(tile)), k.index(tile))};
      paddedRows = rowTiles.times(k, tile);
    } else {
      rows = Extent::get(sites);
      paddedRows = Extent::get(llvm::alignTo(sites + 1, tile));
      rowTiles = Extent::get(paddedRows.size / tile);
    }
    tasks = device.getNumCores();
    MLIRContext *ctx = op.getContext();
    i32 = IntegerType::get(ctx, 32);
    keyType = IntegerType::get(ctx, wide ? 64 : 32);
    sentinel = wide ? std::numeric_limits<int64_t>::max()
                    : std::numeric_limits<int32_t>::max();
  }

  Value globalBuffer(Extent size, Type element) {
    auto type =
        MemRefType::get({size.isStatic() ? size.size : ShapedType::kDynamic},
                        element, MemRefLayoutAttrInterface(),
                        dev::MemorySpaceAttr::get(element.getContext(),
                                                  dev::MemorySpace::global));
    SmallVector<Value> dynamic;
    if (!size.isStatic())
      dynamic.push_back(size.value);
    Value buffer =
        k.builder().create<memref::AllocOp>(k.location(), type, dynamic);
    workspace.push_back(buffer);
    return buffer;
  }
  Value globalBuffer(int64_t size, Type element) {
    return globalBuffer(Extent::get(size), element);
  }
  Value span(Value memref, Value offset, int64_t size) {
    return k.window(memref, {offset}, {k.builder().getIndexAttr(size)});
  }
  Value span(Value memref, Value offset, Value size) {
    return k.window(memref, {offset}, {size});
  }
  Value span(Value memref, Value offset, Extent size) {
    return k.window(memref, {offset}, {size.getFoldResult(k)});
  }
  int64_t tasksFor(int64_t items) const {
    return std::max<int64_t>(1, std::min(tasks, items));
  }
  int64_t tasksFor(Extent items) const { return items.getTasks(tasks); }
  void record(dev::LaunchOp launch, StringRef step) {
    KernelBuilder::recordStep(launch, useGrid ? "grid" : "sort", step, "tile",
                              tile);
  }

  //===--- Candidates -----------------------------------------------------===//

  /// Per-task buffers of the candidate computation.
  struct SiteBuffers {
    Value columns;         // [4, T] i32: b, z, y, x of the tile's rows
    Value valid;           // [T] i32: the row is a site inside the shape
    Value reach[3];        // [k_d, T] i32: computeReaches
    Value mask, scratch;   // [T] i32
    Value temp, noReach;   // [T] i32; kNoReach
    Value rowIds, none;    // [T] i32: the rows' numbers; -1
    Value key, wide, fill; // [T] key type: key, widened operand, sentinel
    Value batchBase;       // [T] key type: b * D of the output
  };

  SiteBuffers allocSiteBuffers() {
    SiteBuffers s;
    s.columns = k.alloc({4, tile}, i32);
    s.valid = k.alloc({tile}, i32);
    for (unsigned d = 0; d < 3; ++d)
      s.reach[d] = k.alloc({geometry.kernel[d], tile}, i32);
    s.temp = k.alloc({tile}, i32);
    s.noReach = k.alloc({tile}, i32);
    k.vfill(s.noReach, kNoReach);
    s.batchBase = k.alloc({tile}, keyType);
    s.mask = k.alloc({tile}, i32);
    s.scratch = k.alloc({tile}, i32);
    s.rowIds = k.alloc({tile}, i32);
    s.none = k.alloc({tile}, i32);
    k.vfill(s.none, -1);
    s.key = k.alloc({tile}, keyType);
    s.wide = k.alloc({tile}, keyType);
    s.fill = k.alloc({tile}, keyType);
    k.vfill(s.fill, sentinel);
    return s;
  }

  Value column(const SiteBuffers &s, int64_t c) {
    return k.window(
        s.columns, {k.index(c), k.index(0)},
        {k.builder().getIndexAttr(1), k.builder().getIndexAttr(tile)}, {0});
  }

  /// mask &= (in pred scalar).
  void andCompare(Value mask, Value scratch, ComparePredicate pred, Value in,
                  Value scalar) {
    k.vcmpScalar(pred, in, scalar, scratch);
    k.vbinary(BinaryKind::And, mask, scratch, mask);
  }

  /// Loads the rows [i0, i0 + T) of `indices` (rows past L read as batch
  /// -1) and marks the valid ones: batch in [0, batch_size), coordinates
  /// inside the input shape.
  void loadSites(const SiteBuffers &s, Value i0) {
    k.vfill(s.columns, -1);
    Value count =
        k.max(k.index(0), k.min(k.index(tile), k.sub(rows.get(k), i0)));
    OpBuilder &b = k.builder();
    for (int64_t c = 0; c < 4; ++c) {
      Value from =
          k.window(indices, {i0, k.index(c)}, {count, b.getIndexAttr(1)}, {1});
      Value to = k.window(s.columns, {k.index(c), k.index(0)},
                          {b.getIndexAttr(1), count}, {0});
      k.dma(from, to);
    }
    k.iota(s.rowIds, i0);
    markBatchInRange(s, s.valid);
    markCoordinatesInRange(s, s.mask);
    k.vbinary(BinaryKind::And, s.valid, s.mask, s.valid);
  }

  /// ok = 1 where the batch index is in [0, batch_size).
  void markBatchInRange(const SiteBuffers &s, Value ok) {
    k.vcmpScalar(ComparePredicate::ge, column(s, 0), k.index(0), ok);
    andCompare(ok, s.scratch, ComparePredicate::lt, column(s, 0),
               k.index(geometry.batch));
  }

  /// ok = 1 where every coordinate is inside the input shape.
  void markCoordinatesInRange(const SiteBuffers &s, Value ok) {
    k.vcmpScalar(ComparePredicate::ge, column(s, 1), k.index(0), ok);
    for (unsigned d = 0; d < 3; ++d) {
      if (d > 0)
        andCompare(ok, s.scratch, ComparePredicate::ge, column(s, d + 1),
                   k.index(0));
      andCompare(ok, s.scratch, ComparePredicate::lt, column(s, d + 1),
                 k.index(geometry.in[d]));
    }
  }

  /// Reports the input rows (not the padding) where `ok` is 0.
  void reportBroken(const SiteBuffers &s, Value ok, const Twine &rule) {
    k.vcmpScalar(ComparePredicate::eq, ok, k.index(0), s.mask);
    andCompare(s.mask, s.scratch, ComparePredicate::lt, s.rowIds, rows.get(k));
    k.vselect(s.mask, s.rowIds, s.none, s.mask);
    k.reportRows(s.mask,
                 ("'npu.get_indice_pairs' indices row {row} " + rule).str());
  }

  /// Fails the kernel on a loaded row outside the shape, in the order of
  /// docs/sparse-conv.md: batch indices first, then coordinates.
  void checkSites(const SiteBuffers &s) {
    const SparseConvGeometry &g = geometry;
    markBatchInRange(s, s.valid);
    reportBroken(s, s.valid,
                 "has a batch index outside [0, " + Twine(g.batch) + ")");
    markCoordinatesInRange(s, s.valid);
    reportBroken(s, s.valid,
                 "has a coordinate outside the spatial shape " +
                     Twine(g.in[0]) + "x" + Twine(g.in[1]) + "x" +
                     Twine(g.in[2]));
  }

  /// s.reach[d][r] = the output coordinate each loaded row's coordinate
  /// d reaches through kernel offset r along d, or kNoReach; s.batchBase =
  /// b * D. Once per tile, so each of the K offsets costs a few vector
  /// instructions (computeCandidates) instead of a dozen per dimension.
  void computeReaches(const SiteBuffers &s) {
    const SparseConvGeometry &g = geometry;
    for (unsigned d = 0; d < 3; ++d)
      for (int64_t r = 0; r < g.kernel[d]; ++r)
        computeReach(s, d, r, reachRow(s, d, k.index(r)));
    widenInto(column(s, 0), s.batchBase);
    k.vbinaryScalar(BinaryKind::mul, s.batchBase, k.index(g.out[0]),
                    s.batchBase);
  }

  void computeReach(const SiteBuffers &s, unsigned d, int64_t r, Value o) {
    const SparseConvGeometry &g = geometry;
    Value x = column(s, d + 1);
    int64_t shift = r * g.dilation[d], stride = g.stride[d];
    if (g.transpose) {
      // o = x * s - p + r * d.
      k.vbinaryScalar(BinaryKind::mul, x, k.index(stride), o);
      k.vbinaryScalar(BinaryKind::add, o, k.index(shift - g.padding[d]), o);
      k.vcmpScalar(ComparePredicate::ge, o, k.index(0), s.mask);
    } else if (stride == 1) {
      k.vbinaryScalar(BinaryKind::add, x, k.index(g.padding[d] - shift), o);
      k.vcmpScalar(ComparePredicate::ge, o, k.index(0), s.mask);
    } else {
      // t = x + p - r * d; o = t / s when s divides t (truncating: a
      // negative t that s divides gives a negative o).
      k.vbinaryScalar(BinaryKind::add, x, k.index(g.padding[d] - shift),
                      s.temp);
      k.vbinaryScalar(BinaryKind::div, s.temp, k.index(stride), o);
      k.vbinaryScalar(BinaryKind::mul, o, k.index(stride), s.scratch);
      k.vcmp(ComparePredicate::eq, s.scratch, s.temp, s.mask);
      andCompare(s.mask, s.scratch, ComparePredicate::ge, o, k.index(0));
    }
    andCompare(s.mask, s.scratch, ComparePredicate::lt, o, k.index(g.out[d]));
    k.vselect(s.mask, o, s.noReach, o);
  }

  /// Row r (an index) of s.reach[d].
  Value reachRow(const SiteBuffers &s, unsigned d, Value r) {
    return k.window(
        s.reach[d], {r, k.index(0)},
        {k.builder().getIndexAttr(1), k.builder().getIndexAttr(tile)}, {0});
  }

  /// `to` (key type) = `from` (i32), widened when the keys are i64.
  void widenInto(Value from, Value to) {
    if (keyType == i32)
      k.vbinaryScalar(BinaryKind::add, from, k.index(0), to);
    else
      k.vcast(from, to);
  }

  /// key = key * size + coordinate, in the key type.
  void appendCoordinate(const SiteBuffers &s, Value coordinate,
                        std::optional<int64_t> size) {
    if (size)
      k.vbinaryScalar(BinaryKind::mul, s.key, k.index(*size), s.key);
    Value operand = coordinate;
    if (keyType != i32) {
      k.vcast(coordinate, s.wide);
      operand = s.wide;
    }
    k.vbinary(BinaryKind::add, s.key, operand, s.key);
  }

  /// The output sites the loaded rows reach through offset (rz, ry, rx)
  /// (index values), from the reach tables: s.key holds their keys over
  /// the output shape (the sentinel where none), s.mask 1 where one is
  /// reached.
  void computeCandidates(const SiteBuffers &s, ArrayRef<Value> offset) {
    const auto &out = geometry.out;
    Value oz = reachRow(s, 0, offset[0]), oy = reachRow(s, 1, offset[1]),
          ox = reachRow(s, 2, offset[2]);
    k.vbinary(BinaryKind::min, oz, oy, s.scratch);
    k.vbinary(BinaryKind::min, s.scratch, ox, s.scratch);
    k.vcmpScalar(ComparePredicate::ge, s.scratch, k.index(0), s.mask);
    k.vbinary(BinaryKind::And, s.mask, s.valid, s.mask);
    // key = ((b * D + z) * H + y) * W + x.
    k.vbinaryScalar(BinaryKind::add, s.batchBase, k.index(0), s.key);
    appendCoordinate(s, oz, std::nullopt);
    appendCoordinate(s, oy, out[1]);
    appendCoordinate(s, ox, out[2]);
    k.vselect(s.mask, s.key, s.fill, s.key);
  }

  /// The keys of the loaded sites over the input shape in s.key (the
  /// sentinel for rows that are not valid sites).
  void computeSiteKeys(const SiteBuffers &s) {
    widenInto(column(s, 0), s.key);
    for (unsigned d = 0; d < 3; ++d)
      appendCoordinate(s, column(s, d + 1), geometry.in[d]);
    k.vselect(s.valid, s.key, s.fill, s.key);
  }

  /// (rz, ry, rx) of offset `kk` (an index).
  SmallVector<Value> offsetOf(Value kk) {
    const auto &kernel = geometry.kernel;
    return {k.div(kk, k.index(kernel[1] * kernel[2])),
            k.rem(k.div(kk, k.index(kernel[2])), k.index(kernel[1])),
            k.rem(kk, k.index(kernel[2]))};
  }

  /// counts[kk * rowTiles + t] = sum(mask).
  void storeTileCount(Value mask, Value sum, Value kk, Value t) {
    k.vreduce(dev::ReduceKind::sum, mask, sum);
    k.dma(sum, span(tileCounts, k.add(k.mul(kk, rowTiles.get(k)), t), 1));
  }

  /// In a task: for each of its row tiles t and each offset kk, the
  /// candidates into `s` (when `compute`), then body(t, kk, slot), slot
  /// = kk * Lp + t * T being their place in per-candidate arrays.
  void
  forEachCandidateTile(Value tid, const SiteBuffers &s, bool compute,
                       function_ref<void(Value t, Value kk, Value slot)> body) {
    k.forEachItem(tid, tasksFor(rowTiles), rowTiles.get(k), [&](Value t) {
      Value i0 = k.mul(t, k.index(tile));
      if (compute) {
        loadSites(s, i0);
        computeReaches(s);
      }
      k.forLoop(k.index(0), k.index(offsets), k.index(1), [&](Value kk) {
        if (compute)
          computeCandidates(s, offsetOf(kk));
        body(t, kk, k.add(k.mul(kk, paddedRows.get(k)), i0));
      });
    });
  }

  //===--- Default convolution --------------------------------------------===//

  /// Step 1: candidate keys and payloads, and the per-(k, tile) counts.
  void buildExpand(KeyValueArrays candidates) {
    auto launch = k.launch(tasksFor(rowTiles), [&](Value tid) {
      SiteBuffers s = allocSiteBuffers();
      Value payload = k.alloc({tile}, i32), sum = k.alloc({1}, i32);
      forEachCandidateTile(
          tid, s, /*compute=*/true, [&](Value t, Value kk, Value slot) {
            k.dma(s.key, span(candidates.keys, slot, tile));
            k.iota(payload, slot);
            k.dma(payload, span(candidates.values, slot, tile));
            storeTileCount(s.mask, sum, kk, t);
          });
    });
    record(launch, "expand");
  }

  /// Loads sorted tile t's keys and marks in `heads` the first key of each
  /// run (a valid key differing from the one before), in `valid` the keys
  /// that are not the sentinel.
  void markRunHeads(Value keys, Value t, Value key, Value prev, Value heads,
                    Value valid) {
    Value g = k.mul(t, k.index(tile));
    k.dma(span(keys, g, tile), key);
    k.vfill(prev, -1);
    k.ifThenElse(
        k.lt(k.index(0), t),
        [&] { k.dma(span(keys, k.sub(g, k.index(1)), tile), prev); },
        [&] {
          k.dma(span(keys, g, tile - 1), span(prev, k.index(1), tile - 1));
        });
    k.vcmp(ComparePredicate::ne, key, prev, heads);
    k.vcmpScalar(ComparePredicate::ne, key, k.constant(keyType, sentinel),
                 valid);
    k.vbinary(BinaryKind::And, heads, valid, heads);
  }

  /// Step 3: number the runs of the sorted candidates.
  void buildNumbering(KeyValueArrays sorted) {
    Extent sortedTiles = rowTiles.times(k, offsets);
    Value headCounts = globalBuffer(sortedTiles, i32);
    Value headBases = globalBuffer(sortedTiles, i32);
    buildCountAndScan(sortedTiles, headCounts, headBases, "runs", [&] {
      Value key = k.alloc({tile}, keyType), prev = k.alloc({tile}, keyType);
      Value heads = k.alloc({tile}, i32), scratch = k.alloc({tile}, i32);
      return MarkLoader([=](Value t) {
        markRunHeads(sorted.keys, t, key, prev, heads, scratch);
        return heads;
      });
    });
    auto number = k.launch(tasksFor(sortedTiles), [&](Value tid) {
      Value key = k.alloc({tile}, keyType), prev = k.alloc({tile}, keyType);
      Value heads = k.alloc({tile}, i32), scratch = k.alloc({tile}, i32);
      Value run = k.alloc({tile}, i32), target = k.alloc({tile}, i32);
      Value payload = k.alloc({tile}, i32), none = k.alloc({tile}, i32);
      Value part = k.alloc({tile}, keyType), rest = k.alloc({tile}, keyType);
      Value site = k.alloc({4, tile}, i32), siteRows = k.alloc({tile, 4}, i32);
      k.vfill(none, -1);
      k.forEachItem(tid, tasksFor(sortedTiles), sortedTiles.get(k),
                    [&](Value t) {
                      markRunHeads(sorted.keys, t, key, prev, heads, scratch);
                      Value g = k.mul(t, k.index(tile));
                      k.dma(span(sorted.values, g, tile), payload);
                      numberMarks(heads, headBases, t, run);
                      // Each candidate's row straight to its slot, by its
                      // payload.
                      k.vselect(scratch, run, none, target);
                      k.dmaScatter(target, candidateRows, payload);
                      k.vselect(heads, run, none, target);
                      writeOutIndices(key, target, part, rest, site, siteRows);
                    });
    });
    record(number, "number_runs");
  }

  /// Inside a task: the function that loads an item's marks (1 or 0 per
  /// element) into a buffer it returns.
  using MarkLoader = std::function<Value(Value item)>;

  /// count_<what>: the marks of each of `items` items into `counts`
  /// (`makeLoader` runs once per task, allocating what the loader needs);
  /// scan_<what>: one task scans them into `bases`, and the total, the
  /// number of output rows, goes to the row count.
  void buildCountAndScan(Extent items, Value counts, Value bases,
                         StringRef what,
                         function_ref<MarkLoader()> makeLoader) {
    auto count = k.launch(tasksFor(items), [&](Value tid) {
      MarkLoader load = makeLoader();
      Value sum = k.alloc({1}, i32);
      k.forEachItem(tid, tasksFor(items), items.get(k), [&](Value item) {
        k.vreduce(dev::ReduceKind::sum, load(item), sum);
        k.dma(sum, span(counts, item, 1));
      });
    });
    record(count, ("count_" + what).str());
    auto scan = k.launch(1, [&](Value) {
      Value total = buildExclusiveScan(k, counts, bases, items, tile);
      k.store(k.convert(total, k.builder().getI64Type()), rowCount,
              {k.index(0)});
    });
    record(scan, ("scan_" + what).str());
  }

  /// rows = the output row of each element of item `item` if it is marked:
  /// (marks up to and including it) - 1 + bases[item].
  void numberMarks(Value marks, Value bases, Value item, Value rows) {
    k.vcumsum(marks, rows);
    Value base = k.toIndex(k.load(bases, item));
    k.vbinaryScalar(BinaryKind::add, rows, k.sub(base, k.index(1)), rows);
  }

  /// out_indices[rows[i]] = the site of key[i] (rows[i] -1: none).
  void writeOutIndices(Value key, Value rows, Value part, Value rest,
                       Value site, Value siteRows) {
    decodeSites(key, part, rest, site);
    k.builder().create<dev::VTransposeOp>(k.location(), site, siteRows);
    k.dmaScatter(siteRows, outIndices, rows);
  }

  /// site[c] = coordinate c (b, z, y, x) of each key.
  void decodeSites(Value key, Value part, Value rest, Value site) {
    const auto &out = geometry.out;
    int64_t strides[4] = {out[0] * out[1] * out[2], out[1] * out[2], out[2], 1};
    k.vbinaryScalar(BinaryKind::add, key, k.index(0), rest);
    for (int64_t c = 0; c < 4; ++c) {
      Value row = k.window(
          site, {k.index(c), k.index(0)},
          {k.builder().getIndexAttr(1), k.builder().getIndexAttr(tile)}, {0});
      k.vbinaryScalar(BinaryKind::div, rest, k.index(strides[c]), part);
      if (keyType == i32)
        k.vbinaryScalar(BinaryKind::add, part, k.index(0), row);
      else
        k.vcast(part, row);
      k.vbinaryScalar(BinaryKind::mul, part, k.index(strides[c]), part);
      k.vbinary(BinaryKind::sub, rest, part, rest);
    }
  }

  //===--- Input sites ----------------------------------------------------===//

  /// The keys of the input sites over the input shape, payload the row;
  /// fails the kernel on a row outside the shape.
  void buildSiteKeys(KeyValueArrays sites) {
    auto launch = k.launch(tasksFor(rowTiles), [&](Value tid) {
      SiteBuffers s = allocSiteBuffers();
      Value payload = k.alloc({tile}, i32);
      k.forEachItem(tid, tasksFor(rowTiles), rowTiles.get(k), [&](Value t) {
        Value i0 = k.mul(t, k.index(tile));
        loadSites(s, i0);
        checkSites(s);
        computeSiteKeys(s);
        k.dma(s.key, span(sites.keys, i0, tile));
        k.iota(payload, i0);
        k.dma(payload, span(sites.values, i0, tile));
      });
    });
    record(launch, "site_keys");
  }

  /// Fails the kernel on a row whose site an earlier row has: in the
  /// stably sorted site keys, every element of a run but the first.
  void buildRepeatCheck(KeyValueArrays sorted) {
    auto launch = k.launch(tasksFor(rowTiles), [&](Value tid) {
      Value key = k.alloc({tile}, keyType), prev = k.alloc({tile}, keyType);
      Value heads = k.alloc({tile}, i32), sites = k.alloc({tile}, i32);
      Value row = k.alloc({tile}, i32), none = k.alloc({tile}, i32);
      k.vfill(none, -1);
      k.forEachItem(tid, tasksFor(rowTiles), rowTiles.get(k), [&](Value t) {
        markRunHeads(sorted.keys, t, key, prev, heads, sites);
        k.vbinary(BinaryKind::sub, sites, heads, sites);
        k.dma(span(sorted.values, k.mul(t, k.index(tile)), tile), row);
        k.vselect(sites, row, none, row);
        k.reportRows(row, "'npu.get_indice_pairs' indices row {row} repeats "
                          "the site of an earlier row");
      });
    });
    record(launch, "check_repeats");
  }

  //===--- Grid -----------------------------------------------------------===//

  /// Every cell of the grid to -1, in chunks of T.
  void buildGridFill() {
    int64_t cells = geometry.batch * geometry.getOutVolume();
    int64_t chunks = llvm::divideCeil(cells, tile);
    auto launch = k.launch(tasksFor(chunks), [&](Value tid) {
      Value none = k.alloc({tile}, i32);
      k.vfill(none, -1);
      k.forEachItem(tid, tasksFor(chunks), chunks, [&](Value c) {
        Value j = k.mul(c, k.index(tile));
        Value size = k.min(k.index(tile), k.sub(k.index(cells), j));
        k.dma(span(none, k.index(0), size), span(grid, j, size));
      });
    });
    record(launch, "fill_grid");
  }

  /// Default mode: 0 into the cell of every output site a candidate
  /// reaches. Tasks may write a cell in any order: they write the same 0.
  void buildGridMarks() {
    auto launch = k.launch(tasksFor(rowTiles), [&](Value tid) {
      SiteBuffers s = allocSiteBuffers();
      Value noKey = k.alloc({tile}, keyType), zeros = k.alloc({tile}, i32);
      k.vfill(noKey, -1);
      k.vfill(zeros, 0);
      forEachCandidateTile(tid, s, /*compute=*/true,
                           [&](Value, Value, Value slot) {
                             k.vselect(s.mask, s.key, noKey, s.key);
                             k.dmaScatter(zeros, grid, s.key);
                             // Kept for the lookup: no recomputing them.
                             k.dma(s.key, span(candidateKeys, slot, tile));
                           });
    });
    record(launch, "mark_cells");
  }

  /// Default mode: numbers the marked cells in ascending order (count per
  /// chunk of T cells, scan, then number): each gets its output row in
  /// place of the mark, and its site decoded into that out_indices row.
  void buildCellNumbering() {
    int64_t cells = geometry.batch * geometry.getOutVolume();
    int64_t chunks = llvm::divideCeil(cells, tile);
    Value counts = globalBuffer(chunks, i32), bases = globalBuffer(chunks, i32);
    /// Loads chunk c's cells (-1 past the end) and marks the used ones.
    auto loadCells = [&](Value c, Value cell, Value used) {
      Value j = k.mul(c, k.index(tile));
      Value size = k.min(k.index(tile), k.sub(k.index(cells), j));
      k.vfill(cell, -1);
      k.dma(span(grid, j, size), span(cell, k.index(0), size));
      k.vcmpScalar(ComparePredicate::ge, cell, k.index(0), used);
      return std::make_pair(j, size);
    };
    buildCountAndScan(Extent::get(chunks), counts, bases, "cells", [&] {
      Value cell = k.alloc({tile}, i32), used = k.alloc({tile}, i32);
      return MarkLoader([=](Value c) {
        loadCells(c, cell, used);
        return used;
      });
    });
    auto number = k.launch(tasksFor(chunks), [&](Value tid) {
      Value cell = k.alloc({tile}, i32), used = k.alloc({tile}, i32);
      Value row = k.alloc({tile}, i32), none = k.alloc({tile}, i32);
      Value key = k.alloc({tile}, keyType), part = k.alloc({tile}, keyType);
      Value rest = k.alloc({tile}, keyType);
      Value site = k.alloc({4, tile}, i32), siteRows = k.alloc({tile, 4}, i32);
      k.vfill(none, -1);
      k.forEachItem(tid, tasksFor(chunks), chunks, [&](Value c) {
        auto [j, size] = loadCells(c, cell, used);
        numberMarks(used, bases, c, row);
        k.vselect(used, row, none, row);
        k.dma(span(row, k.index(0), size), span(grid, j, size));
        k.iota(key, j);
        writeOutIndices(key, row, part, rest, site, siteRows);
      });
    });
    record(number, "number_cells");
  }

  /// Each input row into the cell of its site (subm), from the sorted site
  /// keys; sentinels skip.
  void buildGridSites(KeyValueArrays sorted) {
    auto launch = k.launch(tasksFor(rowTiles), [&](Value tid) {
      Value key = k.alloc({tile}, keyType), noKey = k.alloc({tile}, keyType);
      Value valid = k.alloc({tile}, i32), row = k.alloc({tile}, i32);
      k.vfill(noKey, -1);
      k.forEachItem(tid, tasksFor(rowTiles), rowTiles.get(k), [&](Value t) {
        Value g = k.mul(t, k.index(tile));
        k.dma(span(sorted.keys, g, tile), key);
        k.dma(span(sorted.values, g, tile), row);
        k.vcmpScalar(ComparePredicate::ne, key, k.constant(keyType, sentinel),
                     valid);
        k.vselect(valid, key, noKey, key);
        k.dmaScatter(row, grid, key);
      });
    });
    record(launch, "grid_sites");
  }

  //===--- Submanifold ----------------------------------------------------===//

  /// Per offset, each candidate's output row, found in the grid or (sort
  /// strategy) by lower_bound in the sorted input keys (subm only).
  void buildLookup(KeyValueArrays sorted) {
    auto launch = k.launch(tasksFor(rowTiles), [&](Value tid) {
      SiteBuffers s = allocSiteBuffers();
      Value base = k.alloc({tile}, i32), probe = k.alloc({tile}, i32);
      Value found = k.alloc({tile}, keyType), row = k.alloc({tile}, i32);
      Value sum = k.alloc({1}, i32);
      Value noKey = useGrid ? k.alloc({tile}, keyType) : Value();
      if (noKey)
        k.vfill(noKey, -1);
      bool compute = !candidateKeys;
      forEachCandidateTile(tid, s, compute, [&](Value t, Value kk, Value slot) {
        if (candidateKeys) {
          // The marks' keys: -1 where the candidate reaches no site.
          k.dma(span(candidateKeys, slot, tile), found);
          k.vcmpScalar(ComparePredicate::ge, found, k.index(0), s.mask);
          k.dmaGather(grid, found, row);
          k.vcmpScalar(ComparePredicate::ge, row, k.index(0), s.scratch);
        } else if (useGrid) {
          // A cell holds its site's row or -1; no site, no cell read.
          k.vselect(s.mask, s.key, noKey, found);
          k.dmaGather(grid, found, row);
          k.vcmpScalar(ComparePredicate::ge, row, k.index(0), s.scratch);
        } else {
          // Found when the key there is the candidate's.
          lowerBound(sorted.keys, s.key, base, probe, found, s.scratch);
          k.dmaGather(sorted.keys, base, found);
          k.vcmp(ComparePredicate::eq, found, s.key, s.scratch);
          k.dmaGather(sorted.values, base, row);
        }
        k.vbinary(BinaryKind::And, s.mask, s.scratch, s.mask);
        k.vselect(s.mask, row, s.none, row);
        k.dma(row, span(candidateRows, slot, tile));
        storeTileCount(s.mask, sum, kk, t);
      });
    });
    record(launch, "lookup");
  }

  /// base = lower_bound(keys, key) per lane, by halving: while n > 1,
  /// base += (keys[base + n/2] < key) * (n/2); n -= n/2; then one more
  /// step. Every probe stays inside the Lp sorted keys. The rounds are
  /// unrolled when Lp is known, else a loop.
  void lowerBound(Value keys, Value key, Value base, Value probe, Value found,
                  Value less) {
    k.vfill(base, 0);
    auto halve = [&](Value half) {
      k.vbinaryScalar(BinaryKind::add, base, half, probe);
      k.dmaGather(keys, probe, found);
      k.vcmp(ComparePredicate::lt, found, key, less);
      k.vbinaryScalar(BinaryKind::mul, less, half, less);
      k.vbinary(BinaryKind::add, base, less, base);
    };
    if (paddedRows.isStatic()) {
      for (int64_t n = paddedRows.size; n > 1; n -= n / 2)
        halve(k.index(n / 2));
    } else {
      k.whileLoop(
          {paddedRows.value},
          [&](ValueRange n) { return k.lt(k.index(1), n[0]); },
          [&](ValueRange n) -> SmallVector<Value> {
            Value half = k.div(n[0], k.index(2));
            halve(half);
            return {k.sub(n[0], half)};
          });
    }
    k.dmaGather(keys, base, found);
    k.vcmp(ComparePredicate::lt, found, key, less);
    k.vbinary(BinaryKind::add, base, less, base);
  }

  //===--- Pairs ----------------------------------------------------------===//

  /// Fills indice_pairs with -1, scans the tile counts per offset (the
  /// totals are indice_num) and writes each pair into its slot.
  void buildPairs() {
    int64_t pairRows = 2 * offsets;
    Extent chunks = rows.ceilDiv(k, tile);
    Extent fills = chunks.times(k, pairRows);
    auto fill = k.launch(tasksFor(fills), [&](Value tid) {
      Value none = k.alloc({tile}, i32);
      k.vfill(none, -1);
      k.forEachItem(tid, tasksFor(fills), fills.get(k), [&](Value item) {
        Value r = k.div(item, chunks.get(k));
        Value j = k.mul(k.rem(item, chunks.get(k)), k.index(tile));
        Value size = k.min(k.index(tile), k.sub(rows.get(k), j));
        k.dma(
            span(none, k.index(0), size),
            span(pairRow(k.div(r, k.index(2)), k.rem(r, k.index(2))), j, size));
      });
    });
    record(fill, "fill_pairs");
    auto scan = k.launch(1, [&](Value) {
      k.forLoop(k.index(0), k.index(offsets), k.index(1), [&](Value kk) {
        Value first = k.mul(kk, rowTiles.get(k));
        int64_t chunk =
            rowTiles.isStatic() ? std::min(rowTiles.size, tile) : tile;
        Value total = buildExclusiveScan(k, span(tileCounts, first, rowTiles),
                                         span(tileBases, first, rowTiles),
                                         rowTiles, chunk);
        k.store(k.convert(total, i32), pairCounts, {kk});
      });
    });
    record(scan, "scan_pairs");
    Extent items = rowTiles.times(k, offsets);
    auto write = k.launch(tasksFor(items), [&](Value tid) {
      Value outRow = k.alloc({tile}, i32), mask = k.alloc({tile}, i32);
      Value slot = k.alloc({tile}, i32), inRow = k.alloc({tile}, i32);
      Value none = k.alloc({tile}, i32);
      k.vfill(none, -1);
      k.forEachItem(tid, tasksFor(items), items.get(k), [&](Value item) {
        Value kk = k.div(item, rowTiles.get(k));
        Value t = k.rem(item, rowTiles.get(k));
        Value i0 = k.mul(t, k.index(tile));
        k.dma(
            span(candidateRows, k.add(k.mul(kk, paddedRows.get(k)), i0), tile),
            outRow);
        k.vcmpScalar(ComparePredicate::ge, outRow, k.index(0), mask);
        k.vcumsum(mask, slot);
        Value base = k.toIndex(k.load(tileBases, item));
        k.vbinaryScalar(BinaryKind::add, slot, k.sub(base, k.index(1)), slot);
        k.vselect(mask, slot, none, slot);
        k.iota(inRow, i0);
        k.dmaScatter(inRow, pairRow(kk, k.index(0)), slot);
        k.dmaScatter(outRow, pairRow(kk, k.index(1)), slot);
      });
    });
    record(write, "write_pairs");
  }

  /// indice_pairs[kk, side, :].
  Value pairRow(Value kk, Value side) {
    OpBuilder &b = k.builder();
    return k.window(
        pairs, {kk, side, k.index(0)},
        {b.getIndexAttr(1), b.getIndexAttr(1), rows.getFoldResult(k)}, {0, 1});
  }

  //===--- Entry ----------------------------------------------------------===//

  void build() {
    if (rows.isStatic() && rows.size == 0)
      return buildEmpty();
    // Only the sort strategy's default mode sorts the K Lp candidates.
    Extent candidates =
        geometry.subm || useGrid ? paddedRows : paddedRows.times(k, offsets);
    KeyValueArrays data{globalBuffer(candidates, keyType),
                        globalBuffer(candidates, i32)};
    KeyValueArrays scratch{globalBuffer(candidates, keyType),
                           globalBuffer(candidates, i32)};
    candidateRows = globalBuffer(paddedRows.times(k, offsets), i32);
    tileCounts = globalBuffer(rowTiles.times(k, offsets), i32);
    tileBases = globalBuffer(rowTiles.times(k, offsets), i32);
    SortTiling tiling{tile, tasks};
    buildSiteKeys(data);
    KeyValueArrays sites =
        buildDeviceSort(k, data, scratch, paddedRows, tiling);
    buildRepeatCheck(sites);
    if (useGrid) {
      grid = globalBuffer(geometry.batch * geometry.getOutVolume(), i32);
      buildGridFill();
    }
    if (geometry.subm) {
      if (useGrid)
        buildGridSites(sites);
      buildLookup(sites);
      k.builder().create<memref::CopyOp>(k.location(), indices, outIndices);
    } else if (useGrid) {
      candidateKeys = globalBuffer(paddedRows.times(k, offsets), keyType);
      buildGridMarks();
      buildCellNumbering();
      buildLookup(sites);
    } else {
      buildExpand(data);
      buildNumbering(buildDeviceSort(k, data, scratch, candidates, tiling));
    }
    buildPairs();
    for (Value buffer : workspace)
      k.builder().create<memref::DeallocOp>(k.location(), buffer);
  }

  /// L = 0: no sites, no pairs.
  void buildEmpty() {
    auto launch = k.launch(1, [&](Value) {
      k.forLoop(k.index(0), k.index(offsets), k.index(1),
                [&](Value kk) { k.store(k.i32(0), pairCounts, {kk}); });
      if (rowCount)
        k.store(k.constant(k.builder().getI64Type(), 0), rowCount,
                {k.index(0)});
    });
    record(launch, "empty");
  }

  SmallVector<Value> workspace;
};

} // namespace

namespace {

/// The verifier's i32 rule for sites read at run time: indice_pairs' 2 K L
/// elements and out_indices' 4 min(K L, cells) below 2^31.
void checkSitesFitI32(KernelBuilder &k, GetIndicePairsOp op, Value indices) {
  SparseConvGeometry g = op.getGeometry();
  constexpr int64_t kLimit = int64_t(1) << 31;
  int64_t volume = g.getKernelVolume();
  std::optional<int64_t> cells = llvm::checkedMul(g.batch, g.getOutVolume());
  bool fewCells = cells && *cells < kLimit / 4;
  int64_t maxSites = (kLimit - 1) / ((fewCells ? 2 : 4) * volume);
  k.checkSizes({{indices, 0, nullptr, 0,
                 ("'npu.get_indice_pairs' indices has {row} sites: with "
                  "kernel volume " +
                  Twine(volume) +
                  " the results would have 2^31 or more elements (i32 "
                  "indices)")
                     .str(),
                 maxSites}});
}

struct GetIndicePairsKernelModel
    : DeviceKernelOpInterface::ExternalModel<GetIndicePairsKernelModel,
                                             GetIndicePairsOp> {
  /// The number of sites may be read at run time.
  bool takesRunTimeSizes(Operation *) const { return true; }

  /// out_indices' rows are the output sites found (subm: the input's).
  bool hasDataDependentRows(Operation *op, unsigned result) const {
    return result == 0 && !cast<GetIndicePairsOp>(op).getGeometry().subm;
  }

  /// out_indices has at most one row per (site, offset) and per output
  /// cell (the second bound only when the sites are known).
  FailureOr<SizeBound> getResultRowBound(
      Operation *op, unsigned, function_ref<std::optional<SizeBound>(Value)>,
      function_ref<std::optional<SizeBound>(Value, unsigned)> sizeOf) const {
    auto pairs = cast<GetIndicePairsOp>(op);
    SparseConvGeometry g = pairs.getGeometry();
    std::optional<SizeBound> sites = sizeOf(pairs.getIndices(), 0);
    if (!sites)
      return op->emitOpError("cannot be lowered to the device: the number "
                             "of sites is neither static nor read at run "
                             "time");
    SizeBound reached = sites->times(g.getKernelVolume());
    if (!reached.isStatic())
      return reached;
    return SizeBound::get(std::min(reached.factor, g.batch * g.getOutVolume()));
  }

  /// indice_pairs' last dimension is the number of sites, and so are
  /// out_indices' rows in subm.
  std::optional<std::pair<unsigned, unsigned>>
  getResultSizeOperand(Operation *op, unsigned result, unsigned dim) const {
    bool subm = cast<GetIndicePairsOp>(op).getGeometry().subm;
    if ((result == 1 && dim == 2) || (result == 0 && dim == 0 && subm))
      return std::make_pair(0u, 0u);
    return std::nullopt;
  }

  LogicalResult buildDeviceKernels(Operation *op, OpBuilder &b,
                                   const KernelOperands &io,
                                   const DeviceModel &device,
                                   const KernelOptions &options) const {
    auto pairs = cast<GetIndicePairsOp>(op);
    SparseConvGeometry geometry = pairs.getGeometry();
    std::optional<int64_t> gridBytes = getGridBytes(geometry);
    int64_t sites = pairs.getIndices().getType().getDimSize(0);
    StringRef requested = options.sparseConvStrategy;
    if (requested == "grid" && (!gridBytes || *gridBytes > device.globalBytes))
      return op->emitOpError("the grid strategy needs ")
             << (gridBytes ? std::to_string(*gridBytes) : "more than 2^63")
             << " bytes of global memory for its grid, more than the "
             << device.globalBytes << " of device '" << device.name << "'";
    KernelBuilder k(b, op->getLoc());
    int64_t largest = getLargestTile(geometry, device);
    if (!ShapedType::isDynamic(sites)) {
      PairsLowering(
          k, pairs, io, device,
          selectPairsStrategy(geometry, sites, gridBytes, device, requested),
          selectPairsTile(sites, largest))
          .build();
      return success();
    }
    // L is known at run time: so are, for auto, the strategy and then the
    // tile (buildTileChain).
    checkSitesFitI32(k, pairs, io.operands[0]);
    Value rows = k.dim(io.operands[0], 0);
    SmallVector<int64_t> tiles = getRunTimeTiles(largest);
    auto buildWith = [&](StringRef strategy) {
      buildTileChain(k, pairs, io, device, strategy, rows, tiles);
    };
    if (requested != "auto" ||
        selectPairsStrategy(geometry, std::numeric_limits<int32_t>::max(),
                            gridBytes, device, "auto") != "grid") {
      buildWith(requested == "auto" ? "sort" : requested);
      return success();
    }
    // The grid when it has no more cells than there are candidates (K L)
    // and fits the budget.
    Value candidates = k.mul(rows, k.index(geometry.getKernelVolume()));
    Value cells = k.index(*gridBytes / 4);
    k.ifThenElse(
        k.lt(candidates, cells), [&] { buildWith("sort"); },
        [&] { buildWith("grid"); });
    return success();
  }

  /// The kernels of `strategy` for `rows` sites read at run time, one set
  /// per tile of `tiles` (ascending) behind host conditions on `rows`. The
  /// sort takes the smallest tile above L, as selectPairsTile does: its
  /// merge passes cost a pass over the keys per doubling of the tile count.
  /// The grid takes the largest no larger than selectPairsTile's (T_i
  /// while L < T_{i+1} / 2): it pads L to no more rows, and its tiles are
  /// its tasks.
  static void buildTileChain(KernelBuilder &k, GetIndicePairsOp pairs,
                             const KernelOperands &io,
                             const DeviceModel &device, StringRef strategy,
                             Value rows, ArrayRef<int64_t> tiles) {
    auto build = [&](int64_t tile) {
      PairsLowering(k, pairs, io, device, strategy, tile).build();
    };
    std::function<void(size_t)> chooseTile = [&](size_t i) {
      if (i + 1 == tiles.size())
        return build(tiles[i]);
      int64_t bound = strategy == "grid" ? tiles[i + 1] / 2 : tiles[i];
      k.ifThenElse(
          k.lt(rows, k.index(bound)), [&] { build(tiles[i]); },
          [&] { chooseTile(i + 1); });
    };
    chooseTile(0);
  }
};

} // namespace

void npu::registerGetIndicePairsKernelModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, NPUDialect *) {
    GetIndicePairsOp::attachInterface<GetIndicePairsKernelModel>(*ctx);
  });
}
