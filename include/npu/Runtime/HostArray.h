//===- HostArray.h - arrays exchanged with the executors --------*- C++ -*-===//
//
// The host side of a kernel argument, as both the simulator and the JIT take
// it: an element kind, a shape and row-major bytes.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_RUNTIME_HOSTARRAY_H
#define NPU_RUNTIME_HOSTARRAY_H

#include "npu/Runtime/ElementKind.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
class Type;
} // namespace mlir

namespace npu {

/// One argument of a kernel. Memref arguments are read from and written back
/// to it; scalar arguments are rank-0 arrays.
struct HostArray {
  ElementKind kind = ElementKind::F32;
  llvm::SmallVector<int64_t, 4> shape;
  std::vector<uint8_t> data;

  int64_t getNumElements() const;

  /// An array of `kind` holding `values` (row-major, T the element's C++
  /// type) with `shape`.
  template <typename T>
  static HostArray fromValues(ElementKind kind, const std::vector<T> &values,
                              llvm::ArrayRef<int64_t> shape) {
    HostArray a;
    a.kind = kind;
    a.shape.assign(shape.begin(), shape.end());
    a.data.resize(values.size() * sizeof(T));
    if (!values.empty())
      std::memcpy(a.data.data(), values.data(), a.data.size());
    return a;
  }

  /// The elements as T.
  template <typename T> std::vector<T> getValues() const {
    std::vector<T> v(data.size() / sizeof(T));
    if (!v.empty())
      std::memcpy(v.data(), data.data(), v.size() * sizeof(T));
    return v;
  }
};

/// What a kernel argument accepts, kept apart from its mlir::Type so that a
/// compiled kernel can check its arguments after its context is gone.
struct ArgumentSpec {
  bool isMemRef = false;
  ElementKind kind = ElementKind::F32;
  /// Per dimension, ShapedType::kDynamic for a dynamic one.
  llvm::SmallVector<int64_t, 4> shape;
  bool identityLayout = true;
  /// The type as MLIR prints it, for messages.
  std::string typeText;

  /// The spec of a memref, ranked tensor (a graph-level function's
  /// argument, before lowering) or scalar argument of `type`; std::nullopt
  /// when the executors cannot store its elements.
  static std::optional<ArgumentSpec> get(mlir::Type type);

  /// Why `array` cannot be argument #`index` of this spec, as a message
  /// naming the argument, what it takes and what it was given; "" when it
  /// fits.
  std::string describeMismatch(const HostArray &array, unsigned index) const;
};

/// `array` with its rows (the innermost dimension) widened to `width`
/// elements, the new ones zero: a value in channel-aligned storage, as a
/// kernel argument marked `npudev.channels` takes it. `width` is at least
/// the row length.
HostArray padRows(const HostArray &array, int64_t width);

/// `array` with its rows cut to their first `width` elements: the value a
/// channel-aligned argument holds.
HostArray cutRows(const HostArray &array, int64_t width);

} // namespace npu

#endif // NPU_RUNTIME_HOSTARRAY_H
