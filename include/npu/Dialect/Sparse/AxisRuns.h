//===- AxisRuns.h - positions of an axis under a prefix ---------*- C++ -*-===//
//
// The one place that knows where an axis's positions lie: the sparse
// lowering's passes use it, npu-sparse-lower-iterations for loop bounds
// and searches, npu-sparse-lower-buffers for the flat offset F of a buffer
// element, the passes onto the device for rows and runs.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_DIALECT_SPARSE_AXISRUNS_H
#define NPU_DIALECT_SPARSE_AXISRUNS_H

#include "npu/Dialect/Sparse/SparseOps.h"

#include "mlir/IR/Builders.h"

namespace npu::sparse {

/// `array[i]` (index, i32 or i64 elements) as an index.
mlir::Value loadIndex(mlir::OpBuilder &b, mlir::Location loc, mlir::Value array,
                      mlir::Value i);

/// The positions of `axis` under `prefix`: its parent's position, or the
/// flattened position F of the axes before it in a buffer; null for an
/// axis at the front. They are [start, start + count): a fixed axis has
/// count = length (dense) or nnz_cols (sparse) and start = prefix * count;
/// a variable one the run [indptr[prefix], indptr[prefix + 1]).
struct AxisRun {
  mlir::Value start, count;
};
AxisRun getAxisRun(mlir::OpBuilder &b, mlir::Location loc, AxisOp axis,
                   mlir::Value prefix);

/// Only the start of that run: reads indptr[prefix] alone, so `prefix` may
/// be one past the parent's last position (an offset's own rule).
mlir::Value getAxisRunStart(mlir::OpBuilder &b, mlir::Location loc, AxisOp axis,
                            mlir::Value prefix);

/// The flat offset F of the first element of the run of the buffer's last
/// axis under `leading`, the positions along every axis but the last: F of
/// (leading..., 0). The elements (leading..., p) lie at that offset plus p.
mlir::Value getBufferRunStart(mlir::OpBuilder &b, mlir::Location loc,
                              BufferOp buffer, mlir::ValueRange leading);

/// lower_bound: the first position in [lo, hi) whose key is not below
/// `value` (hi when there is none), by bisection; the keys, which
/// `keyAt(position)` builds, never decrease.
mlir::Value
buildLowerBound(mlir::OpBuilder &b, mlir::Location loc,
                llvm::function_ref<mlir::Value(mlir::OpBuilder &,
                                               mlir::Location, mlir::Value)>
                    keyAt,
                mlir::Value lo, mlir::Value hi, mlir::Value value);

/// lower_bound over the entries of the sorted `array`.
mlir::Value buildLowerBound(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value array, mlir::Value lo, mlir::Value hi,
                            mlir::Value value);

} // namespace npu::sparse

#endif // NPU_DIALECT_SPARSE_AXISRUNS_H
