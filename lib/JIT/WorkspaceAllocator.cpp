//===- WorkspaceAllocator.cpp - memref.alloc for JIT kernels --------------===//
//
// Every block comes from the C library (malloc, or aligned_alloc past 16
// bytes of alignment), so whichever free() sees it, the C library's or
// this one, releases it correctly: the async runtime frees some memory the
// kernels' code allocated. Blocks of 1 MiB or more are also recorded in a
// table of what was handed out; when this free() gets one back it keeps
// it, in a multimap keyed by size and alignment, for the next request of
// that size (O(log n) per call). A recorded address the C library freed
// and reused meanwhile is told apart by its usable size.
//
//===----------------------------------------------------------------------===//

#include "npu/JIT/WorkspaceAllocator.h"

#include <algorithm>
#include <cstdlib>
#include <malloc.h>
#include <map>
#include <mutex>
#include <unordered_map>
#include <utility>

using namespace npu::jit;

namespace {

using SizeAndAlignment = std::pair<uint64_t, uint64_t>;

class BlockCache {
public:
  void *allocate(uint64_t size, uint64_t alignment) {
    if (size >= kCachedBlockBytes) {
      std::lock_guard<std::mutex> lock(mutex);
      auto it = idle.find({size, alignment});
      if (it != idle.end()) {
        void *block = it->second;
        idle.erase(it);
        cached -= size;
        issued[block] = {size, alignment};
        return block;
      }
    }
    void *block =
        alignment <= alignof(std::max_align_t)
            ? std::malloc(size)
            : std::aligned_alloc(alignment, (size + alignment - 1) / alignment *
                                                alignment);
    if (block && size >= kCachedBlockBytes) {
      std::lock_guard<std::mutex> lock(mutex);
      issued[block] = {size, alignment};
    }
    return block;
  }

  void release(void *block) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      auto it = issued.find(block);
      if (it != issued.end()) {
        SizeAndAlignment key = it->second;
        issued.erase(it);
        // The C library may have freed and reused the address for a
        // smaller block since: then it is not ours to keep.
        bool ours = malloc_usable_size(block) >= key.first;
        if (ours && cached + key.first <= kCacheLimitBytes) {
          idle.emplace(key, block);
          cached += key.first;
          return;
        }
      }
    }
    std::free(block);
  }

  uint64_t size() {
    std::lock_guard<std::mutex> lock(mutex);
    return cached;
  }

  void clear() {
    std::lock_guard<std::mutex> lock(mutex);
    for (auto &entry : idle)
      std::free(entry.second);
    idle.clear();
    cached = 0;
  }

private:
  std::mutex mutex;
  std::multimap<SizeAndAlignment, void *> idle;
  std::unordered_map<void *, SizeAndAlignment> issued;
  uint64_t cached = 0;
};

BlockCache &cache() {
  // Never destroyed: kernels may free workspace during static destruction.
  static BlockCache *blocks = new BlockCache();
  return *blocks;
}

} // namespace

void *npu::jit::allocateWorkspace(uint64_t size, uint64_t alignment) {
  return cache().allocate(size, alignment);
}

void npu::jit::freeWorkspace(void *pointer) {
  if (pointer)
    cache().release(pointer);
}

uint64_t npu::jit::getCachedWorkspaceBytes() { return cache().size(); }

void npu::jit::releaseWorkspaceCache() { cache().clear(); }
