//===- WorkspaceAllocatorTest.cpp - the JIT's workspace cache -------------===//

#include "npu/JIT/WorkspaceAllocator.h"

#include "gtest/gtest.h"

#include <cstring>
#include <vector>

using namespace npu::jit;

namespace {

TEST(WorkspaceAllocator, LargeBlocksAreReusedSmallOnesAreNot) {
  releaseWorkspaceCache();
  const uint64_t big = 3 << 20, small = 1000;
  void *a = allocateWorkspace(big, 64);
  ASSERT_NE(a, nullptr);
  std::memset(a, 1, big); // Every byte is usable.
  freeWorkspace(a);
  EXPECT_GE(getCachedWorkspaceBytes(), big);
  // The same size and alignment gets the same block back.
  void *b = allocateWorkspace(big, 64);
  EXPECT_EQ(b, a);
  EXPECT_EQ(getCachedWorkspaceBytes(), 0u);
  // Another size does not take it.
  freeWorkspace(b);
  void *c = allocateWorkspace(big + 4096, 64);
  EXPECT_NE(c, b);
  freeWorkspace(c);
  EXPECT_GE(getCachedWorkspaceBytes(), 2 * big);
  // Small blocks go straight back to the system.
  uint64_t before = getCachedWorkspaceBytes();
  freeWorkspace(allocateWorkspace(small, 16));
  EXPECT_EQ(getCachedWorkspaceBytes(), before);
  releaseWorkspaceCache();
  EXPECT_EQ(getCachedWorkspaceBytes(), 0u);
}

TEST(WorkspaceAllocator, AlignmentsAreHonoured) {
  for (uint64_t alignment : {1, 16, 64, 128, 4096})
    for (uint64_t size : {uint64_t(0), uint64_t(7), uint64_t(5) << 20}) {
      void *p = allocateWorkspace(size, alignment);
      ASSERT_NE(p, nullptr);
      EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % alignment, 0u)
          << "alignment " << alignment << " size " << size;
      freeWorkspace(p);
    }
  freeWorkspace(nullptr);
  releaseWorkspaceCache();
}

TEST(WorkspaceAllocator, TheCacheIsBounded) {
  releaseWorkspaceCache();
  // Three blocks of 1 GiB: the third does not fit the 2 GiB limit.
  std::vector<void *> blocks;
  for (int i = 0; i < 3; ++i)
    blocks.push_back(allocateWorkspace(uint64_t(1) << 30, 64));
  for (void *p : blocks)
    freeWorkspace(p);
  EXPECT_LE(getCachedWorkspaceBytes(), kCacheLimitBytes);
  releaseWorkspaceCache();
}

} // namespace
