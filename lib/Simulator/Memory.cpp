//===- Memory.cpp - simulated buffers and views ---------------------------===//

#include "npu/Simulator/Memory.h"

#include "mlir/IR/Location.h"
#include "mlir/IR/Operation.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace npu;
using namespace npu::sim;

/// Sets (or resets) the bits of `view`'s elements in `bits`.
static void setElementBits(llvm::BitVector &bits, const MemRefView &view,
                           bool value) {
  if (view.getNumElements() == 0)
    return;
  if (view.isContiguous()) {
    int64_t end = view.offset + view.getNumElements();
    value ? bits.set(view.offset, end) : bits.reset(view.offset, end);
    return;
  }
  view.forEachElement([&](int64_t i) { bits[i] = value; });
}

void Buffer::markWritten(const MemRefView &view) {
  setElementBits(written, view, true);
}

void Buffer::forget(const MemRefView &view) {
  setElementBits(written, view, false);
}

std::string Buffer::describe() const {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (argument >= 0)
    os << "argument #" << argument;
  else if (!origin)
    os << "a buffer";
  else if (auto file = dyn_cast<FileLineColLoc>(origin->getLoc()))
    os << "the buffer of '" << origin->getName() << "' at "
       << file.getFilename().getValue() << ":" << file.getLine() << ":"
       << file.getColumn();
  else
    os << "the buffer of '" << origin->getName() << "' at " << origin->getLoc();
  return s;
}

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

/// The first and last linear element of a non-empty view.
static std::pair<int64_t, int64_t> getSpan(const MemRefView &view) {
  int64_t first = view.offset, last = view.offset;
  for (auto [size, stride] : llvm::zip(view.sizes, view.strides))
    (stride < 0 ? first : last) += (size - 1) * stride;
  return {first, last};
}

bool MemRefView::overlaps(const MemRefView &other) const {
  if (buffer != other.buffer || getNumElements() == 0 ||
      other.getNumElements() == 0)
    return false;
  auto [first, last] = getSpan(*this);
  auto [otherFirst, otherLast] = getSpan(other);
  int64_t from = std::max(first, otherFirst), to = std::min(last, otherLast);
  if (from > to)
    return false;
  if (isContiguous() && other.isContiguous())
    return true;
  llvm::BitVector mine(to - from + 1);
  forEachElement([&](int64_t i) {
    if (i >= from && i <= to)
      mine.set(i - from);
  });
  bool shared = false;
  other.forEachElement([&](int64_t i) {
    shared |= i >= from && i <= to && mine.test(i - from);
  });
  return shared;
}

int64_t MemRefView::linearize(llvm::ArrayRef<int64_t> indices) const {
  int64_t linear = offset;
  for (auto [i, s] : llvm::zip(indices, strides))
    linear += i * s;
  return linear;
}

std::optional<llvm::SmallVector<int64_t, 4>> MemRefView::findUnwritten() const {
  int64_t count = getNumElements();
  if (count == 0)
    return std::nullopt;
  const llvm::BitVector &written = buffer->written;
  int64_t position = -1;
  if (isContiguous()) {
    int found = written.find_first_unset_in(offset, offset + count);
    if (found < 0)
      return std::nullopt;
    position = found - offset;
  } else {
    int64_t n = 0;
    forEachElement([&](int64_t i) {
      if (position < 0 && !written.test(i))
        position = n;
      ++n;
    });
    if (position < 0)
      return std::nullopt;
  }
  // Row-major position back to a multi-index of the view.
  llvm::SmallVector<int64_t, 4> index(sizes.size());
  for (int d = static_cast<int>(sizes.size()) - 1; d >= 0; --d) {
    index[d] = position % sizes[d];
    position /= sizes[d];
  }
  return index;
}
