//===- MatmulKernel.cpp - the f32 matmul micro-kernel of the runtime ------===//
//
// npudev.matmul on f32 lowers to a call of this (as IREE's ukernels): 6x16
// register tiles of c (8x32 with 512-bit vectors where the host has them,
// else 6x16; then 4, 2 and 1-row tiles for the last rows), each element
// accumulating its K products in k order with one fused multiply-add each,
// exactly as the simulator and the generic loop lowering do, so the result is
// bit-identical to theirs. The AVX2/FMA path is taken when the host has it;
// edges and other hosts use the scalar loop. A B whose columns are not
// contiguous (a transposed view: attention's Q K^T) is first copied into a
// row-major buffer, which moves values, not products: the bits stay.
// Compute: 2 M N K flops; memory: the B panel of 16 columns is reused by
// every 6-row tile; the copy of a strided B is K N.
//
//===----------------------------------------------------------------------===//

#include "MatmulKernel.h"

#include <cmath>
#include <type_traits>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

using namespace npu::jit;

namespace {
constexpr int64_t kTileRows = 6, kTileCols = 16;

/// c[i, j] for i in [i0, i1), j in [j0, j1), one element at a time.
void scalarBlock(const MatrixF32 &a, const MatrixF32 &b, MatrixF32 &c,
                 bool accumulate, int64_t i0, int64_t i1, int64_t j0,
                 int64_t j1) {
  int64_t depth = a.sizes[1];
  for (int64_t i = i0; i < i1; ++i)
    for (int64_t j = j0; j < j1; ++j) {
      float sum = accumulate ? c.at(i, j) : 0.0f;
      for (int64_t k = 0; k < depth; ++k)
        sum = std::fma(a.at(i, k), b.at(k, j), sum);
      c.at(i, j) = sum;
    }
}

#if defined(__x86_64__)
bool hostHasFma() {
  static const bool has =
      __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return has;
}

bool hostHas512() {
  static const bool has = __builtin_cpu_supports("avx512f");
  return has;
}

/// c[i0, i0 + Rows) x [0, cols) in tiles of Rows x 16.
template <int Rows>
__attribute__((target("avx2,fma"))) void
vectorRows(const MatrixF32 &a, const MatrixF32 &b, MatrixF32 &c,
           bool accumulate, int64_t i0, int64_t cols) {
  int64_t depth = a.sizes[1];
  for (int64_t j0 = 0; j0 < cols; j0 += kTileCols) {
    __m256 acc[Rows][2];
    for (int r = 0; r < Rows; ++r)
      for (int h = 0; h < 2; ++h)
        acc[r][h] = accumulate ? _mm256_loadu_ps(&c.at(i0 + r, j0 + 8 * h))
                               : _mm256_setzero_ps();
    for (int64_t k = 0; k < depth; ++k) {
      __m256 b0 = _mm256_loadu_ps(&b.at(k, j0));
      __m256 b1 = _mm256_loadu_ps(&b.at(k, j0 + 8));
      for (int r = 0; r < Rows; ++r) {
        __m256 x = _mm256_broadcast_ss(&a.at(i0 + r, k));
        acc[r][0] = _mm256_fmadd_ps(x, b0, acc[r][0]);
        acc[r][1] = _mm256_fmadd_ps(x, b1, acc[r][1]);
      }
    }
    for (int r = 0; r < Rows; ++r)
      for (int h = 0; h < 2; ++h)
        _mm256_storeu_ps(&c.at(i0 + r, j0 + 8 * h), acc[r][h]);
  }
}

/// c[i0, i0 + Rows) x [j0, cols) in tiles of Rows x 32 with 512-bit
/// vectors (32 registers: 8 rows fit without spilling).
template <int Rows>
__attribute__((target("avx512f"))) void
vectorRows512(const MatrixF32 &a, const MatrixF32 &b, MatrixF32 &c,
              bool accumulate, int64_t i0, int64_t cols) {
  int64_t depth = a.sizes[1];
  for (int64_t j0 = 0; j0 < cols; j0 += 2 * kTileCols) {
    __m512 acc[Rows][2];
    for (int r = 0; r < Rows; ++r)
      for (int h = 0; h < 2; ++h)
        acc[r][h] = accumulate ? _mm512_loadu_ps(&c.at(i0 + r, j0 + 16 * h))
                               : _mm512_setzero_ps();
    for (int64_t k = 0; k < depth; ++k) {
      __m512 b0 = _mm512_loadu_ps(&b.at(k, j0));
      __m512 b1 = _mm512_loadu_ps(&b.at(k, j0 + 16));
      for (int r = 0; r < Rows; ++r) {
        __m512 x = _mm512_set1_ps(a.at(i0 + r, k));
        acc[r][0] = _mm512_fmadd_ps(x, b0, acc[r][0]);
        acc[r][1] = _mm512_fmadd_ps(x, b1, acc[r][1]);
      }
    }
    for (int r = 0; r < Rows; ++r)
      for (int h = 0; h < 2; ++h)
        _mm512_storeu_ps(&c.at(i0 + r, j0 + 16 * h), acc[r][h]);
  }
}

/// Calls tile(i, rows) over all rows of c in tiles of `largest` rows, then
/// 4, 2 and 1.
template <int Largest, typename Tile> void forRowTiles(int64_t m, Tile tile) {
  int64_t i = 0;
  for (; i + Largest <= m; i += Largest)
    tile(std::integral_constant<int, Largest>(), i);
  for (; i + 4 <= m; i += 4)
    tile(std::integral_constant<int, 4>(), i);
  for (; i + 2 <= m; i += 2)
    tile(std::integral_constant<int, 2>(), i);
  for (; i < m; ++i)
    tile(std::integral_constant<int, 1>(), i);
}

/// Vector tiles over columns [0, cols) of c (cols a multiple of 16);
/// returns how many columns they covered.
int64_t vectorTiles(const MatrixF32 &a, const MatrixF32 &b, MatrixF32 &c,
                    bool accumulate, int64_t cols) {
  int64_t m = c.sizes[0];
  int64_t wide = 0;
  if (hostHas512()) {
    wide = cols - cols % (2 * kTileCols);
    forRowTiles<8>(m, [&](auto rows, int64_t i) {
      vectorRows512<decltype(rows)::value>(a, b, c, accumulate, i, wide);
    });
  }
  // Columns the 512-bit tiles left: one 16-column strip at most.
  MatrixF32 rest = c;
  rest.offset += wide * c.strides[1];
  rest.sizes[1] = cols - wide;
  MatrixF32 restB = b;
  restB.offset += wide * b.strides[1];
  forRowTiles<kTileRows>(m, [&](auto rows, int64_t i) {
    vectorRows<decltype(rows)::value>(a, restB, rest, accumulate, i,
                                      cols - wide);
  });
  return cols;
}

#endif
} // namespace

void npu::jit::matmulF32(const MatrixF32 &a, const MatrixF32 &b, MatrixF32 &c,
                         bool accumulate) {
  int64_t m = c.sizes[0], n = c.sizes[1];
  int64_t cols = 0;
  const MatrixF32 *rowMajorB = &b;
#if defined(__x86_64__)
  // The copy of a strided B, kept per thread across calls.
  thread_local std::vector<float> packed;
  MatrixF32 packedB;
  if (hostHasFma() && c.strides[1] == 1 && b.strides[1] != 1 &&
      n >= kTileCols) {
    int64_t depth = b.sizes[0];
    packed.resize(depth * n);
    for (int64_t k = 0; k < depth; ++k)
      for (int64_t j = 0; j < n; ++j)
        packed[k * n + j] = b.at(k, j);
    packedB = {packed.data(), packed.data(), 0, {depth, n}, {n, 1}};
    rowMajorB = &packedB;
  }
  if (hostHasFma() && rowMajorB->strides[1] == 1 && c.strides[1] == 1)
    cols = vectorTiles(a, *rowMajorB, c, accumulate, n - n % kTileCols);
#endif
  scalarBlock(a, *rowMajorB, c, accumulate, 0, m, cols, n); // What is left.
}
