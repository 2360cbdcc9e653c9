//===- DeviceBench.cpp - JIT and simulator against the host's limits ------===//
//
// Measures, in one run: this machine's memcpy bandwidth and one core's peak
// FMA rate (the physical limits), then the JIT on a memory-bound kernel (a
// tiled scaled copy) and a compute-bound one (a tiled matmul), each as a
// ratio to its limit and next to a peer (a plain C++ loop; OpenBLAS sgemm
// when libopenblas is installed). One thread throughout. The simulator's
// speed is SimulatorBench.cpp's. Each figure is the best of several runs.
//
// Usage: npu-device-bench [--copy-mib=256] [--matmul=1024]
//
//===----------------------------------------------------------------------===//

#include "BenchKernels.h"
#include "BenchSupport.h"
#include "npu/InitAll.h"
#include "npu/JIT/Jit.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstring>
#include <dlfcn.h>
#include <functional>
#include <immintrin.h>
#include <random>
#include <vector>

using namespace mlir;
using namespace npu;

static llvm::cl::opt<unsigned> copyMiB("copy-mib",
                                       llvm::cl::desc("scaled copy size"),
                                       llvm::cl::init(256));
static llvm::cl::opt<unsigned> matmulSize(
    "matmul",
    llvm::cl::desc("M = N of the matmul (K is half); multiple of 256"),
    llvm::cl::init(1024));
static llvm::cl::opt<unsigned>
    copyTile("copy-tile",
             llvm::cl::desc("elements per tile of the scaled copy"),
             llvm::cl::init(8192));
static llvm::cl::opt<unsigned> runs("runs", llvm::cl::desc("runs per figure"),
                                    llvm::cl::init(5));

namespace {

/// Best wall time of --runs calls of `fn`.
double bestOf(const std::function<void()> &fn) {
  return bench::bestOf(runs, fn);
}

/// C[m x m] = A[m x k] x B[k x m], k = m / 2: C tiles of 256 x 256, K
/// tiles of 128, A and C tiles in vector memory, B tiles in cube memory.
std::string matmulKernel(int64_t m) {
  int64_t k = m / 2;
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "!ga = memref<" << m << "x" << k << "xf32, #npudev.space<global>>\n"
     << "!gb = memref<" << k << "x" << m << "xf32, #npudev.space<global>>\n"
     << "!gc = memref<" << m << "x" << m << "xf32, #npudev.space<global>>\n"
     << "!wa = memref<256x128xf32, strided<[" << k
     << ", 1], offset: ?>, #npudev.space<global>>\n"
     << "!wb = memref<128x256xf32, strided<[" << m
     << ", 1], offset: ?>, #npudev.space<global>>\n"
     << "!wc = memref<256x256xf32, strided<[" << m
     << ", 1], offset: ?>, #npudev.space<global>>\n"
     << R"mlir(
!ta = memref<256x128xf32, #npudev.space<vector>>
!tb = memref<128x256xf32, #npudev.space<cube>>
!tc = memref<256x256xf32, #npudev.space<vector>>
func.func @matmul(%A: !ga, %B: !gb, %C: !gc) {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %m = arith.constant )mlir"
     << m << R"mlir( : index
  %k = arith.constant )mlir"
     << k << R"mlir( : index
  %zero = arith.constant 0.0 : f32
  npudev.launch tasks(1) {
    %a = npudev.alloc : !ta
    %b = npudev.alloc : !tb
    %c = npudev.alloc : !tc
    scf.for %i = %c0 to %m step %c256 {
      scf.for %j = %c0 to %m step %c256 {
        npudev.vfill %zero, %c : f32, !tc
        scf.for %p = %c0 to %k step %c128 {
          %wa = memref.subview %A[%i, %p] [256, 128] [1, 1] : !ga to !wa
          %wb = memref.subview %B[%p, %j] [128, 256] [1, 1] : !gb to !wb
          npudev.dma %wa, %a : !wa to !ta
          npudev.dma %wb, %b : !wb to !tb
          npudev.matmul %a, %b, %c {accumulate} : !ta, !tb, !tc
        }
        %wc = memref.subview %C[%i, %j] [256, 256] [1, 1] : !gc to !wc
        npudev.dma %c, %wc : !tc to !wc
      }
    }
  }
  return
})mlir";
  return s;
}

/// cblas_sgemm of the system's BLAS (OpenBLAS when installed), and which
/// library it came from.
using SgemmFn = void (*)(int, int, int, int, int, int, float, const float *,
                         int, const float *, int, float, float *, int);
std::pair<SgemmFn, const char *> loadSgemm() {
  // One thread, like everything else here.
  setenv("OPENBLAS_NUM_THREADS", "1", /*overwrite=*/1);
  for (const char *name :
       {"libopenblas.so.0", "libopenblas.so", "libblas.so.3"})
    if (void *lib = dlopen(name, RTLD_NOW | RTLD_LOCAL))
      if (void *fn = dlsym(lib, "cblas_sgemm"))
        return {reinterpret_cast<SgemmFn>(fn), name};
  return {nullptr, nullptr};
}

} // namespace

int main(int argc, char **argv) {
  llvm::cl::ParseCommandLineOptions(argc, argv, "npu-mlir device benchmark\n");
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  auto &out = llvm::outs();

  // Physical limits.
  size_t bytes = size_t(copyMiB) << 20;
  double copyGBps = bench::memcpyGBps(runs, bytes);
  auto [avx2GFlops, avx512GFlops] = bench::peakFmaGFlops(runs);
  double fmaGFlops = std::max(avx2GFlops, avx512GFlops);
  out << "| figure | value | ratio |\n|---|---:|---:|\n";
  out << "| memcpy bandwidth, 1 thread, " << copyMiB << " MiB | "
      << llvm::format("%.2f", copyGBps) << " GB/s | 1.00 |\n";
  out << "| FMA rate, 1 core, 256-bit vectors | "
      << llvm::format("%.1f", avx2GFlops) << " GFLOP/s | "
      << llvm::format("%.2f", avx2GFlops / fmaGFlops) << " |\n";
  if (avx512GFlops > 0)
    out << "| FMA rate, 1 core, 512-bit vectors | "
        << llvm::format("%.1f", avx512GFlops) << " GFLOP/s | "
        << llvm::format("%.2f", avx512GFlops / fmaGFlops) << " |\n";

  // Scaled copy: JIT, peer loop, simulator.
  int64_t n = bytes / 4;
  {
    std::string text = bench::scaledCopyKernel(n, copyTile);
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &ctx);
    auto kernel = jit::CompiledKernel::compile(*module, "scale");
    if (failed(kernel))
      return 1;
    HostArray args[] = {bench::randomArray(ElementKind::F32, {n}, 1),
                        bench::randomArray(ElementKind::F32, {n}, 2)};
    double t = bestOf([&] { llvm::cantFail((*kernel)->run(args)); });
    out << "| JIT scaled copy y = 1.5 x | "
        << llvm::format("%.2f", bytes / t / 1e9) << " GB/s | "
        << llvm::format("%.2f", bytes / t / 1e9 / copyGBps) << " of memcpy |\n";
    const float *x = reinterpret_cast<const float *>(args[0].data.data());
    float *y = reinterpret_cast<float *>(args[1].data.data());
    double tp = bestOf([&] {
      for (int64_t i = 0; i < n; ++i)
        y[i] = 1.5f * x[i];
    });
    out << "| peer: C++ loop y[i] = 1.5f * x[i] (g++ -O3) | "
        << llvm::format("%.2f", bytes / tp / 1e9) << " GB/s | "
        << llvm::format("%.2f", bytes / tp / 1e9 / copyGBps)
        << " of memcpy |\n";
  }
  // Matmul: JIT, peers.
  {
    int64_t m = matmulSize, k = m / 2;
    std::string text = matmulKernel(m);
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &ctx);
    auto kernel = jit::CompiledKernel::compile(*module, "matmul");
    if (failed(kernel))
      return 1;
    HostArray args[] = {bench::randomArray(ElementKind::F32, {m, k}, 3),
                        bench::randomArray(ElementKind::F32, {k, m}, 4),
                        bench::randomArray(ElementKind::F32, {m, m}, 5)};
    double flops = 2.0 * m * m * k;
    double t = bestOf([&] { llvm::cantFail((*kernel)->run(args)); });
    out << "| JIT matmul " << m << "x" << k << " x " << k << "x" << m << " | "
        << llvm::format("%.1f", flops / t / 1e9) << " GFLOP/s | "
        << llvm::format("%.2f", flops / t / 1e9 / fmaGFlops) << " of peak |\n";
    const float *a = reinterpret_cast<const float *>(args[0].data.data());
    const float *b = reinterpret_cast<const float *>(args[1].data.data());
    std::vector<float> c(m * m);
    if (auto [sgemm, library] = loadSgemm(); sgemm) {
      double tb = bestOf([&] {
        sgemm(/*RowMajor=*/101, /*NoTrans=*/111, 111, m, m, k, 1.0f, a, k, b, m,
              0.0f, c.data(), m);
      });
      out << "| peer: cblas_sgemm from " << library << " | "
          << llvm::format("%.1f", flops / tb / 1e9) << " GFLOP/s | "
          << llvm::format("%.2f", flops / tb / 1e9 / fmaGFlops)
          << " of peak |\n";
    } else {
      out << "| peer: cblas_sgemm | no BLAS installed | - |\n";
    }
  }
  return 0;
}
