//===- Interpreter.h - runs prepared functions ------------------*- C++ -*-===//
//
// Private to lib/Simulator: the state behind OpExecution.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_LIB_SIMULATOR_INTERPRETER_H
#define NPU_LIB_SIMULATOR_INTERPRETER_H

#include "Timeline.h"
#include "npu/Dialect/NPUDev/NPUDevEnums.h"
#include "npu/Simulator/Execution.h"
#include "npu/Simulator/L2Cache.h"
#include "npu/Simulator/Simulator.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringMap.h"

#include <deque>

namespace npu {
class ConcurrentTasks;
} // namespace npu

namespace npu::sim {

namespace detail {
/// A block as the interpreter runs it.
struct PreparedBlock {
  std::vector<PreparedOp> ops;
  llvm::SmallVector<uint32_t, 4> arguments;
  /// Slots of the terminator's operands.
  llvm::SmallVector<uint32_t, 4> yielded;
};
} // namespace detail

class Interpreter {
public:
  Interpreter(const DeviceModel &device, const SimulatorOptions &options,
              SimulationReport &report, std::vector<TraceEvent> *trace)
      : device(device), options(options), report(report), trace(trace),
        l2(device.l2Bytes, device.l2LineBytes, device.l2Ways) {}

  mlir::LogicalResult run(mlir::func::FuncOp func,
                          llvm::MutableArrayRef<HostArray> args);

private:
  friend class OpExecution;

  //===--- Preparation: slots and models, once per function ---------------===//
  mlir::LogicalResult prepare(mlir::func::FuncOp func);
  mlir::FailureOr<detail::PreparedBlock *> prepareBlock(mlir::Block &block);
  uint32_t addSlot(mlir::Value value);
  uint32_t slotOf(mlir::Value value) const { return slotIndex.lookup(value); }

  //===--- Execution ------------------------------------------------------===//
  mlir::LogicalResult runBlock(const detail::PreparedBlock &block);
  /// Fails, naming both ops, when `op` reads bytes a copy still in flight
  /// on this core writes, or writes bytes one reads or writes.
  mlir::LogicalResult checkRaces(const detail::PreparedOp &op);
  mlir::LogicalResult bindArguments(mlir::func::FuncOp func,
                                    llvm::MutableArrayRef<HostArray> args);
  mlir::LogicalResult runTasks(mlir::Operation *launch,
                               const detail::PreparedBlock &body,
                               int64_t tasks);
  mlir::LogicalResult checkOnChipMemory(mlir::Operation *launch);

  //===--- Mixed launches: tasks that signal each other -------------------===//
  struct MixedTask;
  struct MixedLaunch;
  mlir::LogicalResult runMixedTasks(mlir::Operation *launch,
                                    const detail::PreparedBlock &cube,
                                    const detail::PreparedBlock &vector);
  /// Points the per-task members (clock, ids, slots) at task `task`: done
  /// by the task's thread whenever it gains the scheduler's permit.
  void enterMixedTask(size_t task);
  mlir::LogicalResult emitDeadlock(mlir::Operation *launch,
                                   const MixedLaunch &state);
  mlir::LogicalResult setFlag(mlir::Operation *op, dev::CoreKind kind,
                              int64_t task, unsigned flag);
  mlir::LogicalResult waitFlag(mlir::Operation *op, unsigned flag);
  /// Runs an npudev.async body on its own cursor; returns the cycle it
  /// completes (0 outside kernels).
  mlir::FailureOr<double> runAsync(const detail::PreparedBlock &body);
  /// Adds a launch's cycles and its work (launchWork) to its step and to
  /// the report's totals.
  void recordStep(mlir::Operation *launch, double cycles);
  /// Adds a launch of `step` to its layer in the report.
  void recordLayer(mlir::Operation *launch, llvm::StringRef step, double cycles,
                   double bound);
  /// How the L2 (or, without one, HBM) served the global side of a copy.
  struct GlobalAccess {
    /// Bytes HBM moved for it: lines fetched (without an L2, every byte),
    /// which the copy waits for, and dirty lines it replaced, which the L2
    /// writes back in the background.
    int64_t fetchBytes = 0, writebackBytes = 0;
    /// Whether a read waited for HBM (a line missed), whether the copy
    /// writes global memory.
    bool readMissed = false, writes = false;
    L2Cache::Outcome lines;
  };
  /// Reads or writes `view` of a global buffer through the L2, one
  /// contiguous run at a time.
  void touchGlobal(const MemRefView &view, bool write, GlobalAccess &access);
  /// The same for bytes [byteOffset, byteOffset + bytes) of a global
  /// `buffer`; returns whether it was a read that waited for HBM.
  bool touchGlobal(const Buffer &buffer, int64_t byteOffset, int64_t bytes,
                   bool write, GlobalAccess &access);
  /// How many cores share HBM with the current one: those running its
  /// program, every core of a launch or the tasks of its kind in a mixed
  /// launch (attention's cube cores fetch K and V, its vector cores read
  /// the workspace the L2 holds).
  unsigned getHbmSharers() const;
  /// Queues `bytes` on the current core's DMA engine, served as `global`
  /// says when one side is global memory (null otherwise), holding the
  /// engine at least `issueCycles`. Returns the completion cycle.
  double queueDma(mlir::Operation *op, int64_t bytes,
                  const GlobalAccess *global, double issueCycles, bool wait);
  /// Ends a launch that started at `startCycle` on `cores`: the kernel clock
  /// moves to the slowest core, pipe busy cycles add up.
  void finishLaunch(mlir::Operation *launch, double startCycle,
                    llvm::ArrayRef<const CoreTimeline *> cores);
  /// The error of the first report in `launch` that fired, if any.
  mlir::LogicalResult checkReportedRows(mlir::Operation *launch);
  void finishReport();

  //===--- Memory and timing ----------------------------------------------===//
  /// A new buffer; without `withStorage` its bytes are left empty. Sizes
  /// are checked (the product must stay below the simulator's limit).
  mlir::FailureOr<MemRefView> allocate(mlir::Operation *op,
                                       mlir::MemRefType type,
                                       llvm::ArrayRef<int64_t> sizes,
                                       bool withStorage = true);
  bool inKernel() const { return timeline != nullptr; }
  void chargeScalar(double cycles);
  void timeOp(mlir::Operation *op, Pipe pipe, double cycles);
  void record(mlir::Operation *op, Pipe pipe, double start, double cycles,
              const L2Cache::Outcome *lines = nullptr);

  const DeviceModel &device;
  const SimulatorOptions &options;
  SimulationReport &report;
  std::vector<TraceEvent> *trace;

  llvm::DenseMap<mlir::Value, uint32_t> slotIndex;
  std::vector<RtValue> slots;
  /// The slots ops read and write: `slots`, or a mixed task's copy.
  RtValue *slotBase = nullptr;
  std::vector<uint8_t> slotBits;
  std::vector<ElementKind> slotKinds;
  std::deque<detail::PreparedBlock> blocks;
  detail::PreparedBlock *entry = nullptr;

  /// Set while a task runs.
  CoreTimeline *timeline = nullptr;
  unsigned core = 0;
  int64_t taskId = 0, taskDim = 0;
  unsigned activeCores = 1;
  /// Set while a mixed launch runs, with the index of the running task.
  MixedLaunch *mixed = nullptr;
  size_t mixedTask = 0;
  /// How many npudev.async bodies are running: a copy issued in one is in
  /// flight for the task until the async's wait.
  unsigned asyncDepth = 0;
  /// The work of the running launch: the report's totals and its step's
  /// roofline are summed from it when the launch ends (recordStep). Cube
  /// cycles are on one core at its peak rate.
  struct LaunchWork {
    int64_t globalBytes = 0, hbmBytes = 0;
    int64_t l2Hits = 0, l2Misses = 0, l2Writebacks = 0;
    double vectorBytes = 0, cubeMacs = 0, cubeCycles = 0;
  } launchWork;
  /// Global memory's L2, shared by every core, and the next device address
  /// a global buffer gets.
  L2Cache l2;
  uint64_t nextGlobalAddress = 0;
  /// Bytes of global memory the program's allocations hold now.
  int64_t liveGlobalBytes = 0;
  /// The step names of launches without a tiling, by first run.
  llvm::DenseMap<mlir::Operation *, unsigned> untiledLaunches;
  /// Where each layer's name is in the report's layers.
  llvm::StringMap<unsigned> layerIndex;
  /// The smallest row each npudev.report_rows reported in this launch.
  llvm::DenseMap<mlir::Operation *, int64_t> reportedRows;
};

} // namespace npu::sim

#endif // NPU_LIB_SIMULATOR_INTERPRETER_H
