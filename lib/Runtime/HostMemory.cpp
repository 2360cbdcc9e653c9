//===- HostMemory.cpp - the memory the executors run in ------------------===//

#include "npu/Runtime/HostMemory.h"

#include <limits>
#include <unistd.h>

int64_t npu::getHostMemoryBytes() {
  long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || pageSize <= 0 ||
      pages > std::numeric_limits<int64_t>::max() / pageSize)
    return std::numeric_limits<int64_t>::max();
  return static_cast<int64_t>(pages) * pageSize;
}
