//===- WorkspaceAllocator.h - memref.alloc for JIT kernels ------*- C++ -*-===//
//
// The JIT's kernels allocate their global workspace (memref.alloc) here:
// their `malloc`, `calloc` and `free` symbols resolve to these functions.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_JIT_WORKSPACEALLOCATOR_H
#define NPU_JIT_WORKSPACEALLOCATOR_H

#include <cstddef>
#include <cstdint>

namespace npu::jit {

/// Memory for a kernel's memref.alloc, `alignment` a power of two. Blocks
/// of kCachedBlockBytes and more are kept when freed (up to
/// kCacheLimitBytes in all) and handed out again for the same size: a
/// kernel called many times then reuses its workspace instead of mapping
/// (and faulting in) fresh pages on every call. Every block is the C
/// library's, so std::free may release it too (the async runtime frees
/// some of what kernels allocate). Thread-safe.
void *allocateWorkspace(uint64_t size, uint64_t alignment);
void freeWorkspace(void *pointer);

/// Blocks this large are cached when freed.
inline constexpr uint64_t kCachedBlockBytes = uint64_t(1) << 20;
/// At most this many bytes are kept cached.
inline constexpr uint64_t kCacheLimitBytes = uint64_t(2) << 30;

/// Bytes held in the cache now.
uint64_t getCachedWorkspaceBytes();
/// Frees every cached block (a CompiledKernel does when destroyed, so the
/// cache lives no longer than the kernels that fill it).
void releaseWorkspaceCache();

} // namespace npu::jit

#endif // NPU_JIT_WORKSPACEALLOCATOR_H
