//===- MoEKernels.cpp - the MoE dispatch family on the device -------------===//
//
// moe_dispatch_backward_data follows seed 001, every parameter taken from
// the DeviceModel (tasks = cores, tiles from vector-memory capacity):
//  - split_hidden (seed Kernel 1, samples <= tasks): each sample is served
//    by tasks/samples tasks (the first tasks%samples samples by one more),
//    which split its hidden dimension; chunks of deal_h go through one
//    buffer: DMA in, multiply by the gate, DMA out.
//  - split_samples (Kernel 2, samples > tasks): each task takes a
//    contiguous range of samples in tiles of deal_s rows. Per tile, the
//    gates, indices and locations come in by DMA and the row numbers and
//    the validity mask are computed with vector ops, as in the seed; kept
//    rows are gathered by asynchronous DMA, dropped rows zero-filled. Tiles
//    are software-pipelined over two buffers: tile t+1's gathers run on the
//    DMA engine while tile t is scaled and written back.
//  - split_samples_chunked (Kernel 2 when one row does not fit): one sample
//    at a time, hidden in chunks of deal_h.
// moe_dispatch_forward zero-fills the dispatched tensor, then scatters the
// scaled rows; moe_dispatch_backward_gate computes one dot product per
// sample, chunk by chunk, keeping the running sum in j order. The chosen
// strategy and tile sizes are recorded on each launch as `npudev.tiling`.
// Work is O(samples * hidden) per op.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"
#include "OperatorKernels.h"
#include "npu/Dialect/NPU/NPUOps.h"
#include "npu/Dialect/NPUDev/Semantics.h"

using namespace mlir;
using namespace npu;
using dev::BinaryKind;
using dev::ComparePredicate;

namespace {

using npu::detail::MoEOperands;

struct MoEShape {
  int64_t samples, hidden, capacity, experts;

  /// The sizes of `in`, whose values are memrefs.
  explicit MoEShape(const MoEOperands &in) {
    auto shapeOf = [](Value v) {
      return cast<MemRefType>(v.getType()).getShape();
    };
    samples = shapeOf(in.indices)[0];
    hidden = shapeOf(in.dispatch ? in.dispatch : in.input)[1];
    capacity = in.capacity;
    experts = in.numExperts;
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
std::pair<Value, Value> taskRange(KernelBuilder &k, Value tid, int64_t total,
                                  int64_t tasks) {
  int64_t per = total / tasks, extra = total % tasks;
  Value count =
      k.select(k.lt(tid, k.index(extra)), k.index(per + 1), k.index(per));
  Value start = k.add(k.mul(tid, k.index(per)), k.min(tid, k.index(extra)));
  return {start, count};
}

/// for (j = 0; j < extent; j += deal) body(j, min(deal, extent - j)).
void forChunks(KernelBuilder &k, Value extent, int64_t deal,
               function_ref<void(Value, Value)> body) {
  k.forLoop(k.index(0), extent, k.index(deal),
            [&](Value j) { body(j, k.min(k.index(deal), k.sub(extent, j))); });
}

/// Whether sample `s` is kept, and its dispatch row: indices[s] * capacity +
/// locations[s] (scalar loads; used where a task handles single samples).
std::pair<Value, Value> keptRow(KernelBuilder &k, const MoEOperands &in,
                                Value s, const MoEShape &shape) {
  Value expert = k.toIndex(k.load(in.indices, s));
  Value slot = k.toIndex(k.load(in.locations, s));
  Value zero = k.index(0);
  Value kept =
      k.andI(k.andI(k.ge(expert, zero), k.lt(expert, k.index(shape.experts))),
             k.andI(k.ge(slot, zero), k.lt(slot, k.index(shape.capacity))));
  Value row = k.add(k.mul(expert, k.index(shape.capacity)), slot);
  return {kept, row};
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

/// grad[sample, offset:offset + length] = gates[sample] * dispatch[row, ...]
/// when the sample is kept, else zeros (`buffer` is zeroed to write them).
void writeGradSlice(KernelBuilder &k, const MoEOperands &in, Value grad,
                    Value buffer, Value sample, Value offset, Value length,
                    const MoEShape &shape) {
  auto [kept, row] = keptRow(k, in, sample, shape);
  k.ifThenElse(
      kept,
      [&] {
        copyScaledRow(k, buffer, in.dispatch, row, grad, sample, offset, length,
                      k.load(in.gates, sample));
      },
      [&] {
        int64_t deal = cast<MemRefType>(buffer.getType()).getShape()[0];
        k.builder().create<dev::VFillOp>(k.location(), k.f32(0.0), buffer);
        forChunks(k, length, deal, [&](Value j, Value len) {
          k.dma(prefix(k, buffer, len),
                rowSlice(k, grad, sample, k.add(offset, j), len));
        });
      });
}

//===----------------------------------------------------------------------===//
// moe_dispatch_backward_data
//===----------------------------------------------------------------------===//

/// Kernel 1: samples <= tasks; tasks split each sample's hidden dimension.
void buildSplitHidden(KernelBuilder &k, const MoEOperands &in, Value grad,
                      const MoEShape &shape, int64_t tasks, int64_t dealH) {
  int64_t n = tasks / shape.samples, extra = tasks % shape.samples;
  dev::LaunchOp launch = k.launch(tasks, [&](Value tid) {
    // Tasks [0, (n+1) * extra) serve the first `extra` samples, n + 1 each;
    // the rest serve the others, n each.
    Value inFirst = k.lt(tid, k.index((n + 1) * extra));
    Value sample = k.select(inFirst, k.div(tid, k.index(n + 1)),
                            k.div(k.sub(tid, k.index(extra)), k.index(n)));
    Value perSample = k.select(inFirst, k.index(n + 1), k.index(n));
    Value firstTask =
        k.select(inFirst, k.mul(sample, k.index(n + 1)),
                 k.add(k.index((n + 1) * extra),
                       k.mul(k.sub(sample, k.index(extra)), k.index(n))));
    Value logical = k.sub(tid, firstTask);
    // This task's share of the hidden dimension.
    Value hidden = k.index(shape.hidden);
    Value base = k.div(hidden, perSample), rest = k.rem(hidden, perSample);
    Value length =
        k.add(base, k.select(k.lt(logical, rest), k.index(1), k.index(0)));
    Value offset = k.add(k.mul(logical, base), k.min(logical, rest));

    Value buffer = k.alloc({dealH}, k.builder().getF32Type());
    writeGradSlice(k, in, grad, buffer, sample, offset, length, shape);
  });
  recordTiling(launch, "split_hidden", 1, dealH);
}

/// Kernel 2 with whole rows: pipelined tiles of dealS samples.
void buildSplitSamples(KernelBuilder &k, const MoEOperands &in, Value grad,
                       const MoEShape &shape, int64_t tasks, int64_t dealS) {
  Type f32 = k.builder().getF32Type(), i32 = k.builder().getI32Type();
  int64_t hidden = shape.hidden;
  dev::LaunchOp launch = k.launch(tasks, [&](Value tid) {
    auto [start, count] = taskRange(k, tid, shape.samples, tasks);
    // Two slots of per-tile state and rows; scratch for the mask.
    Value gateTiles = k.alloc({2, dealS}, f32);
    Value rowTiles = k.alloc({2, dealS}, i32);
    Value maskTiles = k.alloc({2, dealS}, i32);
    Value experts = k.alloc({dealS}, i32), slots = k.alloc({dealS}, i32);
    Value scratch = k.alloc({dealS}, i32);
    Value data = k.alloc({2, dealS, hidden}, f32);
    OpFoldResult one = k.builder().getIndexAttr(1);
    auto slotRow = [&](Value tiles, Value slot, Value n) {
      return k.window(tiles, {slot, k.index(0)}, {one, n}, /*drop=*/{0});
    };
    auto tileRows = [&](Value t) {
      return k.min(k.index(dealS), k.sub(count, k.mul(t, k.index(dealS))));
    };
    auto cmp = [&](ComparePredicate p, Value in, Value scalar, Value out) {
      k.builder().create<dev::VCompareScalarOp>(k.location(), p, in, scalar,
                                                out);
    };
    auto andInto = [&](Value acc, Value other) {
      k.builder().create<dev::VBinaryOp>(k.location(), BinaryKind::And, acc,
                                         other, acc);
    };
    // Gates, rows and mask of tile t into `slot` (synchronous copies, which
    // also wait for everything queued before them).
    auto loadMeta = [&](Value t, Value slot) {
      Value base = k.add(start, k.mul(t, k.index(dealS)));
      Value n = tileRows(t);
      Value e = prefix(k, experts, n), s = prefix(k, slots, n);
      Value tmp = prefix(k, scratch, n);
      Value rows = slotRow(rowTiles, slot, n),
            mask = slotRow(maskTiles, slot, n);
      k.dma(k.window(in.gates, {base}, {n}), slotRow(gateTiles, slot, n));
      k.dma(k.window(in.indices, {base}, {n}), e);
      k.dma(k.window(in.locations, {base}, {n}), s);
      // rows = experts * capacity + slots
      k.builder().create<dev::VBinaryScalarOp>(k.location(), BinaryKind::mul, e,
                                               k.i32(shape.capacity), rows);
      k.builder().create<dev::VBinaryOp>(k.location(), BinaryKind::add, rows, s,
                                         rows);
      // mask = 0 <= slots < capacity && 0 <= experts < num_experts
      cmp(ComparePredicate::ge, s, k.i32(0), mask);
      cmp(ComparePredicate::lt, s, k.i32(shape.capacity), tmp);
      andInto(mask, tmp);
      cmp(ComparePredicate::ge, e, k.i32(0), tmp);
      andInto(mask, tmp);
      cmp(ComparePredicate::lt, e, k.i32(shape.experts), tmp);
      andInto(mask, tmp);
    };
    auto dataRow = [&](Value slot, Value si) {
      return k.window(data, {slot, si, k.index(0)},
                      {one, one, k.builder().getIndexAttr(hidden)},
                      /*drop=*/{0, 1});
    };
    // Gather kept rows of tile t (asynchronously), zero the dropped ones.
    auto gather = [&](Value t, Value slot) {
      k.forLoop(k.index(0), tileRows(t), k.index(1), [&](Value si) {
        Value kept = k.load(maskTiles, {slot, si});
        k.ifThenElse(
            k.builder().create<arith::CmpIOp>(
                k.location(), arith::CmpIPredicate::ne, kept, k.i32(0)),
            [&] {
              Value row = k.toIndex(k.load(rowTiles, {slot, si}));
              k.dmaStart(rowSlice(k, in.dispatch, row, k.index(0),
                                  k.builder().getIndexAttr(hidden)),
                         dataRow(slot, si));
            },
            [&] {
              k.builder().create<dev::VFillOp>(k.location(), k.f32(0.0),
                                               dataRow(slot, si));
            });
      });
    };
    // Scale the kept rows of tile t and write the tile back.
    auto finish = [&](Value t, Value slot) {
      Value n = tileRows(t);
      k.forLoop(k.index(0), n, k.index(1), [&](Value si) {
        Value kept = k.load(maskTiles, {slot, si});
        k.ifThenElse(k.builder().create<arith::CmpIOp>(k.location(),
                                                       arith::CmpIPredicate::ne,
                                                       kept, k.i32(0)),
                     [&] {
                       Value row = dataRow(slot, si);
                       k.builder().create<dev::VBinaryScalarOp>(
                           k.location(), BinaryKind::mul, row,
                           k.load(gateTiles, {slot, si}), row);
                     });
      });
      Value base = k.add(start, k.mul(t, k.index(dealS)));
      Value block = k.window(data, {slot, k.index(0), k.index(0)},
                             {one, n, k.builder().getIndexAttr(hidden)},
                             /*drop=*/{0});
      k.dmaStart(block, k.window(grad, {base, k.index(0)},
                                 {n, k.builder().getIndexAttr(hidden)}));
    };

    Value tiles = k.div(k.add(count, k.index(dealS - 1)), k.index(dealS));
    k.ifThenElse(k.lt(k.index(0), tiles), [&] {
      loadMeta(k.index(0), k.index(0));
      gather(k.index(0), k.index(0));
    });
    k.forLoop(k.index(0), tiles, k.index(1), [&](Value t) {
      Value slot = k.rem(t, k.index(2));
      Value next = k.add(t, k.index(1));
      k.ifThenElse(
          k.lt(next, tiles),
          [&] {
            Value other = k.sub(k.index(1), slot);
            loadMeta(next, other);
            gather(next, other);
          },
          [&] { k.builder().create<dev::WaitAllOp>(k.location()); });
      finish(t, slot);
    });
    k.builder().create<dev::WaitAllOp>(k.location());
  });
  recordTiling(launch, "split_samples", dealS, hidden);
}

/// Kernel 2 when a row does not fit: one sample at a time, hidden in chunks.
void buildSplitSamplesChunked(KernelBuilder &k, const MoEOperands &in,
                              Value grad, const MoEShape &shape, int64_t tasks,
                              int64_t dealH) {
  dev::LaunchOp launch = k.launch(tasks, [&](Value tid) {
    auto [start, count] = taskRange(k, tid, shape.samples, tasks);
    Value buffer = k.alloc({dealH}, k.builder().getF32Type());
    k.forLoop(start, k.add(start, count), k.index(1), [&](Value s) {
      writeGradSlice(k, in, grad, buffer, s, k.index(0), k.index(shape.hidden),
                     shape);
    });
  });
  recordTiling(launch, "split_samples_chunked", 1, dealH);
}

/// Vector bytes the split_samples kernel holds at once with tiles of
/// `dealS` rows: the kernel is built into a scratch block, counted with
/// getOnChipPeaks (the launch verifier's and the simulator's count) and
/// thrown away, so no hand count of its buffers can drift from the code.
int64_t measureSplitSamples(KernelBuilder &k, const MoEOperands &in, Value grad,
                            const MoEShape &shape, int64_t tasks,
                            int64_t dealS) {
  OpBuilder &b = k.builder();
  OpBuilder::InsertionGuard guard(b);
  Block scratch;
  b.setInsertionPointToEnd(&scratch);
  KernelBuilder probe(b, k.location());
  buildSplitSamples(probe, in, grad, shape, tasks, dealS);
  int64_t bytes = dev::getOnChipPeaks(
      scratch)[static_cast<unsigned>(dev::MemorySpace::vector)];
  scratch.dropAllReferences();
  while (!scratch.empty())
    scratch.back().erase();
  return bytes;
}

/// The most rows a split_samples tile can have within `capacity` bytes
/// (0 when not even one fits): its buffers grow linearly with the rows, so
/// two measurements give the line.
int64_t fitSplitSamplesTile(KernelBuilder &k, const MoEOperands &in, Value grad,
                            const MoEShape &shape, int64_t tasks,
                            int64_t capacity) {
  int64_t one = measureSplitSamples(k, in, grad, shape, tasks, 1);
  int64_t perRow = measureSplitSamples(k, in, grad, shape, tasks, 2) - one;
  int64_t fixed = one - perRow;
  return capacity < fixed + perRow ? 0 : (capacity - fixed) / perRow;
}

/// Fails at `op` when `device` cannot hold the smallest tile of a
/// kernel: `words` 4-byte words of vector memory at once.
LogicalResult requireVectorWords(Operation *op, const DeviceModel &device,
                                 int64_t words) {
  if (device.vectorBytes >= words * kWord)
    return success();
  return op->emitOpError("cannot be lowered for device '")
         << device.name << "': it has " << device.vectorBytes
         << " bytes of vector memory, the kernel needs at least "
         << words * kWord;
}

LogicalResult buildBackwardData(KernelBuilder &k, Operation *op,
                                const MoEOperands &in, Value grad,
                                const MoEShape &shape,
                                const DeviceModel &device) {
  if (shape.samples == 0 || shape.hidden == 0)
    return success(); // Nothing to write.
  int64_t tasks = device.getNumCores();
  int64_t words = device.vectorBytes / kWord;
  if (shape.samples <= tasks) {
    // Seed: a quarter of vector memory per chunk (room for ping-pong).
    if (failed(requireVectorWords(op, device, 4)))
      return failure();
    buildSplitHidden(k, in, grad, shape, tasks,
                     std::min<int64_t>(words / 4, shape.hidden));
    return success();
  }
  int64_t perTask = (shape.samples + tasks - 1) / tasks;
  int64_t dealS = std::min(
      fitSplitSamplesTile(k, in, grad, shape, tasks, device.vectorBytes),
      perTask);
  if (dealS >= 1) {
    buildSplitSamples(k, in, grad, shape, tasks, dealS);
    return success();
  }
  // Seed: two buffers of deal_h.
  if (failed(requireVectorWords(op, device, 2)))
    return failure();
  buildSplitSamplesChunked(k, in, grad, shape, tasks, words / 2);
  return success();
}

//===----------------------------------------------------------------------===//
// moe_dispatch_forward
//===----------------------------------------------------------------------===//

LogicalResult buildForward(KernelBuilder &k, Operation *op,
                           const MoEOperands &in, Value result,
                           const MoEShape &shape, const DeviceModel &device) {
  int64_t tasks = device.getNumCores();
  int64_t words = device.vectorBytes / kWord;
  int64_t total = shape.experts * shape.capacity * shape.hidden;
  if (total == 0)
    return success();
  if (failed(requireVectorWords(op, device, 1)))
    return failure();
  // Zero every row: each task clears a contiguous range of the flattened
  // tensor.
  int64_t dealZ = std::min(words, (total + tasks - 1) / tasks);
  Value flat = k.builder().create<memref::CollapseShapeOp>(
      k.location(), result, ArrayRef<ReassociationIndices>{{0, 1}});
  dev::LaunchOp fill = k.launch(tasks, [&](Value tid) {
    auto [start, count] = taskRange(k, tid, total, tasks);
    Value zeros = k.alloc({dealZ}, k.builder().getF32Type());
    k.builder().create<dev::VFillOp>(k.location(), k.f32(0.0), zeros);
    forChunks(k, count, dealZ, [&](Value j, Value len) {
      k.dma(prefix(k, zeros, len), k.window(flat, {k.add(start, j)}, {len}));
    });
  });
  recordTiling(fill, "zero_fill", 1, dealZ);
  if (shape.samples == 0)
    return success();
  // Scatter the scaled rows, samples in order within and across tasks.
  int64_t dealH = std::min(words, shape.hidden);
  Value hidden = k.index(shape.hidden);
  dev::LaunchOp scatter = k.launch(tasks, [&](Value tid) {
    auto [start, count] = taskRange(k, tid, shape.samples, tasks);
    Value buffer = k.alloc({dealH}, k.builder().getF32Type());
    k.forLoop(start, k.add(start, count), k.index(1), [&](Value s) {
      auto [kept, row] = keptRow(k, in, s, shape);
      k.ifThenElse(kept, [&] {
        copyScaledRow(k, buffer, in.input, s, result, row, k.index(0), hidden,
                      k.load(in.gates, s));
      });
    });
  });
  recordTiling(scatter, "scatter_samples", 1, dealH);
  return success();
}

//===----------------------------------------------------------------------===//
// moe_dispatch_backward_gate
//===----------------------------------------------------------------------===//

LogicalResult buildBackwardGate(KernelBuilder &k, Operation *op,
                                const MoEOperands &in, Value gradGates,
                                const MoEShape &shape,
                                const DeviceModel &device) {
  if (shape.samples == 0)
    return success();
  // Two row chunks of at least one word, and the one-word sum.
  if (failed(requireVectorWords(op, device, 3)))
    return failure();
  int64_t tasks = device.getNumCores();
  // At least 1: with hidden = 0 the chunk loop runs no iteration, but its
  // step must still be positive.
  int64_t dealH = std::max<int64_t>(
      1, std::min((device.vectorBytes / kWord - 1) / 2, shape.hidden));
  Type f32 = k.builder().getF32Type();
  Value hidden = k.index(shape.hidden);
  dev::LaunchOp launch = k.launch(tasks, [&](Value tid) {
    auto [start, count] = taskRange(k, tid, shape.samples, tasks);
    Value rowBuffer = k.alloc({dealH}, f32),
          inputBuffer = k.alloc({dealH}, f32);
    Value sum = k.alloc({1}, f32);
    Value zero = k.index(0);
    k.forLoop(start, k.add(start, count), k.index(1), [&](Value s) {
      auto [kept, row] = keptRow(k, in, s, shape);
      k.ifThenElse(
          kept,
          [&] {
            Value total =
                k.forLoop(k.index(0), hidden, k.index(dealH), k.f32(0.0),
                          [&](Value j, Value acc) {
                            Value len = k.min(k.index(dealH), k.sub(hidden, j));
                            Value a = prefix(k, rowBuffer, len);
                            Value b = prefix(k, inputBuffer, len);
                            k.dma(rowSlice(k, in.dispatch, row, j, len), a);
                            k.dma(rowSlice(k, in.input, s, j, len), b);
                            k.builder().create<dev::VBinaryOp>(
                                k.location(), BinaryKind::mul, a, b, a);
                            // Carry the running sum into the chunk so that the
                            // sum stays in j order: ((acc + p0) + p1) + ...
                            Value first = k.load(a, zero);
                            k.store(k.builder().create<arith::AddFOp>(
                                        k.location(), acc, first),
                                    a, zero);
                            k.builder().create<dev::VReduceOp>(
                                k.location(), dev::ReduceKind::sum, a, sum);
                            return k.load(sum, zero);
                          });
            k.store(total, gradGates, s);
          },
          [&] { k.store(k.f32(0.0), gradGates, s); });
    });
  });
  recordTiling(launch, "dot_per_sample", 1, dealH);
  return success();
}

} // namespace

bool npu::isMoEOp(Operation *op) {
  return isa<MoEDispatchBackwardDataOp, MoEDispatchForwardOp,
             MoEDispatchBackwardGateOp>(op);
}

LogicalResult npu::buildMoEKernels(OpBuilder &b, Operation *op,
                                   ValueRange operands, Value result,
                                   const DeviceModel &device) {
  // The op's named operands, with the memrefs in place of the tensors.
  std::optional<MoEOperands> in;
  if (auto data = dyn_cast<MoEDispatchBackwardDataOp>(op))
    in.emplace(MoEDispatchBackwardDataOp::Adaptor(operands, data));
  else if (auto forward = dyn_cast<MoEDispatchForwardOp>(op))
    in.emplace(MoEDispatchForwardOp::Adaptor(operands, forward));
  else
    in.emplace(MoEDispatchBackwardGateOp::Adaptor(
        operands, cast<MoEDispatchBackwardGateOp>(op)));
  KernelBuilder k(b, op->getLoc());
  MoEShape shape(*in);
  switch (in->result) {
  case MoEOperands::Result::SamplesByHidden:
    return buildBackwardData(k, op, *in, result, shape, device);
  case MoEOperands::Result::RowsByHidden:
    return buildForward(k, op, *in, result, shape, device);
  case MoEOperands::Result::Samples:
    return buildBackwardGate(k, op, *in, result, shape, device);
  }
  llvm_unreachable("unknown MoE result");
}
