//===- SparseConvReference.h - sparse convolution, plain C++ ----*- C++ -*-===//
//
// The reference the sparse convolution kernels are compared with, written
// from the op definitions (docs/sparse-conv.md) with a hash map of the
// active sites, independent of the device lowering.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_TEST_UNITTESTS_SPARSECONVREFERENCE_H
#define NPU_TEST_UNITTESTS_SPARSECONVREFERENCE_H

#include "npu/Dialect/NPU/SparseConvGeometry.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace npu::testing {

using Site = std::array<int32_t, 4>;

/// The results of get_indice_pairs; `error` names the first bad row
/// instead when the input breaks a rule.
struct IndicePairs {
  std::vector<Site> outIndices;
  /// [K, 2, L], unused entries -1.
  std::vector<int32_t> pairs;
  std::vector<int32_t> num;
  std::string error;
};

IndicePairs referenceIndicePairs(const graph::SparseConvGeometry &g,
                                 const std::vector<Site> &indices);

/// sparse_conv3d in f32, summing in the op's order (subm: offset K / 2 first,
/// then offsets ascending, pairs in list order; each product row a chain of
/// fused multiply-adds over Cin). features [L, cin], weights [K, cin, cout].
std::vector<float> referenceSparseConv(const std::vector<float> &features,
                                       const std::vector<float> &weights,
                                       const IndicePairs &pairs, int64_t cin,
                                       int64_t cout, int64_t outRows,
                                       bool inverse, bool subm);

/// A dense 3-D convolution in float64, evaluated at the output sites
/// `outIndices` only: out[o] = sum over input sites x and offsets r with
/// reach(x, r) = o of features[x] W[r]. Independent of the pair tables.
std::vector<double> denseConvAtSites(const graph::SparseConvGeometry &g,
                                     const std::vector<Site> &indices,
                                     const std::vector<float> &features,
                                     const std::vector<float> &weights,
                                     const std::vector<Site> &outIndices,
                                     int64_t cin, int64_t cout);

/// Random distinct sites inside the spatial shape, including its corners.
std::vector<Site> randomSites(const graph::SparseConvGeometry &g, int64_t count,
                              uint64_t seed);

} // namespace npu::testing

#endif // NPU_TEST_UNITTESTS_SPARSECONVREFERENCE_H
