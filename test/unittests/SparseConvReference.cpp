//===- SparseConvReference.cpp - sparse convolution, plain C++ ------------===//
//
// Straight from the definitions: every (site, offset) candidate is tested
// per dimension, reached output sites are collected in a hash map and
// numbered in ascending linear order. O(L * K) expected time.
//
//===----------------------------------------------------------------------===//

#include "SparseConvReference.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>
#include <unordered_map>
#include <unordered_set>

using namespace npu;
using namespace npu::graph;
using namespace npu::testing;

namespace {

int64_t linearIndex(const SparseConvGeometry::Dims &shape, int64_t b, int64_t z,
                    int64_t y, int64_t x) {
  return ((b * shape[0] + z) * shape[1] + y) * shape[2] + x;
}

/// The first broken rule, in the order docs/sparse-conv.md gives: every
/// row's batch index, then every row's coordinates, then repeated sites,
/// each naming the smallest row that breaks it; "" when none.
std::string checkSites(const SparseConvGeometry &g,
                       const std::vector<Site> &indices) {
  auto row = [](size_t i) { return "indices row " + std::to_string(i); };
  for (size_t i = 0; i < indices.size(); ++i)
    if (indices[i][0] < 0 || indices[i][0] >= g.batch)
      return row(i) + " has a batch index outside [0, " +
             std::to_string(g.batch) + ")";
  for (size_t i = 0; i < indices.size(); ++i)
    for (unsigned d = 0; d < 3; ++d)
      if (indices[i][d + 1] < 0 || indices[i][d + 1] >= g.in[d])
        return row(i) + " has a coordinate outside the spatial shape " +
               std::to_string(g.in[0]) + "x" + std::to_string(g.in[1]) + "x" +
               std::to_string(g.in[2]);
  std::unordered_set<int64_t> seen;
  for (size_t i = 0; i < indices.size(); ++i) {
    const Site &s = indices[i];
    if (!seen.insert(linearIndex(g.in, s[0], s[1], s[2], s[3])).second)
      return row(i) + " repeats the site of an earlier row";
  }
  return "";
}

/// The output site `s` reaches through offset k, as a linear index, or -1.
int64_t reachSite(const SparseConvGeometry &g, const Site &s, int64_t k) {
  SparseConvGeometry::Dims r = g.getOffset(k), o;
  for (unsigned d = 0; d < 3; ++d) {
    std::optional<int64_t> v = g.reach(d, s[d + 1], r[d]);
    if (!v)
      return -1;
    o[d] = *v;
  }
  return linearIndex(g.out, s[0], o[0], o[1], o[2]);
}

} // namespace

IndicePairs
npu::testing::referenceIndicePairs(const SparseConvGeometry &g,
                                   const std::vector<Site> &indices) {
  IndicePairs result;
  int64_t sites = indices.size(), kernel = g.getKernelVolume();
  result.error = checkSites(g, indices);
  if (!result.error.empty())
    return result;
  // Output rows: subm keeps the input rows, else the reached sites in
  // ascending linear order.
  std::unordered_map<int64_t, int32_t> outputRow;
  if (g.subm) {
    for (size_t i = 0; i < indices.size(); ++i) {
      const Site &s = indices[i];
      outputRow[linearIndex(g.in, s[0], s[1], s[2], s[3])] = i;
    }
    result.outIndices = indices;
  } else {
    std::set<int64_t> reached;
    for (const Site &s : indices)
      for (int64_t k = 0; k < kernel; ++k)
        if (int64_t o = reachSite(g, s, k); o >= 0)
          reached.insert(o);
    for (int64_t o : reached) {
      outputRow[o] = result.outIndices.size();
      int64_t x = o % g.out[2], y = o / g.out[2] % g.out[1],
              z = o / g.out[2] / g.out[1] % g.out[0], b = o / g.getOutVolume();
      result.outIndices.push_back(
          {int32_t(b), int32_t(z), int32_t(y), int32_t(x)});
    }
  }
  result.pairs.assign(kernel * 2 * sites, -1);
  result.num.assign(kernel, 0);
  for (int64_t k = 0; k < kernel; ++k)
    for (int64_t i = 0; i < sites; ++i) {
      int64_t o = reachSite(g, indices[i], k);
      auto it = o < 0 ? outputRow.end() : outputRow.find(o);
      if (it == outputRow.end())
        continue;
      int32_t n = result.num[k]++;
      result.pairs[(k * 2) * sites + n] = i;
      result.pairs[(k * 2 + 1) * sites + n] = it->second;
    }
  return result;
}

std::vector<float> npu::testing::referenceSparseConv(
    const std::vector<float> &features, const std::vector<float> &weights,
    const IndicePairs &p, int64_t cin, int64_t cout, int64_t outRows,
    bool inverse, bool subm) {
  int64_t kernel = p.num.size();
  int64_t sites = kernel ? p.pairs.size() / (2 * kernel) : 0;
  std::vector<float> out(outRows * cout, 0.0f);
  auto addProduct = [&](int64_t k, int64_t from, int64_t to) {
    for (int64_t j = 0; j < cout; ++j) {
      float acc = 0.0f;
      for (int64_t c = 0; c < cin; ++c)
        acc = std::fma(features[from * cin + c],
                       weights[(k * cin + c) * cout + j], acc);
      out[to * cout + j] += acc;
    }
  };
  // out[o] = sum over pairs (i, o) of offset k of features[i] W[k], the
  // offsets in the op's order: subm takes K / 2 first.
  auto addPairs = [&](int64_t k) {
    for (int32_t n = 0; n < p.num[k]; ++n) {
      int32_t in = p.pairs[(k * 2) * sites + n];
      int32_t o = p.pairs[(k * 2 + 1) * sites + n];
      inverse ? addProduct(k, o, in) : addProduct(k, in, o);
    }
  };
  if (subm && kernel > 0)
    addPairs(kernel / 2);
  for (int64_t k = 0; k < kernel; ++k)
    if (!subm || k != kernel / 2)
      addPairs(k);
  return out;
}

std::vector<double> npu::testing::denseConvAtSites(
    const SparseConvGeometry &g, const std::vector<Site> &indices,
    const std::vector<float> &features, const std::vector<float> &weights,
    const std::vector<Site> &outIndices, int64_t cin, int64_t cout) {
  std::map<std::array<int64_t, 4>, size_t> row;
  for (size_t i = 0; i < outIndices.size(); ++i)
    row[{outIndices[i][0], outIndices[i][1], outIndices[i][2],
         outIndices[i][3]}] = i;
  std::vector<double> out(outIndices.size() * cout, 0.0);
  // The dense sum: every input site against every kernel offset, the
  // output site computed by the textbook formula o * s = x + p - r * d.
  for (size_t i = 0; i < indices.size(); ++i)
    for (int64_t k = 0; k < g.getKernelVolume(); ++k) {
      SparseConvGeometry::Dims r = g.getOffset(k);
      std::array<int64_t, 4> o{indices[i][0], 0, 0, 0};
      bool inside = true;
      for (unsigned d = 0; d < 3 && inside; ++d) {
        int64_t x = indices[i][d + 1];
        if (g.transpose) {
          o[d + 1] = x * g.stride[d] - g.padding[d] + r[d] * g.dilation[d];
        } else {
          int64_t t = x + g.padding[d] - r[d] * g.dilation[d];
          inside = t >= 0 && t % g.stride[d] == 0;
          o[d + 1] = t / g.stride[d];
        }
        inside = inside && o[d + 1] >= 0 && o[d + 1] < g.out[d];
      }
      auto it = inside ? row.find(o) : row.end();
      if (it == row.end())
        continue;
      for (int64_t j = 0; j < cout; ++j)
        for (int64_t c = 0; c < cin; ++c)
          out[it->second * cout + j] +=
              double(features[i * cin + c]) *
              double(weights[(k * cin + c) * cout + j]);
    }
  return out;
}

std::vector<Site> npu::testing::randomSites(const SparseConvGeometry &g,
                                            int64_t count, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::set<std::array<int32_t, 4>> chosen;
  std::vector<Site> sites;
  auto add = [&](Site s) {
    if (int64_t(sites.size()) < count && chosen.insert(s).second)
      sites.push_back(s);
  };
  // The two extreme corners first: coordinates at the borders.
  add({0, 0, 0, 0});
  add({int32_t(g.batch - 1), int32_t(g.in[0] - 1), int32_t(g.in[1] - 1),
       int32_t(g.in[2] - 1)});
  int64_t volume = g.batch * g.in[0] * g.in[1] * g.in[2];
  count = std::min(count, volume);
  while (int64_t(sites.size()) < count)
    add({int32_t(rng() % g.batch), int32_t(rng() % g.in[0]),
         int32_t(rng() % g.in[1]), int32_t(rng() % g.in[2])});
  return sites;
}
