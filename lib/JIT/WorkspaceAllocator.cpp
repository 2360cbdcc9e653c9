//===- WorkspaceAllocator.cpp - memref.alloc for JIT kernels --------------===//
//
// Each block carries a header just below the pointer handed out: its base,
// its total size and its alignment, so free() knows what it returns. Freed
// blocks of 1 MiB or more wait in a size-keyed multimap (O(log n) per
// call) until a request of exactly their size and alignment takes them.
//
//===----------------------------------------------------------------------===//

#include "npu/JIT/WorkspaceAllocator.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <utility>

using namespace npu::jit;

namespace {

struct Header {
  void *base;
  uint64_t total, alignment;
};

/// The header's room: a multiple of the alignment, so the user pointer
/// keeps it.
uint64_t headerBytes(uint64_t alignment) {
  return (sizeof(Header) + alignment - 1) / alignment * alignment;
}

Header *headerOf(void *pointer) { return static_cast<Header *>(pointer) - 1; }

class BlockCache {
public:
  void *take(uint64_t total, uint64_t alignment) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = blocks.find({total, alignment});
    if (it == blocks.end())
      return nullptr;
    void *base = it->second;
    blocks.erase(it);
    cached -= total;
    return base;
  }
  /// Keeps the block if it is large and the cache has room.
  bool keep(void *base, uint64_t total, uint64_t alignment) {
    if (total < kCachedBlockBytes)
      return false;
    std::lock_guard<std::mutex> lock(mutex);
    if (cached + total > kCacheLimitBytes)
      return false;
    blocks.emplace(std::make_pair(total, alignment), base);
    cached += total;
    return true;
  }
  uint64_t size() {
    std::lock_guard<std::mutex> lock(mutex);
    return cached;
  }
  void clear() {
    std::lock_guard<std::mutex> lock(mutex);
    for (auto &entry : blocks)
      std::free(entry.second);
    blocks.clear();
    cached = 0;
  }

private:
  std::mutex mutex;
  std::multimap<std::pair<uint64_t, uint64_t>, void *> blocks;
  uint64_t cached = 0;
};

BlockCache &cache() {
  // Never destroyed: kernels may free workspace during static destruction.
  static BlockCache *blocks = new BlockCache();
  return *blocks;
}

} // namespace

void *npu::jit::allocateWorkspace(uint64_t size, uint64_t alignment) {
  alignment = std::max<uint64_t>(alignment, alignof(std::max_align_t));
  uint64_t header = headerBytes(alignment);
  // aligned_alloc wants a multiple of the alignment.
  uint64_t total = (header + size + alignment - 1) / alignment * alignment;
  void *base =
      total >= kCachedBlockBytes ? cache().take(total, alignment) : nullptr;
  if (!base)
    base = std::aligned_alloc(alignment, total);
  if (!base)
    return nullptr;
  void *pointer = static_cast<char *>(base) + header;
  *headerOf(pointer) = {base, total, alignment};
  return pointer;
}

void npu::jit::freeWorkspace(void *pointer) {
  if (!pointer)
    return;
  Header header = *headerOf(pointer);
  if (!cache().keep(header.base, header.total, header.alignment))
    std::free(header.base);
}

uint64_t npu::jit::getCachedWorkspaceBytes() { return cache().size(); }

void npu::jit::releaseWorkspaceCache() { cache().clear(); }
