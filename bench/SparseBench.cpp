//===- SparseBench.cpp - sparse-dialect SpMM and SDDMM against peers ------===//
//
// Matrices generated here: R-MAT (a = 0.57, b = c = 0.19; 1e5 x 1e5, 1e6
// cells drawn, duplicates merged) and uniform random with the same
// nonzeros. For feature sizes 32, 128 and 512, SpMM (out = A B) and SDDMM
// (out[i, j] = X[i] . Y[j] on A's pattern) written in the sparse dialect,
// lowered by stages 1 and 2 and compiled by the JIT (one thread), against
// a plain C++ CSR loop (g++ -O3 -march=native) and against upstream MLIR 19's
// sparsifier (linalg SpMM / sampled SDDMM on a CSR tensor assembled from
// the same arrays, mlir-opt-19 --sparsifier, then mlir-translate-19,
// opt-19 -O3 and llc-19 for this CPU into a shared object the bench
// loads), built with each of kSparsifierOptions (scalar, and vectorized at
// 8 and 16 lanes) and counted at its fastest, whose options the row names.
// The JIT runs each kernel twice: in the order the iteration states, and
// with its reductions reassociated (the sparsifier's freedom; checked
// against the loop within 1e-3). All as GFLOP/s (2 nnz F) and as a
// fraction of this machine's FMA peak measured in the same run. Then the
// simulator's SpMM and SDDMM at F = 128 on mlu590, through
// npu-sparse-to-device-pipeline (rows over 48 tasks by nonzeros): modelled
// time, IO efficiency and roofline ratio.
//
// Usage: npu-sparse-bench [--runs=3] [--no-sim] [--no-jit]
//
//===----------------------------------------------------------------------===//

#include "BenchSupport.h"
#include "SparseKernelSources.h"
#include "npu/Conversion/Pipelines.h"
#include "npu/InitAll.h"
#include "npu/JIT/Jit.h"
#include "npu/Runtime/HostArray.h"
#include "npu/Simulator/Execution.h"
#include "npu/Simulator/Simulator.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fstream>
#include <random>
#include <set>
#include <unistd.h>

using namespace mlir;
using namespace npu;

static llvm::cl::opt<unsigned> runs("runs", llvm::cl::desc("runs per figure"),
                                    llvm::cl::init(3));
static llvm::cl::opt<bool> noSim("no-sim",
                                 llvm::cl::desc("skip the simulator figure"));
static llvm::cl::opt<bool> noHost("no-jit",
                                  llvm::cl::desc("skip the host figures"));
static llvm::cl::opt<int64_t>
    rowCost("row-cost",
            llvm::cl::desc("what a row costs beyond its nonzeros, in "
                           "nonzeros, in the task split (0: the "
                           "pipeline's default)"),
            llvm::cl::init(0));
static llvm::cl::opt<std::string>
    tracePrefix("trace",
                llvm::cl::desc("write the simulated kernels' Chrome "
                               "traces as PREFIX-spmm.json and "
                               "PREFIX-sddmm.json"),
                llvm::cl::value_desc("PREFIX"));

namespace {

struct Csr {
  std::string name;
  int64_t rows, cols;
  std::vector<int32_t> indptr, indices;
  std::vector<float> values;
  int64_t nnz() const { return indices.size(); }
};

/// `cells` sorted and merged into CSR with values in [-1, 1).
Csr toCsr(std::string name, int64_t rows, int64_t cols,
          std::vector<std::pair<int32_t, int32_t>> cells, std::mt19937 &rng) {
  std::sort(cells.begin(), cells.end());
  cells.erase(std::unique(cells.begin(), cells.end()), cells.end());
  Csr m{std::move(name), rows, cols, std::vector<int32_t>(rows + 1, 0), {}, {}};
  std::uniform_real_distribution<float> value(-1, 1);
  for (auto [r, c] : cells) {
    ++m.indptr[r + 1];
    m.indices.push_back(c);
    m.values.push_back(value(rng));
  }
  for (int64_t r = 0; r < rows; ++r)
    m.indptr[r + 1] += m.indptr[r];
  return m;
}

Csr rmat(int64_t n, int64_t draws, std::mt19937 &rng) {
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<std::pair<int32_t, int32_t>> cells;
  int levels = 0;
  while ((int64_t(1) << levels) < n)
    ++levels;
  while (int64_t(cells.size()) < draws) {
    int64_t r = 0, c = 0;
    for (int l = 0; l < levels; ++l) {
      double x = u(rng);
      r = r * 2 + (x >= 0.76);                           // c + d: bottom half.
      c = c * 2 + (x >= 0.57 && x < 0.76) + (x >= 0.95); // b + d: right.
    }
    if (r < n && c < n)
      cells.push_back({int32_t(r), int32_t(c)});
  }
  return toCsr("R-MAT", n, n, std::move(cells), rng);
}

Csr uniform(int64_t n, int64_t nnz, std::mt19937 &rng) {
  std::uniform_int_distribution<int32_t> any(0, n - 1);
  std::set<std::pair<int32_t, int32_t>> cells;
  while (int64_t(cells.size()) < nnz)
    cells.insert({any(rng), any(rng)});
  return toCsr("uniform", n, n, {cells.begin(), cells.end()}, rng);
}

/// The sparse-dialect source of `kernel` ("spmm" or "sddmm") for `m` and
/// `f` features (test/support/SparseKernelSources.h).
std::string source(const std::string &kernel, const Csr &m, int64_t f) {
  workloads::Sizes sizes = workloads::getCsrSizes(m.rows, m.cols, m.nnz(), f);
  return kernel == "spmm" ? workloads::getSpMMSource(sizes)
                          : workloads::getSDDMMSource(sizes);
}

/// `text` lowered by the given stages; `reassociate`: accumulators may be
/// reduced in any order.
OwningOpRef<ModuleOp> lower(MLIRContext &ctx, const std::string &text,
                            bool onDevice, bool reassociate = false) {
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &ctx);
  PassManager pm(&ctx);
  SparseToDevicePipelineOptions options;
  options.onDevice = onDevice;
  options.reassociateReductions = reassociate;
  if (rowCost > 0)
    options.rowCost = rowCost.getValue();
  buildSparseToDevicePipeline(pm, options);
  if (!module || failed(pm.run(*module)))
    return nullptr;
  return module;
}

std::vector<HostArray> arguments(const Csr &m, int64_t f, std::mt19937 &rng) {
  std::uniform_real_distribution<float> value(-1, 1);
  std::vector<float> x(m.rows * f), y(m.cols * f);
  for (float &v : x)
    v = value(rng);
  for (float &v : y)
    v = value(rng);
  return {HostArray::fromValues(ElementKind::I32, m.indptr, {m.rows + 1}),
          HostArray::fromValues(ElementKind::I32, m.indices, {m.nnz()}),
          HostArray::fromValues(ElementKind::F32, m.values, {m.nnz()}),
          HostArray::fromValues(ElementKind::F32, x, {m.rows * f}),
          HostArray::fromValues(ElementKind::F32, y, {m.cols * f})};
}

/// The peers: plain CSR loops over the same arrays.
void spmmLoop(const Csr &m, int64_t f, const float *y, float *x) {
  std::fill(x, x + m.rows * f, 0.0f);
  for (int64_t r = 0; r < m.rows; ++r)
    for (int32_t p = m.indptr[r]; p < m.indptr[r + 1]; ++p) {
      float a = m.values[p];
      const float *row = y + int64_t(m.indices[p]) * f;
      float *out = x + r * f;
      for (int64_t k = 0; k < f; ++k)
        out[k] += a * row[k];
    }
}

void sddmmLoop(const Csr &m, int64_t f, const float *x, const float *y,
               float *a) {
  for (int64_t r = 0; r < m.rows; ++r)
    for (int32_t p = m.indptr[r]; p < m.indptr[r + 1]; ++p) {
      const float *u = x + r * f, *w = y + int64_t(m.indices[p]) * f;
      float sum = 0;
      for (int64_t k = 0; k < f; ++k)
        sum += u[k] * w[k];
      a[p] = sum;
    }
}

/// A memref descriptor as MLIR's C interface passes it.
template <int N> struct MemRef {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t sizes[N];
  int64_t strides[N];
};

template <typename T> MemRef<1> vectorRef(std::vector<T> &v) {
  return {v.data(), v.data(), 0, {int64_t(v.size())}, {1}};
}
MemRef<2> matrixRef(std::vector<float> &v, int64_t rows, int64_t cols) {
  return {v.data(), v.data(), 0, {rows, cols}, {cols, 1}};
}

/// The sparsifier's kernel: its C interface, taking (result, indptr,
/// indices, values, and the two dense operands).
using SparsifierKernel = void (*)(void *, void *, void *, void *, void *,
                                  void *);

std::string sparsifierSource(const std::string &kernel, const Csr &m,
                             int64_t f) {
  std::string text = R"(
#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed), posWidth = 32, crdWidth = 32 }>
)";
  if (kernel == "spmm")
    text += R"(
func.func @spmm(%pos: tensor<$R1xi32>, %crd: tensor<$NNZxi32>, %val: tensor<$NNZxf32>, %y: tensor<$Cx$Fxf32>, %x: tensor<$Rx$Fxf32> {bufferization.writable = true}) -> tensor<$Rx$Fxf32> attributes {llvm.emit_c_interface} {
  %a = sparse_tensor.assemble (%pos, %crd), %val : (tensor<$R1xi32>, tensor<$NNZxi32>), tensor<$NNZxf32> to tensor<$Rx$Cxf32, #CSR>
  %r = linalg.matmul ins(%a, %y : tensor<$Rx$Cxf32, #CSR>, tensor<$Cx$Fxf32>) outs(%x : tensor<$Rx$Fxf32>) -> tensor<$Rx$Fxf32>
  return %r : tensor<$Rx$Fxf32>
}
)";
  else
    text += R"(
#trait = {
  indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (j, k)>, affine_map<(i, j, k) -> (i, j)>],
  iterator_types = ["parallel", "parallel", "reduction"]
}
func.func @sddmm(%pos: tensor<$R1xi32>, %crd: tensor<$NNZxi32>, %val: tensor<$NNZxf32>, %x: tensor<$Rx$Fxf32>, %y: tensor<$Cx$Fxf32>) -> tensor<$NNZxf32> attributes {llvm.emit_c_interface} {
  %s = sparse_tensor.assemble (%pos, %crd), %val : (tensor<$R1xi32>, tensor<$NNZxi32>), tensor<$NNZxf32> to tensor<$Rx$Cxf32, #CSR>
  %r = linalg.generic #trait ins(%x, %y : tensor<$Rx$Fxf32>, tensor<$Cx$Fxf32>) outs(%s : tensor<$Rx$Cxf32, #CSR>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %zero = arith.constant 0.0 : f32
    %u = sparse_tensor.unary %o : f32 to f32
      present = {
      ^bb0(%p: f32):
        %m = arith.mulf %a, %b : f32
        sparse_tensor.yield %m : f32
      }
      absent = {}
    %sum = sparse_tensor.reduce %o, %u, %zero : f32 {
    ^bb0(%p: f32, %q: f32):
      %add = arith.addf %p, %q : f32
      sparse_tensor.yield %add : f32
    }
    linalg.yield %sum : f32
  } -> tensor<$Rx$Cxf32, #CSR>
  %op, %oc, %ov, %lp, %lc, %lv = sparse_tensor.disassemble %r : tensor<$Rx$Cxf32, #CSR> out_lvls(%pos, %crd : tensor<$R1xi32>, tensor<$NNZxi32>) out_vals(%val : tensor<$NNZxf32>) -> (tensor<$R1xi32>, tensor<$NNZxi32>), tensor<$NNZxf32>, (i32, i32), i32
  return %ov : tensor<$NNZxf32>
}
)";
  return workloads::substituteSizes(
      text, workloads::getCsrSizes(m.rows, m.cols, m.nnz(), f));
}

/// Where the peer's files go; removed at exit.
std::string getPeerDir() {
  return "/tmp/npu-sparse-bench-" + std::to_string(getpid());
}

/// The sparsifier's options the peer tries, each on every shape; the
/// fastest counts. vl is the vector length (0, the default, does not
/// vectorize); the index and reduction options let its vector loops use
/// 32-bit indices and reassociate sums, as -O3 -march=native does for the
/// C++ loop's.
const char *const kSparsifierOptions[] = {
    "vl=0",
    "vl=8 enable-index-optimizations reassociate-fp-reductions",
    "vl=16",
    "vl=16 enable-index-optimizations reassociate-fp-reductions",
};

/// Builds `kernel` with the upstream tools into a shared object (the
/// sparsifier given `options`) and loads it; null (naming the failed step
/// on stderr) when a tool fails.
SparsifierKernel buildSparsifierKernel(const std::string &kernel, const Csr &m,
                                       int64_t f, unsigned options) {
  std::string dir = getPeerDir();
  std::string base = dir + "/" + kernel + std::to_string(f) + m.name + "-" +
                     std::to_string(options);
  std::string lib = "/usr/lib/llvm-19/lib";
  if (std::system(("mkdir -p " + dir).c_str()) != 0)
    return nullptr;
  std::ofstream(base + ".mlir") << sparsifierSource(kernel, m, f);
  std::string steps[] = {
      "mlir-opt-19 " + base +
          ".mlir '--sparsifier=enable-runtime-library=false " +
          kSparsifierOptions[options] + "' -o " + base + ".llvm.mlir",
      "mlir-translate-19 --mlir-to-llvmir " + base + ".llvm.mlir -o " + base +
          ".ll",
      "opt-19 -O3 -mcpu=native " + base + ".ll -o " + base + ".bc",
      "llc-19 -O3 -mcpu=native -relocation-model=pic -filetype=obj " + base +
          ".bc -o " + base + ".o",
      "cc -shared " + base + ".o -o " + base + ".so -L" + lib +
          " -lmlir_c_runner_utils -Wl,-rpath," + lib};
  for (const std::string &step : steps)
    if (std::system(step.c_str()) != 0) {
      llvm::errs() << "sparsifier peer: failed: " << step << "\n";
      return nullptr;
    }
  void *handle = dlopen((base + ".so").c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    return nullptr;
  return reinterpret_cast<SparsifierKernel>(
      dlsym(handle, ("_mlir_ciface_" + kernel).c_str()));
}

/// Warns when `got` (what `who` computed) differs from the loop's `want` by
/// more than 1e-3 anywhere: a peer or variant out of step with the others.
void reportDifference(llvm::StringRef who, llvm::StringRef kernel,
                      llvm::ArrayRef<float> got, llvm::ArrayRef<float> want) {
  double worst = got.size() == want.size() ? 0 : INFINITY;
  for (size_t i = 0; i < std::min(got.size(), want.size()); ++i)
    worst = std::max(worst, double(std::abs(got[i] - want[i])));
  if (worst > 1e-3)
    llvm::errs() << who << ": " << kernel << " differs from the loop by "
                 << worst << "\n";
}

/// Seconds per run of the sparsifier's kernel on `m` with `x` and `y`,
/// after checking its result against `want` (the loop's).
double timeSparsifier(SparsifierKernel fn, const std::string &kernel,
                      const Csr &m, int64_t f, std::vector<float> x,
                      std::vector<float> y, const std::vector<float> &want) {
  std::vector<int32_t> indptr = m.indptr, indices = m.indices;
  std::vector<float> values = m.values;
  MemRef<1> ptrRef = vectorRef(indptr), idxRef = vectorRef(indices);
  std::vector<float> got;
  // Only the first call copies the result out, for the check.
  auto call = [&](bool keep) {
    bool spmm = kernel == "spmm";
    // SpMM adds into x, SDDMM into the values: both start at 0.
    std::fill(spmm ? x.begin() : values.begin(), spmm ? x.end() : values.end(),
              0.0f);
    MemRef<1> valRef = vectorRef(values);
    MemRef<2> xRef = matrixRef(x, m.rows, f), yRef = matrixRef(y, m.cols, f);
    MemRef<2> out2;
    MemRef<1> out1;
    if (spmm)
      fn(&out2, &ptrRef, &idxRef, &valRef, &yRef, &xRef);
    else
      fn(&out1, &ptrRef, &idxRef, &valRef, &xRef, &yRef);
    void *allocated = spmm ? out2.allocated : out1.allocated;
    auto *data = static_cast<float *>(spmm ? out2.aligned : out1.aligned);
    if (keep)
      got.assign(data, data + (spmm ? m.rows * f : m.nnz()));
    if (allocated != x.data() && allocated != values.data())
      std::free(allocated);
  };
  call(true);
  reportDifference("sparsifier peer", kernel, got, want);
  return bench::bestOf(runs, [&] { call(false); });
}

} // namespace

int main(int argc, char **argv) {
  llvm::cl::ParseCommandLineOptions(argc, argv, "sparse iteration benchmark\n");
  DialectRegistry registry;
  registerAllDialects(registry);
  sim::registerSimulatorModels(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  auto &out = llvm::outs();
  auto [avx2, avx512] = bench::peakFmaGFlops(runs);
  double peak = std::max(avx2, avx512);
  out << "host: " << (avx512 > 0 ? "AVX-512" : "AVX2")
      << ", FMA peak (1 thread) " << llvm::format("%.1f", peak)
      << " GFLOP/s\n\n";
  std::mt19937 rng(2023);
  std::vector<Csr> matrices;
  matrices.push_back(rmat(100000, 1000000, rng));
  matrices.push_back(uniform(100000, matrices.front().nnz(), rng));
  out << "| kernel, matrix (nnz), F | JIT | of peak | C++ loop | JIT / C++ "
         "| JIT, reassociated | sparsifier | faster JIT / sparsifier |\n"
         "|---|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const Csr &m : noHost ? ArrayRef<Csr>() : ArrayRef<Csr>(matrices))
    for (std::string kernel : {"spmm", "sddmm"})
      for (int64_t f : {32, 128, 512}) {
        std::vector<HostArray> args = arguments(m, f, rng);
        double jitTime[2];
        for (bool reassociate : {false, true}) {
          OwningOpRef<ModuleOp> module =
              lower(ctx, source(kernel, m, f), false, reassociate);
          FailureOr<std::unique_ptr<jit::CompiledKernel>> compiled = failure();
          if (module)
            compiled = jit::CompiledKernel::compile(*module, "kernel");
          if (failed(compiled)) {
            llvm::errs() << "cannot compile " << kernel << "\n";
            return 1;
          }
          jitTime[reassociate] = bench::bestOf(
              runs, [&] { llvm::cantFail((*compiled)->run(args)); });
        }
        std::vector<float> x = args[3].getValues<float>(),
                           y = args[4].getValues<float>(), a = m.values;
        double loopTime = bench::bestOf(runs, [&] {
          if (kernel == "spmm")
            spmmLoop(m, f, y.data(), x.data());
          else
            sddmmLoop(m, f, x.data(), y.data(), a.data());
        });
        std::vector<float> got =
            args[kernel == "spmm" ? 3 : 2].getValues<float>();
        reportDifference("JIT, reassociated", kernel, got,
                         kernel == "spmm" ? x : a);
        double flops = 2.0 * m.nnz() * f;
        auto gflops = [&](double seconds) {
          return llvm::format("%.2f GFLOP/s", flops / seconds / 1e9);
        };
        out << "| " << kernel << ", " << m.name << " (" << m.nnz() << "), " << f
            << " | " << gflops(jitTime[0]) << " | "
            << llvm::format("%.3f", flops / jitTime[0] / 1e9 / peak) << " | "
            << gflops(loopTime) << " | "
            << llvm::format("%.2f", loopTime / jitTime[0]) << "x | "
            << gflops(jitTime[1]) << " | ";
        double bestJit = std::min(jitTime[0], jitTime[1]);
        double peerTime = 0;
        unsigned best = 0;
        for (unsigned o = 0; o < std::size(kSparsifierOptions); ++o)
          if (SparsifierKernel fn = buildSparsifierKernel(kernel, m, f, o)) {
            double t = timeSparsifier(
                fn, kernel, m, f, args[3].getValues<float>(),
                args[4].getValues<float>(), kernel == "spmm" ? x : a);
            if (peerTime == 0 || t < peerTime)
              std::tie(peerTime, best) = std::make_pair(t, o);
          }
        if (peerTime > 0)
          out << gflops(peerTime) << " (" << kSparsifierOptions[best] << ") | "
              << llvm::format("%.2f", peerTime / bestJit) << "x |\n";
        else
          out << "not built | |\n";
      }
  (void)std::system(("rm -rf " + getPeerDir()).c_str());
  if (noSim)
    return 0;
  const Csr &m = matrices.front();
  for (const char *kernel : {"spmm", "sddmm"}) {
    OwningOpRef<ModuleOp> module = lower(ctx, source(kernel, m, 128), true);
    std::vector<HostArray> args = arguments(m, 128, rng);
    sim::SimulationReport report;
    std::vector<sim::TraceEvent> trace;
    sim::SimulatorOptions options;
    options.collectTrace = !tracePrefix.empty();
    options.maxTraceEvents = 20'000'000;
    if (!module ||
        failed(sim::simulate(cast<func::FuncOp>(module->lookupSymbol("kernel")),
                             args, options, report, &trace)))
      return 1;
    if (!tracePrefix.empty()) {
      std::error_code error;
      llvm::raw_fd_ostream file(tracePrefix + "-" + kernel + ".json", error);
      if (error)
        return 1;
      sim::writeChromeTrace(trace, cantFail(DeviceModel::getPreset("mlu590")),
                            file);
    }
    out << "\nsimulator, mlu590, " << kernel
        << " R-MAT F 128 (npu-sparse-to-device-pipeline, 48 tasks): "
        << llvm::format("%.1f", report.seconds * 1e6) << " us modelled, IO "
        << "efficiency " << llvm::format("%.1f%%", report.ioEfficiency * 100)
        << ", roofline " << llvm::format("%.1f%%", report.rooflineRatio * 100)
        << "\n";
    report.print(out, cantFail(DeviceModel::getPreset("mlu590")));
  }
  return 0;
}
