//===- MatmulKernel.cpp - the matmul micro-kernels of the JIT -------------===//
//
// Blocked as BLIS is. Per block of kDepthBlock products, B's columns are
// packed into panels of NR columns stored k-major, its inputs widened
// exactly to f32 on the way; A is read in place when it is f32 with
// contiguous rows, else packed the same way into panels of MR rows. An
// MR x NR register tile of c takes one fused multiply-add per product
// (broadcast a[i, k], multiply B's row k, add). Loops: depth blocks, row
// blocks of kRowBlock (their A stays in L2), B panels (each stays in L1),
// row tiles. MR x NR is 8 x 32 with AVX-512, 6 x 16 with AVX2 (16 or 12
// accumulating registers), 4 x 8 in the scalar kernel; the last rows of c
// take 4-, 2- and 1-row tiles; columns past N, and c with strided
// columns, go through a tile in memory.
//
// The bits: every c[i, j] accumulates its K products in k order, one fused
// multiply-add each, exactly as the simulator and the loop lowering do. A
// depth block continues from the f32 value the previous one stored (an f32
// register and an f32 in memory hold the same value), and the zeros padding
// a panel only feed elements that are never stored.
//
// Cost: 2 M N K flops; packing copies N K elements per call (and M K when A
// is packed).
//
//===----------------------------------------------------------------------===//

#include "npu/JIT/MatmulKernel.h"
#include "npu/Runtime/ElementKind.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

using namespace npu;
using namespace npu::jit;

namespace {

/// Products per packed block: a B panel of kDepthBlock x 32 f32 (32 KiB)
/// stays in a 48 KiB L1 while the A panels stream past it.
constexpr int64_t kDepthBlock = 256;

/// Where a tile reads its f32 inputs: a[r, k] at a[r * aRow + k * aStep]
/// (a panel packed k-major, or a row-major matrix read in place), b's row
/// k at b + k * ldb.
struct Operands {
  const float *a;
  int64_t aRow, aStep;
  const float *b;
  int64_t ldb;
};

/// A register tile: c (+)= a x b over `depth` products.
using TileFn = void (*)(const Operands &in, int64_t depth, float *c,
                        int64_t ldc, bool load);

/// One instruction set's tiles.
struct TileSet {
  int64_t rows, cols;
  /// Tiles of `rows`, 4, 2 and 1 rows.
  TileFn tiles[4];

  /// The tile for the next `left` rows of c, and how many rows it takes.
  std::pair<TileFn, int64_t> next(int64_t left) const {
    if (left >= rows)
      return {tiles[0], rows};
    if (left >= 4)
      return {tiles[1], 4};
    if (left >= 2)
      return {tiles[2], 2};
    return {tiles[3], 1};
  }
};

#define NPU_ALWAYS_INLINE inline __attribute__((always_inline))

namespace scalar {
#define NPU_MATMUL_TARGET
constexpr int kLanes = 4, kTileRows = 4;
struct Vec {
  float lane[kLanes];
};
NPU_ALWAYS_INLINE Vec loadVec(const float *p) {
  Vec v;
  std::memcpy(v.lane, p, sizeof(v.lane));
  return v;
}
NPU_ALWAYS_INLINE void storeVec(float *p, Vec v) {
  std::memcpy(p, v.lane, sizeof(v.lane));
}
NPU_ALWAYS_INLINE Vec zeroVec() { return Vec{}; }
NPU_ALWAYS_INLINE Vec broadcast(const float *p) {
  return Vec{{*p, *p, *p, *p}};
}
NPU_ALWAYS_INLINE Vec fmadd(Vec x, Vec y, Vec acc) {
  for (int l = 0; l < kLanes; ++l)
    acc.lane[l] = std::fma(x.lane[l], y.lane[l], acc.lane[l]);
  return acc;
}
#include "MatmulTile.inc"
#undef NPU_MATMUL_TARGET
} // namespace scalar

#if defined(__x86_64__)
namespace avx2 {
#define NPU_MATMUL_TARGET __attribute__((target("avx2,fma")))
using Vec = __m256;
constexpr int kLanes = 8, kTileRows = 6;
NPU_MATMUL_TARGET NPU_ALWAYS_INLINE Vec loadVec(const float *p) {
  return _mm256_loadu_ps(p);
}
NPU_MATMUL_TARGET NPU_ALWAYS_INLINE void storeVec(float *p, Vec v) {
  _mm256_storeu_ps(p, v);
}
NPU_MATMUL_TARGET NPU_ALWAYS_INLINE Vec zeroVec() {
  return _mm256_setzero_ps();
}
NPU_MATMUL_TARGET NPU_ALWAYS_INLINE Vec broadcast(const float *p) {
  return _mm256_broadcast_ss(p);
}
NPU_MATMUL_TARGET NPU_ALWAYS_INLINE Vec fmadd(Vec x, Vec y, Vec acc) {
  return _mm256_fmadd_ps(x, y, acc);
}
#include "MatmulTile.inc"
#undef NPU_MATMUL_TARGET

/// dst[0, n) = the n contiguous f16 values at src, with F16C.
__attribute__((target("avx,f16c"))) void widenHalves(const uint16_t *src,
                                                     int64_t n, float *dst) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128(
                                  reinterpret_cast<const __m128i *>(src + i))));
  for (; i < n; ++i)
    dst[i] = halfToFloat(src[i]);
}

/// dst[c * ldd + r] = src[r * ld + c] for r, c < 8: an 8 x 8 f32 block
/// transposed in registers (pairs interleaved, then quads, then halves).
__attribute__((target("avx"))) void transpose8x8(const float *src, int64_t ld,
                                                 float *dst, int64_t ldd) {
  __m256 r[8], t[8], q[8];
  for (int i = 0; i < 8; ++i)
    r[i] = _mm256_loadu_ps(src + i * ld);
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 8; i += 4)
    for (int j = 0; j < 2; ++j) {
      q[i + 2 * j] =
          _mm256_shuffle_ps(t[i + j], t[i + j + 2], _MM_SHUFFLE(1, 0, 1, 0));
      q[i + 2 * j + 1] =
          _mm256_shuffle_ps(t[i + j], t[i + j + 2], _MM_SHUFFLE(3, 2, 3, 2));
    }
  for (int i = 0; i < 4; ++i) {
    _mm256_storeu_ps(dst + i * ldd,
                     _mm256_permute2f128_ps(q[i], q[i + 4], 0x20));
    _mm256_storeu_ps(dst + (i + 4) * ldd,
                     _mm256_permute2f128_ps(q[i], q[i + 4], 0x31));
  }
}
} // namespace avx2

namespace avx512 {
#define NPU_MATMUL_TARGET __attribute__((target("avx512f")))
using Vec = __m512;
constexpr int kLanes = 16, kTileRows = 8;
NPU_MATMUL_TARGET NPU_ALWAYS_INLINE Vec loadVec(const float *p) {
  return _mm512_loadu_ps(p);
}
NPU_MATMUL_TARGET NPU_ALWAYS_INLINE void storeVec(float *p, Vec v) {
  _mm512_storeu_ps(p, v);
}
NPU_MATMUL_TARGET NPU_ALWAYS_INLINE Vec zeroVec() {
  return _mm512_setzero_ps();
}
NPU_MATMUL_TARGET NPU_ALWAYS_INLINE Vec broadcast(const float *p) {
  return _mm512_set1_ps(*p);
}
NPU_MATMUL_TARGET NPU_ALWAYS_INLINE Vec fmadd(Vec x, Vec y, Vec acc) {
  return _mm512_fmadd_ps(x, y, acc);
}
#include "MatmulTile.inc"
#undef NPU_MATMUL_TARGET
} // namespace avx512

bool hostRuns(MatmulIsa isa) {
  static const bool avx2 = __builtin_cpu_supports("avx2") &&
                           __builtin_cpu_supports("fma") &&
                           __builtin_cpu_supports("f16c");
  static const bool avx512 = avx2 && __builtin_cpu_supports("avx512f");
  return isa == MatmulIsa::Scalar || (isa == MatmulIsa::Avx2 && avx2) ||
         (isa == MatmulIsa::Avx512 && avx512);
}
#else
bool hostRuns(MatmulIsa isa) { return isa == MatmulIsa::Scalar; }
#endif

const TileSet &getTiles(MatmulIsa isa) {
  switch (isa) {
#if defined(__x86_64__)
  case MatmulIsa::Avx512:
    return avx512::kTiles;
  case MatmulIsa::Avx2:
    return avx2::kTiles;
#endif
  default:
    return scalar::kTiles;
  }
}

/// out[k * Width, (k + 1) * Width) = rows[k * ld, k * ld + Width).
template <int64_t Width>
void copyRows(const float *rows, int64_t ld, int64_t depth, float *out) {
  for (int64_t k = 0; k < depth; ++k)
    std::memcpy(out + k * Width, rows + k * ld, Width * sizeof(float));
}

/// The packing of one call: inputs, their element type, and whether the
/// vector conversions may be used.
struct Packer {
  MatmulInput input;
  bool vectorized;

  int64_t elementBytes() const { return input == MatmulInput::F32 ? 4 : 2; }

  const char *address(const MatrixRef &m, int64_t i, int64_t j) const {
    return static_cast<const char *>(m.aligned) +
           (m.offset + i * m.strides[0] + j * m.strides[1]) * elementBytes();
  }

  /// dst[0, n) = the n elements at src, `stride` elements apart, as f32.
  void widen(const char *src, int64_t stride, int64_t n, float *dst) const {
    if (input == MatmulInput::F32) {
      const auto *f = reinterpret_cast<const float *>(src);
      if (stride == 1)
        std::memcpy(dst, f, n * sizeof(float));
      else
        for (int64_t i = 0; i < n; ++i)
          dst[i] = f[i * stride];
      return;
    }
    const auto *h = reinterpret_cast<const uint16_t *>(src);
    if (input == MatmulInput::BF16) {
      for (int64_t i = 0; i < n; ++i)
        dst[i] = bfloatToFloat(h[i * stride]);
      return;
    }
#if defined(__x86_64__)
    if (vectorized && stride == 1)
      return avx2::widenHalves(h, n, dst);
#endif
    for (int64_t i = 0; i < n; ++i)
      dst[i] = halfToFloat(h[i * stride]);
  }

  /// out[k * rows + r] = a[i0 + r, k0 + k] for r < rows, k < depth; reading
  /// along whichever dimension of a is denser.
  void packRows(const MatrixRef &a, int64_t i0, int64_t rows, int64_t k0,
                int64_t depth, float *out, std::vector<float> &scratch) const {
    if (std::abs(a.strides[0]) < std::abs(a.strides[1])) {
      // A transposed: the tile's rows of each k lie side by side.
      for (int64_t k = 0; k < depth; ++k)
        widen(address(a, i0, k0 + k), a.strides[0], rows, out + k * rows);
      return;
    }
    scratch.resize(depth);
    for (int64_t r = 0; r < rows; ++r) {
      widen(address(a, i0 + r, k0), a.strides[1], depth, scratch.data());
      for (int64_t k = 0; k < depth; ++k)
        out[k * rows + r] = scratch[k];
    }
  }

  /// out[k * width + j] = b[k0 + k, j0 + j] for j < cols, 0 for cols <= j <
  /// width; reading along whichever dimension of b is denser.
  void packColumns(const MatrixRef &b, int64_t k0, int64_t depth, int64_t j0,
                   int64_t cols, int64_t width, float *out,
                   std::vector<float> &scratch) const {
    if (cols < width)
      std::fill(out, out + depth * width, 0.0f);
    if (input == MatmulInput::F32 && b.strides[1] == 1 && cols == width) {
      const auto *rows = reinterpret_cast<const float *>(address(b, k0, j0));
      switch (width) { // Copies of a known size, inlined.
      case 8:
        return copyRows<8>(rows, b.strides[0], depth, out);
      case 16:
        return copyRows<16>(rows, b.strides[0], depth, out);
      case 32:
        return copyRows<32>(rows, b.strides[0], depth, out);
      }
    }
    if (std::abs(b.strides[1]) <= std::abs(b.strides[0])) {
      for (int64_t k = 0; k < depth; ++k)
        widen(address(b, k0 + k, j0), b.strides[1], cols, out + k * width);
      return;
    }
    int64_t j = 0;
#if defined(__x86_64__)
    // B transposed with contiguous columns: 8 x 8 blocks through registers.
    if (vectorized && input == MatmulInput::F32 && b.strides[0] == 1)
      for (; j + 8 <= cols; j += 8) {
        int64_t k = 0;
        for (; k + 8 <= depth; k += 8)
          avx2::transpose8x8(
              reinterpret_cast<const float *>(address(b, k0 + k, j0 + j)),
              b.strides[1], out + k * width + j, width);
        for (; k < depth; ++k)
          for (int64_t jj = j; jj < j + 8; ++jj)
            out[k * width + jj] =
                *reinterpret_cast<const float *>(address(b, k0 + k, j0 + jj));
      }
#endif
    scratch.resize(depth);
    for (; j < cols; ++j) {
      widen(address(b, k0, j0 + j), b.strides[0], depth, scratch.data());
      for (int64_t k = 0; k < depth; ++k)
        out[k * width + j] = scratch[k];
    }
  }
};

/// Runs `tile` on c[i0, i0 + rows) x [j0, j0 + cols): in place when the
/// tile's columns are all there and contiguous, else through a tile in
/// memory (the padding columns it computes are dropped).
void runTile(const TileSet &set, TileFn tile, int64_t rows, const Operands &in,
             int64_t depth, const MatrixRef &c, int64_t i0, int64_t j0,
             int64_t cols, bool load) {
  float *base = static_cast<float *>(c.aligned) + c.offset + i0 * c.strides[0] +
                j0 * c.strides[1];
  if (cols == set.cols && c.strides[1] == 1)
    return tile(in, depth, base, c.strides[0], load);
  float buffer[8 * 32] = {};
  auto element = [&](int64_t r, int64_t j) -> float & {
    return base[r * c.strides[0] + j * c.strides[1]];
  };
  if (load)
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < cols; ++j)
        buffer[r * set.cols + j] = element(r, j);
  tile(in, depth, buffer, set.cols, load);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < cols; ++j)
      element(r, j) = buffer[r * set.cols + j];
}

/// One call's loops over a depth block: B packed into panels of the tile's
/// width (each stays in L1 while a row block's tiles pass it), A read in
/// place when it is f32 with contiguous rows, else packed; rows in blocks of
/// kRowBlock, so that a block's A (kRowBlock x kDepthBlock f32, 192 KiB)
/// stays in L2 across the B panels.
struct BlockedMatmul {
  static constexpr int64_t kRowBlock = 192;
  // Row blocks split c where the tiles of all of c (packed A) do.
  static_assert(kRowBlock % 6 == 0 && kRowBlock % 8 == 0);

  const TileSet &set;
  Packer packer;
  const MatrixRef &a, &b, &c;

  void depthBlock(int64_t k0, int64_t kc, bool load) {
    // Kept per thread across calls: tasks on several threads pack at once.
    thread_local std::vector<float> packedA, packedB, scratch;
    int64_t m = c.sizes[0], n = c.sizes[1];
    int64_t panels = (n + set.cols - 1) / set.cols;
    packedB.resize(panels * kc * set.cols);
    for (int64_t p = 0; kc > 0 && p < panels; ++p)
      packer.packColumns(b, k0, kc, p * set.cols,
                         std::min(set.cols, n - p * set.cols), set.cols,
                         packedB.data() + p * kc * set.cols, scratch);
    bool packA = packer.input != MatmulInput::F32 || a.strides[1] != 1;
    if (packA) {
      packedA.resize(m * kc);
      forEachTile(0, m, [&](TileFn, int64_t i0, int64_t rows) {
        if (kc > 0)
          packer.packRows(a, i0, rows, k0, kc, packedA.data() + i0 * kc,
                          scratch);
      });
    }
    for (int64_t i1 = 0; i1 < m; i1 += kRowBlock)
      for (int64_t p = 0; p < panels; ++p) {
        Operands in;
        in.b = packedB.data() + p * kc * set.cols;
        in.ldb = set.cols;
        int64_t j0 = p * set.cols, cols = std::min(set.cols, n - j0);
        forEachTile(i1, std::min(m, i1 + kRowBlock),
                    [&](TileFn tile, int64_t i0, int64_t rows) {
                      if (packA) {
                        in.a = packedA.data() + i0 * kc;
                        in.aRow = 1;
                        in.aStep = rows;
                      } else {
                        in.a = static_cast<const float *>(a.aligned) +
                               a.offset + i0 * a.strides[0] + k0;
                        in.aRow = a.strides[0];
                        in.aStep = 1;
                      }
                      runTile(set, tile, rows, in, kc, c, i0, j0, cols, load);
                    });
      }
  }

  /// Calls fn(tile, i0, rows) over rows [begin, end) of c, in tiles.
  template <typename Fn> void forEachTile(int64_t begin, int64_t end, Fn fn) {
    for (int64_t i0 = begin; i0 < end;) {
      auto [tile, rows] = set.next(end - i0);
      fn(tile, i0, rows);
      i0 += rows;
    }
  }
};

} // namespace

MatmulIsa npu::jit::selectMatmulIsa(unsigned maxVectorBits) {
  for (MatmulIsa isa : {MatmulIsa::Avx512, MatmulIsa::Avx2})
    if (hostRuns(isa) &&
        (maxVectorBits == 0 || getMatmulIsaVectorBits(isa) <= maxVectorBits))
      return isa;
  return MatmulIsa::Scalar;
}

const char *npu::jit::getMatmulIsaName(MatmulIsa isa) {
  switch (isa) {
  case MatmulIsa::Avx512:
    return "avx512";
  case MatmulIsa::Avx2:
    return "avx2";
  case MatmulIsa::Scalar:
    return "scalar";
  }
  return "scalar";
}

unsigned npu::jit::getMatmulIsaVectorBits(MatmulIsa isa) {
  return isa == MatmulIsa::Avx512 ? 512 : isa == MatmulIsa::Avx2 ? 256 : 0;
}

void npu::jit::matmul(MatmulIsa isa, MatmulInput input, const MatrixRef &a,
                      const MatrixRef &b, const MatrixRef &c, bool accumulate) {
  int64_t m = c.sizes[0], n = c.sizes[1], depth = a.sizes[1];
  if (m == 0 || n == 0)
    return;
  if (!hostRuns(isa))
    isa = MatmulIsa::Scalar;
  BlockedMatmul run{getTiles(isa), {input, isa != MatmulIsa::Scalar}, a, b, c};
  // Zero products: c keeps its value, or becomes 0 (the first block of a
  // non-accumulating matmul zeroes its tiles).
  int64_t blocks =
      std::max<int64_t>(1, (depth + kDepthBlock - 1) / kDepthBlock);
  for (int64_t block = 0; block < blocks; ++block) {
    int64_t k0 = block * kDepthBlock;
    int64_t kc = std::min(kDepthBlock, depth - k0);
    bool load = accumulate || block > 0;
    if (kc == 0 && load)
      return;
    run.depthBlock(k0, kc, load);
  }
}
