//===- Memory.h - simulated device memory -----------------------*- C++ -*-===//
//
// Buffers of raw bytes with a scalar element type, and strided views into
// them (what a memref value is at run time). Elements are read and written
// as int64_t (integers, sign-extended) or double (floats); storing rounds to
// the element type, so f32 arithmetic done in float and stored is exact.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_SIMULATOR_MEMORY_H
#define NPU_SIMULATOR_MEMORY_H

#include "npu/Dialect/NPUDev/NPUDevDialect.h"
#include "npu/Runtime/ElementKind.h"

#include "llvm/ADT/SmallVector.h"

#include <memory>
#include <vector>

namespace npu::sim {

/// Storage of one allocation.
struct Buffer {
  ElementKind kind;
  dev::MemorySpace space;
  int64_t numElements;
  std::vector<uint8_t> bytes;

  Buffer(ElementKind kind, dev::MemorySpace space, int64_t numElements)
      : kind(kind), space(space), numElements(numElements),
        bytes(numElements * getElementBytes(kind)) {}
  int64_t getSizeInBytes() const { return bytes.size(); }
};

/// A strided view of a buffer: element (i0, i1, ...) is at
/// offset + sum(ik * strides[k]).
struct MemRefView {
  std::shared_ptr<Buffer> buffer;
  int64_t offset = 0;
  llvm::SmallVector<int64_t, 4> sizes, strides;

  int64_t getNumElements() const;
  unsigned getRank() const { return sizes.size(); }
  ElementKind getKind() const { return buffer->kind; }
  bool isContiguous() const;
  /// The linear element index of a multi-index (not bounds-checked).
  int64_t linearize(llvm::ArrayRef<int64_t> indices) const;
  /// Calls `fn(linearIndex)` for every element in row-major order.
  template <typename Fn> void forEachElement(Fn fn) const;
  uint8_t *address(int64_t linear) const {
    return buffer->bytes.data() + linear * getElementBytes(buffer->kind);
  }
};

template <typename Fn> void MemRefView::forEachElement(Fn fn) const {
  if (getNumElements() == 0)
    return;
  if (isContiguous()) {
    for (int64_t i = 0, e = getNumElements(); i < e; ++i)
      fn(offset + i);
    return;
  }
  llvm::SmallVector<int64_t, 4> index(sizes.size(), 0);
  while (true) {
    fn(linearize(index));
    int d = static_cast<int>(sizes.size()) - 1;
    for (; d >= 0; --d) {
      if (++index[d] < sizes[d])
        break;
      index[d] = 0;
    }
    if (d < 0)
      return;
  }
}

} // namespace npu::sim

#endif // NPU_SIMULATOR_MEMORY_H
