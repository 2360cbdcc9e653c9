//===- HostArray.cpp - arrays exchanged with the executors ----------------===//

#include "npu/Runtime/HostArray.h"

using namespace npu;

int64_t HostArray::getNumElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}
