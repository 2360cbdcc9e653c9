//===- MoEKernels.cpp - the MoE dispatch family on the device -------------===//
//
// moe_dispatch_backward_data follows mlu-ops' MoE dispatch backward
// (mluOpMoeDispatchBackwardData), every parameter taken from the
// DeviceModel (tasks = cores, tiles from vector-memory capacity):
//  - split_hidden (mlu-ops' Kernel 1, samples <= tasks): each sample is
//    served by tasks/samples tasks (the first tasks%samples samples by one
//    more), which split its hidden dimension; chunks of deal_h go through
//    one buffer: DMA in, multiply by the gate, DMA out.
//  - split_samples (Kernel 2, samples > tasks): each task takes a
//    contiguous range of samples in tiles of deal_s rows. Per tile, the
//    gates, indices and locations come in by DMA and the row numbers and
//    the validity mask are computed with vector ops, as in mlu-ops; kept
//    rows are gathered by asynchronous DMA, dropped rows zero-filled, and
//    each row is scaled by its gate (0 for a dropped sample). Tiles are
//    software-pipelined over two slots (RowTilePipeline): tile t+1's
//    gathers run on the DMA engine while tile t is scaled and written back
//    (a write-back that consumes the tile: the next gather into the slot
//    rewrites every row, so the JIT may scale straight into the result).
//  - split_samples_chunked (Kernel 2 when one row does not fit): one sample
//    at a time, hidden in chunks of deal_h.
// moe_dispatch_forward (gather_rows) turns the scatter into a gather: each
// task owns a range of dispatch rows, finds for each the last kept sample
// naming it (a vscatter of sample numbers, in index order), then fills its
// rows through the same pipeline. A row has one writer, so duplicates
// resolve to the last sample whatever the order of tasks. Each task scans
// every sample's index and slot: O(samples * tasks) extra words, against
// O(rows * hidden) of data.
// moe_dispatch_backward_gate (dot_tiles) gathers tiles of dispatch rows
// through the pipeline beside the matching input rows, multiplies and
// reduces each row in j order. The chosen strategy and tile sizes are
// recorded on each launch as `npudev.tiling`.
// f16 and bf16: scaling by a gate runs on the element type (the vector
// units compute the product in f32 and round it once); backward_gate and
// combine widen their rows to f32 scratch (vcast), multiply and sum there,
// and round each result once.
// Work is O(samples * hidden) per op.
//
//===----------------------------------------------------------------------===//

#include "OperatorKernels.h"
#include "npu/Conversion/DeviceKernelOpInterface.h"
#include "npu/Device/DeviceModel.h"
#include "npu/Dialect/NPU/NPUOps.h"
#include "npu/Dialect/NPUDev/KernelBuilder.h"
#include "npu/Dialect/NPUDev/Semantics.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"

#include <tuple>

using namespace mlir;
using namespace npu;
using namespace npu::graph;
using dev::BinaryKind;
using dev::ComparePredicate;

namespace {

struct MoEShape {
  /// topK: slots per sample (moe_combine's k), else 1. `samples` may be
  /// dynamic (read at run time from indices); the others are static.
  int64_t samples, hidden, capacity, experts, topK;
  Value indices;

  /// The sizes of `in`, whose values are memrefs.
  explicit MoEShape(const MoEOperands &in) : indices(in.indices) {
    auto shapeOf = [](Value v) {
      return cast<MemRefType>(v.getType()).getShape();
    };
    samples = shapeOf(in.indices).back();
    topK = in.topK ? shapeOf(in.indices)[0] : 1;
    hidden = shapeOf(in.dispatch ? in.dispatch : in.input)[1];
    capacity = in.capacity;
    experts = in.numExperts;
  }

  bool isDynamicSamples() const { return ShapedType::isDynamic(samples); }
  /// The number of samples as an index value (a dynamic one read where
  /// it is used: kernels take no values from the host code around them).
  Value getSamples(KernelBuilder &k) const {
    return isDynamicSamples() ? k.dim(indices, getSamplesDim())
                              : k.index(samples);
  }
  /// The dimension of indices (and gates, locations) that counts samples.
  int64_t getSamplesDim() const {
    return cast<MemRefType>(indices.getType()).getRank() - 1;
  }
  /// The most samples a task takes: its share when the count is static,
  /// else unbounded.
  int64_t getMaxSamplesPerTask(int64_t tasks) const {
    return isDynamicSamples() ? std::numeric_limits<int64_t>::max()
                              : (samples + tasks - 1) / tasks;
  }
};

/// Bytes of an f32 or i32 word.
constexpr int64_t kWord = 4;

/// Records the chosen strategy and tiles on a launch.
void recordTiling(dev::LaunchOp launch, StringRef strategy, int64_t dealS,
                  int64_t dealH) {
  Builder b(launch.getContext());
  KernelBuilder::recordTiling(
      launch, {b.getNamedAttr("strategy", b.getStringAttr(strategy)),
               b.getNamedAttr("deal_s", b.getI64IntegerAttr(dealS)),
               b.getNamedAttr("deal_h", b.getI64IntegerAttr(dealH))});
}

/// The samples task `tid` takes when `total` are split over `tasks`: the
/// first total % tasks tasks take one more. Returns (start, count).
/// (Callers std::tie such pairs: the kernels' lambdas capture them, and
/// C++17 lambdas cannot capture structured bindings.)
std::pair<Value, Value> taskRange(KernelBuilder &k, Value tid, int64_t total,
                                  int64_t tasks) {
  int64_t per = total / tasks, extra = total % tasks;
  Value count =
      k.select(k.lt(tid, k.index(extra)), k.index(per + 1), k.index(per));
  Value start = k.add(k.mul(tid, k.index(per)), k.min(tid, k.index(extra)));
  return {start, count};
}

/// taskRange over the samples, a count read at run time or static.
std::pair<Value, Value> sampleRange(KernelBuilder &k, Value tid,
                                    const MoEShape &shape, int64_t tasks) {
  if (!shape.isDynamicSamples())
    return taskRange(k, tid, shape.samples, tasks);
  Value total = shape.getSamples(k), many = k.index(tasks);
  Value per = k.div(total, many), extra = k.rem(total, many);
  Value count = k.add(per, k.select(k.lt(tid, extra), k.index(1), k.index(0)));
  Value start = k.add(k.mul(tid, per), k.min(tid, extra));
  return {start, count};
}

/// for (j = 0; j < extent; j += deal) body(j, min(deal, extent - j)).
void forChunks(KernelBuilder &k, Value extent, int64_t deal,
               function_ref<void(Value, Value)> body) {
  k.forLoop(k.index(0), extent, k.index(deal),
            [&](Value j) { body(j, k.min(k.index(deal), k.sub(extent, j))); });
}

/// Whether the slot at `at` of `indices` and `locations` ([samples], or
/// [k, samples] for moe_combine) is kept, and its dispatch row: indices *
/// capacity + locations (scalar loads; used where a task handles single
/// samples).
std::pair<Value, Value> keptRow(KernelBuilder &k, Value indices,
                                Value locations, ValueRange at,
                                const MoEShape &shape) {
  Value expert = k.toIndex(k.load(indices, at));
  Value slot = k.toIndex(k.load(locations, at));
  Value zero = k.index(0);
  Value kept =
      k.andI(k.andI(k.ge(expert, zero), k.lt(expert, k.index(shape.experts))),
             k.andI(k.ge(slot, zero), k.lt(slot, k.index(shape.capacity))));
  Value row = k.add(k.mul(expert, k.index(shape.capacity)), slot);
  return {kept, row};
}
std::pair<Value, Value> keptRow(KernelBuilder &k, const MoEOperands &in,
                                Value s, const MoEShape &shape) {
  return keptRow(k, in.indices, in.locations, s, shape);
}

/// A rank-1 window [offset, offset + length) of row `row` of a 2-D memref.
Value rowSlice(KernelBuilder &k, Value memref, Value row, Value offset,
               OpFoldResult length) {
  return k.window(memref, {row, offset}, {k.builder().getIndexAttr(1), length},
                  /*drop=*/{0});
}

Value prefix(KernelBuilder &k, Value buffer, Value length) {
  return k.window(buffer, {k.index(0)}, {length});
}

/// The first n entries along dimension 0 of `buffer`, the others whole.
Value leadingRows(KernelBuilder &k, Value buffer, Value n) {
  auto type = cast<MemRefType>(buffer.getType());
  SmallVector<Value> offsets(type.getRank(), k.index(0));
  SmallVector<OpFoldResult> sizes = {n};
  for (int64_t size : type.getShape().drop_front())
    sizes.push_back(k.builder().getIndexAttr(size));
  return k.window(buffer, offsets, sizes);
}

Type elementOf(Value memref) {
  return cast<MemRefType>(memref.getType()).getElementType();
}

/// f32 scratch in which products and sums of f16 or bf16 rows are computed
/// (the product of two such values is exact in f32, a sum rounds once at
/// the end). For f32 rows it allocates nothing and passes them through.
class F32Scratch {
public:
  F32Scratch(KernelBuilder &k, Type element, ArrayRef<int64_t> shape)
      : buffer(element.isF32() ? Value()
                               : k.alloc(shape, k.builder().getF32Type())) {}

  /// `rows` itself, or its n leading rows widened into the scratch.
  Value widen(KernelBuilder &k, Value rows, Value n) {
    if (!buffer)
      return rows;
    Value wide = leadingRows(k, buffer, n);
    k.vcast(rows, wide);
    return wide;
  }

  /// Where an f32 result of n rows meant for `out` is computed: `out`
  /// itself, or scratch that roundSumInto() then rounds into `out`.
  Value target(KernelBuilder &k, Value out, Value n) {
    return buffer ? leadingRows(k, buffer, n) : out;
  }

private:
  Value buffer;
};

/// An f32 sum as the element type of `buffer`: `sum` itself when that is
/// f32, else `sum` rounded into `buffer` (same shape).
Value roundSumInto(KernelBuilder &k, Value sum, Value buffer) {
  if (elementOf(buffer).isF32())
    return sum;
  k.vcast(sum, buffer);
  return buffer;
}

/// target[targetRow, offset + j] = gate * source[sourceRow, offset + j] for
/// j in [0, length), in chunks through `buffer` (DMA in, scale, DMA out).
void copyScaledRow(KernelBuilder &k, Value buffer, Value source,
                   Value sourceRow, Value target, Value targetRow, Value offset,
                   Value length, Value gate) {
  int64_t deal = cast<MemRefType>(buffer.getType()).getShape()[0];
  forChunks(k, length, deal, [&](Value j, Value len) {
    Value at = k.add(offset, j);
    Value tile = prefix(k, buffer, len);
    k.dma(rowSlice(k, source, sourceRow, at, len), tile);
    k.builder().create<dev::VBinaryScalarOp>(k.location(), BinaryKind::mul,
                                             tile, gate, tile);
    k.dma(tile, rowSlice(k, target, targetRow, at, len));
  });
}

/// target[targetRow, offset:offset + length] = gate() * source[sourceRow,
/// ...] when `kept`, else zeros, in chunks through `buffer` (which is
/// zeroed to write the zeros).
void writeScaledOrZero(KernelBuilder &k, Value buffer, Value kept, Value source,
                       Value sourceRow, function_ref<Value()> gate,
                       Value target, Value targetRow, Value offset,
                       Value length) {
  k.ifThenElse(
      kept,
      [&] {
        copyScaledRow(k, buffer, source, sourceRow, target, targetRow, offset,
                      length, gate());
      },
      [&] {
        int64_t deal = cast<MemRefType>(buffer.getType()).getShape()[0];
        k.vfill(buffer, k.floatConstant(elementOf(buffer), 0.0));
        forChunks(k, length, deal, [&](Value j, Value len) {
          k.dma(prefix(k, buffer, len),
                rowSlice(k, target, targetRow, k.add(offset, j), len));
        });
      });
}

/// grad[sample, offset:offset + length] = gates[sample] * dispatch[row, ...]
/// when the sample is kept, else zeros.
void writeGradSlice(KernelBuilder &k, const MoEOperands &in, Value grad,
                    Value buffer, Value sample, Value offset, Value length,
                    const MoEShape &shape) {
  Value kept, row;
  std::tie(kept, row) = keptRow(k, in, sample, shape);
  writeScaledOrZero(
      k, buffer, kept, in.dispatch, row,
      [&] { return k.load(in.gates, sample); }, grad, sample, offset, length);
}

//===----------------------------------------------------------------------===//
// Building blocks of the tiled kernels
//===----------------------------------------------------------------------===//

/// mask &= (in pred scalar), through `tmp`.
void narrowMask(KernelBuilder &k, Value mask, ComparePredicate pred, Value in,
                Value scalar, Value tmp) {
  k.vcmpScalar(pred, in, scalar, tmp);
  k.vbinary(BinaryKind::And, mask, tmp, mask);
}

/// rows = experts * capacity + slots, and mask = 1 where the sample is kept,
/// else 0 (a dropped sample's row is meaningless): vector ops on buffers of
/// one length, as in mlu-ops' kernel; `tmp` is scratch.
void computeDispatchRows(KernelBuilder &k, const MoEShape &shape, Value experts,
                         Value slots, Value tmp, Value rows, Value mask) {
  k.vbinaryScalar(BinaryKind::mul, experts, k.i32(shape.capacity), rows);
  k.vbinary(BinaryKind::add, rows, slots, rows);
  k.vcmpScalar(ComparePredicate::ge, slots, k.i32(0), mask);
  narrowMask(k, mask, ComparePredicate::lt, slots, k.i32(shape.capacity), tmp);
  narrowMask(k, mask, ComparePredicate::ge, experts, k.i32(0), tmp);
  narrowMask(k, mask, ComparePredicate::lt, experts, k.i32(shape.experts), tmp);
}

/// The i32 buffers that turn a tile of samples into dispatch rows.
struct DispatchRowScratch {
  Value experts, slots, scratch;

  DispatchRowScratch(KernelBuilder &k, int64_t deal) {
    Type i32 = k.builder().getI32Type();
    experts = k.alloc({deal}, i32);
    slots = k.alloc({deal}, i32);
    scratch = k.alloc({deal}, i32);
  }

  /// Queues the loads of the first n samples of `indices` and `locations`
  /// (rank-1 global windows).
  void load(KernelBuilder &k, Value indices, Value locations, Value n) const {
    k.dmaStart(indices, prefix(k, experts, n));
    k.dmaStart(locations, prefix(k, slots, n));
  }

  /// computeDispatchRows for the n samples loaded.
  void compute(KernelBuilder &k, const MoEShape &shape, Value n, Value rows,
               Value mask) const {
    computeDispatchRows(k, shape, prefix(k, experts, n), prefix(k, slots, n),
                        prefix(k, scratch, n), rows, mask);
  }
};

/// Tiles of `deal` rows of `hidden` elements, each row gathered from a row
/// of a global `source` or zeroed, in two slots that pipeline: tile t+1's
/// gathers run on the DMA engine while tile t is computed on and written
/// back.
class RowTilePipeline {
public:
  /// Fills a slot's per-tile state for tile t of n rows and returns the
  /// source row of each (i32, negative for a zero row). It must first wait
  /// for the DMAs queued before, the slot's last write-back among them: a
  /// synchronous DMA does (and hides its latency behind theirs), or
  /// npudev.wait_all.
  using Prepare = function_ref<Value(Value t, Value slot, Value n)>;
  /// Queues more asynchronous loads for tile t, after its gathers.
  using Load = function_ref<void(Value t, Value slot, Value n)>;
  /// Computes on tile t's rows `block` ([n, hidden]) and starts its
  /// write-back.
  using Finish = function_ref<void(Value t, Value slot, Value n, Value block)>;

  /// `device` prices zeroing: a vector op per zero row, or one over the
  /// whole tile (see gather).
  RowTilePipeline(KernelBuilder &k, Value source, int64_t deal,
                  const DeviceModel &device)
      : k(k), source(source), deal(deal),
        hidden(cast<MemRefType>(source.getType()).getShape()[1]),
        data(k.alloc({2, deal, hidden}, elementOf(source))),
        zeroRows(k.alloc({deal}, k.builder().getI32Type())),
        zeroCount(k.alloc({1}, k.builder().getI32Type())) {
    // In 1/16 cycles, so that the comparison stays in integers.
    double row = hidden * dev::getElementBytes(elementOf(source)) /
                 device.vectorBytesPerCycle;
    issueCost = std::lround(16 * device.vectorIssueCycles);
    rowCost = std::lround(16 * row);
  }

  /// Runs the tiles of `rows` rows: tile t covers [t * deal, t * deal + n).
  void run(Value rows, Prepare prepare, Finish finish, Load load = nullptr) {
    runTiles(
        k.div(k.add(rows, k.index(deal - 1)), k.index(deal)),
        [&](Value t) {
          return k.min(k.index(deal), k.sub(rows, k.mul(t, k.index(deal))));
        },
        prepare, finish, load);
  }

  /// Runs `tiles` tiles, tile t of tileRows(t) rows.
  void runTiles(Value tiles, function_ref<Value(Value)> tileRows,
                Prepare prepare, Finish finish, Load load = nullptr) {
    auto begin = [&](Value t, Value slot) {
      Value n = tileRows(t);
      gather(prepare(t, slot, n), slot, n);
      if (load)
        load(t, slot, n);
    };
    k.ifThenElse(k.lt(k.index(0), tiles),
                 [&] { begin(k.index(0), k.index(0)); });
    k.forLoop(k.index(0), tiles, k.index(1), [&](Value t) {
      Value slot = k.rem(t, k.index(2));
      Value next = k.add(t, k.index(1));
      k.ifThenElse(
          k.lt(next, tiles), [&] { begin(next, k.sub(k.index(1), slot)); },
          [&] { k.waitAll(); });
      finish(t, slot, tileRows(t), block(data, slot, tileRows(t)));
    });
    k.waitAll();
  }

  /// The first n rows of a slot of `buffer` ([2, deal, ...]).
  Value block(Value buffer, Value slot, Value n) {
    auto type = cast<MemRefType>(buffer.getType());
    SmallVector<Value> offsets(type.getRank(), k.index(0));
    offsets[0] = slot;
    SmallVector<OpFoldResult> sizes = {k.builder().getIndexAttr(1), n};
    for (int64_t size : type.getShape().drop_front(2))
      sizes.push_back(k.builder().getIndexAttr(size));
    return k.window(buffer, offsets, sizes, /*drop=*/{0});
  }

private:
  /// Row i of the slot = source[sources[i]] (queued), or zeros. Each
  /// vector op pays the device's issue cost, so when z zero rows cost more
  /// one at a time than one fill of all n rows (z (issue + row) > issue +
  /// n row), the whole tile is filled first and the gathers overwrite it.
  void gather(Value sources, Value slot, Value n) {
    Value zero = k.floatConstant(elementOf(source), 0.0);
    Value rows = block(data, slot, n);
    Value zeros = prefix(k, zeroRows, n);
    k.vcmpScalar(ComparePredicate::lt, sources, k.i32(0), zeros);
    k.vreduce(dev::ReduceKind::sum, zeros, zeroCount);
    Value count = k.toIndex(k.load(zeroCount, k.index(0)));
    Value oneFill = k.add(k.index(issueCost), k.mul(n, k.index(rowCost)));
    Value rowFills = k.mul(count, k.index(issueCost + rowCost));
    k.ifThenElse(k.lt(oneFill, rowFills), [&] { k.vfill(rows, zero); });
    k.forLoop(k.index(0), n, k.index(1), [&](Value i) {
      Value row = k.load(sources, i);
      Value target =
          rowSlice(k, rows, i, k.index(0), k.builder().getIndexAttr(hidden));
      k.ifThenElse(
          k.ge(row, k.i32(0)),
          [&] {
            k.dmaStart(rowSlice(k, source, k.toIndex(row), k.index(0),
                                k.builder().getIndexAttr(hidden)),
                       target);
          },
          [&] {
            k.ifThenElse(k.ge(oneFill, rowFills),
                         [&] { k.vfill(target, zero); });
          });
    });
  }

  KernelBuilder &k;
  Value source;
  int64_t deal, hidden;
  Value data;
  /// Which of a tile's rows are zeros (1), and how many.
  Value zeroRows, zeroCount;
  int64_t issueCost, rowCost;
};

/// Per-slot dispatch rows of tiles of samples: the state backward_data and
/// backward_gate share.
struct SampleRowTiles {
  /// zeros: `element` zeros, what a dropped sample's gate or sum becomes.
  Value rows, mask, minusOne, zeros;
  DispatchRowScratch scratch;

  SampleRowTiles(KernelBuilder &k, int64_t deal, Type element)
      : rows(k.alloc({2, deal}, k.builder().getI32Type())),
        mask(k.alloc({deal}, k.builder().getI32Type())),
        minusOne(k.alloc({deal}, k.builder().getI32Type())),
        zeros(k.alloc({deal}, element)), scratch(k, deal) {
    k.vfill(minusOne, -1);
    k.vfill(zeros, k.floatConstant(element, 0.0));
  }

  /// Slot `slot` of the rows of the n samples of `indices` and `locations`
  /// (rank-1 global windows): the dispatch row of a kept sample, -1 for a
  /// dropped one; `mask` holds which are kept. The loads are queued
  /// together and waited for with npudev.wait_all (which also waits for
  /// the slot's last write-back, as RowTilePipeline requires), so their
  /// latencies overlap.
  Value prepare(KernelBuilder &k, RowTilePipeline &tiles, Value indices,
                Value locations, const MoEShape &shape, Value slot, Value n) {
    return prepareGated(k, tiles, indices, locations, nullptr, nullptr, shape,
                        slot, n);
  }

  /// prepare, and when `gates` is given, the samples' gates (a rank-1
  /// global window) into slot `slot` of `gateTiles`, 0 for a dropped
  /// sample.
  Value prepareGated(KernelBuilder &k, RowTilePipeline &tiles, Value indices,
                     Value locations, Value gates, Value gateTiles,
                     const MoEShape &shape, Value slot, Value n) {
    scratch.load(k, indices, locations, n);
    Value g = gates ? tiles.block(gateTiles, slot, n) : nullptr;
    if (gates)
      k.dmaStart(gates, g);
    k.waitAll();
    Value slotRows = tiles.block(rows, slot, n);
    Value kept = prefix(k, mask, n);
    scratch.compute(k, shape, n, slotRows, kept);
    k.vselect(kept, slotRows, prefix(k, minusOne, n), slotRows);
    if (gates)
      k.vselect(kept, g, prefix(k, zeros, n), g);
    return slotRows;
  }
};

/// Vector bytes a kernel holds at once when `build` makes it with tiles of
/// `deal` rows: it is built into a scratch block, counted with
/// getOnChipPeaks (the launch verifier's and the simulator's count) and
/// thrown away, so no hand count of its buffers can drift from the code.
int64_t measureVectorBytes(KernelBuilder &k,
                           function_ref<void(KernelBuilder &, int64_t)> build,
                           int64_t deal) {
  OpBuilder &b = k.builder();
  OpBuilder::InsertionGuard guard(b);
  Block scratch;
  b.setInsertionPointToEnd(&scratch);
  KernelBuilder probe(b, k.location());
  build(probe, deal);
  int64_t bytes = dev::getOnChipPeaks(
      scratch)[static_cast<unsigned>(dev::MemorySpace::vector)];
  scratch.dropAllReferences();
  while (!scratch.empty())
    scratch.back().erase();
  return bytes;
}

/// The most rows a tile can have within `capacity` bytes (0 when not even
/// one fits): a kernel's buffers grow linearly with its tile's rows, so two
/// measurements give the line.
int64_t fitTileRows(KernelBuilder &k,
                    function_ref<void(KernelBuilder &, int64_t)> build,
                    int64_t capacity) {
  int64_t one = measureVectorBytes(k, build, 1);
  int64_t perRow = measureVectorBytes(k, build, 2) - one;
  int64_t fixed = one - perRow;
  return capacity < fixed + perRow ? 0 : (capacity - fixed) / perRow;
}

/// Builds `build`'s kernel with tiles of as many samples as fit in
/// `capacity` bytes, at most a task's share; false when not even one fits.
bool buildFittedSampleTiles(
    KernelBuilder &k, const MoEShape &shape, int64_t tasks, int64_t capacity,
    function_ref<void(KernelBuilder &, int64_t)> build) {
  int64_t deal = std::min(fitTileRows(k, build, capacity),
                          shape.getMaxSamplesPerTask(tasks));
  if (deal < 1)
    return false;
  build(k, deal);
  return true;
}

/// Fails at `op` when `device` cannot hold the smallest tile of a
/// kernel: `bytes` of vector memory at once.
LogicalResult requireVectorBytes(Operation *op, const DeviceModel &device,
                                 int64_t bytes) {
  if (device.vectorBytes >= bytes)
    return success();
  return op->emitOpError("cannot be lowered for device '")
         << device.name << "': it has " << device.vectorBytes
         << " bytes of vector memory, the kernel needs at least " << bytes;
}

/// The family's one sizing rule: tiles of as many samples as fit in
/// vector memory (`tiles`, when `tryTiles`), else one sample at a time
/// with its hidden dimension in chunks of as many elements as fit beside
/// `fixed` bytes, `perElement` bytes each (`chunks`, given the chunk
/// length, at least 1 and at most hidden). Fails at `op` when not even one
/// element fits.
LogicalResult
buildTilesOrChunks(KernelBuilder &k, Operation *op, const MoEShape &shape,
                   const DeviceModel &device, bool tryTiles, int64_t perElement,
                   int64_t fixed,
                   function_ref<void(KernelBuilder &, int64_t)> tiles,
                   function_ref<void(int64_t)> chunks) {
  if (failed(requireVectorBytes(op, device, fixed + perElement)))
    return failure();
  int64_t tasks = device.getNumCores();
  if (tryTiles &&
      buildFittedSampleTiles(k, shape, tasks, device.vectorBytes, tiles))
    return success();
  chunks(std::max<int64_t>(
      1, std::min((device.vectorBytes - fixed) / perElement, shape.hidden)));
  return success();
}

/// Bytes of one element of a memref.
int64_t elementBytes(Value memref) {
  return dev::getElementBytes(elementOf(memref));
}

/// Bytes per element of a row chunk kept in f32 beside its `element` copy
/// (none when `element` is f32).
int64_t wideBytes(Type element) { return element.isF32() ? 0 : kWord; }

//===----------------------------------------------------------------------===//
// moe_dispatch_backward_data
//===----------------------------------------------------------------------===//

/// How split_hidden deals tasks to samples: n per sample, n + 1 for the
/// first `extra`, which take tasks [0, firstTasks).
struct TasksPerSample {
  Value n, nPlusOne, extra, firstTasks;

  TasksPerSample(KernelBuilder &k, const MoEShape &shape, int64_t tasks) {
    if (shape.isDynamicSamples()) {
      Value all = k.index(tasks), samples = shape.getSamples(k);
      n = k.div(all, samples);
      extra = k.rem(all, samples);
      nPlusOne = k.add(n, k.index(1));
      firstTasks = k.mul(nPlusOne, extra);
      return;
    }
    int64_t per = tasks / shape.samples, more = tasks % shape.samples;
    n = k.index(per);
    extra = k.index(more);
    nPlusOne = k.index(per + 1);
    firstTasks = k.index((per + 1) * more);
  }
};

/// Kernel 1: samples <= tasks; tasks split each sample's hidden dimension.
void buildSplitHidden(KernelBuilder &k, const MoEOperands &in, Value grad,
                      const MoEShape &shape, int64_t tasks, int64_t dealH) {
  dev::LaunchOp launch = k.launch(tasks, [&](Value tid) {
    TasksPerSample deal(k, shape, tasks);
    Value inFirst = k.lt(tid, deal.firstTasks);
    Value sample = k.select(inFirst, k.div(tid, deal.nPlusOne),
                            k.div(k.sub(tid, deal.extra), deal.n));
    Value perSample = k.select(inFirst, deal.nPlusOne, deal.n);
    Value firstTask = k.select(
        inFirst, k.mul(sample, deal.nPlusOne),
        k.add(deal.firstTasks, k.mul(k.sub(sample, deal.extra), deal.n)));
    Value logical = k.sub(tid, firstTask);
    // This task's share of the hidden dimension.
    Value hidden = k.index(shape.hidden);
    Value base = k.div(hidden, perSample), rest = k.rem(hidden, perSample);
    Value length =
        k.add(base, k.select(k.lt(logical, rest), k.index(1), k.index(0)));
    Value offset = k.add(k.mul(logical, base), k.min(logical, rest));

    Value buffer = k.alloc({dealH}, elementOf(grad));
    writeGradSlice(k, in, grad, buffer, sample, offset, length, shape);
  });
  recordTiling(launch, "split_hidden", 1, dealH);
}

/// Kernel 2 with whole rows: pipelined tiles of dealS samples, each row
/// scaled by its gate (0 for a dropped sample, whose row is zeros).
void buildSplitSamples(KernelBuilder &k, const MoEOperands &in, Value grad,
                       const MoEShape &shape, const DeviceModel &device,
                       int64_t dealS) {
  Type element = elementOf(grad);
  int64_t tasks = device.getNumCores();
  dev::LaunchOp launch = k.launch(tasks, [&](Value tid) {
    Value start, count;
    std::tie(start, count) = sampleRange(k, tid, shape, tasks);
    RowTilePipeline tiles(k, in.dispatch, dealS, device);
    SampleRowTiles rows(k, dealS, element);
    Value gates = k.alloc({2, dealS}, element);
    auto window = [&](Value perSample, Value t, Value n) {
      return k.window(perSample, {k.add(start, k.mul(t, k.index(dealS)))}, {n});
    };
    tiles.run(
        count,
        [&](Value t, Value slot, Value n) {
          return rows.prepareGated(
              k, tiles, window(in.indices, t, n), window(in.locations, t, n),
              window(in.gates, t, n), gates, shape, slot, n);
        },
        [&](Value t, Value slot, Value n, Value block) {
          k.vbinaryBroadcast(BinaryKind::mul, block,
                             tiles.block(gates, slot, n), block,
                             /*dimension=*/0);
          k.dmaStart(
              block,
              k.window(grad,
                       {k.add(start, k.mul(t, k.index(dealS))), k.index(0)},
                       {n, k.builder().getIndexAttr(shape.hidden)}),
              /*consumesSource=*/true);
        });
  });
  recordTiling(launch, "split_samples", dealS, shape.hidden);
}

/// Kernel 2 when a row does not fit: one sample at a time, hidden in chunks.
void buildSplitSamplesChunked(KernelBuilder &k, const MoEOperands &in,
                              Value grad, const MoEShape &shape, int64_t tasks,
                              int64_t dealH) {
  dev::LaunchOp launch = k.launch(tasks, [&](Value tid) {
    Value start, count;
    std::tie(start, count) = sampleRange(k, tid, shape, tasks);
    Value buffer = k.alloc({dealH}, elementOf(grad));
    k.forLoop(start, k.add(start, count), k.index(1), [&](Value s) {
      writeGradSlice(k, in, grad, buffer, s, k.index(0), k.index(shape.hidden),
                     shape);
    });
  });
  recordTiling(launch, "split_samples_chunked", 1, dealH);
}

LogicalResult buildBackwardData(KernelBuilder &k, Operation *op,
                                const MoEOperands &in, Value grad,
                                const MoEShape &shape,
                                const DeviceModel &device) {
  if (shape.samples == 0 || shape.hidden == 0)
    return success(); // Nothing to write.
  int64_t tasks = device.getNumCores();
  int64_t bytes = elementBytes(grad);
  // As mlu-ops' Kernel 1: a quarter of vector memory per chunk (room
  // for ping-pong).
  auto splitHidden = [&] {
    buildSplitHidden(
        k, in, grad, shape, tasks,
        std::min<int64_t>(device.vectorBytes / bytes / 4, shape.hidden));
  };
  // Chunks as mlu-ops' Kernel 2: two buffers of deal_h.
  auto splitSamples = [&] {
    return buildTilesOrChunks(
        k, op, shape, device, /*tryTiles=*/true, 2 * bytes, /*fixed=*/0,
        [&](KernelBuilder &b, int64_t deal) {
          buildSplitSamples(b, in, grad, shape, device, deal);
        },
        [&](int64_t dealH) {
          buildSplitSamplesChunked(k, in, grad, shape, tasks, dealH);
        });
  };
  if (!shape.isDynamicSamples() && shape.samples > tasks)
    return splitSamples();
  if (failed(requireVectorBytes(op, device, 4 * bytes)))
    return failure();
  if (!shape.isDynamicSamples()) {
    splitHidden();
    return success();
  }
  // The count is known at run time: both kernels, one taken (split_hidden
  // needs a sample to divide the tasks among).
  Value samples = shape.getSamples(k);
  Value fewSamples =
      k.andI(k.lt(k.index(0), samples), k.lt(samples, k.index(tasks + 1)));
  LogicalResult built = success();
  k.ifThenElse(fewSamples, splitHidden, [&] { built = splitSamples(); });
  return built;
}

//===----------------------------------------------------------------------===//
// moe_dispatch_forward
//===----------------------------------------------------------------------===//

/// How the forward kernel splits its work; dealR = 0 writes one row at a
/// time in chunks of dealH.
struct ForwardTiles {
  int64_t dealW, dealM, dealR, dealH;
};

/// Each task owns a contiguous range of dispatch rows, in chunks of dealW:
/// it scans every sample (tiles of dealM) and records, per row of the
/// chunk, the last kept sample naming it (vscatter in index order; other
/// samples go to a spare entry). Then it writes each row of the chunk:
/// gates[w] * input[w] for its sample w, zeros when none names it. Every
/// row is written by exactly one task, so the result is the same for any
/// order of tasks.
void buildGatherRows(KernelBuilder &k, const MoEOperands &in, Value result,
                     const MoEShape &shape, const DeviceModel &device,
                     const ForwardTiles &deal) {
  int64_t tasks = device.getNumCores();
  Type i32 = k.builder().getI32Type(), element = elementOf(result);
  int64_t totalRows = shape.experts * shape.capacity;
  dev::LaunchOp launch = k.launch(tasks, [&](Value tid) {
    Value first, owned;
    std::tie(first, owned) = taskRange(k, tid, totalRows, tasks);
    // The last kept sample of each row of the chunk and its gate (-1 and 0
    // when there is none); entry dealW is a spare that other samples land
    // on.
    Value winner = k.alloc({deal.dealW + 1}, i32);
    Value winnerGate = k.alloc({deal.dealW + 1}, element);
    // Two slots of scanned samples, so that tile m+1 loads while tile m is
    // computed on.
    Value experts = k.alloc({2, deal.dealM}, i32);
    Value slots = k.alloc({2, deal.dealM}, i32);
    Value gates = k.alloc({2, deal.dealM}, element);
    Value rows = k.alloc({deal.dealM}, i32), mask = k.alloc({deal.dealM}, i32);
    Value tmp = k.alloc({deal.dealM}, i32), ids = k.alloc({deal.dealM}, i32);
    Value spare = k.alloc({deal.dealM}, i32);
    k.vfill(spare, deal.dealW);
    OpFoldResult one = k.builder().getIndexAttr(1);
    auto scanSlot = [&](Value buffer, Value slot, Value n) {
      return k.window(buffer, {slot, k.index(0)}, {one, n}, /*drop=*/{0});
    };
    Value samples = shape.getSamples(k);
    auto scanRows = [&](Value m) {
      return k.min(k.index(deal.dealM), k.sub(samples, m));
    };
    auto loadScan = [&](Value m, Value slot) {
      Value n = scanRows(m);
      k.dmaStart(k.window(in.indices, {m}, {n}), scanSlot(experts, slot, n));
      k.dmaStart(k.window(in.locations, {m}, {n}), scanSlot(slots, slot, n));
      k.dmaStart(k.window(in.gates, {m}, {n}), scanSlot(gates, slot, n));
    };
    auto findWinners = [&](Value c0, Value length) {
      k.vfill(winner, -1);
      k.vfill(winnerGate, k.floatConstant(element, 0.0));
      Value step = k.index(deal.dealM);
      k.ifThenElse(k.lt(k.index(0), samples),
                   [&] { loadScan(k.index(0), k.index(0)); });
      k.forLoop(k.index(0), samples, step, [&](Value m) {
        Value slot = k.rem(k.div(m, step), k.index(2));
        Value n = scanRows(m), next = k.add(m, step);
        k.waitAll();
        k.ifThenElse(k.lt(next, samples),
                     [&] { loadScan(next, k.sub(k.index(1), slot)); });
        Value r = prefix(k, rows, n), kept = prefix(k, mask, n);
        Value t = prefix(k, tmp, n);
        computeDispatchRows(k, shape, scanSlot(experts, slot, n),
                            scanSlot(slots, slot, n), t, r, kept);
        // Only rows of [c0, c0 + length), renumbered from 0.
        Value low = k.convert(c0, i32);
        narrowMask(k, kept, ComparePredicate::ge, r, low, t);
        narrowMask(k, kept, ComparePredicate::lt, r,
                   k.convert(k.add(c0, length), i32), t);
        k.vbinaryScalar(BinaryKind::sub, r, low, r);
        k.vselect(kept, r, prefix(k, spare, n), r);
        Value id = prefix(k, ids, n);
        k.iota(id, m);
        // In index order: the last sample naming a row wins in both.
        k.builder().create<dev::VScatterOp>(k.location(), id, r, winner);
        k.builder().create<dev::VScatterOp>(
            k.location(), scanSlot(gates, slot, n), r, winnerGate);
      });
    };
    if (deal.dealR == 0) {
      Value buffer = k.alloc({deal.dealH}, element);
      forChunks(k, owned, deal.dealW, [&](Value c, Value length) {
        Value c0 = k.add(first, c);
        findWinners(c0, length);
        k.forLoop(k.index(0), length, k.index(1), [&](Value i) {
          Value w = k.load(winner, i);
          writeScaledOrZero(
              k, buffer, k.ge(w, k.i32(0)), in.input, k.toIndex(w),
              [&] { return k.load(winnerGate, i); }, result, k.add(c0, i),
              k.index(0), k.index(shape.hidden));
        });
      });
      return;
    }
    RowTilePipeline tiles(k, in.input, deal.dealR, device);
    forChunks(k, owned, deal.dealW, [&](Value c, Value length) {
      Value c0 = k.add(first, c);
      findWinners(c0, length);
      auto offsetOf = [&](Value t) { return k.mul(t, k.index(deal.dealR)); };
      tiles.run(
          length,
          [&](Value t, Value, Value n) {
            k.waitAll();
            return k.window(winner, {offsetOf(t)}, {n});
          },
          [&](Value t, Value, Value n, Value block) {
            // A row no sample names: a zero row times gate 0.
            k.vbinaryBroadcast(BinaryKind::mul, block,
                               k.window(winnerGate, {offsetOf(t)}, {n}), block,
                               /*dimension=*/0);
            k.dmaStart(block,
                       k.window(result, {k.add(c0, offsetOf(t)), k.index(0)},
                                {n, k.builder().getIndexAttr(shape.hidden)}),
                       /*consumesSource=*/true);
          });
    });
  });
  Builder b(launch.getContext());
  KernelBuilder::recordTiling(
      launch,
      {b.getNamedAttr(
           "strategy",
           b.getStringAttr(deal.dealR ? "gather_rows" : "gather_rows_chunked")),
       b.getNamedAttr("deal_w", b.getI64IntegerAttr(deal.dealW)),
       b.getNamedAttr("deal_m", b.getI64IntegerAttr(deal.dealM)),
       b.getNamedAttr("deal_r", b.getI64IntegerAttr(deal.dealR)),
       b.getNamedAttr("deal_h", b.getI64IntegerAttr(deal.dealH))});
}

LogicalResult buildForward(KernelBuilder &k, Operation *op,
                           const MoEOperands &in, Value result,
                           const MoEShape &shape, const DeviceModel &device) {
  int64_t tasks = device.getNumCores();
  int64_t words = device.vectorBytes / kWord;
  int64_t totalRows = shape.experts * shape.capacity;
  if (totalRows == 0 || shape.hidden == 0)
    return success();
  // The smallest kernel: two winner entries of two words, one sample of
  // scan state (11 words), one word of row.
  if (failed(requireVectorBytes(op, device, 16 * kWord)))
    return failure();
  // An eighth of vector memory for the winners (2 words per row), an
  // eighth for the scan (11 words per sample), the rest for row tiles.
  ForwardTiles deal;
  deal.dealW = std::max<int64_t>(
      1, std::min((totalRows + tasks - 1) / tasks, words / 16 - 1));
  deal.dealM = std::max<int64_t>(
      1, std::min<int64_t>(shape.isDynamicSamples()
                               ? words
                               : std::max<int64_t>(shape.samples, 1),
                           words / 88));
  deal.dealH = 0;
  auto build = [&](KernelBuilder &probe, int64_t rows) {
    buildGatherRows(probe, in, result, shape, device,
                    {deal.dealW, deal.dealM, rows, 0});
  };
  deal.dealR = std::min(fitTileRows(k, build, device.vectorBytes), deal.dealW);
  if (deal.dealR == 0)
    deal.dealH = (device.vectorBytes -
                  kWord * (2 * (deal.dealW + 1) + 11 * deal.dealM)) /
                 elementBytes(result);
  buildGatherRows(k, in, result, shape, device, deal);
  return success();
}

//===----------------------------------------------------------------------===//
// moe_dispatch_backward_gate
//===----------------------------------------------------------------------===//

/// Pipelined tiles of dealS samples: gather the dispatch rows, load the
/// input rows, multiply, and reduce each row (in j order from 0, as the
/// reference's loop), in f32; a dropped sample's sum is replaced by 0.
void buildDotTiles(KernelBuilder &k, const MoEOperands &in, Value gradGates,
                   const MoEShape &shape, const DeviceModel &device,
                   int64_t dealS) {
  Type element = elementOf(gradGates);
  int64_t tasks = device.getNumCores();
  dev::LaunchOp launch = k.launch(tasks, [&](Value tid) {
    Value start, count;
    std::tie(start, count) = sampleRange(k, tid, shape, tasks);
    RowTilePipeline tiles(k, in.dispatch, dealS, device);
    SampleRowTiles rows(k, dealS, element);
    Value inputs = k.alloc({2, dealS, shape.hidden}, elementOf(in.input));
    Value sums = k.alloc({2, dealS}, element);
    F32Scratch wideRows(k, element, {dealS, shape.hidden}),
        wideInputs(k, element, {dealS, shape.hidden}),
        wideSums(k, element, {dealS});
    auto baseOf = [&](Value t) {
      return k.add(start, k.mul(t, k.index(dealS)));
    };
    OpFoldResult hidden = k.builder().getIndexAttr(shape.hidden);
    tiles.run(
        count,
        [&](Value t, Value slot, Value n) {
          return rows.prepare(k, tiles, k.window(in.indices, {baseOf(t)}, {n}),
                              k.window(in.locations, {baseOf(t)}, {n}), shape,
                              slot, n);
        },
        [&](Value t, Value slot, Value n, Value block) {
          Value products = wideRows.widen(k, block, n);
          k.vbinary(BinaryKind::mul, products,
                    wideInputs.widen(k, tiles.block(inputs, slot, n), n),
                    products);
          Value sum = tiles.block(sums, slot, n);
          Value wideSum = wideSums.target(k, sum, n);
          k.vreduce(dev::ReduceKind::sum, products, wideSum);
          roundSumInto(k, wideSum, sum);
          Value kept = prefix(k, rows.mask, n);
          k.vcmpScalar(ComparePredicate::ge, tiles.block(rows.rows, slot, n),
                       k.i32(0), kept);
          k.vselect(kept, sum, prefix(k, rows.zeros, n), sum);
          k.dmaStart(sum, k.window(gradGates, {baseOf(t)}, {n}));
        },
        [&](Value t, Value slot, Value n) {
          k.dmaStart(k.window(in.input, {baseOf(t), k.index(0)}, {n, hidden}),
                     tiles.block(inputs, slot, n));
        });
  });
  recordTiling(launch, "dot_tiles", dealS, shape.hidden);
}

/// One sample at a time in chunks of dealH, when a tile of one row does not
/// fit: the running f32 sum is carried into each chunk's first product so
/// that the sum stays in j order: ((0 + p0) + p1) + ...
void buildDotPerSample(KernelBuilder &k, const MoEOperands &in, Value gradGates,
                       const MoEShape &shape, int64_t tasks, int64_t dealH) {
  Type f32 = k.builder().getF32Type(), element = elementOf(gradGates);
  Value hidden = k.index(shape.hidden);
  dev::LaunchOp launch = k.launch(tasks, [&](Value tid) {
    Value start, count;
    std::tie(start, count) = sampleRange(k, tid, shape, tasks);
    Value rowBuffer = k.alloc({dealH}, element),
          inputBuffer = k.alloc({dealH}, element);
    F32Scratch wideRow(k, element, {dealH}), wideInput(k, element, {dealH});
    Value sum = k.alloc({1}, f32);
    Value zero = k.index(0);
    k.forLoop(start, k.add(start, count), k.index(1), [&](Value s) {
      Value kept, row;
      std::tie(kept, row) = keptRow(k, in, s, shape);
      k.ifThenElse(
          kept,
          [&] {
            Value total = k.forLoop(
                k.index(0), hidden, k.index(dealH), k.f32(0.0),
                [&](Value j, Value acc) {
                  Value len = k.min(k.index(dealH), k.sub(hidden, j));
                  Value a = prefix(k, rowBuffer, len);
                  Value b = prefix(k, inputBuffer, len);
                  k.dma(rowSlice(k, in.dispatch, row, j, len), a);
                  k.dma(rowSlice(k, in.input, s, j, len), b);
                  Value p = wideRow.widen(k, a, len);
                  k.vbinary(BinaryKind::mul, p, wideInput.widen(k, b, len), p);
                  Value first = k.load(p, zero);
                  k.store(k.builder().create<arith::AddFOp>(k.location(), acc,
                                                            first),
                          p, zero);
                  k.vreduce(dev::ReduceKind::sum, p, sum);
                  return k.load(sum, zero);
                });
            k.store(k.convert(total, element), gradGates, s);
          },
          [&] { k.store(k.floatConstant(element, 0.0), gradGates, s); });
    });
  });
  recordTiling(launch, "dot_per_sample", 1, dealH);
}

LogicalResult buildBackwardGate(KernelBuilder &k, Operation *op,
                                const MoEOperands &in, Value gradGates,
                                const MoEShape &shape,
                                const DeviceModel &device) {
  if (shape.samples == 0)
    return success();
  // Per element of a chunk: the two rows, and their f32 copies for f16 and
  // bf16; then the one-word sum.
  Type element = elementOf(gradGates);
  int64_t perElement = 2 * (elementBytes(gradGates) + wideBytes(element));
  int64_t tasks = device.getNumCores();
  // With hidden = 0 the chunk loop runs no iteration (its step is 1).
  return buildTilesOrChunks(
      k, op, shape, device, /*tryTiles=*/shape.hidden > 0, perElement,
      /*fixed=*/kWord,
      [&](KernelBuilder &b, int64_t deal) {
        buildDotTiles(b, in, gradGates, shape, device, deal);
      },
      [&](int64_t dealH) {
        buildDotPerSample(k, in, gradGates, shape, tasks, dealH);
      });
}

//===----------------------------------------------------------------------===//
// moe_combine
//===----------------------------------------------------------------------===//

/// Row j of a [k, samples] operand, samples [base, base + n).
Value slotWindow(KernelBuilder &k, Value perSlot, Value j, Value base,
                 Value n) {
  return k.window(perSlot, {j, base}, {k.builder().getIndexAttr(1), n},
                  /*drop=*/{0});
}

/// combine_tiles' tiles: as many per task as tiles of dealS samples would
/// need, shrunk to the same size, computed when the samples are known.
struct CombineTiling {
  int64_t tile = 0, numTiles = 0;
  Value dynamicTile, dynamicNumTiles;

  CombineTiling(KernelBuilder &k, const MoEShape &shape, int64_t tasks,
                int64_t dealS)
      : tile(dealS) {
    if (!shape.isDynamicSamples()) {
      int64_t perTask = llvm::divideCeil(shape.samples, tasks);
      tile = llvm::divideCeil(perTask, llvm::divideCeil(perTask, dealS));
      numTiles = llvm::divideCeil(shape.samples, tile);
      return;
    }
    // ceil(a / b) for a >= 0, b > 0; at least one sample per tile.
    auto ceilDiv = [&](Value a, Value b) {
      return k.div(k.add(a, k.sub(b, k.index(1))), b);
    };
    Value samples = shape.getSamples(k);
    Value perTask = k.max(k.index(1), ceilDiv(samples, k.index(tasks)));
    dynamicTile = ceilDiv(perTask, ceilDiv(perTask, k.index(dealS)));
    dynamicNumTiles = ceilDiv(samples, dynamicTile);
  }

  Value getTile(KernelBuilder &k) const {
    return dynamicTile ? dynamicTile : k.index(tile);
  }
  /// The number of tiles plus `more`.
  Value getNumTilesPlus(KernelBuilder &k, int64_t more) const {
    return dynamicNumTiles ? k.add(dynamicNumTiles, k.index(more))
                           : k.index(numTiles + more);
  }
  /// The most samples a tile holds.
  int64_t getMaxTile() const { return tile; }
};

/// Tiles of dealS samples, k pipeline tiles each (one per slot j): slot j's
/// rows are gathered and gated as in backward_data (in f32), then added
/// into the tile's f32 sum, which starts at +0 and is written back after
/// the last slot (rounded into the slot's rows for f16 and bf16). The sum
/// needs one buffer: the next pipeline tile's synchronous loads wait for
/// its write-back before slot 0 of the next tile clears it.
/// Task t takes tiles t, t + T, t + 2T, ... of the samples, not a
/// contiguous share: a router drops slots in sample order (an expert fills
/// up), so contiguous shares give the first tasks every kept second slot
/// and twice the rows to gather. Tiles are shrunk so that every task gets
/// the same number (the last one partial).
void buildCombineTiles(KernelBuilder &k, const MoEOperands &in, Value output,
                       const MoEShape &shape, const DeviceModel &device,
                       int64_t dealS) {
  Type element = elementOf(output);
  int64_t tasks = device.getNumCores();
  int64_t topK = shape.topK;
  // Buffers hold dealS samples (what fitTileRows measures); tiles hold
  // `tile` <= dealS, as many per task as dealS would need.
  int64_t maxTile = 0;
  dev::LaunchOp launch = k.launch(tasks, [&](Value tid) {
    CombineTiling tiling(k, shape, tasks, dealS);
    maxTile = tiling.getMaxTile();
    Value tile = tiling.getTile(k);
    // Tiles tid + T i for i < ceil((N - tid) / T) (none when tid >= N).
    Value count =
        k.div(k.sub(tiling.getNumTilesPlus(k, tasks - 1), tid), k.index(tasks));
    RowTilePipeline tiles(k, in.dispatch, dealS, device);
    SampleRowTiles rows(k, dealS, element);
    Value gates = k.alloc({2, dealS}, element);
    Value sum = k.alloc({dealS, shape.hidden}, k.builder().getF32Type());
    F32Scratch wideRows(k, element, {dealS, shape.hidden}),
        wideGates(k, element, {dealS});
    OpFoldResult hidden = k.builder().getIndexAttr(shape.hidden);
    Value slots = k.index(topK);
    // Pipeline tile u is slot u % k of the task's sample tile u / k.
    auto baseOf = [&](Value u) {
      Value number = k.add(tid, k.mul(k.div(u, slots), k.index(tasks)));
      return k.mul(number, tile);
    };
    auto tileRows = [&](Value u) {
      return k.min(tile, k.sub(shape.getSamples(k), baseOf(u)));
    };
    tiles.runTiles(
        k.mul(count, slots), tileRows,
        [&](Value u, Value slot, Value n) {
          Value j = k.rem(u, slots), base = baseOf(u);
          return rows.prepareGated(
              k, tiles, slotWindow(k, in.indices, j, base, n),
              slotWindow(k, in.locations, j, base, n),
              slotWindow(k, in.gates, j, base, n), gates, shape, slot, n);
        },
        [&](Value u, Value slot, Value n, Value block) {
          Value j = k.rem(u, slots);
          Value total = leadingRows(k, sum, n);
          Value products = wideRows.widen(k, block, n);
          k.vbinaryBroadcast(BinaryKind::mul, products,
                             wideGates.widen(k, tiles.block(gates, slot, n), n),
                             products, /*dimension=*/0);
          k.ifThenElse(k.lt(j, k.index(1)),
                       [&] { k.vfill(total, k.f32(0.0)); });
          k.vbinary(BinaryKind::add, total, products, total);
          k.ifThenElse(k.ge(j, k.index(topK - 1)), [&] {
            k.dmaStart(roundSumInto(k, total, block),
                       k.window(output, {baseOf(u), k.index(0)}, {n, hidden}));
          });
        });
  });
  recordTiling(launch, "combine_tiles", maxTile, shape.hidden);
}

/// One sample at a time when a tile of one row does not fit (or k = 0):
/// hidden in chunks of dealH, each summed over the slots in an f32 buffer.
void buildCombineChunked(KernelBuilder &k, const MoEOperands &in, Value output,
                         const MoEShape &shape, int64_t tasks, int64_t dealH) {
  Type element = elementOf(output), f32 = k.builder().getF32Type();
  dev::LaunchOp launch = k.launch(tasks, [&](Value tid) {
    Value start, count;
    std::tie(start, count) = sampleRange(k, tid, shape, tasks);
    Value row = k.alloc({dealH}, element), sum = k.alloc({dealH}, f32);
    F32Scratch wideRow(k, element, {dealH});
    k.forLoop(start, k.add(start, count), k.index(1), [&](Value s) {
      forChunks(k, k.index(shape.hidden), dealH, [&](Value at, Value len) {
        Value total = prefix(k, sum, len), part = prefix(k, row, len);
        k.vfill(total, k.f32(0.0));
        k.forLoop(k.index(0), k.index(shape.topK), k.index(1), [&](Value j) {
          Value kept, source;
          std::tie(kept, source) =
              keptRow(k, in.indices, in.locations, {j, s}, shape);
          k.ifThenElse(kept, [&] {
            k.dma(rowSlice(k, in.dispatch, source, at, len), part);
            Value product = wideRow.widen(k, part, len);
            k.vbinaryScalar(BinaryKind::mul, product,
                            k.convert(k.load(in.gates, {j, s}), f32), product);
            k.vbinary(BinaryKind::add, total, product, total);
          });
        });
        k.dma(roundSumInto(k, total, part), rowSlice(k, output, s, at, len));
      });
    });
  });
  recordTiling(launch, "combine_chunked", 1, dealH);
}

LogicalResult buildCombine(KernelBuilder &k, Operation *op,
                           const MoEOperands &in, Value output,
                           const MoEShape &shape, const DeviceModel &device) {
  if (shape.samples == 0 || shape.hidden == 0)
    return success(); // Nothing to write.
  // Per element of a chunk: the row, its f32 copy for f16 and bf16, and
  // the f32 sum.
  Type element = elementOf(output);
  int64_t perElement = elementBytes(output) + wideBytes(element) + kWord;
  int64_t tasks = device.getNumCores();
  return buildTilesOrChunks(
      k, op, shape, device, /*tryTiles=*/shape.topK > 0, perElement,
      /*fixed=*/0,
      [&](KernelBuilder &b, int64_t deal) {
        buildCombineTiles(b, in, output, shape, device, deal);
      },
      [&](int64_t dealH) {
        buildCombineChunked(k, in, output, shape, tasks, dealH);
      });
}

/// Only the number of samples may be read at run time: the kernels size
/// their buffers from hidden and k, and dispatch's rows are the
/// attributes'. (Checked on the op's own tensors, the types the user wrote.)
LogicalResult requireStaticSizes(Operation *op) {
  MoEOperands in =
      cast<MoEDispatchOpInterface>(op).getMoEOperands(op->getOperands());
  auto type = [](Value v) { return cast<ShapedType>(v.getType()); };
  auto fail = [&](StringRef what, Value value) {
    return op->emitOpError("cannot be lowered to the device: ")
           << what << " has type " << value.getType()
           << "; only the number of samples may be dynamic";
  };
  if (in.topK && type(in.indices).isDynamicDim(0))
    return fail("indices", in.indices);
  if (in.dispatch && !type(in.dispatch).hasStaticShape())
    return fail("dispatch", in.dispatch);
  if (in.input && type(in.input).isDynamicDim(1))
    return fail("input", in.input);
  return success();
}

/// A launch that fails the kernel unless every per-sample operand has as
/// many samples as indices, where either count is read at run time.
void checkSampleCounts(KernelBuilder &k, Operation *op, const MoEOperands &in,
                       const MoEShape &shape) {
  int64_t last = shape.getSamplesDim();
  std::tuple<StringRef, Value, int64_t> perSample[] = {
      {"gates", in.gates, last},
      {"locations", in.locations, last},
      {"input", in.input, 0}};
  SmallVector<KernelBuilder::SizeCheck> checks;
  for (auto [what, value, dim] : perSample)
    if (value && (shape.isDynamicSamples() ||
                  cast<MemRefType>(value.getType()).isDynamicDim(dim)))
      checks.push_back({value, dim, in.indices, last,
                        ("'" + op->getName().getStringRef() + "' " + what +
                         " has {row} samples, indices has a different number")
                            .str()});
  if (!checks.empty())
    k.checkSizes(checks);
}

/// Builds the kernel of the MoE op `op`, whose operands by role are `in`.
LogicalResult buildMoEKernels(OpBuilder &b, Operation *op,
                              const MoEOperands &in, Value result,
                              const DeviceModel &device) {
  if (failed(requireStaticSizes(op)))
    return failure();
  KernelBuilder k(b, op->getLoc());
  MoEShape shape(in);
  checkSampleCounts(k, op, in, shape);
  switch (in.result) {
  case MoEOperands::Result::SamplesByHidden:
    if (in.topK)
      return buildCombine(k, op, in, result, shape, device);
    return buildBackwardData(k, op, in, result, shape, device);
  case MoEOperands::Result::RowsByHidden:
    return buildForward(k, op, in, result, shape, device);
  case MoEOperands::Result::Samples:
    return buildBackwardGate(k, op, in, result, shape, device);
  }
  llvm_unreachable("unknown MoE result");
}

/// One model for the family: the op names its operands' roles
/// (MoEDispatchOpInterface); the result's shape picks the kernel.
template <typename OpT>
struct MoEKernelModel
    : DeviceKernelOpInterface::ExternalModel<MoEKernelModel<OpT>, OpT> {
  /// The number of samples may be read at run time (requireStaticSizes).
  bool takesRunTimeSizes(Operation *) const { return true; }

  LogicalResult buildDeviceKernels(Operation *op, OpBuilder &b,
                                   const KernelOperands &io,
                                   const DeviceModel &device,
                                   const KernelOptions &) const {
    MoEOperands in =
        cast<MoEDispatchOpInterface>(op).getMoEOperands(io.operands);
    return buildMoEKernels(b, op, in, io.results.front(), device);
  }
};

/// The result's sizes in terms of the operands' (tensor.dim, folded when
/// static), so that a number of samples read at run time reaches the
/// result: samples from indices, hidden from dispatch or input, and
/// dispatch's rows from the attributes.
template <typename OpT>
struct MoEResultShapes
    : ReifyRankedShapedTypeOpInterface::ExternalModel<MoEResultShapes<OpT>,
                                                      OpT> {
  LogicalResult reifyResultShapes(Operation *op, OpBuilder &b,
                                  ReifiedRankedShapedTypeDims &shapes) const {
    MoEOperands in =
        cast<MoEDispatchOpInterface>(op).getMoEOperands(op->getOperands());
    Location loc = op->getLoc();
    OpFoldResult samples =
        tensor::getMixedSize(b, loc, in.indices, in.topK ? 1 : 0);
    OpFoldResult hidden =
        tensor::getMixedSize(b, loc, in.dispatch ? in.dispatch : in.input, 1);
    switch (in.result) {
    case MoEOperands::Result::SamplesByHidden:
      shapes.push_back({samples, hidden});
      break;
    case MoEOperands::Result::RowsByHidden:
      shapes.push_back({b.getIndexAttr(in.capacity * in.numExperts), hidden});
      break;
    case MoEOperands::Result::Samples:
      shapes.push_back({samples});
      break;
    }
    return success();
  }
};

template <typename... Ops> void attachMoEModels(MLIRContext *ctx) {
  (Ops::template attachInterface<MoEKernelModel<Ops>, MoEResultShapes<Ops>>(
       *ctx),
   ...);
}

} // namespace

void npu::registerMoEKernelModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, NPUDialect *) {
    attachMoEModels<MoEDispatchBackwardDataOp, MoEDispatchForwardOp,
                    MoEDispatchBackwardGateOp, MoECombineOp>(ctx);
  });
}
