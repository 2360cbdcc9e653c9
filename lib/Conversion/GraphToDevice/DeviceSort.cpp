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
// chip. For an n known only at run time the merge passes are a host loop
// (scf.while) that swaps the two arrays, and every launch has all the
// tasks. The scan helper computes exclusive prefix sums chunk by chunk.
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
void buildTileSorts(KernelBuilder &k, KeyValueArrays data, Extent n,
                    SortTiling tiling) {
  int64_t tile = tiling.tile;
  Extent tiles = n.ceilDiv(k, tile);
  int64_t tasks = tiles.getTasks(tiling.tasks);
  Type key = elementOf(data.keys), value = elementOf(data.values);
  auto launch = k.launch(tasks, [&](Value tid) {
    Value keysIn = k.alloc({tile}, key), keysOut = k.alloc({tile}, key);
    Value valuesIn = k.alloc({tile}, value), valuesOut = k.alloc({tile}, value);
    OpFoldResult size = k.builder().getIndexAttr(tile);
    k.forEachItem(tid, tasks, tiles.get(k), [&](Value t) {
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
                    Extent n, Extent run, SortTiling tiling) {
  int64_t tile = tiling.tile;
  Extent tiles = n.ceilDiv(k, tile);
  int64_t tasks = tiles.getTasks(tiling.tasks);
  Type key = elementOf(from.keys), value = elementOf(from.values);
  auto launch = k.launch(tasks, [&](Value tid) {
    Value keysA = k.alloc({tile}, key), keysB = k.alloc({tile}, key),
          keysOut = k.alloc({tile}, key);
    Value valuesA = k.alloc({tile}, value), valuesB = k.alloc({tile}, value),
          valuesOut = k.alloc({tile}, value);
    k.forEachItem(tid, tasks, tiles.get(k), [&](Value t) {
      Value g = k.mul(t, k.index(tile));
      Value pair = run.times(k, 2).get(k);
      Value pairStart = k.mul(k.div(g, pair), pair);
      RunPair runs;
      runs.aStart = pairStart;
      runs.aLen = k.min(run.get(k), k.sub(n.get(k), pairStart));
      runs.bStart = k.add(pairStart, runs.aLen);
      runs.bLen = k.min(run.get(k), k.sub(n.get(k), runs.bStart));
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
  // A pass of a host loop records run 0: its run is known when it runs.
  Builder b(launch.getContext());
  KernelBuilder::recordTiling(
      launch, {b.getNamedAttr("strategy", b.getStringAttr("merge_path")),
               b.getNamedAttr("tile", b.getI64IntegerAttr(tile)),
               b.getNamedAttr("run", b.getI64IntegerAttr(run.size))});
}

/// The merge passes for an n known at run time: a host loop over the run
/// length, each pass from one array into the other.
KeyValueArrays buildMergeLoop(KernelBuilder &k, KeyValueArrays data,
                              KeyValueArrays scratch, Value n,
                              SortTiling tiling) {
  SmallVector<Value> state = k.whileLoop(
      {k.index(tiling.tile), data.keys, data.values, scratch.keys,
       scratch.values},
      [&](ValueRange s) { return k.lt(s[0], n); },
      [&](ValueRange s) -> SmallVector<Value> {
        buildMergePass(k, {s[1], s[2]}, {s[3], s[4]}, {0, n}, {0, s[0]},
                       tiling);
        return {k.mul(s[0], k.index(2)), s[3], s[4], s[1], s[2]};
      });
  return {state[1], state[2]};
}

} // namespace

Extent Extent::times(KernelBuilder &k, int64_t factor) const {
  if (isStatic())
    return get(size * factor);
  return {0, factor == 1 ? value : k.mul(value, k.index(factor))};
}

Extent Extent::ceilDiv(KernelBuilder &k, int64_t divisor) const {
  if (isStatic())
    return get(llvm::divideCeil(size, divisor));
  return {0, k.div(k.add(value, k.index(divisor - 1)), k.index(divisor))};
}

KeyValueArrays npu::buildDeviceSort(KernelBuilder &k, KeyValueArrays data,
                                    KeyValueArrays scratch, Extent n,
                                    SortTiling tiling) {
  if (n.isStatic() && n.size == 0)
    return data;
  buildTileSorts(k, data, n, tiling);
  if (!n.isStatic())
    return buildMergeLoop(k, data, scratch, n.value, tiling);
  for (int64_t run = tiling.tile; run < n.size; run *= 2) {
    buildMergePass(k, data, scratch, n, Extent::get(run), tiling);
    std::swap(data, scratch);
  }
  return data;
}

Value npu::buildExclusiveScan(KernelBuilder &k, Value counts, Value bases,
                              Extent extent, int64_t chunk) {
  Type word = elementOf(counts);
  Value in = k.alloc({chunk}, word), sums = k.alloc({chunk}, word);
  Value n = extent.get(k);
  Value total = k.forLoop(
      k.index(0), n, k.index(chunk), k.index(0), [&](Value j, Value carry) {
        Value size = k.min(k.index(chunk), k.sub(n, j));
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
