//===- MatmulKernel.cpp - the f32 matmul micro-kernel of the runtime ------===//
//
// npudev.matmul on f32 lowers to a call of this (as IREE's ukernels): a
// 6x16 register tile of c, each element accumulating its K products in k
// order with one fused multiply-add each, exactly as the simulator and the
// generic loop lowering do, so the result is bit-identical to theirs. The
// AVX2/FMA path is taken when the host has it; edges and other hosts use
// the scalar loop. Compute: 2 M N K flops; memory: the B panel of 16
// columns is reused by every 6-row tile.
//
//===----------------------------------------------------------------------===//

#include "MatmulKernel.h"

#include <cmath>

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
__attribute__((target("avx2,fma"))) void
vectorTiles(const MatrixF32 &a, const MatrixF32 &b, MatrixF32 &c,
            bool accumulate, int64_t rows, int64_t cols) {
  int64_t depth = a.sizes[1];
  for (int64_t i0 = 0; i0 < rows; i0 += kTileRows) {
    for (int64_t j0 = 0; j0 < cols; j0 += kTileCols) {
      __m256 acc[kTileRows][2];
      for (int r = 0; r < kTileRows; ++r)
        for (int h = 0; h < 2; ++h)
          acc[r][h] = accumulate ? _mm256_loadu_ps(&c.at(i0 + r, j0 + 8 * h))
                                 : _mm256_setzero_ps();
      for (int64_t k = 0; k < depth; ++k) {
        __m256 b0 = _mm256_loadu_ps(&b.at(k, j0));
        __m256 b1 = _mm256_loadu_ps(&b.at(k, j0 + 8));
        for (int r = 0; r < kTileRows; ++r) {
          __m256 x = _mm256_broadcast_ss(&a.at(i0 + r, k));
          acc[r][0] = _mm256_fmadd_ps(x, b0, acc[r][0]);
          acc[r][1] = _mm256_fmadd_ps(x, b1, acc[r][1]);
        }
      }
      for (int r = 0; r < kTileRows; ++r)
        for (int h = 0; h < 2; ++h)
          _mm256_storeu_ps(&c.at(i0 + r, j0 + 8 * h), acc[r][h]);
    }
  }
}

bool hostHasFma() {
  static const bool has =
      __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return has;
}
#endif
} // namespace

void npu::jit::matmulF32(const MatrixF32 &a, const MatrixF32 &b, MatrixF32 &c,
                         bool accumulate) {
  int64_t m = c.sizes[0], n = c.sizes[1];
  int64_t rows = 0, cols = 0;
#if defined(__x86_64__)
  bool unitStride = b.strides[1] == 1 && c.strides[1] == 1;
  if (hostHasFma() && unitStride) {
    rows = m - m % kTileRows;
    cols = n - n % kTileCols;
    vectorTiles(a, b, c, accumulate, rows, cols);
  }
#endif
  scalarBlock(a, b, c, accumulate, 0, rows, cols, n); // Right edge.
  scalarBlock(a, b, c, accumulate, rows, m, 0, n);    // Bottom edge.
}
