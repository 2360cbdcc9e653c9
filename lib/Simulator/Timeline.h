//===- Timeline.h - per-core pipe timing ------------------------*- C++ -*-===//
//
// One core's clock: every instruction starts after the previous one in
// program order and after its pipe is free, except an asynchronous DMA,
// which occupies its DMA pipe while the core goes on until it waits on the
// token. A DMA pipe is pipelined: a copy holds it for its transfer time
// and completes a latency later. A core's copies complete in order, even
// across its two DMA pipes (in and out, where the device has both): a wait
// on one covers every copy before it. The copies still moving are kept, so
// that an access racing one of them is an error (Interpreter::checkRaces).
//
//===----------------------------------------------------------------------===//

#ifndef NPU_LIB_SIMULATOR_TIMELINE_H
#define NPU_LIB_SIMULATOR_TIMELINE_H

#include "npu/Simulator/Memory.h"
#include "npu/Simulator/Simulator.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <vector>

namespace npu::sim {

class CoreTimeline {
public:
  /// An asynchronous copy (npudev.dma_start) still moving: what it reads
  /// and writes, and the cycle it completes. Until then the core must not
  /// touch what it writes, nor write what it reads.
  struct InFlightCopy {
    mlir::Operation *op;
    MemRefView source, target;
    double done;
  };

  explicit CoreTimeline(double start = 0) : now(start) {
    std::fill(std::begin(pipeFree), std::end(pipeFree), start);
  }

  /// Runs `cycles` on `pipe` in program order; returns the start cycle.
  double run(Pipe pipe, double cycles) {
    double start = std::max(now, free(pipe));
    free(pipe) = start + cycles;
    busy[static_cast<unsigned>(pipe)] += cycles;
    now = start + cycles;
    return start;
  }

  /// Queues a copy on DMA pipe `pipe`: it holds the pipe for `transfer`
  /// cycles and completes `latency` cycles after that, so copies queued
  /// back to back overlap their latencies (the engine is pipelined), and
  /// not before the copies queued before it. With `wait` the core stalls
  /// until the copy completes. Returns (start, completion).
  std::pair<double, double> dma(Pipe pipe, double transfer, double latency,
                                bool wait) {
    double start = std::max(now, free(pipe));
    free(pipe) = start + transfer;
    busy[static_cast<unsigned>(pipe)] += transfer;
    double done = std::max(start + transfer + latency, lastDmaDone);
    lastDmaDone = done;
    if (wait)
      now = std::max(now, done);
    return {start, done};
  }

  /// Stalls the core until `cycle` (a token's completion).
  void waitUntil(double cycle) { now = std::max(now, cycle); }

  /// The cycle the core issues its next instruction. An npudev.async body
  /// runs on a cursor of its own: its ops advance `now` from where the
  /// core stands, which is then put back (setNow).
  double getNow() const { return now; }
  void setNow(double cycle) { now = cycle; }

  /// When everything the core issued so far has completed, DMAs included.
  double getIdle() const { return std::max(getFinish(), lastDmaDone); }

  /// Stalls the core until every copy it queued has completed.
  void waitForAllDma() { now = std::max(now, lastDmaDone); }

  /// When every pipe of the core is idle.
  double getFinish() const {
    return std::max(
        now, *std::max_element(std::begin(pipeFree), std::end(pipeFree)));
  }
  double getBusy(Pipe pipe) const { return busy[static_cast<unsigned>(pipe)]; }

  /// The copies the core started and has not yet seen complete: those
  /// completing by the current cycle are dropped.
  std::vector<InFlightCopy> &getCopiesInFlight() {
    llvm::erase_if(inFlight,
                   [&](const InFlightCopy &c) { return c.done <= now; });
    return inFlight;
  }
  bool hasCopiesInFlight() const { return !inFlight.empty(); }
  void addCopyInFlight(InFlightCopy copy) {
    inFlight.push_back(std::move(copy));
  }

private:
  double &free(Pipe pipe) { return pipeFree[static_cast<unsigned>(pipe)]; }

  double now;
  double lastDmaDone = 0;
  double pipeFree[kNumPipes];
  double busy[kNumPipes] = {};
  std::vector<InFlightCopy> inFlight;
};

} // namespace npu::sim

#endif // NPU_LIB_SIMULATOR_TIMELINE_H
