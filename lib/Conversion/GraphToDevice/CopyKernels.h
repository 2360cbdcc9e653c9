//===- CopyKernels.h - fills and box copies in global memory ----*- C++ -*-===//
//
// The two launches the data movement ops are made of (DataMovementKernels.cpp):
// filling a buffer with one value, and copying a box of one tensor into a
// box of another through vector memory; and the index checks of the
// indexed ones (gather, scatter).
//
//===----------------------------------------------------------------------===//

#ifndef NPU_LIB_CONVERSION_COPYKERNELS_H
#define NPU_LIB_CONVERSION_COPYKERNELS_H

#include "npu/Dialect/NPUDev/KernelBuilder.h"

namespace npu {

struct DeviceModel;

/// The largest power of two of `element`s that `copies` tiles of it leave
/// in vector memory (at least 1).
int64_t tileElements(const DeviceModel &device, mlir::Type element,
                     int64_t copies);

/// One vector launch writing `value` into the `n` elements of `buffer`
/// (contiguous, rank 1): each task fills a tile once and copies it over its
/// share. `strategy` names the launch in `npudev.tiling`.
void buildFill(KernelBuilder &k, mlir::Value buffer, int64_t n,
               mlir::Value value, const DeviceModel &device,
               llvm::StringRef strategy);

/// A box of `sizes` elements: in `src` from `srcOffsets` taking every
/// `srcSteps[d]`-th element, in `dst` from `dstOffsets`.
struct Box {
  mlir::Value src, dst;
  llvm::SmallVector<int64_t> srcOffsets, srcSteps, dstOffsets, sizes;
};

/// One vector launch copying `box` through [R, C] tiles of its last two
/// dimensions (the others fixed per tile), dealt to the vector tasks in
/// turn; a pipelined tile loop. Nothing for an empty box.
void buildBoxCopy(KernelBuilder &k, const Box &box, const DeviceModel &device,
                  llvm::StringRef strategy);

/// One vector launch copying all of `src` into `dst`, views in either
/// storage (dense, or padded rows) of as many elements and the same
/// innermost dimension C: a box copy of their [rows, C] views, so that the
/// tiles are as large as vector memory allows whatever the leading
/// dimensions (and a reshape that keeps C is such a copy).
void buildWholeCopy(KernelBuilder &k, mlir::Value src, mlir::Value dst,
                    const DeviceModel &device, llvm::StringRef strategy);

/// One vector launch copying the `n` elements of contiguous `src` into
/// contiguous `dst` (a box copy of their [1, n] views).
void buildCopy(KernelBuilder &k, mlir::Value src, mlir::Value dst, int64_t n,
               const DeviceModel &device, llvm::StringRef strategy);

/// `raw`, an index (of any integer type) into a dimension of `size` that
/// may count from the end (-size <= raw < size), as an index and whether it
/// is inside.
std::pair<mlir::Value, mlir::Value> wrapIndex(KernelBuilder &k, mlir::Value raw,
                                              int64_t size);

/// The first bad index a task meets, kept on chip (-1 for none) and reported
/// when the task ends: the indexed ops (gather, scatter) fail naming it.
class FirstBadIndex {
public:
  /// Allocates and clears the record; call inside the task.
  explicit FirstBadIndex(KernelBuilder &k);
  /// Records `position` (an index) unless an earlier one is recorded; the
  /// task meets positions in increasing order.
  void record(mlir::Value position);
  /// Fails the kernel with `message`, "{row}" standing for the position.
  void report(llvm::StringRef message);

private:
  KernelBuilder &k;
  mlir::Value bad;
};

} // namespace npu

#endif // NPU_LIB_CONVERSION_COPYKERNELS_H
