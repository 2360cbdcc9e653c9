//===- Memory.cpp - element access of simulated buffers -------------------===//

#include "npu/Simulator/Memory.h"

using namespace mlir;
using namespace npu::sim;

int64_t MemRefView::getNumElements() const {
  int64_t n = 1;
  for (int64_t s : sizes)
    n *= s;
  return n;
}

bool MemRefView::isContiguous() const {
  int64_t expected = 1;
  for (int d = static_cast<int>(sizes.size()) - 1; d >= 0; --d) {
    if (sizes[d] != 1 && strides[d] != expected)
      return false;
    expected *= sizes[d];
  }
  return true;
}

int64_t MemRefView::linearize(llvm::ArrayRef<int64_t> indices) const {
  int64_t linear = offset;
  for (auto [i, s] : llvm::zip(indices, strides))
    linear += i * s;
  return linear;
}
