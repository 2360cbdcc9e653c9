//===- DeviceSort.cpp - sorting global arrays on the device ---------------===//
//
// A merge sort of n keys (with an i32 payload) in global memory, n a
// multiple of the tile T:
//  1. one launch sorts each tile on chip (npudev.vsort with values);
//  2. ceil(log2(n / T)) merge launches double the sorted run length R. Each
//     task produces whole output tiles: for the tile at g it finds, by a
//     binary search over the two runs of its pair (the "merge path"
//     co-rank), how many of its first elements come from each run, moves
//     those two pieces on chip and merges them with npudev.vmerge. Ties
//     take the first run first, so the sort is stable and the result does
//     not depend on how tiles are spread over tasks.
// Work O(n log n), every element crossing DMA twice per pass; O(T) on
// chip. The scan helper computes exclusive prefix sums chunk by chunk.
//
//===----------------------------------------------------------------------===//

#include "DeviceSort.h"

using namespace mlir;
using namespace npu;

namespace {

Type elementOf(Value memref) {
  return cast<MemRefType>(memref.getType()).getElementType();
}

/// A rank-1 window [offset, offset + size).
Value span(KernelBuilder &k, Value memref, Value offset, OpFoldResult size) {
  return k.window(memref, {offset}, {size});
}

/// Sorts each tile in place.
void buildTileSorts(KernelBuilder &k, KeyValueArrays data, int64_t n,
                    SortTiling tiling) {
  int64_t tile = tiling.tile, tiles = n / tile;
  Type key = elementOf(data.keys), value = elementOf(data.values);
  auto launch = k.launch(std::min(tiling.tasks, tiles), [&](Value tid) {
    Value keysIn = k.alloc({tile}, key), keysOut = k.alloc({tile}, key);
    Value valuesIn = k.alloc({tile}, value), valuesOut = k.alloc({tile}, value);
    OpFoldResult size = k.builder().getIndexAttr(tile);
    k.forEachItem(tid, std::min(tiling.tasks, tiles), tiles, [&](Value t) {
      Value offset = k.mul(t, k.index(tile));
      k.dma(span(k, data.keys, offset, size), keysIn);
      k.dma(span(k, data.values, offset, size), valuesIn);
      k.builder().create<dev::VSortOp>(k.location(), keysIn, keysOut, valuesIn,
                                       valuesOut);
      k.dma(keysOut, span(k, data.keys, offset, size));
      k.dma(valuesOut, span(k, data.values, offset, size));
    });
  });
  Builder b(launch.getContext());
  KernelBuilder::recordTiling(
      launch, {b.getNamedAttr("strategy", b.getStringAttr("tile_sort")),
               b.getNamedAttr("tile", b.getI64IntegerAttr(tile))});
}

/// The two sorted runs a merge reads: a = keys[aStart, aStart + aLen),
/// b = keys[bStart, bStart + bLen).
struct RunPair {
  Value aStart, aLen, bStart, bLen;
};

/// How many of the first `d` merged elements come from run a: the smallest
/// i with b[d - i - 1] < a[i] (a before b on ties), by binary search.
Value coRank(KernelBuilder &k, Value keys, const RunPair &runs, Value d) {
  Value lo = k.max(k.index(0), k.sub(d, runs.bLen));
  Value hi = k.min(d, runs.aLen);
  SmallVector<Value> bounds = k.whileLoop(
      {lo, hi}, [&](ValueRange s) { return k.lt(s[0], s[1]); },
      [&](ValueRange s) -> SmallVector<Value> {
        Value mid = k.div(k.add(s[0], s[1]), k.index(2));
        Value a = k.load(keys, k.add(runs.aStart, mid));
        Value b =
            k.load(keys, k.sub(k.add(runs.bStart, k.sub(d, mid)), k.index(1)));
        Value aAfterB = k.lt(b, a);
        return {k.select(aAfterB, s[0], k.add(mid, k.index(1))),
                k.select(aAfterB, mid, s[1])};
      });
  return bounds[0];
}

/// One merge pass: runs of `run` elements in `from` merged pairwise into
/// `to`.
void buildMergePass(KernelBuilder &k, KeyValueArrays from, KeyValueArrays to,
                    int64_t n, int64_t run, SortTiling tiling) {
  int64_t tile = tiling.tile, tiles = n / tile;
  int64_t tasks = std::min(tiling.tasks, tiles);
  Type key = elementOf(from.keys), value = elementOf(from.values);
  auto launch = k.launch(tasks, [&](Value tid) {
    Value keysA = k.alloc({tile}, key), keysB = k.alloc({tile}, key),
          keysOut = k.alloc({tile}, key);
    Value valuesA = k.alloc({tile}, value), valuesB = k.alloc({tile}, value),
          valuesOut = k.alloc({tile}, value);
    k.forEachItem(tid, tasks, tiles, [&](Value t) {
      Value g = k.mul(t, k.index(tile));
      Value pairStart = k.mul(k.div(g, k.index(2 * run)), k.index(2 * run));
      RunPair runs;
      runs.aStart = pairStart;
      runs.aLen = k.min(k.index(run), k.sub(k.index(n), pairStart));
      runs.bStart = k.add(pairStart, runs.aLen);
      runs.bLen = k.min(k.index(run), k.sub(k.index(n), runs.bStart));
      Value d = k.sub(g, pairStart);
      Value i0 = coRank(k, from.keys, runs, d);
      Value i1 = coRank(k, from.keys, runs, k.add(d, k.index(tile)));
      Value fromA = k.sub(i1, i0), fromB = k.sub(k.index(tile), fromA);
      Value aOffset = k.add(runs.aStart, i0);
      Value bOffset = k.add(runs.bStart, k.sub(d, i0));
      Value zero = k.index(0);
      auto piece = [&](Value global, Value offset, Value size, Value local) {
        Value onChip = span(k, local, zero, size);
        k.dma(span(k, global, offset, size), onChip);
        return onChip;
      };
      Value ka = piece(from.keys, aOffset, fromA, keysA);
      Value kb = piece(from.keys, bOffset, fromB, keysB);
      Value va = piece(from.values, aOffset, fromA, valuesA);
      Value vb = piece(from.values, bOffset, fromB, valuesB);
      k.builder().create<dev::VMergeOp>(k.location(), ka, kb, keysOut, va, vb,
                                        valuesOut);
      OpFoldResult size = k.builder().getIndexAttr(tile);
      k.dma(keysOut, span(k, to.keys, g, size));
      k.dma(valuesOut, span(k, to.values, g, size));
    });
  });
  Builder b(launch.getContext());
  KernelBuilder::recordTiling(
      launch, {b.getNamedAttr("strategy", b.getStringAttr("merge_path")),
               b.getNamedAttr("tile", b.getI64IntegerAttr(tile)),
               b.getNamedAttr("run", b.getI64IntegerAttr(run))});
}

} // namespace

KeyValueArrays npu::buildDeviceSort(KernelBuilder &k, KeyValueArrays data,
                                    KeyValueArrays scratch, int64_t n,
                                    SortTiling tiling) {
  if (n == 0)
    return data;
  buildTileSorts(k, data, n, tiling);
  for (int64_t run = tiling.tile; run < n; run *= 2) {
    buildMergePass(k, data, scratch, n, run, tiling);
    std::swap(data, scratch);
  }
  return data;
}

Value npu::buildExclusiveScan(KernelBuilder &k, Value counts, Value bases,
                              int64_t n, int64_t chunk) {
  Type word = elementOf(counts);
  Value in = k.alloc({chunk}, word), sums = k.alloc({chunk}, word);
  Value total = k.forLoop(
      k.index(0), k.index(n), k.index(chunk), k.index(0),
      [&](Value j, Value carry) {
        Value size = k.min(k.index(chunk), k.sub(k.index(n), j));
        Value zero = k.index(0);
        Value inPart = span(k, in, zero, size),
              sumPart = span(k, sums, zero, size);
        k.dma(span(k, counts, j, size), inPart);
        k.vcumsum(inPart, sumPart);
        Value last = k.load(sums, k.sub(size, k.index(1)));
        // Exclusive: the inclusive sum less the element, plus the carry.
        k.vbinary(dev::BinaryKind::sub, sumPart, inPart, sumPart);
        k.vbinaryScalar(dev::BinaryKind::add, sumPart, carry, sumPart);
        k.dma(sumPart, span(k, bases, j, size));
        return k.add(carry, k.toIndex(last));
      });
  return total;
}
