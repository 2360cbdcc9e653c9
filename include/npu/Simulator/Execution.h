//===- Execution.h - what an op model sees while it runs --------*- C++ -*-===//
//
// The interface between the interpreter and the per-op models that give
// ops their meaning (SimulatedOpInterface). A model reads its operands and
// writes its results by position, runs its regions, allocates and checks
// memory, and charges its cost; it never sees how values are stored or how
// time is kept.
//
// Values live in a flat slot array that the interpreter sizes once per
// function (one slot per SSA value), so operand access is two loads and no
// reference into it is ever invalidated.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_SIMULATOR_EXECUTION_H
#define NPU_SIMULATOR_EXECUTION_H

#include "npu/Dialect/NPUDev/NPUDevEnums.h"
#include "npu/Simulator/Memory.h"
#include "npu/Simulator/SimulatorInterfaces.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"

#include <memory>

namespace npu {
struct DeviceModel;
} // namespace npu

namespace npu::sim {

/// The run-time value of an SSA value: integers (sign-extended from their
/// width, as LLVM holds them) and a DMA token's completion cycle in `i` /
/// `f`, floats in `f`, memrefs as a view.
struct RtValue {
  int64_t i = 0;
  double f = 0;
  std::shared_ptr<const MemRefView> view;
};

class Interpreter;

namespace detail {
struct PreparedBlock;
/// An op as the interpreter runs it: its model, found once, and the slots
/// of its operands and results.
struct PreparedOp {
  mlir::Operation *op;
  SimulatedOpInterface model;
  llvm::SmallVector<uint32_t, 3> operands;
  llvm::SmallVector<uint32_t, 1> results;
  llvm::SmallVector<PreparedBlock *, 1> regions;
  /// The memref operands the op reads and writes, from its memory effects:
  /// (operand number, whether it writes).
  llvm::SmallVector<std::pair<unsigned, bool>, 3> accesses;
};
} // namespace detail

/// The execution of one op, handed to its model.
class OpExecution {
public:
  mlir::Operation *getOp() const { return current->op; }

  //===--- Operands and results, by position ------------------------------===//
  int64_t getInt(unsigned operand) const { return operandSlot(operand).i; }
  double getFloat(unsigned operand) const { return operandSlot(operand).f; }
  ScalarValue getScalar(unsigned operand) const {
    const RtValue &v = operandSlot(operand);
    return {v.i, v.f};
  }
  const MemRefView &getView(unsigned operand) const {
    return *operandSlot(operand).view;
  }
  const RtValue &getValue(unsigned operand) const {
    return operandSlot(operand);
  }
  ElementKind getOperandKind(unsigned operand) const {
    return kinds[current->operands[operand]];
  }
  /// Bits of an integer operand (64 for index).
  unsigned getOperandBits(unsigned operand) const {
    return bits[current->operands[operand]];
  }

  /// Sets an integer result, wrapped to the result's width.
  void setInt(unsigned result, int64_t value) {
    uint32_t slot = current->results[result];
    slots[slot].i = wrapToBits(value, bits[slot]);
  }
  void setFloat(unsigned result, double value) {
    slots[current->results[result]].f = value;
  }
  void setView(unsigned result, MemRefView view) {
    slots[current->results[result]].view =
        std::make_shared<const MemRefView>(std::move(view));
  }
  void setValue(unsigned result, const RtValue &value) {
    slots[current->results[result]] = value;
  }
  ElementKind getResultKind(unsigned result) const {
    return kinds[current->results[result]];
  }
  unsigned getResultBits(unsigned result) const {
    return bits[current->results[result]];
  }

  //===--- Regions --------------------------------------------------------===//
  /// The slot of argument `arg` of the entry block of region `region`.
  RtValue &getRegionArgument(unsigned region, unsigned arg);
  /// Runs the entry block of region `region`; its terminator's operands are
  /// then available through getYielded.
  mlir::LogicalResult runRegion(unsigned region);
  const RtValue &getYielded(unsigned region, unsigned index) const;
  bool hasRegionBody(unsigned region) const;

  //===--- Memory ---------------------------------------------------------===//
  /// A new contiguous buffer of `type` with the given sizes.
  mlir::FailureOr<MemRefView> allocate(mlir::MemRefType type,
                                       llvm::ArrayRef<int64_t> sizes);
  /// Ends the life of `view`'s buffer (memref.dealloc): global memory's
  /// count of bytes in use drops by its size.
  void deallocate(const MemRefView &view);
  /// Fails naming the op, `view`'s buffer and the first element index if
  /// some element of `view` was never written.
  mlir::LogicalResult checkWritten(const MemRefView &view);
  /// The same for the element of `view` at `indices`.
  mlir::LogicalResult checkWritten(const MemRefView &view,
                                   llvm::ArrayRef<int64_t> indices);
  void markWritten(const MemRefView &view) const {
    view.buffer->markWritten(view);
  }
  /// Fails naming the dimension if `indices` are outside `view`.
  mlir::LogicalResult checkIndices(const MemRefView &view,
                                   llvm::ArrayRef<int64_t> indices);

  //===--- Tasks ----------------------------------------------------------===//
  bool inKernel() const;
  int64_t getTaskId() const;
  int64_t getTaskDim() const;
  /// Runs region 0 once per task, `tasks` tasks spread over the cores, and
  /// advances the kernel clock to the slowest core.
  mlir::LogicalResult runTasks(int64_t tasks);
  /// Runs an npudev.mixed_launch: region 0 by its cube tasks, region 1 by
  /// its vector tasks, all at once.
  mlir::LogicalResult runMixedTasks();
  /// Signals flag `flag` of the `kind` task `task` of the running mixed
  /// launch; waits for flag `flag` of the running task.
  mlir::LogicalResult setFlag(dev::CoreKind kind, int64_t task, unsigned flag);
  mlir::LogicalResult waitFlag(unsigned flag);
  /// Runs region `region` as npudev.async does; returns the cycle its
  /// token completes.
  mlir::FailureOr<double> runAsync(unsigned region);
  /// Records that the op (an npudev.report_rows) found input row `row`
  /// broken; the launch fails when it ends (checkReportedRows).
  void reportRow(int64_t row);

  //===--- Cost -----------------------------------------------------------===//
  /// `ops` scalar-unit instructions.
  void chargeScalar(double ops = 1);
  /// A scalar load or store of one element of `view`: a global access pays
  /// the device's global_load_cycles, an on-chip one a cycle.
  void chargeElementAccess(const MemRefView &view);
  /// A vector instruction streaming `bytes` through the unit.
  void chargeVector(double bytes);
  /// `macs` multiply-accumulates on the cube unit with `input` operands.
  void chargeCube(double macs, ElementKind input);
  /// A copy of `source` into `target` on the DMA engine; returns the cycle
  /// it completes (0 outside kernels). With `wait` the core stalls for it.
  double chargeDma(const MemRefView &source, const MemRefView &target,
                   bool wait);
  /// An indexed copy between the on-chip `dense` view and the rows of
  /// `table` that start at elements `rowOffsets`: a gather reads the
  /// table, a scatter writes it, a scatter-add does both. A global table is
  /// served a request per row (and per direction) in whole bursts; the core
  /// waits for the copy.
  void chargeIndexedDma(const MemRefView &dense, const MemRefView &table,
                        llvm::ArrayRef<int64_t> rowOffsets, bool readsTable,
                        bool writesTable);
  /// Stalls the core until `cycle` / until every DMA it started is done.
  void waitUntil(double cycle);
  void waitForAllDma();

  const DeviceModel &getDevice() const;
  /// An error at the op: "'name' op " followed by the message.
  mlir::InFlightDiagnostic emitOpError() const {
    return current->op->emitOpError();
  }

private:
  friend class Interpreter;
  OpExecution(Interpreter &interpreter, RtValue *slots, const uint8_t *bits,
              const ElementKind *kinds)
      : interpreter(interpreter), slots(slots), bits(bits), kinds(kinds) {}
  const RtValue &operandSlot(unsigned operand) const {
    return slots[current->operands[operand]];
  }
  /// Fails naming the op, `view`'s buffer and the element at `indices`,
  /// which holds no value.
  mlir::LogicalResult emitUnwrittenRead(const MemRefView &view,
                                        llvm::ArrayRef<int64_t> indices);

  Interpreter &interpreter;
  RtValue *slots;
  const uint8_t *bits;
  const ElementKind *kinds;
  const detail::PreparedOp *current = nullptr;
};

/// Attaches the simulator's models to npudev, arith, math, scf and memref
/// ops (also done by simulate() for the ops of its context).
void registerSimulatorModels(mlir::DialectRegistry &registry);

} // namespace npu::sim

#endif // NPU_SIMULATOR_EXECUTION_H
