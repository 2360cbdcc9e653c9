//===- DeviceSort.h - sorting global arrays on the device -------*- C++ -*-===//
//
// Kernels that sort a key array larger than one on-chip buffer, with an
// i32 payload, and the scans that number what the sort groups.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_LIB_CONVERSION_DEVICESORT_H
#define NPU_LIB_CONVERSION_DEVICESORT_H

#include "npu/Dialect/NPUDev/KernelBuilder.h"

namespace npu {

/// A size that is known when the kernels are built (`value` null) or only
/// when they run (`value`, an index).
struct Extent {
  int64_t size = 0;
  mlir::Value value;

  static Extent get(int64_t size) { return {size, nullptr}; }
  bool isStatic() const { return !value; }
  /// The size as an index value at `k`'s insertion point.
  mlir::Value get(KernelBuilder &k) const {
    return value ? value : k.index(size);
  }
  mlir::OpFoldResult getFoldResult(KernelBuilder &k) const {
    if (value)
      return value;
    return k.builder().getIndexAttr(size);
  }
  /// This size times `factor`, and divided by `divisor` rounding up, built
  /// at `k`'s insertion point when not static.
  Extent times(KernelBuilder &k, int64_t factor) const;
  Extent ceilDiv(KernelBuilder &k, int64_t divisor) const;
  /// min(tasks, this), or `tasks` when not static: the tasks of a launch
  /// over this many items.
  int64_t getTasks(int64_t tasks) const {
    return isStatic() ? std::max<int64_t>(1, std::min(tasks, size)) : tasks;
  }
};

/// Keys and their i32 payload: two global rank-1 memrefs of one length.
struct KeyValueArrays {
  mlir::Value keys, values;
};

/// How a sort is cut into work: elements per tile (the length is a multiple
/// of it) and tasks per launch.
struct SortTiling {
  int64_t tile;
  int64_t tasks;
};

/// Emits the launches that sort `data` (n elements, ascending, stable:
/// equal keys keep their order) using `scratch` of the same size. Returns
/// the arrays that hold the result (`data` or `scratch`; for an n known
/// only at run time, the values a host loop that swaps them yields).
KeyValueArrays buildDeviceSort(KernelBuilder &k, KeyValueArrays data,
                               KeyValueArrays scratch, Extent n,
                               SortTiling tiling);

/// Inside a task: the exclusive prefix sums of the i32 `counts[0, n)` into
/// `bases[0, n)` (global windows), `chunk` elements at a time. Returns the
/// total as an index.
mlir::Value buildExclusiveScan(KernelBuilder &k, mlir::Value counts,
                               mlir::Value bases, Extent n, int64_t chunk);

} // namespace npu

#endif // NPU_LIB_CONVERSION_DEVICESORT_H
