//===- VectorOps.h - semantics of npudev vector and cube ops ----*- C++ -*-===//
//
// Each function computes one op over whole views, exactly as the JIT's
// lowering does: float math in the element's precision (f32 in float),
// integers wrapped to their width, reductions and prefix sums in index
// order. Errors (an index out of range, an integer division by zero) are
// returned as a message.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_LIB_SIMULATOR_VECTOROPS_H
#define NPU_LIB_SIMULATOR_VECTOROPS_H

#include "npu/Dialect/NPUDev/NPUDevDialect.h"
#include "npu/Simulator/Memory.h"

#include <string>

namespace npu::sim {

/// Empty on success, else what went wrong.
using OpError = std::string;

OpError applyBinary(dev::BinaryKind kind, const MemRefView &lhs,
                    const MemRefView &rhs, const MemRefView &out);
OpError applyBinaryScalar(dev::BinaryKind kind, const MemRefView &in,
                          ScalarValue scalar, const MemRefView &out);
void applyUnary(dev::UnaryKind kind, const MemRefView &in,
                const MemRefView &out);
void applyCompare(dev::ComparePredicate pred, const MemRefView &lhs,
                  const MemRefView &rhs, const MemRefView &out);
void applyCompareScalar(dev::ComparePredicate pred, const MemRefView &in,
                        ScalarValue scalar, const MemRefView &out);
void applySelect(const MemRefView &mask, const MemRefView &onTrue,
                 const MemRefView &onFalse, const MemRefView &out);
/// Reduces each innermost row of `in`, starting from `identity`.
/// Floats accumulate in `accumulator` (f32 for f16 and bf16 elements,
/// getAccumulatorType), rounded once into `out`.
void applyReduce(dev::ReduceKind kind, ScalarValue identity,
                 ElementKind accumulator, const MemRefView &in,
                 const MemRefView &out);
void applyCast(const MemRefView &in, const MemRefView &out);
void applyFill(ScalarValue value, const MemRefView &out);
void applyTranspose(const MemRefView &in, const MemRefView &out);
OpError applyGather(const MemRefView &source, const MemRefView &indices,
                    const MemRefView &out);
OpError applyScatter(const MemRefView &source, const MemRefView &indices,
                     const MemRefView &out);
/// Floats accumulate in `accumulator`; each prefix is rounded into `out`.
void applyCumsum(ElementKind accumulator, const MemRefView &in,
                 const MemRefView &out);
void applySort(const MemRefView &in, const MemRefView &out);
/// Key-value sort of rank-1 `keys` into `out`, `values` into `outValues`.
void applySortPairs(const MemRefView &keys, const MemRefView &out,
                    const MemRefView &values, const MemRefView &outValues);
/// The merge of rank-1 runs `a` and `b` into `out` (Support/Ordering.h
/// mergeRuns); the value buffers are all null or all present.
void applyMerge(const MemRefView &a, const MemRefView &b, const MemRefView &out,
                const MemRefView *aValues, const MemRefView *bValues,
                const MemRefView *outValues);
int64_t applyUnique(const MemRefView &in, const MemRefView &out);
void applyMatmul(const MemRefView &a, const MemRefView &b, const MemRefView &c,
                 bool accumulate);
/// Copies `source` into `target` (same shape and element kind).
void copyView(const MemRefView &source, const MemRefView &target);

/// Scalar arithmetic shared with the interpreter's arith ops.
double applyFloatBinary(dev::BinaryKind kind, ElementKind element, double a,
                        double b);
OpError applyIntBinary(dev::BinaryKind kind, ElementKind element, int64_t a,
                       int64_t b, int64_t &result);
double applyFloatUnary(dev::UnaryKind kind, ElementKind element, double x);

/// The view of row `i` of `view` (its first dimension dropped).
MemRefView rowOf(const MemRefView &view, int64_t i);
/// The transpose of a 2-D view (sizes and strides swapped).
MemRefView transposedView(const MemRefView &view);

} // namespace npu::sim

#endif // NPU_LIB_SIMULATOR_VECTOROPS_H
