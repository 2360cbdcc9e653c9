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
/// the arrays that hold the result (`data` or `scratch`).
KeyValueArrays buildDeviceSort(KernelBuilder &k, KeyValueArrays data,
                               KeyValueArrays scratch, int64_t n,
                               SortTiling tiling);

/// Inside a task: the exclusive prefix sums of the i32 `counts[0, n)` into
/// `bases[0, n)` (global windows), `chunk` elements at a time. Returns the
/// total as an index.
mlir::Value buildExclusiveScan(KernelBuilder &k, mlir::Value counts,
                               mlir::Value bases, int64_t n, int64_t chunk);

} // namespace npu

#endif // NPU_LIB_CONVERSION_DEVICESORT_H
