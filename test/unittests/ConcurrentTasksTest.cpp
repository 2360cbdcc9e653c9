//===- ConcurrentTasksTest.cpp - the mixed launches' task scheduler -------===//
//
// ConcurrentTasks (npu/Runtime/ConcurrentTasks.h) with one permit runs its
// tasks as fibers of the calling thread in priority order; with more, on
// threads of their own. Both must hand flags over, unwind waiters after an
// abort or a deadlock, and never start a task after the run has ended.
//
//===----------------------------------------------------------------------===//

#include "npu/Runtime/ConcurrentTasks.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <mutex>
#include <thread>
#include <vector>

using namespace npu;

namespace {

/// With one permit, tasks run one at a time in the order of their
/// priorities, all on the thread that called run().
TEST(ConcurrentTasksTest, OnePermitRunsByPriorityOnTheCallingThread) {
  std::vector<double> priority = {3, 0, 2, 1};
  ConcurrentTasks tasks(4, 1, [&](size_t t) { return priority[t]; });
  std::vector<size_t> order;
  std::thread::id caller = std::this_thread::get_id();
  EXPECT_TRUE(tasks.run([&](size_t t) {
    EXPECT_EQ(std::this_thread::get_id(), caller) << "task " << t;
    order.push_back(t);
    return true;
  }));
  EXPECT_EQ(order, (std::vector<size_t>{1, 3, 2, 0}));
}

/// Two tasks pass a flag back and forth many times: each step follows the
/// other's, in both modes.
TEST(ConcurrentTasksTest, FlagsHandOverInTurn) {
  constexpr int kRounds = 5000;
  for (unsigned permits : {1u, 2u}) {
    SCOPED_TRACE(testing::Message() << permits << " permits");
    ConcurrentTasks tasks(2, permits);
    std::mutex mutex;
    std::vector<int> steps;
    EXPECT_TRUE(tasks.run([&](size_t t) {
      for (int round = 0; round < kRounds; ++round) {
        // Task 0 goes first in each round, task 1 answers.
        if (t == 1 && !tasks.wait(1, 0))
          return false;
        {
          std::lock_guard<std::mutex> lock(mutex);
          steps.push_back(static_cast<int>(t));
        }
        tasks.signal(1 - t, 0);
        if (t == 0 && !tasks.wait(0, 0))
          return false;
      }
      return true;
    }));
    ASSERT_EQ(steps.size(), 2u * kRounds);
    for (size_t i = 0; i < steps.size(); ++i)
      ASSERT_EQ(steps[i], static_cast<int>(i % 2)) << "step " << i;
  }
}

/// Uses about `bytes` of stack, a page at a time.
int useStack(int64_t bytes) {
  volatile char page[4096];
  page[0] = 1;
  if (bytes <= 4096)
    return page[0];
  return useStack(bytes - 4096) + page[0];
}

/// A fiber's stack is as deep as a thread's: a task may use megabytes of
/// it (the simulator's interpreter recurses; JIT tasks keep buffers there)
/// and wait in between.
TEST(ConcurrentTasksTest, FibersHaveThreadSizedStacks) {
  ConcurrentTasks tasks(2, 1);
  int total = 0;
  EXPECT_TRUE(tasks.run([&](size_t t) {
    total += useStack(int64_t(2) << 20);
    if (t == 0) {
      if (!tasks.wait(0, 3))
        return false;
    } else {
      tasks.signal(0, 3);
    }
    total += useStack(int64_t(2) << 20);
    return true;
  }));
  EXPECT_EQ(total, 4 * 512);
}

/// A body returning false aborts the run: the task waiting gets false from
/// its wait and finishes its body; a task not yet started never starts.
TEST(ConcurrentTasksTest, AbortUnwindsWaitersAndSkipsTheRest) {
  ConcurrentTasks tasks(3, 1, [](size_t t) { return double(t); });
  std::vector<bool> started(3), finished(3);
  bool waitResult = true;
  EXPECT_FALSE(tasks.run([&](size_t t) {
    started[t] = true;
    if (t == 0)
      waitResult = tasks.wait(0, 1);
    finished[t] = true;
    return t != 1;
  }));
  EXPECT_FALSE(waitResult);
  EXPECT_FALSE(tasks.isDeadlocked());
  EXPECT_EQ(started, (std::vector<bool>{true, true, false}));
  EXPECT_EQ(finished, (std::vector<bool>{true, true, false}));
}

/// Every task waiting for a flag nobody will set is a deadlock: the run
/// names each waiter and its flag, and every waiter unwinds, in both modes.
TEST(ConcurrentTasksTest, DeadlockNamesTheWaitersAndUnwindsThem) {
  for (unsigned permits : {1u, 2u}) {
    SCOPED_TRACE(testing::Message() << permits << " permits");
    ConcurrentTasks tasks(2, permits);
    std::mutex mutex;
    int unwound = 0;
    EXPECT_FALSE(tasks.run([&](size_t t) {
      bool woken = tasks.wait(t, unsigned(t) + 4);
      std::lock_guard<std::mutex> lock(mutex);
      unwound += !woken;
      return woken;
    }));
    EXPECT_TRUE(tasks.isDeadlocked());
    EXPECT_EQ(unwound, 2);
    auto waiting = tasks.getDeadlockedTasks();
    std::sort(waiting.begin(), waiting.end());
    EXPECT_EQ(waiting,
              (std::vector<std::pair<size_t, unsigned>>{{0, 4}, {1, 5}}));
  }
}

} // namespace
