//===- DeviceBench.cpp - JIT and simulator against the host's limits ------===//
//
// Measures, in one run: this machine's memcpy bandwidth and one core's peak
// FMA rate (the physical limits), then the JIT on a memory-bound kernel (a
// tiled scaled copy) and on matmuls (1024x512 x 512x1024 in device tiles
// of 256x256x128; 128x128x128 repeated on on-chip buffers, the tile size of
// the attention and sparse-conv lowerings; f16 and bf16 inputs), each as a
// ratio to its limit and next to a peer: a plain C++ loop, OpenBLAS
// cblas_sgemm on one thread. The first line names the host and the vectors
// used: --max-vector-bits=256 runs the code an AVX2-only host gets (the
// JIT's and, through OPENBLAS_CORETYPE=Haswell, OpenBLAS's; at 512 bits
// OpenBLAS runs its SkylakeX kernels, which Debian's build would not pick
// on CPUs newer than it; --openblas-coretype chooses another). Each figure is
// the best of --runs runs; the two-thread matmul is reported as a speed-up over
// one thread.
//
// Usage: npu-device-bench [--copy-mib=256] [--matmul=1024]
//                         [--max-vector-bits=0|256|128]
//                         [--openblas-coretype=NAME]
//
//===----------------------------------------------------------------------===//

#include "BenchKernels.h"
#include "BenchSupport.h"
#include "npu/InitAll.h"
#include "npu/JIT/Jit.h"
#include "npu/JIT/MatmulKernel.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
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
static llvm::cl::opt<unsigned> maxVectorBits(
    "max-vector-bits",
    llvm::cl::desc("widest vectors the JIT and OpenBLAS may use (0: the "
                   "host's)"),
    llvm::cl::init(0));

static llvm::cl::opt<std::string> openblasCoretype(
    "openblas-coretype",
    llvm::cl::desc("OPENBLAS_CORETYPE of the sgemm peer (default: SkylakeX "
                   "with 512-bit vectors, Haswell with 256)"),
    llvm::cl::init(""));

namespace {

/// Best wall time of --runs calls of `fn`.
double bestOf(const std::function<void()> &fn) {
  return bench::bestOf(runs, fn);
}

/// C[m x m] = A[m x k] x B[k x m], k = m / 2, inputs of `type`: each of
/// `tasks` tasks takes m / tasks rows of C, in C tiles of 256 x 256 and K
/// tiles of 128 (the first product initializes the tile, the others
/// accumulate); A and C tiles in vector memory, B tiles in cube memory.
std::string matmulKernel(int64_t m, StringRef type, int64_t tasks) {
  int64_t k = m / 2;
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::formatv(R"mlir(
!ga = memref<{0}x{1}x{2}, #npudev.space<global>>
!gb = memref<{1}x{0}x{2}, #npudev.space<global>>
!gc = memref<{0}x{0}xf32, #npudev.space<global>>
!wa = memref<256x128x{2}, strided<[{1}, 1], offset: ?>, #npudev.space<global>>
!wb = memref<128x256x{2}, strided<[{0}, 1], offset: ?>, #npudev.space<global>>
!wc = memref<256x256xf32, strided<[{0}, 1], offset: ?>, #npudev.space<global>>
!ta = memref<256x128x{2}, #npudev.space<vector>>
!tb = memref<128x256x{2}, #npudev.space<cube>>
!tc = memref<256x256xf32, #npudev.space<vector>>
func.func @matmul(%A: !ga, %B: !gb, %C: !gc) {{
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %rows = arith.constant {3} : index
  %m = arith.constant {0} : index
  %k = arith.constant {1} : index
  npudev.launch tasks({4}) {{
    %t = npudev.task_id
    %first = arith.muli %t, %rows : index
    %last = arith.addi %first, %rows : index
    %a = npudev.alloc : !ta
    %b = npudev.alloc : !tb
    %c = npudev.alloc : !tc
    scf.for %i = %first to %last step %c256 {{
      scf.for %j = %c0 to %m step %c256 {{
        %a0 = memref.subview %A[%i, 0] [256, 128] [1, 1] : !ga to !wa
        %b0 = memref.subview %B[0, %j] [128, 256] [1, 1] : !gb to !wb
        npudev.dma %a0, %a : !wa to !ta
        npudev.dma %b0, %b : !wb to !tb
        npudev.matmul %a, %b, %c : !ta, !tb, !tc
        scf.for %p = %c128 to %k step %c128 {{
          %wa = memref.subview %A[%i, %p] [256, 128] [1, 1] : !ga to !wa
          %wb = memref.subview %B[%p, %j] [128, 256] [1, 1] : !gb to !wb
          npudev.dma %wa, %a : !wa to !ta
          npudev.dma %wb, %b : !wb to !tb
          npudev.matmul %a, %b, %c {{accumulate} : !ta, !tb, !tc
        }
        %wc = memref.subview %C[%i, %j] [256, 256] [1, 1] : !gc to !wc
        npudev.dma %c, %wc : !tc to !wc
      }
    }
  }
  return
})mlir",
                      m, k, type, m / tasks, tasks);
  return s;
}

/// `repeats` matmuls of [n x n] by [n x n] f32 on on-chip buffers: the
/// micro-kernel at a lowering's tile size.
std::string tileMatmulKernel(int64_t n, int64_t repeats) {
  return llvm::formatv(R"mlir(
!g = memref<{0}x{0}xf32, #npudev.space<global>>
func.func @tiles(%A: !g, %B: !g, %C: !g) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %repeats = arith.constant {1} : index
  npudev.launch tasks(1) {{
    %a = npudev.alloc : memref<{0}x{0}xf32, #npudev.space<vector>>
    %b = npudev.alloc : memref<{0}x{0}xf32, #npudev.space<cube>>
    %c = npudev.alloc : memref<{0}x{0}xf32, #npudev.space<vector>>
    npudev.dma %A, %a : !g to memref<{0}x{0}xf32, #npudev.space<vector>>
    npudev.dma %B, %b : !g to memref<{0}x{0}xf32, #npudev.space<cube>>
    scf.for %r = %c0 to %repeats step %c1 {{
      npudev.matmul %a, %b, %c : memref<{0}x{0}xf32, #npudev.space<vector>>, memref<{0}x{0}xf32, #npudev.space<cube>>, memref<{0}x{0}xf32, #npudev.space<vector>>
    }
    npudev.dma %c, %C : memref<{0}x{0}xf32, #npudev.space<vector>> to !g
  }
  return
})mlir",
                       n, repeats)
      .str();
}

/// cblas_sgemm of the system's BLAS (OpenBLAS when installed), and which
/// library it came from.
using SgemmFn = void (*)(int, int, int, int, int, int, float, const float *,
                         int, const float *, int, float, float *, int);
std::pair<SgemmFn, const char *> loadSgemm() {
  for (const char *name :
       {"libopenblas.so.0", "libopenblas.so", "libblas.so.3"})
    if (void *lib = dlopen(name, RTLD_NOW | RTLD_LOCAL))
      if (void *fn = dlsym(lib, "cblas_sgemm"))
        return {reinterpret_cast<SgemmFn>(fn), name};
  return {nullptr, nullptr};
}

/// The figures of one run, and the limits they are compared with.
struct Report {
  llvm::raw_ostream &out;
  double copyGBps, fmaGFlops;
  /// How much faster two threads compute than one on this host: the
  /// physical limit of a two-thread speed-up.
  double twoThreadFmaScaling;
  SgemmFn sgemm;
  std::string peerName;

  void row(const llvm::Twine &figure, const llvm::Twine &value,
           const llvm::Twine &ratio) {
    out << "| " << figure << " | " << value << " | " << ratio << " |\n";
  }
  void flopsRow(const llvm::Twine &figure, double gflops,
                const llvm::Twine &extra = "") {
    row(figure, llvm::formatv("{0:F1} GFLOP/s", gflops),
        llvm::formatv("{0:F2} of peak", gflops / fmaGFlops) + extra);
  }
};

std::unique_ptr<jit::CompiledKernel> compile(MLIRContext &ctx, StringRef text,
                                             StringRef entry,
                                             int32_t threads = 1) {
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &ctx);
  if (!module) // The parser has said why (e.g. a tile too large).
    std::exit(1);
  jit::JitOptions options;
  options.threads = threads;
  options.maxVectorBits = maxVectorBits;
  auto kernel = jit::CompiledKernel::compile(*module, entry, options);
  if (failed(kernel))
    std::exit(1);
  return std::move(*kernel);
}

void benchScaledCopy(MLIRContext &ctx, Report &report, size_t bytes) {
  int64_t n = bytes / 4;
  auto kernel = compile(ctx, bench::scaledCopyKernel(n, copyTile), "scale");
  HostArray args[] = {bench::randomArray(ElementKind::F32, {n}, 1),
                      bench::randomArray(ElementKind::F32, {n}, 2)};
  double t = bestOf([&] { llvm::cantFail(kernel->run(args)); });
  const float *x = reinterpret_cast<const float *>(args[0].data.data());
  float *y = reinterpret_cast<float *>(args[1].data.data());
  double tp = bestOf([&] {
    for (int64_t i = 0; i < n; ++i)
      y[i] = 1.5f * x[i];
  });
  double gbps = bytes / t / 1e9, peer = bytes / tp / 1e9;
  report.row("JIT scaled copy y = 1.5 x", llvm::formatv("{0:F2} GB/s", gbps),
             llvm::formatv("{0:F2} of memcpy, **{1:F2}x the loop**",
                           gbps / report.copyGBps, gbps / peer));
  report.row("peer: C++ loop y[i] = 1.5f * x[i] (" NPU_BENCH_LOOP_FLAGS ")",
             llvm::formatv("{0:F2} GB/s", peer),
             llvm::formatv("{0:F2} of memcpy", peer / report.copyGBps));
}

/// The 1024 matmul: f32 on one and two threads against sgemm, then f16 and
/// bf16 inputs.
void benchMatmul(MLIRContext &ctx, Report &report) {
  int64_t m = matmulSize, k = m / 2;
  double flops = 2.0 * m * m * k;
  std::string shape = llvm::formatv("{0}x{1} x {1}x{0}", m, k);
  HostArray args[] = {bench::randomArray(ElementKind::F32, {m, k}, 3),
                      bench::randomArray(ElementKind::F32, {k, m}, 4),
                      bench::randomArray(ElementKind::F32, {m, m}, 5)};
  auto one = compile(ctx, matmulKernel(m, "f32", 4), "matmul");
  double t1 = bestOf([&] { llvm::cantFail(one->run(args)); });
  double peer = 0;
  if (report.sgemm) {
    const float *a = reinterpret_cast<const float *>(args[0].data.data());
    const float *b = reinterpret_cast<const float *>(args[1].data.data());
    std::vector<float> c(m * m);
    peer = flops / bestOf([&] {
             report.sgemm(/*RowMajor=*/101, /*NoTrans=*/111, 111, m, m, k, 1.0f,
                          a, k, b, m, 0.0f, c.data(), m);
           }) /
           1e9;
  }
  report.flopsRow(
      "JIT matmul " + shape + " f32, 1 thread", flops / t1 / 1e9,
      peer > 0
          ? llvm::formatv(", **{0:F2}x sgemm**", flops / t1 / 1e9 / peer).str()
          : "");
  if (peer > 0)
    report.flopsRow("peer: cblas_sgemm " + shape + ", " + report.peerName,
                    peer);
  auto two = compile(ctx, matmulKernel(m, "f32", 4), "matmul", 2);
  double t2 = bestOf([&] { llvm::cantFail(two->run(args)); });
  report.flopsRow(
      "JIT matmul " + shape + " f32, 2 threads", flops / t2 / 1e9,
      llvm::formatv(", **{0:F2}x one thread** (the host's limit: {1:F2}x)",
                    t1 / t2, report.twoThreadFmaScaling)
          .str());
  for (auto [type, kind] : {std::pair{"f16", ElementKind::F16},
                            std::pair{"bf16", ElementKind::BF16}}) {
    HostArray half[] = {bench::randomArray(kind, {m, k}, 3),
                        bench::randomArray(kind, {k, m}, 4),
                        bench::randomArray(ElementKind::F32, {m, m}, 5)};
    auto kernel = compile(ctx, matmulKernel(m, type, 4), "matmul");
    double t = bestOf([&] { llvm::cantFail(kernel->run(half)); });
    report.flopsRow(llvm::formatv("JIT matmul {0} {1} inputs, f32 "
                                  "accumulation, 1 thread",
                                  shape, type),
                    flops / t / 1e9,
                    llvm::formatv(", {0:F2}x f32", t1 / t).str());
  }
}

/// 128x128x128, 64 times on on-chip buffers, against sgemm 64 times.
void benchTileMatmul(MLIRContext &ctx, Report &report) {
  const int64_t n = 128, repeats = 64;
  double flops = 2.0 * n * n * n * repeats;
  auto kernel = compile(ctx, tileMatmulKernel(n, repeats), "tiles");
  HostArray args[] = {bench::randomArray(ElementKind::F32, {n, n}, 6),
                      bench::randomArray(ElementKind::F32, {n, n}, 7),
                      bench::randomArray(ElementKind::F32, {n, n}, 8)};
  double t = bestOf([&] { llvm::cantFail(kernel->run(args)); });
  double peer = 0;
  if (report.sgemm) {
    const float *a = reinterpret_cast<const float *>(args[0].data.data());
    const float *b = reinterpret_cast<const float *>(args[1].data.data());
    std::vector<float> c(n * n);
    peer = flops / bestOf([&] {
             for (int64_t r = 0; r < repeats; ++r)
               report.sgemm(101, 111, 111, n, n, n, 1.0f, a, n, b, n, 0.0f,
                            c.data(), n);
           }) /
           1e9;
  }
  report.flopsRow(
      "JIT matmul 128x128x128 f32 (x64), 1 thread", flops / t / 1e9,
      peer > 0
          ? llvm::formatv(", **{0:F2}x sgemm**", flops / t / 1e9 / peer).str()
          : "");
  if (peer > 0)
    report.flopsRow("peer: cblas_sgemm 128x128x128 (x64), " + report.peerName,
                    peer);
}

} // namespace

int main(int argc, char **argv) {
  llvm::cl::ParseCommandLineOptions(argc, argv, "npu-mlir device benchmark\n");
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  auto &out = llvm::outs();

  unsigned bits = bench::effectiveVectorBits(maxVectorBits);
  // OpenBLAS on the same kind of host, on one thread, like everything here.
  setenv("OPENBLAS_NUM_THREADS", "1", /*overwrite=*/1);
  // Its kernels for the vectors in use: the strongest it has for them (it
  // would pick its 256-bit ones on CPUs newer than Debian's build).
  std::string coretypeChoice = openblasCoretype;
  if (coretypeChoice.empty() && bits >= 256)
    coretypeChoice = bits >= 512 ? "SkylakeX" : "Haswell";
  if (!coretypeChoice.empty())
    setenv("OPENBLAS_CORETYPE", coretypeChoice.c_str(), /*overwrite=*/1);
  auto [sgemm, library] = loadSgemm();
  const char *coretype = getenv("OPENBLAS_CORETYPE");
  out << "host: " << bench::hostCpuName()
      << "; vectors: " << bench::describeVectorBits(bench::hostVectorBits())
      << ", used here: " << bits << "-bit (" << bench::describeVectorBits(bits)
      << "); JIT matmul kernel: "
      << jit::getMatmulIsaName(jit::selectMatmulIsa(maxVectorBits)) << "\n\n";

  size_t bytes = size_t(copyMiB) << 20;
  double copyGBps = bench::memcpyGBps(runs, bytes);
  auto [avx2GFlops, avx512GFlops] = bench::peakFmaGFlops(runs);
  double peak = bits >= 512 ? avx512GFlops : avx2GFlops;
  double twoThreadGFlops = bench::fmaGFlopsOnThreads(runs, 2, bits);
  Report report{out,
                copyGBps,
                peak,
                twoThreadGFlops / peak,
                sgemm,
                std::string(library ? library : "") +
                    (coretype ? std::string(", OPENBLAS_CORETYPE=") + coretype
                              : std::string())};
  out << "| figure | value | ratio |\n|---|---:|---:|\n";
  report.row("memcpy bandwidth, 1 thread, " + llvm::Twine(copyMiB) + " MiB",
             llvm::formatv("{0:F2} GB/s", copyGBps), "1.00");
  report.row("FMA rate, 1 core, 256-bit vectors",
             llvm::formatv("{0:F1} GFLOP/s", avx2GFlops),
             llvm::formatv("{0:F2}", avx2GFlops / peak));
  if (bits >= 512)
    report.row("FMA rate, 1 core, 512-bit vectors",
               llvm::formatv("{0:F1} GFLOP/s", avx512GFlops), "1.00");
  report.row(llvm::Twine("FMA rate, 2 threads at once, ") + llvm::Twine(bits) +
                 "-bit vectors",
             llvm::formatv("{0:F1} GFLOP/s", twoThreadGFlops),
             llvm::formatv("{0:F2}x one thread", report.twoThreadFmaScaling));
  benchScaledCopy(ctx, report, bytes);
  benchMatmul(ctx, report);
  benchTileMatmul(ctx, report);
  if (!sgemm)
    report.row("peer: cblas_sgemm", "no BLAS installed", "-");
  return 0;
}
