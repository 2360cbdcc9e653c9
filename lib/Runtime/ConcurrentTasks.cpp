//===- ConcurrentTasks.cpp - tasks that wait for each other ---------------===//
//
// One mutex guards the scheduler: task states, pending signals and free
// permits. A permit passes only by grantPermits, which marks the chosen
// task Running before waking it, so with one permit exactly one task runs
// and the order is the priority's, whatever the OS does with the threads.
// Choosing is a scan of the tasks: O(tasks) per wait or finish, for the
// few dozen tasks of a launch.
//
//===----------------------------------------------------------------------===//

#include "npu/Runtime/ConcurrentTasks.h"

#include <cassert>
#include <thread>

using namespace npu;

ConcurrentTasks::ConcurrentTasks(size_t numTasks, unsigned permits,
                                 std::function<double(size_t)> priority)
    : numTasks(numTasks), freePermits(permits == 0 ? 1 : permits),
      priority(std::move(priority)), wakeUp(numTasks),
      states(numTasks, State::Ready), waitingFor(numTasks, 0),
      pending(numTasks * kNumFlags, 0) {}

size_t ConcurrentTasks::pickReady() const {
  size_t best = numTasks;
  double bestKey = 0;
  for (size_t t = 0; t < numTasks; ++t) {
    if (states[t] != State::Ready)
      continue;
    double key = priority ? priority(t) : 0;
    if (best == numTasks || key < bestKey) {
      best = t;
      bestKey = key;
    }
  }
  return best;
}

void ConcurrentTasks::grantPermits() {
  if (aborted)
    return;
  while (freePermits > 0) {
    size_t next = pickReady();
    if (next == numTasks)
      break;
    --freePermits;
    states[next] = State::Running;
    wakeUp[next].notify_one();
  }
  bool running = false, waiting = false;
  for (State state : states) {
    running |= state == State::Running || state == State::Ready;
    waiting |= state == State::Waiting;
  }
  if (running || !waiting)
    return;
  // No task runs or can: every unfinished one waits for a flag that only
  // another of them could set.
  deadlocked = true;
  for (size_t t = 0; t < numTasks; ++t)
    if (states[t] == State::Waiting)
      waitingAtDeadlock.emplace_back(t, waitingFor[t]);
  abortLocked();
}

void ConcurrentTasks::abortLocked() {
  aborted = true;
  for (std::condition_variable &cv : wakeUp)
    cv.notify_all();
}

void ConcurrentTasks::abort() {
  std::lock_guard<std::mutex> lock(mutex);
  abortLocked();
}

bool ConcurrentTasks::run(llvm::function_ref<bool(size_t)> body) {
  std::vector<std::thread> threads;
  threads.reserve(numTasks);
  for (size_t t = 0; t < numTasks; ++t)
    threads.emplace_back([this, t, body] {
      {
        std::unique_lock<std::mutex> lock(mutex);
        wakeUp[t].wait(lock,
                       [&] { return aborted || states[t] == State::Running; });
        if (states[t] != State::Running) {
          states[t] = State::Done;
          return;
        }
      }
      bool ok = body(t);
      std::lock_guard<std::mutex> lock(mutex);
      states[t] = State::Done;
      ++freePermits;
      if (!ok)
        abortLocked();
      grantPermits();
    });
  {
    std::lock_guard<std::mutex> lock(mutex);
    grantPermits();
  }
  for (std::thread &thread : threads)
    thread.join();
  return !aborted;
}

unsigned ConcurrentTasks::signal(size_t task, unsigned flag) {
  assert(task < numTasks && flag < kNumFlags && "signal out of range");
  std::lock_guard<std::mutex> lock(mutex);
  unsigned count = ++pending[task * kNumFlags + flag];
  if (states[task] == State::Waiting && waitingFor[task] == flag) {
    states[task] = State::Ready;
    grantPermits();
  }
  return count;
}

bool ConcurrentTasks::wait(size_t self, unsigned flag) {
  assert(self < numTasks && flag < kNumFlags && "wait out of range");
  std::unique_lock<std::mutex> lock(mutex);
  unsigned &count = pending[self * kNumFlags + flag];
  if (aborted)
    return false;
  if (count == 0) {
    states[self] = State::Waiting;
    waitingFor[self] = flag;
    ++freePermits;
    grantPermits();
    wakeUp[self].wait(
        lock, [&] { return aborted || states[self] == State::Running; });
    if (states[self] != State::Running)
      return false;
  }
  --count;
  return true;
}

std::string npu::describeMixedTask(size_t cubeTasks, size_t task) {
  bool cube = task < cubeTasks;
  return (cube ? "cube task " : "vector task ") +
         std::to_string(cube ? task : task - cubeTasks);
}

std::string npu::describeDeadlock(const ConcurrentTasks &tasks,
                                  size_t cubeTasks) {
  std::string text = "deadlocked: every unfinished task waits for a flag "
                     "that no running task will set (";
  bool first = true;
  for (auto [task, flag] : tasks.getDeadlockedTasks()) {
    text += (first ? "" : ", ") + describeMixedTask(cubeTasks, task) +
            " waits for flag " + std::to_string(flag);
    first = false;
  }
  return text + ")";
}

std::string npu::describeMissingTask(bool cube, int64_t task, int64_t count) {
  const char *kind = cube ? "cube" : "vector";
  return "sets a flag of " + std::string(kind) + " task " +
         std::to_string(task) + ", but the launch has " +
         std::to_string(count) + " " + kind + " tasks";
}

std::string npu::describeFlagOverflow(size_t cubeTasks, size_t task,
                                      unsigned flag, unsigned pending) {
  return "sets flag " + std::to_string(flag) + " of " +
         describeMixedTask(cubeTasks, task) + " with " +
         std::to_string(pending - 1) + " signals pending: a flag holds " +
         std::to_string(ConcurrentTasks::kMaxPending);
}
