//===- Memory.h - simulated device memory -----------------------*- C++ -*-===//
//
// Buffers of raw bytes with a scalar element type, and strided views into
// them (what a memref value is at run time). Elements are read and written
// as int64_t (integers, sign-extended) or double (floats); storing rounds to
// the element type, so f32 arithmetic done in float and stored is exact.
// Each buffer remembers which elements have been written, so that a read
// of memory the kernel never wrote (whose contents the JIT leaves
// undefined) is an error rather than a silent zero.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_SIMULATOR_MEMORY_H
#define NPU_SIMULATOR_MEMORY_H

#include "npu/Dialect/NPUDev/NPUDevDialect.h"
#include "npu/Runtime/ElementKind.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/SmallVector.h"

#include <memory>
#include <string>
#include <vector>

namespace npu::sim {

/// A scalar operand: integer or float by the element kind it meets.
struct ScalarValue {
  int64_t i = 0;
  double f = 0;
};

struct MemRefView;

/// Storage of one allocation.
struct Buffer {
  ElementKind kind;
  dev::MemorySpace space;
  int64_t numElements;
  std::vector<uint8_t> bytes;
  /// Which elements have been written.
  llvm::BitVector written;
  /// Where the buffer comes from, for diagnostics: the allocating op, or
  /// the function argument number.
  mlir::Operation *origin = nullptr;
  int argument = -1;
  /// Where a global buffer sits in device memory: the simulator gives out
  /// addresses in allocation order, so that the L2 sees the same lines run
  /// after run.
  uint64_t address = 0;
  /// Whether memref.dealloc ended its life.
  bool freed = false;

  /// Without `withStorage` the bytes are left empty for the caller to
  /// provide (a function argument lends the host's).
  Buffer(ElementKind kind, dev::MemorySpace space, int64_t numElements,
         bool withStorage = true)
      : kind(kind), space(space), numElements(numElements),
        bytes(withStorage ? numElements * getElementBytes(kind) : 0),
        written(numElements) {}
  int64_t getSizeInBytes() const { return bytes.size(); }
  void markWritten(const MemRefView &view);
  void markWritten(int64_t linear) { written.set(linear); }
  /// Marks `view`'s elements unwritten: a DMA consumed their values.
  void forget(const MemRefView &view);
  /// "argument #2" or "the buffer of 'npudev.alloc' at loc".
  std::string describe() const;
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
  /// Whether the two views share an element of one buffer: their spans
  /// first, element by element only when the spans meet and a view has
  /// gaps.
  bool overlaps(const MemRefView &other) const;
  /// The multi-index of the first element of the view not yet written, if
  /// any.
  std::optional<llvm::SmallVector<int64_t, 4>> findUnwritten() const;
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
