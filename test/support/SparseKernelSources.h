//===- SparseKernelSources.h - SpMM and SDDMM as sparse IR ------*- C++ -*-===//
//
// The sparse-dialect kernels both SparseIterationTest and the sparse
// benchmark run, written once, sized by "$NAME" placeholders. Both take
// (indptr, indices, a, x, y): A in CSR (R x C, NNZ nonzeros, values a),
// x dense R x F and y dense C x F, row-major.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_TEST_SUPPORT_SPARSEKERNELSOURCES_H
#define NPU_TEST_SUPPORT_SPARSEKERNELSOURCES_H

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace npu::workloads {

using Sizes = std::vector<std::pair<std::string, int64_t>>;

/// `text` with each "$NAME" of `sizes` replaced by its value, longer names
/// first ($RF before $R).
inline std::string substituteSizes(std::string text, Sizes sizes) {
  llvm::sort(sizes, [](const auto &x, const auto &y) {
    return x.first.size() > y.first.size();
  });
  for (auto &[name, value] : sizes) {
    std::string key = "$" + name;
    for (size_t at; (at = text.find(key)) != std::string::npos;)
      text.replace(at, key.size(), std::to_string(value));
  }
  return text;
}

/// The sizes the kernels below name: R, R1 (R + 1), C, NNZ, F, RF (R F)
/// and CF (C F).
inline Sizes getCsrSizes(int64_t rows, int64_t cols, int64_t nnz,
                         int64_t features) {
  return {{"R1", rows + 1},       {"R", rows},     {"C", cols},
          {"NNZ", nnz},           {"F", features}, {"RF", rows * features},
          {"CF", cols * features}};
}

/// The kernels' common head: the signature, the CSR axes (rows %i,
/// columns %j), the dense axes and the buffers %A, %X, %Y.
inline std::string getCsrKernelHead() {
  return R"(
func.func @kernel(%indptr: memref<$R1xi32>, %indices: memref<$NNZxi32>, %a: memref<$NNZxf32>, %x: memref<$RFxf32>, %y: memref<$CFxf32>) {
  %i = sparse.axis dense_fixed length $R
  %j = sparse.axis sparse_variable parent %i length $C indptr %indptr : memref<$R1xi32> indices %indices : memref<$NNZxi32> sorted
  %dj = sparse.axis dense_fixed length $C
  %k = sparse.axis dense_fixed length $F
  %A = sparse.buffer %a [%i, %j] : memref<$NNZxf32> -> !sparse.buffer<2 x f32>
  %X = sparse.buffer %x [%i, %k] : memref<$RFxf32> -> !sparse.buffer<2 x f32>
  %Y = sparse.buffer %y [%dj, %k] : memref<$CFxf32> -> !sparse.buffer<2 x f32>
)";
}

/// SpMM, x = A y; `schedule` (the iteration's attributes, as
/// "{loop_order = ...}") may follow the iteration.
inline std::string getSpMMSource(const Sizes &sizes,
                                 llvm::StringRef schedule = "") {
  return substituteSizes(getCsrKernelHead() + R"(
  sparse.iteration [%i, %j, %k] [#sparse.iterator<spatial>, #sparse.iterator<reduction>, #sparse.iterator<spatial>] init {
  ^bb0(%vi: index, %vk: index):
    %zero = arith.constant 0.0 : f32
    sparse.store %zero, %X[%vi, %vk] : !sparse.buffer<2 x f32>
  } do {
  ^bb0(%vi: index, %vj: index, %vk: index):
    %v = sparse.load %A[%vi, %vj] : !sparse.buffer<2 x f32>
    %w = sparse.load %Y[%vj, %vk] : !sparse.buffer<2 x f32>
    %acc = sparse.load %X[%vi, %vk] : !sparse.buffer<2 x f32>
    %p = arith.mulf %v, %w : f32
    %s = arith.addf %acc, %p : f32
    sparse.store %s, %X[%vi, %vk] : !sparse.buffer<2 x f32>
  } )" + schedule.str() + R"(
  return
}
)",
                         sizes);
}

/// SDDMM on A's pattern, a[p] = sum_k x[i, k] y[j, k] for the nonzero p at
/// (i, j).
inline std::string getSDDMMSource(const Sizes &sizes) {
  return substituteSizes(getCsrKernelHead() + R"(
  sparse.iteration [%i, %j, %k] [#sparse.iterator<spatial>, #sparse.iterator<spatial>, #sparse.iterator<reduction>] init {
  ^bb0(%vi: index, %vj: index):
    %zero = arith.constant 0.0 : f32
    sparse.store %zero, %A[%vi, %vj] : !sparse.buffer<2 x f32>
  } do {
  ^bb0(%vi: index, %vj: index, %vk: index):
    %u = sparse.load %X[%vi, %vk] : !sparse.buffer<2 x f32>
    %w = sparse.load %Y[%vj, %vk] : !sparse.buffer<2 x f32>
    %acc = sparse.load %A[%vi, %vj] : !sparse.buffer<2 x f32>
    %p = arith.mulf %u, %w : f32
    %s = arith.addf %acc, %p : f32
    sparse.store %s, %A[%vi, %vj] : !sparse.buffer<2 x f32>
  }
  return
}
)",
                         sizes);
}

} // namespace npu::workloads

#endif // NPU_TEST_SUPPORT_SPARSEKERNELSOURCES_H
