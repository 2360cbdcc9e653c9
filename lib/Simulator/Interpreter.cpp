//===- Interpreter.cpp - execute and time npudev kernels ------------------===//
//
// Runs a function in two steps. Preparation walks it once (O(ops)): every
// SSA value gets a slot in a flat array, every op its SimulatedOpInterface
// model and the slots of its operands and results; an op without a model
// is reported before anything runs. Execution then walks the prepared
// blocks: each op costs one indirect call and slot accesses, no lookup.
//
// On-chip memory: a launch's peak is counted statically, as the verifier
// counts it (dev::getOnChipPeaks), and checked against the device when the
// launch starts.
//
// Time: host code (outside launches) is untimed; a launch runs its body once
// per task, task t on core t mod min(tasks, cores), each core keeping its
// own CoreTimeline; the launch ends when the slowest core does, and
// launches run one after another. The cost each op charges is its model's;
// how charges become cycles is here (docs/simulator.md).
//
// A mixed launch's tasks signal and wait for each other, so each runs on a
// thread of its own (ConcurrentTasks) with its own copy of the slots and
// its own core; one permit passes between them, always to the ready task
// whose core clock is earliest, so the run is deterministic and a flag's
// signals are consumed in the order they were set. A wait stalls the core
// until the signal's cycle: when the setting core had completed everything
// it issued before the set_flag. When every unfinished task waits, the
// launch fails naming the waits.
//
//===----------------------------------------------------------------------===//

#include "Interpreter.h"
#include "Models.h"
#include "npu/Device/DeviceModel.h"
#include "npu/Dialect/NPUDev/DeviceAttr.h"
#include "npu/Dialect/NPUDev/NPUDevOps.h"
#include "npu/Dialect/NPUDev/Semantics.h"
#include "npu/Runtime/ConcurrentTasks.h"
#include "npu/Runtime/HostMemory.h"

#include "llvm/Support/Path.h"

#include <cmath>

using namespace mlir;
using namespace npu;
using namespace npu::sim;
using npu::sim::detail::PreparedBlock;
using npu::sim::detail::PreparedOp;

StringRef npu::sim::getPipeName(Pipe pipe) {
  static const char *names[] = {"scalar", "dma", "vector", "cube", "dma out"};
  return names[static_cast<unsigned>(pipe)];
}

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

//===----------------------------------------------------------------------===//
// Preparation
//===----------------------------------------------------------------------===//

uint32_t Interpreter::addSlot(Value value) {
  uint32_t slot = slots.size();
  slotIndex[value] = slot;
  slots.emplace_back();
  Type type = value.getType();
  std::optional<ElementKind> kind = getElementKind(type);
  slotKinds.push_back(kind.value_or(ElementKind::I64));
  unsigned bits = 64;
  if (auto integer = dyn_cast<IntegerType>(type))
    bits = std::min(integer.getWidth(), 64u);
  slotBits.push_back(bits);
  return slot;
}

/// The memref operands `op` reads and writes, as its memory effects say.
static void
recordAccesses(Operation &op,
               SmallVectorImpl<std::pair<unsigned, bool>> &accesses) {
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return;
  SmallVector<MemoryEffects::EffectInstance> instances;
  effects.getEffects(instances);
  for (const MemoryEffects::EffectInstance &effect : instances) {
    bool write = isa<MemoryEffects::Write>(effect.getEffect());
    if (!write && !isa<MemoryEffects::Read>(effect.getEffect()))
      continue;
    for (OpOperand &operand : op.getOpOperands())
      if (operand.get() == effect.getValue() &&
          isa<MemRefType>(operand.get().getType()))
        accesses.push_back({operand.getOperandNumber(), write});
  }
}

FailureOr<PreparedBlock *> Interpreter::prepareBlock(Block &block) {
  PreparedBlock &prepared = blocks.emplace_back();
  for (BlockArgument arg : block.getArguments())
    prepared.arguments.push_back(addSlot(arg));
  for (Operation &op : block) {
    if (op.hasTrait<OpTrait::IsTerminator>()) {
      for (Value operand : op.getOperands())
        prepared.yielded.push_back(slotOf(operand));
      break;
    }
    auto model = dyn_cast<SimulatedOpInterface>(op);
    if (!model)
      return op.emitOpError("is not supported by the simulator");
    PreparedOp p{&op, model, {}, {}, {}, {}};
    for (Value operand : op.getOperands())
      p.operands.push_back(slotOf(operand));
    recordAccesses(op, p.accesses);
    for (Value result : op.getResults())
      p.results.push_back(addSlot(result));
    for (Region &region : op.getRegions()) {
      if (region.empty()) {
        p.regions.push_back(nullptr);
        continue;
      }
      if (!region.hasOneBlock())
        return op.emitOpError("has a region of several blocks, which the "
                              "simulator does not run");
      FailureOr<PreparedBlock *> nested = prepareBlock(region.front());
      if (failed(nested))
        return failure();
      p.regions.push_back(*nested);
    }
    prepared.ops.push_back(std::move(p));
  }
  return &prepared;
}

LogicalResult Interpreter::prepare(func::FuncOp func) {
  if (func.isExternal())
    return func.emitError("cannot simulate a function without a body");
  if (!func.getBody().hasOneBlock())
    return func.emitError("cannot simulate a function of several blocks");
  FailureOr<PreparedBlock *> body = prepareBlock(func.getBody().front());
  if (failed(body))
    return failure();
  entry = *body;
  return success();
}

//===----------------------------------------------------------------------===//
// Arguments and results
//===----------------------------------------------------------------------===//

LogicalResult Interpreter::bindArguments(func::FuncOp func,
                                         MutableArrayRef<HostArray> args) {
  for (auto [i, arg] : llvm::enumerate(func.getArguments())) {
    HostArray &host = args[i];
    Type type = arg.getType();
    std::optional<ArgumentSpec> spec = ArgumentSpec::get(type);
    if (!spec)
      return func.emitError("argument #")
             << i << " has type " << type << ", which cannot be simulated";
    std::string mismatch = spec->describeMismatch(host, i);
    if (!mismatch.empty())
      return func.emitError(mismatch);
    ElementKind kind = spec->kind;
    RtValue &slot = slots[entry->arguments[i]];
    auto memref = dyn_cast<MemRefType>(type);
    if (!memref) {
      if (isFloat(kind))
        slot.f = loadFloat(host.data.data(), kind);
      else
        slot.i = wrapToBits(loadInt(host.data.data(), kind),
                            slotBits[entry->arguments[i]]);
      continue;
    }
    FailureOr<MemRefView> view =
        allocate(func, memref, host.shape, /*withStorage=*/false);
    if (failed(view))
      return failure();
    Buffer &buffer = *view->buffer;
    // The buffer borrows the host's bytes (run() gives them back), so
    // arguments are neither copied in nor out.
    buffer.bytes.swap(host.data);
    buffer.argument = i;
    buffer.markWritten(*view);
    slot.view = std::make_shared<const MemRefView>(std::move(*view));
  }
  return success();
}

LogicalResult Interpreter::run(func::FuncOp func,
                               MutableArrayRef<HostArray> args) {
  if (func.getNumArguments() != args.size())
    return func.emitError("simulation needs ")
           << func.getNumArguments() << " arguments, got " << args.size();
  if (failed(prepare(func)))
    return failure();
  slotBase = slots.data();
  LogicalResult result = bindArguments(func, args);
  if (succeeded(result))
    result = runBlock(*entry);
  // Give back the bytes bindArguments borrowed, written or not.
  for (auto [i, arg] : llvm::enumerate(entry->arguments)) {
    const MemRefView *view = slots[arg].view.get();
    if (view && view->buffer->argument == static_cast<int>(i))
      args[i].data.swap(view->buffer->bytes);
  }
  if (failed(result))
    return failure();
  finishReport();
  return success();
}

void Interpreter::finishReport() {
  if (l2.isEnabled())
    report.l2DirtyBytes = l2.countDirty() * l2.getLineBytes();
  report.seconds = report.cycles / (device.clockGHz * 1e9);
  if (report.seconds <= 0)
    return;
  double ioSeconds = report.globalBytes / (device.globalGBps * 1e9);
  double hz = device.clockGHz * 1e9;
  double computeSeconds =
      report.vectorBytes / (device.vectorBytesPerCycle * hz *
                            device.getNumCores(dev::CoreKind::vector)) +
      report.cubeMacs / (device.cubeMacsPerCycle * hz *
                         device.getNumCores(dev::CoreKind::cube));
  report.rooflineRatio = report.boundCycles / report.cycles;
  report.ioEfficiency = ioSeconds / report.seconds;
  report.cubeUtilization =
      report.cubeMacs / (device.cubeMacsPerCycle * report.cycles *
                         device.getNumCores(dev::CoreKind::cube));
  report.computeEfficiency = computeSeconds / report.seconds;
}

//===----------------------------------------------------------------------===//
// Blocks and tasks
//===----------------------------------------------------------------------===//

LogicalResult Interpreter::runBlock(const PreparedBlock &block) {
  OpExecution exec(*this, slotBase, slotBits.data(), slotKinds.data());
  for (const PreparedOp &op : block.ops) {
    ++report.opsExecuted;
    exec.current = &op;
    if (timeline && timeline->hasCopiesInFlight() && !op.accesses.empty() &&
        failed(checkRaces(op)))
      return failure();
    if (failed(SimulatedOpInterface(op.model).simulate(exec)))
      return failure();
  }
  return success();
}

LogicalResult Interpreter::checkRaces(const PreparedOp &op) {
  std::vector<CoreTimeline::InFlightCopy> &copies =
      timeline->getCopiesInFlight();
  // A copy queued behind others on the same in-order engine writes after
  // they have read and written: only its read can race them.
  bool queuedBehind =
      isa<dev::DmaOp, dev::DmaStartOp, dev::DmaGatherOp, dev::DmaScatterOp>(
          op.op);
  for (auto [operand, write] : op.accesses) {
    const MemRefView *view = slotBase[op.operands[operand]].view.get();
    if (!view || (write && queuedBehind))
      continue;
    for (const CoreTimeline::InFlightCopy &copy : copies) {
      bool touchesTarget = view->overlaps(copy.target);
      if (!touchesTarget && !(write && view->overlaps(copy.source)))
        continue;
      InFlightDiagnostic diag = op.op->emitOpError()
                                << (write ? "writes" : "reads") << " bytes of "
                                << view->buffer->describe() << " that '"
                                << copy.op->getName() << "' is still "
                                << (touchesTarget ? "writing" : "reading")
                                << ": the copy completes at cycle "
                                << static_cast<int64_t>(std::ceil(copy.done))
                                << ", this access is at cycle "
                                << static_cast<int64_t>(timeline->getNow())
                                << " (wait for the copy first)";
      diag.attachNote(copy.op->getLoc()) << "the copy";
      return diag;
    }
  }
  return success();
}

/// Records the on-chip memory each region of `launch` holds at once (the
/// verifier's count, dev::getOnChipPeaks) and fails if the device has less.
LogicalResult Interpreter::checkOnChipMemory(Operation *launch) {
  for (Region &region : launch->getRegions()) {
    dev::OnChipPeaks peaks = dev::getOnChipPeaks(region.front());
    for (dev::MemorySpace space :
         {dev::MemorySpace::vector, dev::MemorySpace::cube,
          dev::MemorySpace::shared}) {
      unsigned s = static_cast<unsigned>(space);
      report.peakBytes[s] = std::max(report.peakBytes[s], peaks[s]);
      int64_t capacity = device.getCapacity(space);
      if (peaks[s] > capacity)
        return launch->emitOpError("needs ")
               << peaks[s] << " bytes of " << dev::stringifyMemorySpace(space)
               << " memory at once, but device '" << device.name << "' has "
               << capacity;
    }
  }
  return success();
}

LogicalResult Interpreter::runTasks(Operation *launch,
                                    const PreparedBlock &body, int64_t tasks) {
  if (inKernel())
    return launch->emitOpError("cannot be nested in another launch");
  if (failed(checkOnChipMemory(launch)))
    return failure();
  taskDim = tasks;
  dev::CoreKind kind = cast<dev::LaunchOp>(launch).getCores();
  activeCores = std::min<int64_t>(taskDim, device.getNumCores(kind));
  // Trace rows: a split device's cube cores follow its vector cores.
  unsigned firstCore = kind == dev::CoreKind::cube && device.hasSplitCores()
                           ? device.getNumCores()
                           : 0;
  report.coresUsed = std::max(report.coresUsed, activeCores);
  double startCycle = report.cycles;
  launchWork = {};
  std::vector<CoreTimeline> cores(activeCores, CoreTimeline(report.cycles));
  for (taskId = 0; taskId < taskDim; ++taskId) {
    timeline = &cores[taskId % activeCores];
    core = firstCore + taskId % activeCores;
    if (failed(runBlock(body))) {
      timeline = nullptr;
      return failure();
    }
  }
  timeline = nullptr;
  if (failed(checkReportedRows(launch)))
    return failure();
  SmallVector<const CoreTimeline *> timelines;
  for (const CoreTimeline &c : cores)
    timelines.push_back(&c);
  finishLaunch(launch, startCycle, timelines);
  return success();
}

void Interpreter::finishLaunch(Operation *launch, double startCycle,
                               ArrayRef<const CoreTimeline *> cores) {
  // HBM serves the launch's fetches and write-backs at its bandwidth, and
  // the L2 every copy at its own, the slowest core aside: the cores run
  // one after another here, so the shared bandwidths bound the launch as
  // a whole, not the copies where they happen.
  double end =
      startCycle + launchWork.hbmBytes * device.clockGHz / device.globalGBps;
  if (l2.isEnabled())
    end = std::max(end, startCycle + launchWork.globalBytes * device.clockGHz /
                                         device.l2GBps);
  for (const CoreTimeline *c : cores) {
    end = std::max(end, c->getFinish());
    for (unsigned p = 0; p < kNumPipes; ++p)
      report.pipeBusyCycles[p] += c->getBusy(static_cast<Pipe>(p));
  }
  report.cycles = end;
  recordStep(launch, end - startCycle);
}

//===----------------------------------------------------------------------===//
// Mixed launches
//===----------------------------------------------------------------------===//

struct Interpreter::MixedTask {
  CoreTimeline timeline;
  std::vector<RtValue> slots;
  unsigned core;
  int64_t taskId, taskDim;
  /// The wait_flag the task last waited at.
  Operation *waitingAt = nullptr;
};

struct Interpreter::MixedLaunch {
  /// Cube tasks first, then vector tasks.
  std::vector<MixedTask> tasks;
  int64_t cubeTasks, vectorTasks;
  ConcurrentTasks *scheduler = nullptr;
  /// Per task and flag, the cycles of the pending signals, oldest first.
  std::vector<std::deque<double>> signalCycles;
};

void Interpreter::enterMixedTask(size_t task) {
  MixedTask &t = mixed->tasks[task];
  mixedTask = task;
  timeline = &t.timeline;
  core = t.core;
  taskId = t.taskId;
  taskDim = t.taskDim;
  slotBase = t.slots.data();
}

LogicalResult Interpreter::runMixedTasks(Operation *op,
                                         const PreparedBlock &cubeBody,
                                         const PreparedBlock &vectorBody) {
  auto launch = cast<dev::MixedLaunchOp>(op);
  if (inKernel())
    return op->emitOpError("cannot be nested in another launch");
  if (failed(checkOnChipMemory(op)))
    return failure();
  MixedLaunch state;
  state.cubeTasks = launch.getCubeTasks();
  state.vectorTasks = launch.getVectorTasks();
  size_t numTasks = state.cubeTasks + state.vectorTasks;
  // Trace rows: a split device numbers its cube cores after its vector
  // cores; a unified one gives the cube tasks the first cores.
  bool split = device.hasSplitCores();
  for (size_t t = 0; t < numTasks; ++t) {
    bool cube = t < static_cast<size_t>(state.cubeTasks);
    int64_t id = cube ? t : t - state.cubeTasks;
    unsigned traceCore = split ? (cube ? device.getNumCores() + id : id) : t;
    state.tasks.push_back({CoreTimeline(report.cycles), slots, traceCore, id,
                           cube ? state.cubeTasks : state.vectorTasks});
  }
  state.signalCycles.resize(numTasks * ConcurrentTasks::kNumFlags);
  activeCores = numTasks;
  report.coresUsed = std::max<unsigned>(report.coresUsed, numTasks);
  double startCycle = report.cycles;
  launchWork = {};

  ConcurrentTasks scheduler(numTasks, /*permits=*/1, [&](size_t t) {
    return state.tasks[t].timeline.getNow();
  });
  state.scheduler = &scheduler;
  mixed = &state;
  bool ok = scheduler.run([&](size_t t) {
    enterMixedTask(t);
    return succeeded(runBlock(
        t < static_cast<size_t>(state.cubeTasks) ? cubeBody : vectorBody));
  });
  mixed = nullptr;
  timeline = nullptr;
  slotBase = slots.data();
  if (scheduler.isDeadlocked())
    return emitDeadlock(op, state);
  if (!ok)
    return failure();
  SmallVector<const CoreTimeline *> timelines;
  for (const MixedTask &t : state.tasks)
    timelines.push_back(&t.timeline);
  finishLaunch(op, startCycle, timelines);
  return success();
}

LogicalResult Interpreter::emitDeadlock(Operation *launch,
                                        const MixedLaunch &state) {
  const auto &waiting = state.scheduler->getDeadlockedTasks();
  InFlightDiagnostic diag =
      launch->emitOpError(describeDeadlock(*state.scheduler, state.cubeTasks));
  for (auto [task, flag] : waiting)
    diag.attachNote(state.tasks[task].waitingAt->getLoc())
        << describeMixedTask(state.cubeTasks, task) << " waits here";
  return diag;
}

LogicalResult Interpreter::setFlag(Operation *op, dev::CoreKind kind,
                                   int64_t task, unsigned flag) {
  bool cube = kind == dev::CoreKind::cube;
  int64_t count = cube ? mixed->cubeTasks : mixed->vectorTasks;
  if (task < 0 || task >= count)
    return op->emitOpError(describeMissingTask(cube, task, count));
  size_t target = cube ? task : mixed->cubeTasks + task;
  // The flag goes up once everything issued before it has completed.
  mixed->signalCycles[target * ConcurrentTasks::kNumFlags + flag].push_back(
      timeline->getIdle());
  unsigned pending = mixed->scheduler->signal(target, flag);
  if (pending > ConcurrentTasks::kMaxPending)
    return op->emitOpError(
        describeFlagOverflow(mixed->cubeTasks, target, flag, pending));
  return success();
}

LogicalResult Interpreter::waitFlag(Operation *op, unsigned flag) {
  size_t self = mixedTask;
  MixedLaunch &state = *mixed;
  state.tasks[self].waitingAt = op;
  // False when the launch already failed elsewhere (that error is out) or
  // deadlocked (runMixedTasks reports it): unwind quietly.
  if (!state.scheduler->wait(self, flag))
    return failure();
  enterMixedTask(self);
  std::deque<double> &cycles =
      state.signalCycles[self * ConcurrentTasks::kNumFlags + flag];
  double signalled = cycles.front();
  cycles.pop_front();
  double before = timeline->getNow();
  if (signalled > before) {
    timeline->waitUntil(signalled);
    record(op, Pipe::Scalar, before, signalled - before);
  }
  return success();
}

FailureOr<double> Interpreter::runAsync(const PreparedBlock &body) {
  if (!inKernel()) {
    if (failed(runBlock(body)))
      return failure();
    return 0.0;
  }
  double issued = timeline->getNow();
  ++asyncDepth;
  LogicalResult ran = runBlock(body);
  --asyncDepth;
  if (failed(ran))
    return failure();
  double done = timeline->getNow();
  timeline->setNow(issued);
  return done;
}

bool Interpreter::touchGlobal(const Buffer &buffer, int64_t byteOffset,
                              int64_t bytes, bool write, GlobalAccess &access) {
  bool readMissed = !write;
  if (!l2.isEnabled()) {
    access.fetchBytes += bytes;
  } else {
    L2Cache::Outcome lines;
    l2.access(buffer.address + byteOffset, bytes, write, lines);
    access.fetchBytes += (write ? 0 : lines.misses) * l2.getLineBytes();
    access.writebackBytes += lines.writebacks * l2.getLineBytes();
    readMissed &= lines.misses != 0;
    access.lines.hits += lines.hits;
    access.lines.misses += lines.misses;
    access.lines.writebacks += lines.writebacks;
  }
  access.readMissed |= readMissed;
  return readMissed;
}

void Interpreter::touchGlobal(const MemRefView &view, bool write,
                              GlobalAccess &access) {
  access.writes |= write;
  int64_t elementBytes = getElementBytes(view.getKind());
  // Contiguous runs: the whole view, or its innermost rows.
  if (view.isContiguous() || view.getRank() == 0) {
    touchGlobal(*view.buffer, view.offset * elementBytes,
                view.getNumElements() * elementBytes, write, access);
    return;
  }
  // Otherwise row by row when the innermost dimension is dense, else
  // element by element: the starts are a view with the row cut to one.
  int64_t run = view.strides.back() == 1 ? view.sizes.back() : 1;
  MemRefView starts = view;
  if (run != 1)
    starts.sizes.back() = 1;
  starts.forEachElement([&](int64_t linear) {
    touchGlobal(*view.buffer, linear * elementBytes, run * elementBytes, write,
                access);
  });
}

double Interpreter::queueDma(Operation *op, int64_t bytes,
                             const GlobalAccess *global, double issueCycles,
                             bool wait) {
  double clock = device.clockGHz;
  double transfer = bytes * clock / device.dmaGBps;
  double latency = device.dmaLatencyCycles;
  if (global) {
    launchWork.globalBytes += bytes;
    launchWork.hbmBytes += global->fetchBytes + global->writebackBytes;
    launchWork.l2Hits += global->lines.hits;
    launchWork.l2Misses += global->lines.misses;
    launchWork.l2Writebacks += global->lines.writebacks;
    // The cores running the same program share HBM evenly, each at most
    // at its engine's rate. Each draws the L2 at its engine's rate, and
    // all of them together at most at the L2's bandwidth, which the launch
    // pays as a whole (finishLaunch), as it pays its HBM bytes at HBM's
    // bandwidth: an even share would hold back the cores that move more
    // than the others. Write-backs do not hold the engine: the launch pays
    // for them as HBM traffic.
    double hbmShare =
        std::min(device.dmaGBps, device.globalGBps / getHbmSharers());
    if (l2.isEnabled()) {
      double l2Rate = device.getDmaGBps(/*throughL2=*/true, global->writes);
      transfer = std::max(bytes * clock / l2Rate,
                          global->fetchBytes * clock / hbmShare);
      if (!global->readMissed)
        latency = device.l2LatencyCycles;
    } else {
      transfer = bytes * clock / hbmShare;
    }
  }
  transfer = std::max(transfer, issueCycles);
  // A copy of no bytes (an empty row's run) makes no memory request.
  if (bytes == 0)
    latency = 0;
  Pipe pipe = global && global->writes && device.dmaOutEngine ? Pipe::DMAOut
                                                              : Pipe::DMA;
  auto [start, done] = timeline->dma(pipe, transfer, latency, wait);
  record(op, pipe, start, done - start,
         global && l2.isEnabled() ? &global->lines : nullptr);
  return done;
}

unsigned Interpreter::getHbmSharers() const {
  if (!mixed)
    return activeCores;
  bool cube = mixedTask < static_cast<size_t>(mixed->cubeTasks);
  return cube ? mixed->cubeTasks : mixed->vectorTasks;
}

/// The report's name for `launch`'s step: its tiling's strategy and step,
/// or "launch N" for the N-th launch without one to run.
static std::string
getStepName(Operation *launch,
            llvm::DenseMap<Operation *, unsigned> &untiledLaunches) {
  if (auto tiling = launch->getAttrOfType<DictionaryAttr>("npudev.tiling"))
    if (auto strategy = tiling.getAs<StringAttr>("strategy")) {
      auto step = tiling.getAs<StringAttr>("step");
      return strategy.str() + (step ? "." + step.str() : "");
    }
  unsigned number =
      untiledLaunches.try_emplace(launch, untiledLaunches.size() + 1)
          .first->second;
  return "launch " + std::to_string(number);
}

/// The report's name for the layer `loc` belongs to: an imported node's
/// name, or the file and line of the op the launch was built from; empty
/// when the location says neither.
static std::string getLayerName(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().str();
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return (llvm::sys::path::filename(file.getFilename().getValue()) + ":" +
            Twine(file.getLine()))
        .str();
  if (auto callSite = dyn_cast<CallSiteLoc>(loc))
    return getLayerName(callSite.getCallee());
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location part : fused.getLocations())
      if (std::string name = getLayerName(part); !name.empty())
        return name;
  return "";
}

void Interpreter::recordLayer(Operation *launch, StringRef step, double cycles,
                              double bound) {
  std::string name = getLayerName(launch->getLoc());
  if (name.empty())
    name = step.str();
  auto [it, inserted] = layerIndex.try_emplace(name, report.layers.size());
  if (inserted)
    report.layers.push_back({name});
  SimulationReport::Layer &layer = report.layers[it->second];
  layer.cycles += cycles;
  layer.boundCycles += bound;
  if (!llvm::is_contained(layer.steps, step))
    layer.steps.push_back(step.str());
}

void Interpreter::recordStep(Operation *launch, double cycles) {
  std::string name = getStepName(launch, untiledLaunches);
  auto it = llvm::find_if(report.steps, [&](const SimulationReport::Step &s) {
    return s.name == name;
  });
  if (it == report.steps.end()) {
    report.steps.push_back({name});
    it = std::prev(report.steps.end());
  }
  double io = launchWork.hbmBytes * device.clockGHz / device.globalGBps;
  if (l2.isEnabled())
    io = std::max(io, launchWork.globalBytes * device.clockGHz / device.l2GBps);
  double vector =
      launchWork.vectorBytes /
      (device.vectorBytesPerCycle * device.getNumCores(dev::CoreKind::vector));
  double cube = launchWork.cubeCycles / device.getNumCores(dev::CoreKind::cube);
  double bound = std::max({io, vector, cube});
  it->cycles += cycles;
  it->hbmBytes += launchWork.hbmBytes;
  it->l2Hits += launchWork.l2Hits;
  it->l2Misses += launchWork.l2Misses;
  it->ioCycles += io;
  it->vectorCycles += vector;
  it->cubeCycles += cube;
  it->boundCycles += bound;
  recordLayer(launch, name, cycles, bound);

  report.globalBytes += launchWork.globalBytes;
  report.hbmBytes += launchWork.hbmBytes;
  report.l2Hits += launchWork.l2Hits;
  report.l2Misses += launchWork.l2Misses;
  report.l2Writebacks += launchWork.l2Writebacks;
  report.vectorBytes += launchWork.vectorBytes;
  report.cubeMacs += launchWork.cubeMacs;
  report.boundCycles += bound;
}

LogicalResult Interpreter::checkReportedRows(Operation *launch) {
  if (reportedRows.empty())
    return success();
  for (Operation *op : dev::getRowReports(launch)) {
    auto it = reportedRows.find(op);
    if (it != reportedRows.end())
      return emitError(op->getLoc()) << dev::formatReportedRow(
                 cast<dev::ReportRowsOp>(op).getMessage(), it->second);
  }
  llvm_unreachable("a report outside the launch that ran it");
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

FailureOr<MemRefView> Interpreter::allocate(Operation *op, MemRefType type,
                                            ArrayRef<int64_t> sizes,
                                            bool withStorage) {
  std::optional<ElementKind> kind = getElementKind(type.getElementType());
  if (!kind)
    return op->emitOpError("element type ")
           << type.getElementType() << " is not supported by the simulator";
  // Sizes come from run-time values: check them before multiplying. The
  // simulated memory is held in the host's, which a device may exceed.
  int64_t limit = std::min(int64_t(1) << 36, getHostMemoryBytes());
  int64_t bytes = getElementBytes(*kind);
  for (int64_t size : sizes) {
    if (size < 0)
      return op->emitOpError("allocates a dimension of negative size ") << size;
    if (size != 0 && bytes > limit / size)
      return op->emitOpError("allocates more than ")
             << limit << " bytes, the simulator's limit (2^36 bytes, or "
             << "this host's memory when smaller)";
    bytes *= size;
  }
  dev::MemorySpace space =
      dev::getMemorySpace(type).value_or(dev::MemorySpace::global);
  MemRefView v;
  v.sizes.assign(sizes.begin(), sizes.end());
  v.strides.resize(sizes.size());
  int64_t stride = 1;
  for (int d = static_cast<int>(sizes.size()) - 1; d >= 0; --d) {
    v.strides[d] = stride;
    stride *= sizes[d];
  }
  v.buffer =
      std::make_shared<Buffer>(*kind, space, v.getNumElements(), withStorage);
  v.buffer->origin = op;
  if (space == dev::MemorySpace::global) {
    // Page-aligned, as a device allocator places them.
    v.buffer->address = nextGlobalAddress;
    nextGlobalAddress += llvm::alignTo(std::max<int64_t>(bytes, 1), 4096);
  }
  return v;
}

//===----------------------------------------------------------------------===//
// Timing
//===----------------------------------------------------------------------===//

void Interpreter::chargeScalar(double cycles) {
  if (inKernel())
    timeline->run(Pipe::Scalar, cycles * device.scalarCycles);
}

void Interpreter::record(Operation *op, Pipe pipe, double start, double cycles,
                         const L2Cache::Outcome *lines) {
  if (!trace || !options.collectTrace ||
      trace->size() >= options.maxTraceEvents)
    return;
  trace->push_back(
      {core, pipe, op->getName().getStringRef().str(), start, cycles});
  if (lines) {
    trace->back().l2Hits = lines->hits;
    trace->back().l2Misses = lines->misses;
  }
}

void Interpreter::timeOp(Operation *op, Pipe pipe, double cycles) {
  if (!inKernel())
    return;
  double start = timeline->run(pipe, cycles);
  record(op, pipe, start, cycles);
}

//===----------------------------------------------------------------------===//
// OpExecution
//===----------------------------------------------------------------------===//

RtValue &OpExecution::getRegionArgument(unsigned region, unsigned arg) {
  return slots[current->regions[region]->arguments[arg]];
}

LogicalResult OpExecution::runRegion(unsigned region) {
  return interpreter.runBlock(*current->regions[region]);
}

const RtValue &OpExecution::getYielded(unsigned region, unsigned index) const {
  return slots[current->regions[region]->yielded[index]];
}

bool OpExecution::hasRegionBody(unsigned region) const {
  return current->regions[region] != nullptr;
}

FailureOr<MemRefView> OpExecution::allocate(MemRefType type,
                                            ArrayRef<int64_t> sizes) {
  FailureOr<MemRefView> view = interpreter.allocate(current->op, type, sizes);
  if (succeeded(view) && view->buffer->space == dev::MemorySpace::global) {
    interpreter.liveGlobalBytes += view->buffer->getSizeInBytes();
    interpreter.report.peakGlobalBytes = std::max(
        interpreter.report.peakGlobalBytes, interpreter.liveGlobalBytes);
  }
  return view;
}

void OpExecution::deallocate(const MemRefView &view) {
  Buffer &buffer = *view.buffer;
  if (buffer.space != dev::MemorySpace::global || buffer.freed ||
      buffer.argument >= 0)
    return;
  buffer.freed = true;
  interpreter.liveGlobalBytes -= buffer.getSizeInBytes();
}

LogicalResult OpExecution::checkWritten(const MemRefView &view) {
  std::optional<SmallVector<int64_t, 4>> index = view.findUnwritten();
  return index ? emitUnwrittenRead(view, *index) : success();
}

LogicalResult OpExecution::checkWritten(const MemRefView &view,
                                        ArrayRef<int64_t> indices) {
  if (view.buffer->written.test(view.linearize(indices)))
    return success();
  return emitUnwrittenRead(view, indices);
}

LogicalResult OpExecution::emitUnwrittenRead(const MemRefView &view,
                                             ArrayRef<int64_t> indices) {
  return emitOpError() << "reads element " << formatShape(indices) << " of "
                       << view.buffer->describe()
                       << ", which was never written (or not since a DMA "
                          "consumed it)";
}

LogicalResult OpExecution::checkIndices(const MemRefView &view,
                                        ArrayRef<int64_t> indices) {
  for (auto [d, i] : llvm::enumerate(indices))
    if (i < 0 || i >= view.sizes[d])
      return emitOpError() << "index " << i << " is out of bounds for "
                           << "dimension " << d << " of size " << view.sizes[d];
  return success();
}

bool OpExecution::inKernel() const { return interpreter.inKernel(); }
int64_t OpExecution::getTaskId() const { return interpreter.taskId; }
int64_t OpExecution::getTaskDim() const { return interpreter.taskDim; }

LogicalResult OpExecution::runTasks(int64_t tasks) {
  return interpreter.runTasks(current->op, *current->regions[0], tasks);
}

LogicalResult OpExecution::runMixedTasks() {
  return interpreter.runMixedTasks(current->op, *current->regions[0],
                                   *current->regions[1]);
}

LogicalResult OpExecution::setFlag(dev::CoreKind kind, int64_t task,
                                   unsigned flag) {
  return interpreter.setFlag(current->op, kind, task, flag);
}

LogicalResult OpExecution::waitFlag(unsigned flag) {
  return interpreter.waitFlag(current->op, flag);
}

FailureOr<double> OpExecution::runAsync(unsigned region) {
  return interpreter.runAsync(*current->regions[region]);
}

void OpExecution::reportRow(int64_t row) {
  auto [it, inserted] = interpreter.reportedRows.try_emplace(current->op, row);
  if (!inserted)
    it->second = std::min(it->second, row);
}

void OpExecution::chargeScalar(double ops) { interpreter.chargeScalar(ops); }

void OpExecution::chargeElementAccess(const MemRefView &view) {
  interpreter.chargeScalar(view.buffer->space == dev::MemorySpace::global
                               ? getDevice().globalLoadCycles
                               : 1);
}

void OpExecution::chargeVector(double bytes) {
  if (!inKernel())
    return;
  const DeviceModel &device = getDevice();
  interpreter.launchWork.vectorBytes += bytes;
  interpreter.timeOp(current->op, Pipe::Vector,
                     device.vectorIssueCycles +
                         std::ceil(bytes / device.vectorBytesPerCycle));
}

void OpExecution::chargeCube(double macs, ElementKind input) {
  if (!inKernel())
    return;
  const DeviceModel &device = getDevice();
  interpreter.launchWork.cubeMacs += macs;
  double rate =
      device.cubeMacsPerCycle * (input == ElementKind::F32 ? 0.5 : 1.0);
  interpreter.launchWork.cubeCycles += macs / rate;
  interpreter.timeOp(current->op, Pipe::Cube,
                     device.vectorIssueCycles + std::ceil(macs / rate));
}

double OpExecution::chargeDma(const MemRefView &source,
                              const MemRefView &target, bool wait) {
  if (!inKernel())
    return 0;
  int64_t bytes = source.getNumElements() * getElementBytes(source.getKind());
  bool fromGlobal = source.buffer->space == dev::MemorySpace::global;
  bool toGlobal = target.buffer->space == dev::MemorySpace::global;
  std::optional<Interpreter::GlobalAccess> access;
  if (fromGlobal || toGlobal)
    access.emplace();
  if (fromGlobal)
    interpreter.touchGlobal(source, /*write=*/false, *access);
  if (toGlobal)
    interpreter.touchGlobal(target, /*write=*/true, *access);
  double done = interpreter.queueDma(current->op, bytes,
                                     access ? &*access : nullptr, 0, wait);
  if (!wait || interpreter.asyncDepth != 0)
    interpreter.timeline->addCopyInFlight({current->op, source, target, done});
  return done;
}

void OpExecution::chargeIndexedDma(const MemRefView &dense,
                                   const MemRefView &table,
                                   ArrayRef<int64_t> rowOffsets,
                                   bool readsTable, bool writesTable) {
  if (!inKernel())
    return;
  if (table.buffer->space != dev::MemorySpace::global) {
    (void)chargeDma(dense, table, /*wait=*/true);
    return;
  }
  // Each row is a request (two for scatter-add: a read, then a write) of
  // whole bursts; the engine keeps dma_max_outstanding of them in flight,
  // each for the latency of where it is served from.
  const DeviceModel &device = getDevice();
  int64_t elementBytes = getElementBytes(table.getKind());
  int64_t rowBytes = elementBytes;
  for (int64_t size : llvm::drop_begin(table.sizes))
    rowBytes *= size;
  Interpreter::GlobalAccess access;
  double issueCycles = 0;
  int64_t bytes = 0;
  auto request = [&](int64_t offset, bool write) {
    // The bursts that hold the row.
    int64_t first =
        llvm::alignDown(offset * elementBytes, device.dmaBurstBytes);
    int64_t end =
        llvm::alignTo(offset * elementBytes + rowBytes, device.dmaBurstBytes);
    bool fromHbm = interpreter.touchGlobal(*table.buffer, first, end - first,
                                           write, access) ||
                   !interpreter.l2.isEnabled();
    issueCycles +=
        (fromHbm ? device.dmaLatencyCycles : device.l2LatencyCycles) /
        device.dmaMaxOutstanding;
    bytes += end - first;
  };
  for (int64_t offset : rowOffsets) {
    if (readsTable)
      request(offset, /*write=*/false);
    if (writesTable)
      request(offset, /*write=*/true);
  }
  (void)interpreter.queueDma(current->op, bytes, &access, issueCycles,
                             /*wait=*/true);
}
void OpExecution::waitUntil(double cycle) {
  if (inKernel())
    interpreter.timeline->waitUntil(cycle);
}

void OpExecution::waitForAllDma() {
  if (inKernel())
    interpreter.timeline->waitForAllDma();
}

const DeviceModel &OpExecution::getDevice() const { return interpreter.device; }

//===----------------------------------------------------------------------===//
// Entry point
//===----------------------------------------------------------------------===//

/// Registers the models with `ctx` unless a context built from
/// registerAllDialects already has them (appending them again would only
/// grow the context's registry).
static void ensureSimulatorModels(MLIRContext *ctx) {
  bool missing = false;
  for (StringRef name : {"arith.constant", "math.exp", "scf.for", "memref.load",
                         "npudev.launch"})
    if (std::optional<RegisteredOperationName> op =
            RegisteredOperationName::lookup(name, ctx))
      missing |= !op->hasInterface<SimulatedOpInterface>();
    else
      missing = true;
  if (!missing)
    return;
  DialectRegistry registry;
  registerSimulatorModels(registry);
  ctx->appendDialectRegistry(registry);
}

LogicalResult npu::sim::simulate(func::FuncOp func,
                                 MutableArrayRef<HostArray> args,
                                 const SimulatorOptions &options,
                                 SimulationReport &report,
                                 std::vector<TraceEvent> *trace) {
  FailureOr<DeviceModel> device = dev::lookupDevice(func);
  if (failed(device))
    return failure();
  return simulate(func, args, *device, options, report, trace);
}

LogicalResult
npu::sim::simulate(func::FuncOp func, MutableArrayRef<HostArray> args,
                   const DeviceModel &device, const SimulatorOptions &options,
                   SimulationReport &report, std::vector<TraceEvent> *trace) {
  report = SimulationReport();
  if (dev::findDeviceAttr(func)) {
    FailureOr<DeviceModel> named = dev::lookupDevice(func);
    if (failed(named))
      return failure();
    if (std::optional<std::string> field = named->findDifference(device))
      return func.emitError("simulating on device '")
             << device.name << "' a kernel compiled for device '" << named->name
             << "' (they differ in '" << *field << "')";
  }
  // The whole module, as the JIT compiles it: both refuse the same input.
  Operation *root = func;
  while (Operation *parent = root->getParentOp())
    root = parent;
  if (failed(dev::checkKernelIR(root)))
    return failure();
  ensureSimulatorModels(func->getContext());
  return Interpreter(device, options, report, trace).run(func, args);
}

void npu::sim::registerSimulatorModels(DialectRegistry &registry) {
  registerArithModels(registry);
  registerMathModels(registry);
  registerSCFModels(registry);
  registerMemRefModels(registry);
  registerNPUDevModels(registry);
}
