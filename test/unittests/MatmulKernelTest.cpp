//===- MatmulKernelTest.cpp - the JIT's matmul kernels, bit for bit -------===//
//
// Every instruction set this host runs (AVX-512, AVX2, scalar), every input
// type, against a plain reference: each c[i, j] = fma over k in order, in
// f32, inputs widened with the runtime's own exact conversions. Shapes
// cover each tile's edges (rows around 1, 2, 4, 6 and 8; columns around 8,
// 16 and 32), depths across the 256-product packing blocks, zero-element
// sizes, transposed and strided operands, strided c, and special values
// (NaN, infinities, signed zeros, subnormal halves).
//
//===----------------------------------------------------------------------===//

#include "npu/JIT/MatmulKernel.h"
#include "npu/Runtime/ElementKind.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <tuple>
#include <vector>

using namespace npu;
using namespace npu::jit;

namespace {

/// A matrix stored in a vector of `T` (float or the 16 bits of a half),
/// with a view of it as the kernels take it.
template <typename T> struct Stored {
  std::vector<T> data;
  MatrixRef view;
};

float widen(MatmulInput input, float v) { return v; }
float widen(MatmulInput input, uint16_t v) {
  return input == MatmulInput::F16 ? halfToFloat(v) : bfloatToFloat(v);
}

/// A random [rows, cols] matrix stored with `rowStride` and `colStride`
/// (either order), one element in 16 a special value.
template <typename T>
Stored<T> randomMatrix(MatmulInput input, int64_t rows, int64_t cols,
                       bool transposed, int64_t pad, std::mt19937 &rng) {
  Stored<T> m;
  int64_t offset = 3;
  int64_t rowStride = transposed ? 1 : cols + pad;
  int64_t colStride = transposed ? rows + pad : 1;
  m.data.assign(offset + (rows + pad) * (cols + pad) + 1, T{});
  std::uniform_real_distribution<float> value(-2, 2);
  const float specials[] = {NAN,  INFINITY, -INFINITY, -0.0f,
                            0.0f, 6e-6f,    -3e-7f};
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      float v =
          rng() % 16 == 0 ? specials[rng() % std::size(specials)] : value(rng);
      T stored;
      if constexpr (std::is_same_v<T, float>)
        stored = v;
      else
        stored = input == MatmulInput::F16 ? floatToHalf(v) : floatToBfloat(v);
      m.data[offset + i * rowStride + j * colStride] = stored;
    }
  m.view = {m.data.data(),
            m.data.data(),
            offset,
            {rows, cols},
            {rowStride, colStride}};
  return m;
}

template <typename T>
float at(const MatrixRef &m, MatmulInput input, int64_t i, int64_t j) {
  const T *base = static_cast<const T *>(m.aligned);
  return widen(input, base[m.offset + i * m.strides[0] + j * m.strides[1]]);
}

struct Case {
  int64_t m, n, k;
  bool transposeA, transposeB, stridedC, accumulate;
};

std::string describe(MatmulIsa isa, MatmulInput input, const Case &c) {
  return std::string(getMatmulIsaName(isa)) + " input " +
         std::to_string(static_cast<int>(input)) + " " + std::to_string(c.m) +
         "x" + std::to_string(c.k) + "x" + std::to_string(c.n) +
         (c.transposeA ? " A^T" : "") + (c.transposeB ? " B^T" : "") +
         (c.stridedC ? " strided C" : "") + (c.accumulate ? " +=" : "");
}

/// Runs one case on `isa` and compares every bit of c with the reference.
template <typename T>
void expectExact(MatmulIsa isa, MatmulInput input, const Case &c,
                 std::mt19937 &rng) {
  SCOPED_TRACE(describe(isa, input, c));
  Stored<T> a = randomMatrix<T>(input, c.m, c.k, c.transposeA, 1, rng);
  Stored<T> b = randomMatrix<T>(input, c.k, c.n, c.transposeB, 2, rng);
  Stored<float> out =
      randomMatrix<float>(MatmulInput::F32, c.m, c.n, c.stridedC, 1, rng);
  std::vector<float> expected(c.m * c.n);
  for (int64_t i = 0; i < c.m; ++i)
    for (int64_t j = 0; j < c.n; ++j) {
      float sum =
          c.accumulate ? at<float>(out.view, MatmulInput::F32, i, j) : 0.0f;
      for (int64_t k = 0; k < c.k; ++k)
        sum = std::fma(at<T>(a.view, input, i, k), at<T>(b.view, input, k, j),
                       sum);
      expected[i * c.n + j] = sum;
    }
  std::vector<float> untouched = out.data;
  matmul(isa, input, a.view, b.view, out.view, c.accumulate);
  for (int64_t i = 0; i < c.m; ++i)
    for (int64_t j = 0; j < c.n; ++j) {
      float got = at<float>(out.view, MatmulInput::F32, i, j);
      ASSERT_EQ(std::memcmp(&got, &expected[i * c.n + j], sizeof(float)), 0)
          << "c[" << i << ", " << j << "] = " << got << ", expected "
          << expected[i * c.n + j];
    }
  // Nothing outside c's elements changes.
  for (int64_t i = 0; i < c.m; ++i)
    for (int64_t j = 0; j < c.n; ++j)
      untouched[out.view.offset + i * out.view.strides[0] +
                j * out.view.strides[1]] =
          at<float>(out.view, MatmulInput::F32, i, j);
  ASSERT_EQ(std::memcmp(untouched.data(), out.data.data(),
                        untouched.size() * sizeof(float)),
            0);
}

/// The instruction sets this host runs.
std::vector<MatmulIsa> hostIsas() {
  std::vector<MatmulIsa> isas;
  for (unsigned bits : {0u, 256u, 128u}) {
    MatmulIsa isa = selectMatmulIsa(bits);
    if (isas.empty() || isas.back() != isa)
      isas.push_back(isa);
  }
  return isas;
}

std::vector<Case> edgeCases() {
  std::vector<Case> cases;
  for (int64_t m : {1, 2, 3, 5, 6, 7, 8, 9, 13, 17})
    for (int64_t n : {1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 48, 65})
      cases.push_back({m, n, 11, false, false, false, (m + n) % 2 == 0});
  for (int64_t k : {0, 1, 255, 256, 257, 600})
    for (bool accumulate : {false, true})
      cases.push_back({10, 40, k, false, false, false, accumulate});
  for (int mask = 0; mask < 8; ++mask)
    cases.push_back(
        {19, 35, 70, bool(mask & 1), bool(mask & 2), bool(mask & 4), true});
  // Transposed operands packed in 8 x 8 blocks and their edges: whole
  // blocks, a partial block of columns and of depth, a second depth block.
  for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{6, 16, 8},
                         {13, 33, 17},
                         {40, 70, 300}})
    for (bool accumulate : {false, true})
      cases.push_back({m, n, k, true, true, false, accumulate});
  // Zero-element results: nothing to do, nothing written.
  cases.push_back({0, 16, 8, false, false, false, false});
  cases.push_back({8, 0, 8, false, false, false, true});
  return cases;
}

TEST(MatmulKernelTest, EveryHostIsaMatchesTheReferenceForF32) {
  std::mt19937 rng(11);
  for (MatmulIsa isa : hostIsas())
    for (const Case &c : edgeCases())
      expectExact<float>(isa, MatmulInput::F32, c, rng);
}

TEST(MatmulKernelTest, EveryHostIsaMatchesTheReferenceForHalves) {
  std::mt19937 rng(12);
  for (MatmulIsa isa : hostIsas())
    for (MatmulInput input : {MatmulInput::F16, MatmulInput::BF16})
      for (const Case &c : edgeCases())
        expectExact<uint16_t>(isa, input, c, rng);
}

// The tile sizes the lowerings use, on the widest set.
TEST(MatmulKernelTest, LoweringTileSizesMatchTheReference) {
  std::mt19937 rng(13);
  MatmulIsa isa = selectMatmulIsa();
  expectExact<float>(isa, MatmulInput::F32,
                     {128, 128, 128, false, true, false, false}, rng);
  expectExact<float>(isa, MatmulInput::F32,
                     {256, 256, 128, false, false, false, true}, rng);
  expectExact<uint16_t>(isa, MatmulInput::F16,
                        {64, 128, 64, false, true, false, false}, rng);
}

TEST(MatmulKernelTest, SelectionRespectsTheWidthLimit) {
  EXPECT_EQ(selectMatmulIsa(128), MatmulIsa::Scalar);
  EXPECT_LE(getMatmulIsaVectorBits(selectMatmulIsa(256)), 256u);
  EXPECT_GE(getMatmulIsaVectorBits(selectMatmulIsa()),
            getMatmulIsaVectorBits(selectMatmulIsa(256)));
#if defined(__x86_64__)
  if (__builtin_cpu_supports("avx512f")) {
    EXPECT_EQ(selectMatmulIsa(), MatmulIsa::Avx512);
  }
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    EXPECT_EQ(selectMatmulIsa(256), MatmulIsa::Avx2);
  }
#endif
}

} // namespace
