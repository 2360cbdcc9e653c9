//===- MatmulKernel.h - the matmul micro-kernels of the JIT -----*- C++ -*-===//
//
// npudev.matmul with float inputs and an f32 accumulator lowers to a call of
// these (as IREE's ukernels); they are public so that embedders and tests
// can call a chosen instruction set directly.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_JIT_MATMULKERNEL_H
#define NPU_JIT_MATMULKERNEL_H

#include <cstdint>

namespace npu::jit {

/// The instruction sets the micro-kernels are written for, narrowest first.
enum class MatmulIsa { Scalar, Avx2, Avx512 };

/// Element types of matmul inputs; the accumulator is always f32.
enum class MatmulInput { F32, F16, BF16 };

/// The descriptor of a rank-2 memref, as the LLVM lowering lays it out;
/// offset and strides count elements.
struct MatrixRef {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t sizes[2];
  int64_t strides[2];
};

/// The widest instruction set this host runs whose vectors are at most
/// `maxVectorBits` wide (0: no limit; below 256: the scalar kernel).
MatmulIsa selectMatmulIsa(unsigned maxVectorBits = 0);

/// "scalar", "avx2" or "avx512".
const char *getMatmulIsaName(MatmulIsa isa);

/// The vector width in bits of `isa`'s kernel (0 for the scalar one).
unsigned getMatmulIsaVectorBits(MatmulIsa isa);

/// c (+)= a x b with npudev.matmul's semantics: a [M, K] and b [K, N] of
/// `input` elements, each widened exactly to f32, c [M, N] f32; each c[i, j]
/// accumulates its K products in k order, one fused multiply-add each, so
/// every `isa` gives the same bits. Any strides (a transposed view too).
/// `isa` must be one selectMatmulIsa can return on this host.
void matmul(MatmulIsa isa, MatmulInput input, const MatrixRef &a,
            const MatrixRef &b, const MatrixRef &c, bool accumulate);

} // namespace npu::jit

#endif // NPU_JIT_MATMULKERNEL_H
