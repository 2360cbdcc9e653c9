//===- MatmulKernel.h - the f32 matmul micro-kernel -------------*- C++ -*-===//

#ifndef NPU_LIB_JIT_MATMULKERNEL_H
#define NPU_LIB_JIT_MATMULKERNEL_H

#include <cstdint>

namespace npu::jit {

/// The descriptor of a rank-2 f32 memref, as the LLVM lowering lays it out.
struct MatrixF32 {
  float *allocated;
  float *aligned;
  int64_t offset;
  int64_t sizes[2];
  int64_t strides[2];

  float &at(int64_t i, int64_t j) const {
    return aligned[offset + i * strides[0] + j * strides[1]];
  }
};

/// c (+)= a x b with npudev.matmul's semantics: per element, K fused
/// multiply-adds in k order.
void matmulF32(const MatrixF32 &a, const MatrixF32 &b, MatrixF32 &c,
               bool accumulate);

} // namespace npu::jit

#endif // NPU_LIB_JIT_MATMULKERNEL_H
