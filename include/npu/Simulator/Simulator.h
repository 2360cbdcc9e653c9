//===- Simulator.h - execute npudev kernels with a cost model ---*- C++ -*-===//
//
// Executes a function of npudev + scf + arith + memref + math exactly
// (every value computed, every access bounds-checked), and times the
// launches on a DeviceModel: per core, separate scalar, DMA, vector and
// cube pipes (docs/simulator.md).
//
//===----------------------------------------------------------------------===//

#ifndef NPU_SIMULATOR_SIMULATOR_H
#define NPU_SIMULATOR_SIMULATOR_H

#include "npu/Device/DeviceModel.h"
#include "npu/Runtime/HostArray.h"
#include "npu/Simulator/Memory.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace npu::sim {

/// The pipes of one core.
/// The pipes a core's instructions run on. DMAOut is the engine of copies
/// into global memory on a device that has one apart (dma_out_engine);
/// otherwise every copy runs on DMA.
enum class Pipe : unsigned {
  Scalar = 0,
  DMA = 1,
  Vector = 2,
  Cube = 3,
  DMAOut = 4
};
constexpr unsigned kNumPipes = 5;
llvm::StringRef getPipeName(Pipe pipe);

/// One timed instruction, for the trace.
struct TraceEvent {
  unsigned core;
  Pipe pipe;
  std::string name;
  double startCycle, cycles;
  /// A copy through the L2: the lines it hit and missed (-1 otherwise).
  int64_t l2Hits = -1, l2Misses = -1;
};

struct SimulationReport {
  /// Kernel time: launches run one after the other.
  double cycles = 0;
  double seconds = 0;
  /// Busy cycles per pipe, summed over cores.
  double pipeBusyCycles[kNumPipes] = {};
  /// Bytes DMA moved to or from global memory (indexed rows in whole
  /// bursts), and the bytes HBM moved for them: with an L2, the lines it
  /// fetched and the dirty lines it wrote back; without one, the same.
  int64_t globalBytes = 0;
  int64_t hbmBytes = 0;
  /// L2 lines hit, missed and written back, and the dirty bytes it still
  /// holds when the kernel ends (not yet in HBM).
  int64_t l2Hits = 0, l2Misses = 0, l2Writebacks = 0;
  int64_t l2DirtyBytes = 0;
  /// Work done: bytes through the vector unit, multiply-accumulates on the
  /// cube unit.
  double vectorBytes = 0;
  double cubeMacs = 0;
  /// Peak bytes of on-chip buffers live at once, per memory space, over
  /// cores.
  int64_t peakBytes[4] = {};
  /// The most global memory the program's allocations (memref.alloc:
  /// intermediate tensors and workspaces; not the arguments) held at once.
  int64_t peakGlobalBytes = 0;
  unsigned coresUsed = 0;
  /// Ops the interpreter executed (a loop body counts once per iteration).
  int64_t opsExecuted = 0;
  /// Theoretical time at peak over simulated time: IO (global bytes at the
  /// global bandwidth) and compute (vector bytes and cube MACs at the
  /// device's peak rates).
  double ioEfficiency = 0;
  double computeEfficiency = 0;
  /// Cube MACs over what the cube cores could do in the kernel's time at
  /// the f16 rate.
  double cubeUtilization = 0;
  /// The kernel by step, in order of first launch: launches with the same
  /// `npudev.tiling` strategy and step add up ("sort.expand"); a launch
  /// without one is a step of its own ("launch 2", numbered by first run).
  struct Step {
    std::string name;
    double cycles = 0;
    int64_t hbmBytes = 0, l2Hits = 0, l2Misses = 0;
    /// The step's work at the device's peak, in cycles: global bytes at
    /// the bandwidth that served them (HBM's bytes at global_gbps and, with
    /// an L2, every byte at l2_gbps, the slower of the two), vector bytes
    /// over every vector core, cube MACs over every cube core (f32 inputs
    /// at half rate).
    double ioCycles = 0, vectorCycles = 0, cubeCycles = 0;
    /// The roofline: the sum over the step's launches of each launch's
    /// largest of the three. No schedule beats it.
    double boundCycles = 0;
    /// "io", "vector" or "cube": the largest of the step's three.
    llvm::StringRef getLimit() const;
  };
  std::vector<Step> steps;
  /// The kernel by layer: the launches built from one graph op share its
  /// location (an imported ONNX node's name, or the op's file and line)
  /// and add up, in order of first launch.
  struct Layer {
    std::string name;
    /// Its launches' steps, each once, in order of first launch.
    llvm::SmallVector<std::string, 4> steps;
    double cycles = 0;
    /// The sum of its launches' roofline bounds.
    double boundCycles = 0;
  };
  std::vector<Layer> layers;
  /// The roofline of the whole kernel (the steps' bounds added up) and its
  /// ratio to the modelled time.
  double boundCycles = 0;
  double rooflineRatio = 0;

  /// The report, listing the `layers` slowest layers (all with 0).
  void print(llvm::raw_ostream &os, const DeviceModel &device,
             unsigned layers = 10) const;
  /// The `count` slowest layers (all with 0), when there are two or more.
  void printSlowestLayers(llvm::raw_ostream &os, const DeviceModel &device,
                          unsigned count) const;
};

struct SimulatorOptions {
  bool collectTrace = false;
  /// Events beyond this are counted but not kept.
  size_t maxTraceEvents = 1000000;
};

/// Runs `func` on `args` (one per function argument), timed on the device
/// its module names (`npudev.device`; mlu590 when it names none). Fails
/// with a diagnostic at the offending op on an out-of-bounds access, a read
/// of never-written memory, an op without a simulator model, an on-chip
/// memory overflow or bad arguments.
mlir::LogicalResult simulate(mlir::func::FuncOp func,
                             llvm::MutableArrayRef<HostArray> args,
                             const SimulatorOptions &options,
                             SimulationReport &report,
                             std::vector<TraceEvent> *trace = nullptr);

/// The same on `device`, for a module that names no device or names this
/// one; a module compiled for another device is an error naming both.
mlir::LogicalResult
simulate(mlir::func::FuncOp func, llvm::MutableArrayRef<HostArray> args,
         const DeviceModel &device, const SimulatorOptions &options,
         SimulationReport &report, std::vector<TraceEvent> *trace = nullptr);

/// The name of trace core `core`: "core N" on a unified device; on a split
/// one "vector core N", then "cube core N" (cube cores follow the vector
/// cores in trace numbering).
std::string getCoreName(const DeviceModel &device, unsigned core);

/// Writes `events` as Chrome trace-event JSON (opens in Perfetto): one
/// process per core, one thread per pipe, microseconds.
void writeChromeTrace(llvm::ArrayRef<TraceEvent> events,
                      const DeviceModel &device, llvm::raw_ostream &os);

} // namespace npu::sim

#endif // NPU_SIMULATOR_SIMULATOR_H
