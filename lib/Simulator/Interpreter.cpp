//===- Interpreter.cpp - execute and time npudev kernels ------------------===//
//
// A tree-walking interpreter over func + scf + arith + math + memref +
// npudev. Host code (outside launches) runs untimed; a launch runs its body
// once per task, task t on core t mod min(tasks, cores), each core keeping
// its own CoreTimeline; the launch ends when the slowest core does, and
// launches run one after another. Vector and cube ops run as one C++ loop
// over their buffers (VectorOps.cpp). Cost of each op: docs/simulator.md.
//
//===----------------------------------------------------------------------===//

#include "Timeline.h"
#include "VectorOps.h"
#include "npu/Dialect/NPUDev/NPUDevOps.h"
#include "npu/Simulator/Simulator.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace npu;
using namespace npu::sim;
namespace dev = npu::dev;

StringRef npu::sim::getPipeName(Pipe pipe) {
  static const char *names[] = {"scalar", "dma", "vector", "cube"};
  return names[static_cast<unsigned>(pipe)];
}

namespace {

/// The run-time value of an SSA value.
struct RtValue {
  int64_t i = 0; ///< Integers, index, and a token's completion cycle.
  double f = 0;  ///< Floats.
  std::shared_ptr<MemRefView> view;
};

class Interpreter {
public:
  Interpreter(const DeviceModel &device, const SimulatorOptions &options,
              SimulationReport &report, std::vector<TraceEvent> *trace)
      : device(device), options(options), report(report), trace(trace) {}

  LogicalResult run(func::FuncOp func, MutableArrayRef<HostArray> args);

private:
  //===--- Values ---------------------------------------------------------===//
  RtValue &get(Value v) { return values[v]; }
  const MemRefView &view(Value v) { return *values[v].view; }
  ScalarValue scalar(Value v) {
    RtValue &r = values[v];
    return {r.i, r.f};
  }
  void setInt(Value v, int64_t i) { values[v].i = i; }
  void setFloat(Value v, double f) { values[v].f = f; }

  //===--- Execution ------------------------------------------------------===//
  LogicalResult execBlock(Block &block, SmallVectorImpl<RtValue> &yielded);
  LogicalResult execOp(Operation &op);
  LogicalResult execLaunch(dev::LaunchOp op);
  LogicalResult execArith(Operation &op, bool &handled);
  LogicalResult execScf(Operation &op, bool &handled);
  LogicalResult execMemRef(Operation &op, bool &handled);
  LogicalResult execDevice(Operation &op, bool &handled);
  LogicalResult execVector(Operation &op, bool &handled);

  //===--- Memory ---------------------------------------------------------===//
  std::shared_ptr<MemRefView> allocate(Operation *op, MemRefType type,
                                       ArrayRef<int64_t> sizes);
  LogicalResult checkIndices(Operation *op, const MemRefView &v,
                             ArrayRef<int64_t> indices);
  LogicalResult subview(memref::SubViewOp op);

  //===--- Timing ---------------------------------------------------------===//
  bool inKernel() const { return timeline != nullptr; }
  void scalarCost(double cycles = 1) {
    if (inKernel())
      timeline->run(Pipe::Scalar, cycles * device.scalarCycles);
  }
  /// Transfer cycles of a copy (the latency comes on top).
  double dmaCycles(const MemRefView &a, const MemRefView &b);
  /// Times a copy; returns its completion cycle (0 outside kernels).
  double timeDma(Operation &op, double transfer, bool wait);
  void timeOp(Operation &op, Pipe pipe, double cycles);
  void vectorCost(Operation &op, double bytes);
  void record(Operation &op, Pipe pipe, double start, double cycles);

  const DeviceModel &device;
  const SimulatorOptions &options;
  SimulationReport &report;
  std::vector<TraceEvent> *trace;

  DenseMap<Value, RtValue> values;
  /// Set while a task runs.
  CoreTimeline *timeline = nullptr;
  unsigned core = 0;
  int64_t taskId = 0, taskDim = 0;
  unsigned activeCores = 1;
  /// Bytes of on-chip buffers live in the running task, per space.
  int64_t liveBytes[4] = {};
};

} // namespace

//===----------------------------------------------------------------------===//
// Arguments and results
//===----------------------------------------------------------------------===//

static std::string formatShape(ArrayRef<int64_t> shape) {
  std::string s = "[";
  llvm::raw_string_ostream os(s);
  llvm::interleaveComma(shape, os, [&](int64_t d) {
    if (ShapedType::isDynamic(d))
      os << '?';
    else
      os << d;
  });
  return s + "]";
}

LogicalResult Interpreter::run(func::FuncOp func,
                               MutableArrayRef<HostArray> args) {
  if (func.getNumArguments() != args.size())
    return func.emitError("simulation needs ")
           << func.getNumArguments() << " arguments, got " << args.size();
  if (func.isExternal())
    return func.emitError("cannot simulate a function without a body");
  SmallVector<std::shared_ptr<Buffer>> buffers(args.size());
  for (auto [i, arg] : llvm::enumerate(func.getArguments())) {
    HostArray &host = args[i];
    Type type = arg.getType();
    auto memref = dyn_cast<MemRefType>(type);
    Type element = memref ? memref.getElementType() : type;
    std::optional<ElementKind> kind = getElementKind(element);
    if (!kind || *kind != host.kind)
      return func.emitError("argument #")
             << i << " has element type " << element
             << " that the given data does not match";
    if (!memref) {
      if (host.getNumElements() != 1)
        return func.emitError("argument #") << i << " is a scalar";
      if (isFloat(*kind))
        get(arg).f = loadFloat(host.data.data(), *kind);
      else
        get(arg).i = loadInt(host.data.data(), *kind);
      continue;
    }
    ArrayRef<int64_t> shape = memref.getShape();
    bool shapeOk = shape.size() == host.shape.size();
    for (size_t d = 0; shapeOk && d < shape.size(); ++d)
      shapeOk = ShapedType::isDynamic(shape[d]) || shape[d] == host.shape[d];
    if (!shapeOk)
      return func.emitError("argument #")
             << i << " has shape " << formatShape(host.shape)
             << " but the function takes " << type;
    if (!memref.getLayout().isIdentity())
      return func.emitError("argument #")
             << i << " must have the identity layout, got " << type;
    std::shared_ptr<MemRefView> v = allocate(func, memref, host.shape);
    if (!v)
      return failure();
    std::copy(host.data.begin(), host.data.end(), v->buffer->bytes.begin());
    buffers[i] = v->buffer;
    get(arg).view = std::move(v);
  }
  SmallVector<RtValue> results;
  if (failed(execBlock(func.getBody().front(), results)))
    return failure();
  for (auto [i, buffer] : llvm::enumerate(buffers))
    if (buffer)
      args[i].data = buffer->bytes;

  report.seconds = report.cycles / (device.clockGHz * 1e9);
  if (report.seconds > 0) {
    double ioSeconds = report.globalBytes / (device.globalGBps * 1e9);
    double hz = device.clockGHz * 1e9 * device.getNumCores();
    double computeSeconds =
        report.vectorBytes / (device.vectorBytesPerCycle * hz) +
        (device.cubeMacsPerCycle > 0
             ? report.cubeMacs / (device.cubeMacsPerCycle * hz)
             : 0);
    report.ioEfficiency = ioSeconds / report.seconds;
    report.computeEfficiency = computeSeconds / report.seconds;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Blocks, launches
//===----------------------------------------------------------------------===//

LogicalResult Interpreter::execBlock(Block &block,
                                     SmallVectorImpl<RtValue> &yielded) {
  int64_t saved[4];
  std::copy(std::begin(liveBytes), std::end(liveBytes), saved);
  for (Operation &op : block) {
    if (op.hasTrait<OpTrait::IsTerminator>()) {
      yielded.clear();
      for (Value operand : op.getOperands())
        yielded.push_back(get(operand));
      break;
    }
    if (failed(execOp(op)))
      return failure();
  }
  // On-chip buffers of this block die here.
  std::copy(std::begin(saved), std::end(saved), liveBytes);
  return success();
}

LogicalResult Interpreter::execLaunch(dev::LaunchOp op) {
  if (inKernel())
    return op.emitOpError("cannot be nested in another launch");
  taskDim = op.getTasks();
  activeCores = std::min<int64_t>(taskDim, device.getNumCores());
  report.coresUsed = std::max(report.coresUsed, activeCores);
  std::vector<CoreTimeline> cores(activeCores, CoreTimeline(report.cycles));
  SmallVector<RtValue> ignored;
  for (taskId = 0; taskId < taskDim; ++taskId) {
    core = taskId % activeCores;
    timeline = &cores[core];
    std::fill(std::begin(liveBytes), std::end(liveBytes), 0);
    if (failed(execBlock(op.getBody().front(), ignored))) {
      timeline = nullptr;
      return failure();
    }
  }
  timeline = nullptr;
  double end = report.cycles;
  for (const CoreTimeline &c : cores) {
    end = std::max(end, c.getFinish());
    for (unsigned p = 0; p < kNumPipes; ++p)
      report.pipeBusyCycles[p] += c.getBusy(static_cast<Pipe>(p));
  }
  report.cycles = end;
  return success();
}

LogicalResult Interpreter::execOp(Operation &op) {
  ++report.opsExecuted;
  if (auto launch = dyn_cast<dev::LaunchOp>(op))
    return execLaunch(launch);
  bool handled = false;
  for (auto exec : {&Interpreter::execArith, &Interpreter::execScf,
                    &Interpreter::execMemRef, &Interpreter::execDevice,
                    &Interpreter::execVector}) {
    LogicalResult result = (this->*exec)(op, handled);
    if (handled)
      return result;
  }
  return op.emitOpError("is not supported by the simulator");
}

//===----------------------------------------------------------------------===//
// Timing
//===----------------------------------------------------------------------===//

void Interpreter::record(Operation &op, Pipe pipe, double start,
                         double cycles) {
  if (!trace || !options.collectTrace ||
      trace->size() >= options.maxTraceEvents)
    return;
  trace->push_back(
      {core, pipe, op.getName().getStringRef().str(), start, cycles});
}

void Interpreter::timeOp(Operation &op, Pipe pipe, double cycles) {
  if (!inKernel())
    return;
  double start = timeline->run(pipe, cycles);
  record(op, pipe, start, cycles);
}

double Interpreter::dmaCycles(const MemRefView &a, const MemRefView &b) {
  int64_t bytes = a.getNumElements() * getElementBytes(a.getKind());
  bool global = a.buffer->space == dev::MemorySpace::global ||
                b.buffer->space == dev::MemorySpace::global;
  double gbps = device.dmaGBps;
  if (global) {
    gbps = std::min(gbps, device.globalGBps / activeCores);
    if (inKernel())
      report.globalBytes += bytes;
  }
  return bytes * device.clockGHz / gbps;
}

double Interpreter::timeDma(Operation &op, double transfer, bool wait) {
  if (!inKernel())
    return 0;
  auto [start, done] = timeline->dma(transfer, device.dmaLatencyCycles, wait);
  record(op, Pipe::DMA, start, done - start);
  return done;
}

void Interpreter::vectorCost(Operation &op, double bytes) {
  if (!inKernel())
    return;
  report.vectorBytes += bytes;
  timeOp(op, Pipe::Vector,
         device.vectorIssueCycles +
             std::ceil(bytes / device.vectorBytesPerCycle));
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

std::shared_ptr<MemRefView>
Interpreter::allocate(Operation *op, MemRefType type, ArrayRef<int64_t> sizes) {
  std::optional<ElementKind> kind = getElementKind(type.getElementType());
  if (!kind) {
    op->emitOpError("element type ")
        << type.getElementType() << " is not supported by the simulator";
    return nullptr;
  }
  dev::MemorySpace space =
      dev::getMemorySpace(type).value_or(dev::MemorySpace::global);
  auto v = std::make_shared<MemRefView>();
  v->sizes.assign(sizes.begin(), sizes.end());
  v->strides.resize(sizes.size());
  int64_t stride = 1;
  for (int d = static_cast<int>(sizes.size()) - 1; d >= 0; --d) {
    v->strides[d] = stride;
    stride *= sizes[d];
  }
  v->buffer = std::make_shared<Buffer>(*kind, space, v->getNumElements());
  if (inKernel() && space != dev::MemorySpace::global) {
    unsigned s = static_cast<unsigned>(space);
    liveBytes[s] += v->buffer->getSizeInBytes();
    report.peakBytes[s] = std::max(report.peakBytes[s], liveBytes[s]);
    int64_t capacity =
        device.getCapacity(static_cast<DeviceMemorySpace>(space));
    if (liveBytes[s] > capacity) {
      op->emitOpError("overflows ")
          << dev::stringifyMemorySpace(space) << " memory on core " << core
          << ": " << liveBytes[s] << " bytes live, device '" << device.name
          << "' has " << capacity;
      return nullptr;
    }
  }
  return v;
}

LogicalResult Interpreter::checkIndices(Operation *op, const MemRefView &v,
                                        ArrayRef<int64_t> indices) {
  for (auto [d, i] : llvm::enumerate(indices))
    if (i < 0 || i >= v.sizes[d])
      return op->emitOpError("index ")
             << i << " is out of bounds for dimension " << d << " of size "
             << v.sizes[d];
  return success();
}

LogicalResult Interpreter::subview(memref::SubViewOp op) {
  const MemRefView &source = view(op.getSource());
  auto resolve = [&](OpFoldResult r) -> int64_t {
    if (auto attr = dyn_cast<Attribute>(r))
      return cast<IntegerAttr>(attr).getInt();
    return get(cast<Value>(r)).i;
  };
  auto result = std::make_shared<MemRefView>();
  result->buffer = source.buffer;
  result->offset = source.offset;
  llvm::SmallBitVector dropped = op.getDroppedDims();
  for (unsigned d = 0; d < source.getRank(); ++d) {
    int64_t offset = resolve(op.getMixedOffsets()[d]);
    int64_t size = resolve(op.getMixedSizes()[d]);
    int64_t stride = resolve(op.getMixedStrides()[d]);
    if (size < 0 || offset < 0 ||
        (size > 0 && offset + (size - 1) * stride >= source.sizes[d]))
      return op.emitOpError("window of ")
             << size << " elements at offset " << offset << " with stride "
             << stride << " exceeds dimension " << d << " of size "
             << source.sizes[d];
    result->offset += offset * source.strides[d];
    if (dropped.test(d))
      continue;
    result->sizes.push_back(size);
    result->strides.push_back(stride * source.strides[d]);
  }
  get(op.getResult()).view = std::move(result);
  scalarCost(2);
  return success();
}

LogicalResult Interpreter::execMemRef(Operation &op, bool &handled) {
  handled = true;
  return TypeSwitch<Operation *, LogicalResult>(&op)
      .Case<memref::SubViewOp>([&](auto sv) { return subview(sv); })
      .Case<memref::LoadOp>([&](memref::LoadOp load) -> LogicalResult {
        const MemRefView &v = view(load.getMemRef());
        SmallVector<int64_t, 4> idx;
        for (Value i : load.getIndices())
          idx.push_back(get(i).i);
        if (failed(checkIndices(load, v, idx)))
          return failure();
        const uint8_t *p = v.address(v.linearize(idx));
        if (isFloat(v.getKind()))
          setFloat(load.getResult(), loadFloat(p, v.getKind()));
        else
          setInt(load.getResult(), loadInt(p, v.getKind()));
        scalarCost(v.buffer->space == dev::MemorySpace::global
                       ? device.dmaLatencyCycles
                       : 1);
        return success();
      })
      .Case<memref::StoreOp>([&](memref::StoreOp store) -> LogicalResult {
        const MemRefView &v = view(store.getMemRef());
        SmallVector<int64_t, 4> idx;
        for (Value i : store.getIndices())
          idx.push_back(get(i).i);
        if (failed(checkIndices(store, v, idx)))
          return failure();
        uint8_t *p = v.address(v.linearize(idx));
        if (isFloat(v.getKind()))
          storeFloat(p, v.getKind(), get(store.getValue()).f);
        else
          storeInt(p, v.getKind(), get(store.getValue()).i);
        scalarCost(v.buffer->space == dev::MemorySpace::global
                       ? device.dmaLatencyCycles
                       : 1);
        return success();
      })
      .Case<memref::DimOp>([&](memref::DimOp dim) -> LogicalResult {
        const MemRefView &v = view(dim.getSource());
        int64_t d = get(dim.getIndex()).i;
        if (d < 0 || d >= static_cast<int64_t>(v.getRank()))
          return dim.emitOpError("dimension ")
                 << d << " is out of range for rank " << v.getRank();
        setInt(dim.getResult(), v.sizes[d]);
        scalarCost();
        return success();
      })
      .Case<memref::AllocOp, memref::AllocaOp>(
          [&](auto alloc) -> LogicalResult {
            MemRefType type = alloc.getType();
            SmallVector<int64_t, 4> sizes;
            auto dynamic = alloc.getDynamicSizes().begin();
            for (int64_t d : type.getShape())
              sizes.push_back(ShapedType::isDynamic(d) ? get(*dynamic++).i : d);
            std::shared_ptr<MemRefView> v = allocate(alloc, type, sizes);
            if (!v)
              return failure();
            get(alloc.getResult()).view = std::move(v);
            return success();
          })
      .Case<memref::CollapseShapeOp>([&](memref::CollapseShapeOp op) {
        // Each group of contiguous dimensions becomes one, strided like
        // its innermost member.
        const MemRefView &src = view(op.getSrc());
        auto v = std::make_shared<MemRefView>(src);
        v->sizes.clear();
        v->strides.clear();
        for (const ReassociationIndices &group : op.getReassociationIndices()) {
          int64_t size = 1;
          for (int64_t d : group)
            size *= src.sizes[d];
          v->sizes.push_back(size);
          v->strides.push_back(src.strides[group.back()]);
        }
        get(op.getResult()).view = std::move(v);
        scalarCost();
        return success();
      })
      .Case<memref::ExpandShapeOp>([&](memref::ExpandShapeOp op) {
        const MemRefView &src = view(op.getSrc());
        auto v = std::make_shared<MemRefView>(src);
        v->sizes.clear();
        v->strides.clear();
        SmallVector<int64_t> shape;
        auto dynamic = op.getOutputShape().begin();
        for (int64_t d : op.getResultType().getShape())
          shape.push_back(ShapedType::isDynamic(d) ? get(*dynamic++).i : d);
        for (auto [s, group] : llvm::enumerate(op.getReassociationIndices())) {
          SmallVector<int64_t> strides(group.size());
          int64_t stride = src.strides[s];
          for (int i = static_cast<int>(group.size()) - 1; i >= 0; --i) {
            strides[i] = stride;
            stride *= shape[group[i]];
          }
          for (auto [i, d] : llvm::enumerate(group)) {
            v->sizes.push_back(shape[d]);
            v->strides.push_back(strides[i]);
          }
        }
        get(op.getResult()).view = std::move(v);
        scalarCost();
        return success();
      })
      .Case<memref::DeallocOp>([&](auto) { return success(); })
      .Case<memref::CopyOp>([&](memref::CopyOp copy) -> LogicalResult {
        const MemRefView &src = view(copy.getSource());
        const MemRefView &dst = view(copy.getTarget());
        if (src.sizes != dst.sizes)
          return copy.emitOpError("copies between different shapes");
        copyView(src, dst);
        return success();
      })
      .Default([&](Operation *) {
        handled = false;
        return failure();
      });
}

//===----------------------------------------------------------------------===//
// scf
//===----------------------------------------------------------------------===//

LogicalResult Interpreter::execScf(Operation &op, bool &handled) {
  handled = true;
  return TypeSwitch<Operation *, LogicalResult>(&op)
      .Case<scf::ForOp>([&](scf::ForOp loop) -> LogicalResult {
        int64_t lb = get(loop.getLowerBound()).i;
        int64_t ub = get(loop.getUpperBound()).i;
        int64_t step = get(loop.getStep()).i;
        if (step <= 0)
          return loop.emitOpError("step must be positive, got ") << step;
        SmallVector<RtValue> carried;
        for (Value init : loop.getInitArgs())
          carried.push_back(get(init));
        Block &body = *loop.getBody();
        for (int64_t iv = lb; iv < ub; iv += step) {
          setInt(loop.getInductionVar(), iv);
          for (auto [arg, value] : llvm::zip(loop.getRegionIterArgs(), carried))
            get(arg) = value;
          scalarCost();
          if (failed(execBlock(body, carried)))
            return failure();
        }
        for (auto [result, value] : llvm::zip(loop.getResults(), carried))
          get(result) = value;
        return success();
      })
      .Case<scf::IfOp>([&](scf::IfOp branch) -> LogicalResult {
        scalarCost();
        Region &region = get(branch.getCondition()).i ? branch.getThenRegion()
                                                      : branch.getElseRegion();
        if (region.empty())
          return success();
        SmallVector<RtValue> yielded;
        if (failed(execBlock(region.front(), yielded)))
          return failure();
        for (auto [result, value] : llvm::zip(branch.getResults(), yielded))
          get(result) = value;
        return success();
      })
      .Case<scf::WhileOp>([&](scf::WhileOp loop) -> LogicalResult {
        SmallVector<RtValue> state;
        for (Value init : loop.getInits())
          state.push_back(get(init));
        while (true) {
          for (auto [arg, value] : llvm::zip(loop.getBeforeArguments(), state))
            get(arg) = value;
          SmallVector<RtValue> forwarded;
          if (failed(execBlock(loop.getBefore().front(), forwarded)))
            return failure();
          // The terminator is scf.condition(%cond, forwarded...).
          bool proceed = forwarded.front().i != 0;
          forwarded.erase(forwarded.begin());
          scalarCost();
          if (!proceed) {
            for (auto [result, value] : llvm::zip(loop.getResults(), forwarded))
              get(result) = value;
            return success();
          }
          for (auto [arg, value] :
               llvm::zip(loop.getAfterArguments(), forwarded))
            get(arg) = value;
          if (failed(execBlock(loop.getAfter().front(), state)))
            return failure();
        }
      })
      .Default([&](Operation *) {
        handled = false;
        return failure();
      });
}

//===----------------------------------------------------------------------===//
// arith and math
//===----------------------------------------------------------------------===//

static ElementKind kindOf(Type type) {
  return getElementKind(type).value_or(ElementKind::I64);
}

/// The unsigned value of an integer of `kind` held sign-extended.
static uint64_t asUnsigned(ElementKind kind, int64_t v) {
  unsigned bits = getElementBytes(kind) * 8;
  if (kind == ElementKind::I1)
    bits = 1;
  return bits >= 64 ? static_cast<uint64_t>(v)
                    : static_cast<uint64_t>(v) & ((uint64_t(1) << bits) - 1);
}

static bool compareInt(arith::CmpIPredicate pred, ElementKind kind, int64_t a,
                       int64_t b) {
  uint64_t ua = asUnsigned(kind, a), ub = asUnsigned(kind, b);
  switch (pred) {
  case arith::CmpIPredicate::eq:
    return a == b;
  case arith::CmpIPredicate::ne:
    return a != b;
  case arith::CmpIPredicate::slt:
    return a < b;
  case arith::CmpIPredicate::sle:
    return a <= b;
  case arith::CmpIPredicate::sgt:
    return a > b;
  case arith::CmpIPredicate::sge:
    return a >= b;
  case arith::CmpIPredicate::ult:
    return ua < ub;
  case arith::CmpIPredicate::ule:
    return ua <= ub;
  case arith::CmpIPredicate::ugt:
    return ua > ub;
  case arith::CmpIPredicate::uge:
    return ua >= ub;
  }
  llvm_unreachable("unknown predicate");
}

static bool compareFloat(arith::CmpFPredicate pred, double a, double b) {
  bool unordered = std::isnan(a) || std::isnan(b);
  switch (pred) {
  case arith::CmpFPredicate::AlwaysFalse:
    return false;
  case arith::CmpFPredicate::OEQ:
    return !unordered && a == b;
  case arith::CmpFPredicate::OGT:
    return !unordered && a > b;
  case arith::CmpFPredicate::OGE:
    return !unordered && a >= b;
  case arith::CmpFPredicate::OLT:
    return !unordered && a < b;
  case arith::CmpFPredicate::OLE:
    return !unordered && a <= b;
  case arith::CmpFPredicate::ONE:
    return !unordered && a != b;
  case arith::CmpFPredicate::ORD:
    return !unordered;
  case arith::CmpFPredicate::UEQ:
    return unordered || a == b;
  case arith::CmpFPredicate::UGT:
    return unordered || a > b;
  case arith::CmpFPredicate::UGE:
    return unordered || a >= b;
  case arith::CmpFPredicate::ULT:
    return unordered || a < b;
  case arith::CmpFPredicate::ULE:
    return unordered || a <= b;
  case arith::CmpFPredicate::UNE:
    return unordered || a != b;
  case arith::CmpFPredicate::UNO:
    return unordered;
  case arith::CmpFPredicate::AlwaysTrue:
    return true;
  }
  llvm_unreachable("unknown predicate");
}

LogicalResult Interpreter::execArith(Operation &op, bool &handled) {
  handled = true;
  auto intOp = [&](Operation *o, auto fn) -> LogicalResult {
    ElementKind k = kindOf(o->getResult(0).getType());
    int64_t a = get(o->getOperand(0)).i, b = get(o->getOperand(1)).i;
    std::optional<int64_t> r = fn(k, a, b);
    if (!r)
      return o->emitOpError("divides by zero");
    setInt(o->getResult(0), wrapInt(k, *r));
    scalarCost();
    return success();
  };
  auto viaBinary = [&](dev::BinaryKind kind) {
    return
        [kind](ElementKind k, int64_t a, int64_t b) -> std::optional<int64_t> {
          int64_t r;
          if (!applyIntBinary(kind, k, a, b, r).empty())
            return std::nullopt;
          return r;
        };
  };
  auto floatOp = [&](Operation *o, dev::BinaryKind kind) {
    ElementKind k = kindOf(o->getResult(0).getType());
    setFloat(o->getResult(0), applyFloatBinary(kind, k, get(o->getOperand(0)).f,
                                               get(o->getOperand(1)).f));
    scalarCost();
    return success();
  };
  auto unaryF = [&](Operation *o, dev::UnaryKind kind) {
    ElementKind k = kindOf(o->getResult(0).getType());
    double x = get(o->getOperand(0)).f;
    // Reuse the vector op's scalar semantics through a one-element view.
    auto buffer = std::make_shared<Buffer>(k, dev::MemorySpace::vector, 1);
    MemRefView v{buffer, 0, {1}, {1}};
    storeFloat(buffer->bytes.data(), k, x);
    applyUnary(kind, v, v);
    setFloat(o->getResult(0), loadFloat(buffer->bytes.data(), k));
    scalarCost();
    return success();
  };
  using OptInt = std::optional<int64_t>;
  return TypeSwitch<Operation *, LogicalResult>(&op)
      .Case<arith::ConstantOp>([&](arith::ConstantOp c) -> LogicalResult {
        if (auto i = dyn_cast<IntegerAttr>(c.getValue()))
          setInt(c.getResult(), i.getValue().getSExtValue());
        else if (auto f = dyn_cast<FloatAttr>(c.getValue()))
          setFloat(c.getResult(), f.getValueAsDouble());
        else
          return c.emitOpError("constant of this kind is not supported by "
                               "the simulator");
        return success();
      })
      .Case<arith::AddIOp>(
          [&](auto o) { return intOp(o, viaBinary(dev::BinaryKind::add)); })
      .Case<arith::SubIOp>(
          [&](auto o) { return intOp(o, viaBinary(dev::BinaryKind::sub)); })
      .Case<arith::MulIOp>(
          [&](auto o) { return intOp(o, viaBinary(dev::BinaryKind::mul)); })
      .Case<arith::DivSIOp>(
          [&](auto o) { return intOp(o, viaBinary(dev::BinaryKind::div)); })
      .Case<arith::MaxSIOp>(
          [&](auto o) { return intOp(o, viaBinary(dev::BinaryKind::max)); })
      .Case<arith::MinSIOp>(
          [&](auto o) { return intOp(o, viaBinary(dev::BinaryKind::min)); })
      .Case<arith::AndIOp>(
          [&](auto o) { return intOp(o, viaBinary(dev::BinaryKind::And)); })
      .Case<arith::OrIOp>(
          [&](auto o) { return intOp(o, viaBinary(dev::BinaryKind::Or)); })
      .Case<arith::XOrIOp>([&](auto o) {
        return intOp(o, [](ElementKind, int64_t a, int64_t b) -> OptInt {
          return a ^ b;
        });
      })
      .Case<arith::RemSIOp>([&](auto o) {
        return intOp(o, [](ElementKind, int64_t a, int64_t b) -> OptInt {
          if (b == 0)
            return std::nullopt;
          return b == -1 ? 0 : a % b;
        });
      })
      .Case<arith::DivUIOp>([&](auto o) {
        return intOp(o, [](ElementKind k, int64_t a, int64_t b) -> OptInt {
          if (asUnsigned(k, b) == 0)
            return std::nullopt;
          return static_cast<int64_t>(asUnsigned(k, a) / asUnsigned(k, b));
        });
      })
      .Case<arith::RemUIOp>([&](auto o) {
        return intOp(o, [](ElementKind k, int64_t a, int64_t b) -> OptInt {
          if (asUnsigned(k, b) == 0)
            return std::nullopt;
          return static_cast<int64_t>(asUnsigned(k, a) % asUnsigned(k, b));
        });
      })
      .Case<arith::CeilDivSIOp>([&](auto o) {
        return intOp(o, [](ElementKind, int64_t a, int64_t b) -> OptInt {
          if (b == 0)
            return std::nullopt;
          int64_t q = a / b;
          return (a % b != 0 && ((a < 0) == (b < 0))) ? q + 1 : q;
        });
      })
      .Case<arith::FloorDivSIOp>([&](auto o) {
        return intOp(o, [](ElementKind, int64_t a, int64_t b) -> OptInt {
          if (b == 0)
            return std::nullopt;
          int64_t q = a / b;
          return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
        });
      })
      .Case<arith::MaxUIOp>([&](auto o) {
        return intOp(o, [](ElementKind k, int64_t a, int64_t b) -> OptInt {
          return asUnsigned(k, a) >= asUnsigned(k, b) ? a : b;
        });
      })
      .Case<arith::MinUIOp>([&](auto o) {
        return intOp(o, [](ElementKind k, int64_t a, int64_t b) -> OptInt {
          return asUnsigned(k, a) <= asUnsigned(k, b) ? a : b;
        });
      })
      .Case<arith::ShLIOp>([&](auto o) {
        return intOp(o, [](ElementKind k, int64_t a, int64_t b) -> OptInt {
          return b < 0 || b >= 64
                     ? 0
                     : static_cast<int64_t>(static_cast<uint64_t>(a) << b);
        });
      })
      .Case<arith::ShRSIOp>([&](auto o) {
        return intOp(o, [](ElementKind, int64_t a, int64_t b) -> OptInt {
          return a >> std::min<int64_t>(std::max<int64_t>(b, 0), 63);
        });
      })
      .Case<arith::ShRUIOp>([&](auto o) {
        return intOp(o, [](ElementKind k, int64_t a, int64_t b) -> OptInt {
          return b < 0 || b >= 64 ? 0
                                  : static_cast<int64_t>(asUnsigned(k, a) >> b);
        });
      })
      .Case<arith::AddFOp>(
          [&](auto o) { return floatOp(o, dev::BinaryKind::add); })
      .Case<arith::SubFOp>(
          [&](auto o) { return floatOp(o, dev::BinaryKind::sub); })
      .Case<arith::MulFOp>(
          [&](auto o) { return floatOp(o, dev::BinaryKind::mul); })
      .Case<arith::DivFOp>(
          [&](auto o) { return floatOp(o, dev::BinaryKind::div); })
      .Case<arith::MaximumFOp>(
          [&](auto o) { return floatOp(o, dev::BinaryKind::max); })
      .Case<arith::MinimumFOp>(
          [&](auto o) { return floatOp(o, dev::BinaryKind::min); })
      .Case<arith::NegFOp>(
          [&](auto o) { return unaryF(o, dev::UnaryKind::neg); })
      .Case<math::AbsFOp>(
          [&](auto o) { return unaryF(o, dev::UnaryKind::abs); })
      .Case<math::ExpOp>([&](auto o) { return unaryF(o, dev::UnaryKind::exp); })
      .Case<math::LogOp>([&](auto o) { return unaryF(o, dev::UnaryKind::log); })
      .Case<math::SqrtOp>(
          [&](auto o) { return unaryF(o, dev::UnaryKind::sqrt); })
      .Case<math::RsqrtOp>(
          [&](auto o) { return unaryF(o, dev::UnaryKind::rsqrt); })
      .Case<math::TanhOp>(
          [&](auto o) { return unaryF(o, dev::UnaryKind::tanh); })
      .Case<arith::CmpIOp>([&](arith::CmpIOp c) {
        setInt(c.getResult(),
               compareInt(c.getPredicate(), kindOf(c.getLhs().getType()),
                          get(c.getLhs()).i, get(c.getRhs()).i));
        scalarCost();
        return success();
      })
      .Case<arith::CmpFOp>([&](arith::CmpFOp c) {
        setInt(c.getResult(), compareFloat(c.getPredicate(), get(c.getLhs()).f,
                                           get(c.getRhs()).f));
        scalarCost();
        return success();
      })
      .Case<arith::SelectOp>([&](arith::SelectOp s) {
        get(s.getResult()) = get(s.getCondition()).i ? get(s.getTrueValue())
                                                     : get(s.getFalseValue());
        scalarCost();
        return success();
      })
      .Case<arith::IndexCastOp, arith::ExtSIOp, arith::TruncIOp>([&](auto c) {
        setInt(c.getResult(),
               wrapInt(kindOf(c.getResult().getType()), get(c.getIn()).i));
        scalarCost();
        return success();
      })
      .Case<arith::IndexCastUIOp, arith::ExtUIOp>([&](auto c) {
        ElementKind from = kindOf(c.getIn().getType());
        setInt(c.getResult(), wrapInt(kindOf(c.getResult().getType()),
                                      asUnsigned(from, get(c.getIn()).i)));
        scalarCost();
        return success();
      })
      .Case<arith::SIToFPOp>([&](arith::SIToFPOp c) {
        setFloat(c.getResult(),
                 roundFloat(kindOf(c.getType()),
                            static_cast<double>(get(c.getIn()).i)));
        scalarCost();
        return success();
      })
      .Case<arith::UIToFPOp>([&](arith::UIToFPOp c) {
        setFloat(c.getResult(), roundFloat(kindOf(c.getType()),
                                           static_cast<double>(asUnsigned(
                                               kindOf(c.getIn().getType()),
                                               get(c.getIn()).i))));
        scalarCost();
        return success();
      })
      .Case<arith::FPToSIOp>([&](arith::FPToSIOp c) {
        setInt(c.getResult(),
               wrapInt(kindOf(c.getType()),
                       static_cast<int64_t>(std::trunc(get(c.getIn()).f))));
        scalarCost();
        return success();
      })
      .Case<arith::ExtFOp, arith::TruncFOp>([&](auto c) {
        setFloat(c.getResult(),
                 roundFloat(kindOf(c.getType()), get(c.getIn()).f));
        scalarCost();
        return success();
      })
      .Default([&](Operation *) {
        handled = false;
        return failure();
      });
}

//===----------------------------------------------------------------------===//
// npudev: tasks, memory, DMA
//===----------------------------------------------------------------------===//

LogicalResult Interpreter::execDevice(Operation &op, bool &handled) {
  handled = true;
  return TypeSwitch<Operation *, LogicalResult>(&op)
      .Case<dev::TaskIdOp>([&](dev::TaskIdOp t) {
        setInt(t.getResult(), taskId);
        return success();
      })
      .Case<dev::TaskDimOp>([&](dev::TaskDimOp t) {
        setInt(t.getResult(), taskDim);
        return success();
      })
      .Case<dev::AllocOp>([&](dev::AllocOp alloc) -> LogicalResult {
        std::shared_ptr<MemRefView> v =
            allocate(alloc, alloc.getType(), alloc.getType().getShape());
        if (!v)
          return failure();
        get(alloc.getResult()).view = std::move(v);
        return success();
      })
      .Case<dev::DmaOp>([&](dev::DmaOp dma) -> LogicalResult {
        const MemRefView &src = view(dma.getSource());
        const MemRefView &dst = view(dma.getTarget());
        if (src.sizes != dst.sizes)
          return dma.emitOpError("copies ")
                 << formatShape(src.sizes) << " into "
                 << formatShape(dst.sizes);
        copyView(src, dst);
        timeDma(op, dmaCycles(src, dst), /*wait=*/true);
        return success();
      })
      .Case<dev::DmaStartOp>([&](dev::DmaStartOp dma) -> LogicalResult {
        const MemRefView &src = view(dma.getSource());
        const MemRefView &dst = view(dma.getTarget());
        if (src.sizes != dst.sizes)
          return dma.emitOpError("copies ")
                 << formatShape(src.sizes) << " into "
                 << formatShape(dst.sizes);
        copyView(src, dst);
        get(dma.getToken()).f =
            timeDma(op, dmaCycles(src, dst), /*wait=*/false);
        return success();
      })
      .Case<dev::WaitAllOp>([&](dev::WaitAllOp) {
        if (inKernel())
          timeline->waitForAllDma();
        return success();
      })
      .Case<dev::WaitOp>([&](dev::WaitOp wait) {
        if (inKernel())
          timeline->waitUntil(get(wait.getToken()).f);
        return success();
      })
      .Case<dev::MatmulOp>([&](dev::MatmulOp mm) {
        const MemRefView &a = view(mm.getA()), &b = view(mm.getB());
        applyMatmul(a, b, view(mm.getC()), mm.getAccumulate());
        double macs = static_cast<double>(a.sizes[0]) * a.sizes[1] * b.sizes[1];
        if (inKernel()) {
          report.cubeMacs += macs;
          double rate = device.cubeMacsPerCycle *
                        (a.getKind() == ElementKind::F32 ? 0.5 : 1.0);
          timeOp(op, Pipe::Cube,
                 device.vectorIssueCycles + std::ceil(macs / rate));
        }
        return success();
      })
      .Default([&](Operation *) {
        handled = false;
        return failure();
      });
}

//===----------------------------------------------------------------------===//
// npudev: vector ops
//===----------------------------------------------------------------------===//

/// Bytes a vector op streams through the unit: its (first) input.
static double streamedBytes(const MemRefView &v) {
  return static_cast<double>(v.getNumElements()) * getElementBytes(v.getKind());
}

LogicalResult Interpreter::execVector(Operation &op, bool &handled) {
  handled = true;
  auto fail = [&](const OpError &error) -> LogicalResult {
    if (error.empty())
      return success();
    return op.emitOpError(error);
  };
  return TypeSwitch<Operation *, LogicalResult>(&op)
      .Case<dev::VBinaryOp>([&](dev::VBinaryOp o) {
        vectorCost(op, streamedBytes(view(o.getLhs())));
        return fail(applyBinary(o.getKind(), view(o.getLhs()), view(o.getRhs()),
                                view(o.getOut())));
      })
      .Case<dev::VBinaryScalarOp>([&](dev::VBinaryScalarOp o) {
        vectorCost(op, streamedBytes(view(o.getInput())));
        return fail(applyBinaryScalar(o.getKind(), view(o.getInput()),
                                      scalar(o.getScalar()), view(o.getOut())));
      })
      .Case<dev::VUnaryOp>([&](dev::VUnaryOp o) {
        vectorCost(op, streamedBytes(view(o.getInput())));
        applyUnary(o.getKind(), view(o.getInput()), view(o.getOut()));
        return success();
      })
      .Case<dev::VCompareOp>([&](dev::VCompareOp o) {
        vectorCost(op, streamedBytes(view(o.getLhs())));
        applyCompare(o.getPredicate(), view(o.getLhs()), view(o.getRhs()),
                     view(o.getOut()));
        return success();
      })
      .Case<dev::VCompareScalarOp>([&](dev::VCompareScalarOp o) {
        vectorCost(op, streamedBytes(view(o.getInput())));
        applyCompareScalar(o.getPredicate(), view(o.getInput()),
                           scalar(o.getScalar()), view(o.getOut()));
        return success();
      })
      .Case<dev::VSelectOp>([&](dev::VSelectOp o) {
        vectorCost(op, streamedBytes(view(o.getOnTrue())));
        applySelect(view(o.getMask()), view(o.getOnTrue()),
                    view(o.getOnFalse()), view(o.getOut()));
        return success();
      })
      .Case<dev::VReduceOp>([&](dev::VReduceOp o) {
        vectorCost(op, streamedBytes(view(o.getInput())));
        applyReduce(o.getKind(), view(o.getInput()), view(o.getOut()));
        return success();
      })
      .Case<dev::VCastOp>([&](dev::VCastOp o) {
        vectorCost(op, streamedBytes(view(o.getInput())));
        applyCast(view(o.getInput()), view(o.getOut()));
        return success();
      })
      .Case<dev::VFillOp>([&](dev::VFillOp o) {
        vectorCost(op, streamedBytes(view(o.getOut())));
        applyFill(scalar(o.getValue()), view(o.getOut()));
        return success();
      })
      .Case<dev::VTransposeOp>([&](dev::VTransposeOp o) {
        vectorCost(op, streamedBytes(view(o.getInput())));
        applyTranspose(view(o.getInput()), view(o.getOut()));
        return success();
      })
      .Case<dev::VGatherOp>([&](dev::VGatherOp o) {
        vectorCost(op, streamedBytes(view(o.getOut())));
        return fail(applyGather(view(o.getSource()), view(o.getIndices()),
                                view(o.getOut())));
      })
      .Case<dev::VScatterOp>([&](dev::VScatterOp o) {
        vectorCost(op, streamedBytes(view(o.getSource())));
        return fail(applyScatter(view(o.getSource()), view(o.getIndices()),
                                 view(o.getOut())));
      })
      .Case<dev::VCumsumOp>([&](dev::VCumsumOp o) {
        vectorCost(op, streamedBytes(view(o.getInput())));
        applyCumsum(view(o.getInput()), view(o.getOut()));
        return success();
      })
      .Case<dev::VSortOp>([&](dev::VSortOp o) {
        const MemRefView &in = view(o.getInput());
        int64_t row = in.getRank() ? in.sizes.back() : 1;
        vectorCost(op,
                   streamedBytes(in) * std::max(1.0, std::log2(double(row))));
        applySort(in, view(o.getOut()));
        return success();
      })
      .Case<dev::VUniqueOp>([&](dev::VUniqueOp o) {
        const MemRefView &in = view(o.getInput());
        vectorCost(op, streamedBytes(in) *
                           std::max(1.0, std::log2(double(in.sizes[0]))));
        setInt(o.getCount(), applyUnique(in, view(o.getOut())));
        return success();
      })
      .Default([&](Operation *) {
        handled = false;
        return failure();
      });
}

LogicalResult
npu::sim::simulate(func::FuncOp func, MutableArrayRef<HostArray> args,
                   const DeviceModel &device, const SimulatorOptions &options,
                   SimulationReport &report, std::vector<TraceEvent> *trace) {
  report = SimulationReport();
  return Interpreter(device, options, report, trace).run(func, args);
}
