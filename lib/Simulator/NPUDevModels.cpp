//===- NPUDevModels.cpp - meaning and cost of npudev ops ------------------===//
//
// Launches and tasks, on-chip allocation, DMA, and the vector and cube
// units. A vector op costs its issue cycles plus the bytes it streams over
// the unit's width (sort and unique log2(n) passes over theirs); a matmul
// its MACs over the cube rate (half rate for f32 inputs); a DMA its bytes
// over the engine's bandwidth, capped by the core's share of global
// bandwidth, plus the latency (docs/simulator.md). Whole-buffer loops are
// in VectorOps.cpp. Every op checks that what it reads was written.
//
//===----------------------------------------------------------------------===//

#include "Models.h"
#include "VectorOps.h"
#include "npu/Dialect/NPUDev/NPUDevOps.h"
#include "npu/Dialect/NPUDev/Semantics.h"

#include <cmath>

using namespace mlir;
using namespace npu;
using namespace npu::sim;
using namespace npu::dev;

namespace {

/// Bytes a vector op streams through the unit.
double streamedBytes(const MemRefView &v) {
  return static_cast<double>(v.getNumElements()) * getElementBytes(v.getKind());
}

/// Fails unless every view in `views` is fully written.
LogicalResult checkAllWritten(OpExecution &exec,
                              std::initializer_list<const MemRefView *> views) {
  for (const MemRefView *v : views)
    if (failed(exec.checkWritten(*v)))
      return failure();
  return success();
}

LogicalResult reportError(OpExecution &exec, const OpError &error) {
  if (error.empty())
    return success();
  return exec.emitOpError() << error;
}

//===----------------------------------------------------------------------===//
// Tasks, memory, DMA
//===----------------------------------------------------------------------===//

struct Launch {
  static LogicalResult simulate(OpExecution &exec) {
    return exec.runTasks(cast<LaunchOp>(exec.getOp()).getTasks());
  }
};

struct MixedLaunch {
  static LogicalResult simulate(OpExecution &exec) {
    return exec.runMixedTasks();
  }
};

struct SetFlag {
  static LogicalResult simulate(OpExecution &exec) {
    auto op = cast<SetFlagOp>(exec.getOp());
    return exec.setFlag(op.getTo(), exec.getInt(0), op.getFlag());
  }
};

struct WaitFlag {
  static LogicalResult simulate(OpExecution &exec) {
    return exec.waitFlag(cast<WaitFlagOp>(exec.getOp()).getFlag());
  }
};

struct Async {
  static LogicalResult simulate(OpExecution &exec) {
    FailureOr<double> done = exec.runAsync(0);
    if (failed(done))
      return failure();
    exec.setFloat(0, *done);
    return success();
  }
};

struct TaskId {
  static LogicalResult simulate(OpExecution &exec) {
    exec.setInt(0, exec.getTaskId());
    return success();
  }
};

struct TaskDim {
  static LogicalResult simulate(OpExecution &exec) {
    exec.setInt(0, exec.getTaskDim());
    return success();
  }
};

struct Alloc {
  static LogicalResult simulate(OpExecution &exec) {
    auto type = cast<AllocOp>(exec.getOp()).getType();
    FailureOr<MemRefView> view = exec.allocate(type, type.getShape());
    if (failed(view))
      return failure();
    exec.setView(0, std::move(*view));
    return success();
  }
};

/// dma (`wait`) and dma_start: the copy happens at once, its time on the
/// DMA engine; dma_start's token holds the completion cycle.
template <bool wait> struct Dma {
  static LogicalResult simulate(OpExecution &exec) {
    const MemRefView &src = exec.getView(0), &dst = exec.getView(1);
    if (src.sizes != dst.sizes) {
      InFlightDiagnostic diag = exec.emitOpError() << "copies a view of [";
      llvm::interleaveComma(src.sizes, diag);
      diag << "] into one of [";
      llvm::interleaveComma(dst.sizes, diag);
      return diag << "]";
    }
    if (failed(exec.checkWritten(src)))
      return failure();
    copyView(src, dst);
    exec.markWritten(dst);
    if constexpr (!wait)
      if (cast<DmaStartOp>(exec.getOp()).getConsumesSource())
        src.buffer->forget(src);
    double done = exec.chargeDma(src, dst, wait);
    if (!wait)
      exec.setFloat(0, done);
    return success();
  }
};

/// dma_gather and dma_scatter: one row per index, in index order; a
/// negative index zero-fills (gather) or skips (scatter) its row. Each
/// row with an index is a request of its own (docs/simulator.md).
template <bool gather> struct DmaIndexed {
  static LogicalResult simulate(OpExecution &exec) {
    const MemRefView &indices = exec.getView(1);
    const MemRefView &rows = exec.getView(gather ? 0 : 2),
                     &dense = exec.getView(gather ? 2 : 0);
    bool add = !gather && cast<DmaScatterOp>(exec.getOp()).getAdd();
    if (failed(exec.checkWritten(indices)) ||
        (!gather && failed(exec.checkWritten(dense))))
      return failure();
    SmallVector<int64_t> rowOffsets;
    for (int64_t i = 0; i < indices.sizes[0]; ++i) {
      int64_t index =
          loadInt(indices.address(indices.linearize({i})), indices.getKind());
      if (index >= rows.sizes[0])
        return exec.emitOpError()
               << "index " << index << " at position " << i
               << " is out of range [0, " << rows.sizes[0] << ")";
      MemRefView denseRow = rowOf(dense, i);
      if (index < 0) {
        if (gather) {
          applyFill(ScalarValue{}, denseRow);
          exec.markWritten(denseRow);
        }
        continue;
      }
      MemRefView row = rowOf(rows, index);
      rowOffsets.push_back(row.offset);
      if ((gather || add) && failed(exec.checkWritten(row)))
        return failure();
      if (gather)
        copyView(row, denseRow);
      else if (add)
        (void)applyBinary(BinaryKind::add, row, denseRow, row);
      else
        copyView(denseRow, row);
      exec.markWritten(gather ? denseRow : row);
    }
    exec.chargeIndexedDma(dense, rows, rowOffsets, /*readsTable=*/gather || add,
                          /*writesTable=*/!gather);
    return success();
  }
};

struct Wait {
  static LogicalResult simulate(OpExecution &exec) {
    exec.waitUntil(exec.getFloat(0));
    return success();
  }
};

struct WaitAll {
  static LogicalResult simulate(OpExecution &exec) {
    exec.waitForAllDma();
    return success();
  }
};

struct Matmul {
  static LogicalResult simulate(OpExecution &exec) {
    auto op = cast<MatmulOp>(exec.getOp());
    const MemRefView &a = exec.getView(0), &b = exec.getView(1),
                     &c = exec.getView(2);
    if (failed(checkAllWritten(exec, {&a, &b})) ||
        (op.getAccumulate() && failed(exec.checkWritten(c))))
      return failure();
    // A transposed operand is read through a transposed view: the same
    // products in the same k order.
    MemRefView lhs = op.getTransposeA() ? transposedView(a) : a;
    MemRefView rhs = op.getTransposeB() ? transposedView(b) : b;
    applyMatmul(lhs, rhs, c, op.getAccumulate());
    exec.markWritten(c);
    exec.chargeCube(static_cast<double>(lhs.sizes[0]) * lhs.sizes[1] *
                        rhs.sizes[1],
                    a.getKind());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Vector unit
//===----------------------------------------------------------------------===//

/// out = lhs (kind) rhs, charged as a pass over lhs.
LogicalResult simulateBinary(OpExecution &exec, BinaryKind kind,
                             const MemRefView &lhs, const MemRefView &rhs,
                             const MemRefView &out) {
  exec.chargeVector(streamedBytes(lhs));
  OpError error = applyBinary(kind, lhs, rhs, out);
  exec.markWritten(out);
  return reportError(exec, error);
}

struct VBinary {
  static LogicalResult simulate(OpExecution &exec) {
    const MemRefView &lhs = exec.getView(0), &rhs = exec.getView(1),
                     &out = exec.getView(2);
    if (failed(checkAllWritten(exec, {&lhs, &rhs})))
      return failure();
    return simulateBinary(exec, cast<VBinaryOp>(exec.getOp()).getKind(), lhs,
                          rhs, out);
  }
};

/// rhs read through a view spanning lhs's shape with stride 0 on every
/// dimension but the broadcast one.
struct VBinaryBroadcast {
  static LogicalResult simulate(OpExecution &exec) {
    const MemRefView &lhs = exec.getView(0), &rhs = exec.getView(1),
                     &out = exec.getView(2);
    if (failed(checkAllWritten(exec, {&lhs, &rhs})))
      return failure();
    auto op = cast<VBinaryBroadcastOp>(exec.getOp());
    MemRefView spread = rhs;
    spread.sizes.assign(lhs.sizes.begin(), lhs.sizes.end());
    spread.strides.assign(lhs.sizes.size(), 0);
    spread.strides[op.getDimension()] = rhs.strides[0];
    return simulateBinary(exec, op.getKind(), lhs, spread, out);
  }
};

struct VBinaryScalar {
  static LogicalResult simulate(OpExecution &exec) {
    const MemRefView &in = exec.getView(0), &out = exec.getView(2);
    if (failed(exec.checkWritten(in)))
      return failure();
    exec.chargeVector(streamedBytes(in));
    OpError error =
        applyBinaryScalar(cast<VBinaryScalarOp>(exec.getOp()).getKind(), in,
                          exec.getScalar(1), out);
    exec.markWritten(out);
    return reportError(exec, error);
  }
};

/// An op reading operand 0 whole and writing its last operand whole,
/// costed by the bytes of operand 0: `Apply::apply(exec, in, out)`.
template <typename Apply> struct UnaryShaped {
  static LogicalResult simulate(OpExecution &exec) {
    unsigned last = exec.getOp()->getNumOperands() - 1;
    const MemRefView &in = exec.getView(0), &out = exec.getView(last);
    if (failed(exec.checkWritten(in)))
      return failure();
    exec.chargeVector(streamedBytes(in));
    Apply::apply(exec, in, out);
    exec.markWritten(out);
    return success();
  }
};

struct ApplyUnary {
  static void apply(OpExecution &exec, const MemRefView &in,
                    const MemRefView &out) {
    applyUnary(cast<VUnaryOp>(exec.getOp()).getKind(), in, out);
  }
};
struct ApplyCompareScalar {
  static void apply(OpExecution &exec, const MemRefView &in,
                    const MemRefView &out) {
    applyCompareScalar(cast<VCompareScalarOp>(exec.getOp()).getPredicate(), in,
                       exec.getScalar(1), out);
  }
};
struct ApplyReduce {
  static void apply(OpExecution &exec, const MemRefView &in,
                    const MemRefView &out) {
    auto op = cast<VReduceOp>(exec.getOp());
    Type element = cast<MemRefType>(op.getInput().getType()).getElementType();
    TypedAttr identity = getReductionIdentity(op.getKind(), element);
    ScalarValue start;
    if (auto i = dyn_cast<IntegerAttr>(identity))
      start.i = i.getValue().getSExtValue();
    else
      start.f = cast<FloatAttr>(identity).getValueAsDouble();
    applyReduce(op.getKind(), start,
                *getElementKind(getAccumulatorType(element)), in, out);
  }
};
struct ApplyCast {
  static void apply(OpExecution &, const MemRefView &in,
                    const MemRefView &out) {
    applyCast(in, out);
  }
};
struct ApplyTranspose {
  static void apply(OpExecution &, const MemRefView &in,
                    const MemRefView &out) {
    applyTranspose(in, out);
  }
};
struct ApplyCumsum {
  static void apply(OpExecution &exec, const MemRefView &in,
                    const MemRefView &out) {
    Type element = cast<MemRefType>(exec.getOp()->getOperand(0).getType())
                       .getElementType();
    applyCumsum(*getElementKind(getAccumulatorType(element)), in, out);
  }
};

struct VCompare {
  static LogicalResult simulate(OpExecution &exec) {
    const MemRefView &lhs = exec.getView(0), &rhs = exec.getView(1),
                     &out = exec.getView(2);
    if (failed(checkAllWritten(exec, {&lhs, &rhs})))
      return failure();
    exec.chargeVector(streamedBytes(lhs));
    applyCompare(cast<VCompareOp>(exec.getOp()).getPredicate(), lhs, rhs, out);
    exec.markWritten(out);
    return success();
  }
};

struct VSelect {
  static LogicalResult simulate(OpExecution &exec) {
    const MemRefView &mask = exec.getView(0), &onTrue = exec.getView(1),
                     &onFalse = exec.getView(2), &out = exec.getView(3);
    if (failed(checkAllWritten(exec, {&mask, &onTrue, &onFalse})))
      return failure();
    exec.chargeVector(streamedBytes(onTrue));
    applySelect(mask, onTrue, onFalse, out);
    exec.markWritten(out);
    return success();
  }
};

struct VFill {
  static LogicalResult simulate(OpExecution &exec) {
    const MemRefView &out = exec.getView(1);
    exec.chargeVector(streamedBytes(out));
    applyFill(exec.getScalar(0), out);
    exec.markWritten(out);
    return success();
  }
};

struct Iota {
  static LogicalResult simulate(OpExecution &exec) {
    const MemRefView &out = exec.getView(1);
    exec.chargeVector(streamedBytes(out));
    int64_t start = exec.getInt(0);
    unsigned dimension = cast<IotaOp>(exec.getOp()).getDimension();
    ElementKind kind = out.getKind();
    SmallVector<int64_t, 4> index(out.getRank(), 0);
    for (int64_t n = out.getNumElements(); n > 0; --n) {
      uint8_t *p = out.address(out.linearize(index));
      int64_t value = start + index[dimension];
      if (isFloat(kind))
        storeFloat(p, kind, static_cast<double>(value));
      else
        storeInt(p, kind, value);
      for (int d = static_cast<int>(index.size()) - 1; d >= 0; --d) {
        if (++index[d] < out.sizes[d])
          break;
        index[d] = 0;
      }
    }
    exec.markWritten(out);
    return success();
  }
};

/// Costs a reduction over the rows; the smallest non-negative one fails
/// the launch as it ends.
struct ReportRows {
  static LogicalResult simulate(OpExecution &exec) {
    const MemRefView &rows = exec.getView(0);
    if (failed(exec.checkWritten(rows)))
      return failure();
    exec.chargeVector(streamedBytes(rows));
    std::optional<int64_t> smallest;
    rows.forEachElement([&](int64_t i) {
      int64_t row = loadInt(rows.address(i), rows.getKind());
      if (row >= 0 && (!smallest || row < *smallest))
        smallest = row;
    });
    if (smallest)
      exec.reportRow(*smallest);
    return success();
  }
};

/// Gather reads the indexed rows of its source; scatter writes the indexed
/// rows of its target, which the written state then covers.
template <bool gather> struct VIndexed {
  static LogicalResult simulate(OpExecution &exec) {
    const MemRefView &source = exec.getView(0), &indices = exec.getView(1),
                     &out = exec.getView(2);
    if (failed(checkAllWritten(exec, {&indices})))
      return failure();
    if (!gather && failed(exec.checkWritten(source)))
      return failure();
    exec.chargeVector(streamedBytes(gather ? out : source));
    OpError error = gather ? applyGather(source, indices, out)
                           : applyScatter(source, indices, out);
    if (!error.empty())
      return reportError(exec, error);
    if (gather) {
      // A gather reads rows of `source`: each must have been written.
      for (int64_t i = 0; i < indices.sizes[0]; ++i) {
        int64_t row =
            loadInt(indices.address(indices.linearize({i})), indices.getKind());
        if (failed(exec.checkWritten(rowOf(source, row))))
          return failure();
      }
      exec.markWritten(out);
      return success();
    }
    for (int64_t i = 0; i < indices.sizes[0]; ++i)
      exec.markWritten(
          rowOf(out, loadInt(indices.address(indices.linearize({i})),
                             indices.getKind())));
    return success();
  }
};

/// n log2(n) bytes: a sorting network's passes over the row.
double sortingBytes(const MemRefView &in, int64_t row) {
  return streamedBytes(in) * std::max(1.0, std::log2(double(row)));
}

/// Operands: input, out, then values and out_values when present.
struct VSort {
  static LogicalResult simulate(OpExecution &exec) {
    const MemRefView &in = exec.getView(0), &out = exec.getView(1);
    bool pairs = exec.getOp()->getNumOperands() == 4;
    if (failed(exec.checkWritten(in)) ||
        (pairs && failed(exec.checkWritten(exec.getView(2)))))
      return failure();
    double bytes = sortingBytes(in, in.getRank() ? in.sizes.back() : 1);
    if (pairs) {
      // The payload moves with every pass over the keys.
      const MemRefView &values = exec.getView(2), &outValues = exec.getView(3);
      bytes += sortingBytes(values, values.sizes[0]);
      applySortPairs(in, out, values, outValues);
      exec.markWritten(outValues);
    } else {
      applySort(in, out);
    }
    exec.chargeVector(bytes);
    exec.markWritten(out);
    return success();
  }
};

/// Operands: a, b, out, then a_values, b_values, out_values when present.
/// One pass over both runs (and their values).
struct VMerge {
  static LogicalResult simulate(OpExecution &exec) {
    bool pairs = exec.getOp()->getNumOperands() == 6;
    for (unsigned i : {0u, 1u, 3u, 4u})
      if ((i < 3 || pairs) && failed(exec.checkWritten(exec.getView(i))))
        return failure();
    const MemRefView &out = exec.getView(2);
    double bytes = streamedBytes(out);
    if (pairs) {
      bytes += streamedBytes(exec.getView(5));
      applyMerge(exec.getView(0), exec.getView(1), out, &exec.getView(3),
                 &exec.getView(4), &exec.getView(5));
      exec.markWritten(exec.getView(5));
    } else {
      applyMerge(exec.getView(0), exec.getView(1), out, nullptr, nullptr,
                 nullptr);
    }
    exec.chargeVector(bytes);
    exec.markWritten(out);
    return success();
  }
};

/// Writes the distinct values to the front of `out`; the rest of `out`
/// keeps its state, written or not.
struct VUnique {
  static LogicalResult simulate(OpExecution &exec) {
    const MemRefView &in = exec.getView(0), &out = exec.getView(1);
    if (failed(exec.checkWritten(in)))
      return failure();
    exec.chargeVector(sortingBytes(in, in.sizes[0]));
    int64_t count = applyUnique(in, out);
    MemRefView front = out;
    front.sizes[0] = count;
    exec.markWritten(front);
    exec.setInt(0, count);
    return success();
  }
};

} // namespace

void npu::sim::registerNPUDevModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, NPUDevDialect *) {
    attachModel<Launch, LaunchOp>(ctx);
    attachModel<MixedLaunch, MixedLaunchOp>(ctx);
    attachModel<SetFlag, SetFlagOp>(ctx);
    attachModel<WaitFlag, WaitFlagOp>(ctx);
    attachModel<Async, AsyncOp>(ctx);
    attachModel<TaskId, TaskIdOp>(ctx);
    attachModel<TaskDim, TaskDimOp>(ctx);
    attachModel<Alloc, AllocOp>(ctx);
    attachModel<Dma<true>, DmaOp>(ctx);
    attachModel<Dma<false>, DmaStartOp>(ctx);
    attachModel<DmaIndexed<true>, DmaGatherOp>(ctx);
    attachModel<DmaIndexed<false>, DmaScatterOp>(ctx);
    attachModel<Wait, WaitOp>(ctx);
    attachModel<WaitAll, WaitAllOp>(ctx);
    attachModel<Matmul, MatmulOp>(ctx);
    attachModel<VBinary, VBinaryOp>(ctx);
    attachModel<VBinaryScalar, VBinaryScalarOp>(ctx);
    attachModel<VBinaryBroadcast, VBinaryBroadcastOp>(ctx);
    attachModel<UnaryShaped<ApplyUnary>, VUnaryOp>(ctx);
    attachModel<VCompare, VCompareOp>(ctx);
    attachModel<UnaryShaped<ApplyCompareScalar>, VCompareScalarOp>(ctx);
    attachModel<VSelect, VSelectOp>(ctx);
    attachModel<UnaryShaped<ApplyReduce>, VReduceOp>(ctx);
    attachModel<UnaryShaped<ApplyCast>, VCastOp>(ctx);
    attachModel<VFill, VFillOp>(ctx);
    attachModel<Iota, IotaOp>(ctx);
    attachModel<UnaryShaped<ApplyTranspose>, VTransposeOp>(ctx);
    attachModel<VIndexed<true>, VGatherOp>(ctx);
    attachModel<VIndexed<false>, VScatterOp>(ctx);
    attachModel<UnaryShaped<ApplyCumsum>, VCumsumOp>(ctx);
    attachModel<VSort, VSortOp>(ctx);
    attachModel<VMerge, VMergeOp>(ctx);
    attachModel<VUnique, VUniqueOp>(ctx);
    attachModel<ReportRows, ReportRowsOp>(ctx);
  });
}
