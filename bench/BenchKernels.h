//===- BenchKernels.h - the benchmarks' kernels and data --------*- C++ -*-===//

#ifndef NPU_BENCH_BENCHKERNELS_H
#define NPU_BENCH_BENCHKERNELS_H

#include "npu/Runtime/HostArray.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <random>
#include <string>

namespace npu::bench {

/// Uniform values in [-1, 1) of `kind` (a float kind), from `seed`.
inline HostArray randomArray(ElementKind kind, llvm::ArrayRef<int64_t> shape,
                             unsigned seed) {
  HostArray a;
  a.kind = kind;
  a.shape.assign(shape.begin(), shape.end());
  unsigned bytes = getElementBytes(kind);
  a.data.resize(a.getNumElements() * bytes);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1, 1);
  for (int64_t i = 0, e = a.getNumElements(); i < e; ++i)
    storeFloat(a.data.data() + i * bytes, kind, dist(rng));
  return a;
}

/// y = 1.5 * x over `n` floats, one task, tiles of `tile` elements moved in
/// by DMA, scaled on the vector unit and moved out.
inline std::string scaledCopyKernel(int64_t n, int64_t tile) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "!g = memref<" << n << "xf32, #npudev.space<global>>\n"
     << "!win = memref<" << tile
     << "xf32, strided<[1], offset: ?>, #npudev.space<global>>\n"
     << "!tile = memref<" << tile << "xf32, #npudev.space<vector>>\n"
     << "func.func @scale(%x: !g, %y: !g) {\n"
     << "  %c0 = arith.constant 0 : index\n"
     << "  %n = arith.constant " << n << " : index\n"
     << "  %step = arith.constant " << tile << " : index\n"
     << "  %a = arith.constant 1.5 : f32\n"
     << "  npudev.launch tasks(1) {\n"
     << "    %buf = npudev.alloc : !tile\n"
     << "    scf.for %i = %c0 to %n step %step {\n"
     << "      %xs = memref.subview %x[%i] [" << tile << "] [1] : !g to !win\n"
     << "      %ys = memref.subview %y[%i] [" << tile << "] [1] : !g to !win\n"
     << "      npudev.dma %xs, %buf : !win to !tile\n"
     << "      npudev.vbinary_scalar <mul> %buf, %a, %buf : !tile, f32, !tile\n"
     << "      npudev.dma %buf, %ys : !tile to !win\n"
     << "    }\n"
     << "  }\n"
     << "  return\n"
     << "}\n";
  return s;
}

} // namespace npu::bench

#endif // NPU_BENCH_BENCHKERNELS_H
