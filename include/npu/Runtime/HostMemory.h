//===- HostMemory.h - the memory the executors run in -----------*- C++ -*-===//
//
// Both executors hold the device's global memory in the host's: a device
// description may give more than the host has, and sizes read at run time
// are checked against the device. An allocation past the host's memory is
// an error naming it rather than an allocator's abort.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_RUNTIME_HOSTMEMORY_H
#define NPU_RUNTIME_HOSTMEMORY_H

#include <cstdint>

namespace npu {

/// The host's physical memory in bytes (INT64_MAX when the system does not
/// say).
int64_t getHostMemoryBytes();

} // namespace npu

#endif // NPU_RUNTIME_HOSTMEMORY_H
