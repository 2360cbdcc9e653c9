//===- ConcurrentTasks.h - tasks that wait for each other -------*- C++ -*-===//
//
// The tasks of an npudev.mixed_launch signal and wait for cross-core flags,
// so none can be run to completion before another starts. A number of
// permits bounds how many run at once, and a task gives its permit back
// while it waits. With one permit and a priority the schedule is
// deterministic (the simulator: the task whose core clock is earliest goes
// next), and the tasks run as fibers on the calling thread, each on a stack
// of its own: a hand-over is a context switch in the process, not a wake-up
// of another thread through the kernel. With more permits each task gets a
// thread and tasks run in parallel (the JIT, bounded by its thread count).
// Both executors share this class, so flags mean the same in each.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_RUNTIME_CONCURRENTTASKS_H
#define NPU_RUNTIME_CONCURRENTTASKS_H

#include "llvm/ADT/STLFunctionalExtras.h"

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace npu {

class ConcurrentTasks {
public:
  /// Flags per task, as Ascend's cross-core flags.
  static constexpr unsigned kNumFlags = 16;
  /// Signals a flag holds before the next is an overflow.
  static constexpr unsigned kMaxPending = 15;

  /// `numTasks` tasks, at most `permits` (at least 1) running at once. When
  /// several tasks are ready, the one with the smallest `priority` runs
  /// first, ties (and every choice without a priority) to the lowest
  /// index. `priority` is called with the scheduler's lock held, by the
  /// thread giving up its permit.
  ConcurrentTasks(size_t numTasks, unsigned permits,
                  std::function<double(size_t)> priority = nullptr);

  /// Runs `body(task)` for every task and returns when all have finished:
  /// with one permit as fibers on the calling thread, else each on a
  /// thread of its own. False when a body returned false, abort() was
  /// called or the tasks deadlocked (isDeadlocked()).
  bool run(llvm::function_ref<bool(size_t)> body);

  /// Adds a signal to flag `flag` of task `task`; returns the signals now
  /// pending there (above kMaxPending is the caller's error to report).
  unsigned signal(size_t task, unsigned flag);
  /// Called by task `self`: takes a signal of its flag `flag`, first
  /// waiting without its permit until one is pending. Returns false,
  /// without waiting further, once the run is aborted or deadlocked.
  bool wait(size_t self, unsigned flag);
  /// Ends the run: waits return false from now on.
  void abort();

  /// Whether the run ended because every unfinished task was waiting.
  bool isDeadlocked() const { return deadlocked; }
  /// The tasks waiting at the deadlock, each with the flag it waited for.
  const std::vector<std::pair<size_t, unsigned>> &getDeadlockedTasks() const {
    return waitingAtDeadlock;
  }

private:
  enum class State { Ready, Running, Waiting, Done };

  /// Hands free permits to ready tasks in priority order, and detects a
  /// deadlock. Called with `mutex` held.
  void grantPermits();
  void abortLocked();
  /// The ready task to run next, or numTasks.
  size_t pickReady() const;
  bool runOnThreads(llvm::function_ref<bool(size_t)> body);
  bool runOnFibers(llvm::function_ref<bool(size_t)> body);
  /// Runs task `t`'s body in its permit, then marks it done. Called with
  /// `mutex` unlocked.
  void runTask(size_t t, llvm::function_ref<bool(size_t)> body);
  /// From task `self`'s fiber, with `lock` held: gives the thread back to
  /// the scheduler until the task is resumed.
  void yieldFiber(size_t self, std::unique_lock<std::mutex> &lock);

  size_t numTasks;
  unsigned freePermits;
  std::function<double(size_t)> priority;

  std::mutex mutex;
  std::vector<std::condition_variable> wakeUp;
  std::vector<State> states;
  std::vector<unsigned> waitingFor;
  std::vector<unsigned> pending;
  bool aborted = false;
  bool deadlocked = false;
  std::vector<std::pair<size_t, unsigned>> waitingAtDeadlock;
  /// The fibers of a one-permit run (lib/Runtime/ConcurrentTasks.cpp), or
  /// null.
  struct Fibers;
  Fibers *fibers = nullptr;
};

//===--- The errors of a mixed launch, the same in both executors --------===//
// Its first `cubeTasks` tasks are the cube tasks, the others the vector
// tasks.

/// "cube task 3" or "vector task 0".
std::string describeMixedTask(size_t cubeTasks, size_t task);
/// After a deadlock of `tasks`: "deadlocked: every unfinished task waits
/// ... (cube task 0 waits for flag 1, ...)".
std::string describeDeadlock(const ConcurrentTasks &tasks, size_t cubeTasks);
/// A set_flag naming a task the launch lacks.
std::string describeMissingTask(bool cube, int64_t task, int64_t count);
/// A set_flag that left `pending` > kMaxPending signals on a flag.
std::string describeFlagOverflow(size_t cubeTasks, size_t task, unsigned flag,
                                 unsigned pending);

} // namespace npu

#endif // NPU_RUNTIME_CONCURRENTTASKS_H
