//===- ConcurrentTasks.cpp - tasks that wait for each other ---------------===//
//
// One mutex guards the scheduler: task states, pending signals and free
// permits. A permit passes only by grantPermits, which marks the chosen
// task Running before waking it, so with one permit exactly one task runs
// and the order is the priority's. Choosing is a scan of the tasks:
// O(tasks) per wait or finish, for the few dozen tasks of a launch.
//
// With one permit the tasks are fibers (ucontext) on the calling thread: a
// loop there grants the permit and switches to the task holding it, which
// switches back when it waits or ends. A hand-over costs two user-space
// context switches instead of a futex wake-up and a reschedule of another
// thread (FlashAttention's backward hands over about ten thousand times a
// run). After an abort the loop resumes every started fiber so that its
// waits return false and it unwinds, as a thread would; a fiber that never
// started never runs. Each fiber's stack is as large as a thread's (mapped
// on demand, a guard page below it), and ASan is told of every switch.
//
//===----------------------------------------------------------------------===//

#include "npu/Runtime/ConcurrentTasks.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cassert>
#include <sys/mman.h>
#include <sys/resource.h>
#include <thread>
#include <ucontext.h>
#include <unistd.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NPU_ASAN_FIBERS 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define NPU_ASAN_FIBERS 1
#endif
#ifdef NPU_ASAN_FIBERS
#include <sanitizer/common_interface_defs.h>
#endif

using namespace npu;

namespace {
/// Tells ASan that this context leaves for the stack [bottom, bottom +
/// size); `fakeStack` keeps this context's fake stack (null: it ends).
void beginSwitch(void **fakeStack, const void *bottom, size_t size) {
#ifdef NPU_ASAN_FIBERS
  __sanitizer_start_switch_fiber(fakeStack, bottom, size);
#endif
}

/// Tells ASan that this context runs again with `fakeStack`; the stack it
/// came from goes to `bottom` and `size` (when not null).
void endSwitch(void *fakeStack, const void **bottom, size_t *size) {
#ifdef NPU_ASAN_FIBERS
  __sanitizer_finish_switch_fiber(fakeStack, bottom, size);
#endif
}

/// A thread's stack size (RLIMIT_STACK; 8 MiB when unlimited).
size_t getFiberStackBytes() {
  size_t bytes = size_t(8) << 20;
  rlimit limit;
  if (getrlimit(RLIMIT_STACK, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
    bytes = std::max<size_t>(limit.rlim_cur, size_t(1) << 20);
  return bytes;
}
} // namespace

struct ConcurrentTasks::Fibers {
  struct Fiber {
    ucontext_t context;
    /// The mapping: a guard page, then the stack.
    char *mapping = nullptr;
    void *fakeStack = nullptr;
  };

  Fibers(ConcurrentTasks &owner, llvm::function_ref<bool(size_t)> body)
      : owner(owner), body(body), tasks(owner.numTasks),
        page(sysconf(_SC_PAGESIZE)), stackBytes(getFiberStackBytes()) {}
  ~Fibers() {
    for (Fiber &fiber : tasks)
      if (fiber.mapping)
        munmap(fiber.mapping, page + stackBytes);
  }

  bool isStarted(size_t t) const { return tasks[t].mapping; }

  /// Runs task `t` until it waits or ends; starts it first if it has not.
  /// False when its stack cannot be mapped.
  bool resume(size_t t) {
    Fiber &fiber = tasks[t];
    if (!fiber.mapping && !start(fiber))
      return false;
    current = t;
    active = this;
    beginSwitch(&schedulerFakeStack, fiber.mapping + page, stackBytes);
    swapcontext(&scheduler, &fiber.context);
    endSwitch(schedulerFakeStack, nullptr, nullptr);
    return true;
  }

  /// From task `t`'s fiber: back to the scheduler until resumed.
  void yield(size_t t) {
    Fiber &fiber = tasks[t];
    beginSwitch(&fiber.fakeStack, schedulerBottom, schedulerBytes);
    swapcontext(&fiber.context, &scheduler);
    endSwitch(fiber.fakeStack, nullptr, nullptr);
  }

private:
  bool start(Fiber &fiber) {
    void *mapping =
        mmap(nullptr, page + stackBytes, PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (mapping == MAP_FAILED)
      return false;
    fiber.mapping = static_cast<char *>(mapping);
    mprotect(fiber.mapping, page, PROT_NONE);
    getcontext(&fiber.context);
    fiber.context.uc_stack.ss_sp = fiber.mapping + page;
    fiber.context.uc_stack.ss_size = stackBytes;
    fiber.context.uc_link = &scheduler;
    makecontext(&fiber.context, &Fibers::enter, 0);
    return true;
  }

  /// A fiber's first frame: runs the task, then returns to uc_link.
  static void enter() {
    Fibers &self = *active;
    endSwitch(nullptr, &self.schedulerBottom, &self.schedulerBytes);
    self.owner.runTask(self.current, self.body);
    beginSwitch(nullptr, self.schedulerBottom, self.schedulerBytes);
  }

  /// The fibers a fiber starting on this thread belongs to.
  static thread_local Fibers *active;

  ConcurrentTasks &owner;
  llvm::function_ref<bool(size_t)> body;
  std::vector<Fiber> tasks;
  size_t page, stackBytes;
  ucontext_t scheduler;
  size_t current = 0;
  void *schedulerFakeStack = nullptr;
  const void *schedulerBottom = nullptr;
  size_t schedulerBytes = 0;
};

thread_local ConcurrentTasks::Fibers *ConcurrentTasks::Fibers::active = nullptr;

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
  return freePermits == 1 ? runOnFibers(body) : runOnThreads(body);
}

void ConcurrentTasks::runTask(size_t t, llvm::function_ref<bool(size_t)> body) {
  bool ok = body(t);
  std::lock_guard<std::mutex> lock(mutex);
  states[t] = State::Done;
  ++freePermits;
  if (!ok)
    abortLocked();
  grantPermits();
}

bool ConcurrentTasks::runOnThreads(llvm::function_ref<bool(size_t)> body) {
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
      runTask(t, body);
    });
  {
    std::lock_guard<std::mutex> lock(mutex);
    grantPermits();
  }
  for (std::thread &thread : threads)
    thread.join();
  return !aborted;
}

bool ConcurrentTasks::runOnFibers(llvm::function_ref<bool(size_t)> body) {
  Fibers state(*this, body);
  fibers = &state;
  std::unique_lock<std::mutex> lock(mutex);
  grantPermits();
  for (;;) {
    // The task holding the permit; after an abort, any that started and
    // has not ended, to unwind.
    auto it = llvm::find(states, State::Running);
    size_t next = it - states.begin();
    for (size_t t = 0; aborted && next == numTasks && t < numTasks; ++t)
      if (state.isStarted(t) && states[t] != State::Done)
        next = t;
    if (next == numTasks)
      break;
    lock.unlock();
    bool resumed = state.resume(next);
    lock.lock();
    if (!resumed) {
      // No stack for it: the run cannot go on.
      states[next] = State::Done;
      abortLocked();
    }
  }
  fibers = nullptr;
  return !aborted;
}

void ConcurrentTasks::yieldFiber(size_t self,
                                 std::unique_lock<std::mutex> &lock) {
  lock.unlock();
  fibers->yield(self);
  lock.lock();
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
    if (fibers)
      yieldFiber(self, lock);
    else
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
