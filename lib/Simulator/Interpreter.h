//===- Interpreter.h - runs prepared functions ------------------*- C++ -*-===//
//
// Private to lib/Simulator: the state behind OpExecution.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_LIB_SIMULATOR_INTERPRETER_H
#define NPU_LIB_SIMULATOR_INTERPRETER_H

#include "Timeline.h"
#include "npu/Simulator/Execution.h"
#include "npu/Simulator/Simulator.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <deque>

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
      : device(device), options(options), report(report), trace(trace) {}

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
  mlir::LogicalResult bindArguments(mlir::func::FuncOp func,
                                    llvm::MutableArrayRef<HostArray> args);
  mlir::LogicalResult runTasks(mlir::Operation *launch,
                               const detail::PreparedBlock &body,
                               int64_t tasks);
  mlir::LogicalResult checkOnChipMemory(mlir::Operation *launch);
  /// Adds a launch's cycles to its step in the report.
  void recordStep(mlir::Operation *launch, double cycles);
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
  void record(mlir::Operation *op, Pipe pipe, double start, double cycles);

  const DeviceModel &device;
  const SimulatorOptions &options;
  SimulationReport &report;
  std::vector<TraceEvent> *trace;

  llvm::DenseMap<mlir::Value, uint32_t> slotIndex;
  std::vector<RtValue> slots;
  std::vector<uint8_t> slotBits;
  std::vector<ElementKind> slotKinds;
  std::deque<detail::PreparedBlock> blocks;
  detail::PreparedBlock *entry = nullptr;

  /// Set while a task runs.
  CoreTimeline *timeline = nullptr;
  unsigned core = 0;
  int64_t taskId = 0, taskDim = 0;
  unsigned activeCores = 1;
  /// The smallest row each npudev.report_rows reported in this launch.
  llvm::DenseMap<mlir::Operation *, int64_t> reportedRows;
};

} // namespace npu::sim

#endif // NPU_LIB_SIMULATOR_INTERPRETER_H
