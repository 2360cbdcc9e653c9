//===- SparseBench.cpp - sparse-dialect SpMM and SDDMM against peers ------===//
//
// Matrices generated here: R-MAT (a = 0.57, b = c = 0.19; 1e5 x 1e5, 1e6
// cells drawn, duplicates merged) and uniform random with the same
// nonzeros. For feature sizes 32, 128 and 512, SpMM (out = A B) and SDDMM
// (out[i, j] = X[i] . Y[j] on A's pattern) written in the sparse dialect,
// lowered by stages 1 and 2 and compiled by the JIT (one thread), against
// a plain C++ CSR loop (g++ -O3) on the same data; both as GFLOP/s (2 nnz
// F) and as a fraction of this machine's FMA peak measured in the same
// run. Then the simulator's SpMM at F = 128 on mlu590, through stage 3
// (rows over 48 tasks by nonzeros): modelled time and IO efficiency.
//
// Usage: npu-sparse-bench [--runs=3] [--no-sim]
//
//===----------------------------------------------------------------------===//

#include "BenchSupport.h"
#include "npu/Dialect/Sparse/Passes.h"
#include "npu/InitAll.h"
#include "npu/JIT/Jit.h"
#include "npu/Runtime/HostArray.h"
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
#include <random>
#include <set>

using namespace mlir;
using namespace npu;

static llvm::cl::opt<unsigned> runs("runs", llvm::cl::desc("runs per figure"),
                                    llvm::cl::init(3));
static llvm::cl::opt<bool> noSim("no-sim",
                                 llvm::cl::desc("skip the simulator figure"));

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
/// `f` features.
std::string source(const std::string &kernel, const Csr &m, int64_t f) {
  std::string text = R"(
func.func @kernel(%indptr: memref<R1xi32>, %indices: memref<NNZxi32>, %a: memref<NNZxf32>, %x: memref<RFxf32>, %y: memref<CFxf32>) {
  %i = sparse.axis dense_fixed length R0
  %j = sparse.axis sparse_variable parent %i length C0 indptr %indptr : memref<R1xi32> indices %indices : memref<NNZxi32> sorted
  %dj = sparse.axis dense_fixed length C0
  %k = sparse.axis dense_fixed length F0
  %A = sparse.buffer %a [%i, %j] : memref<NNZxf32> -> !sparse.buffer<2 x f32>
  %X = sparse.buffer %x [%i, %k] : memref<RFxf32> -> !sparse.buffer<2 x f32>
  %Y = sparse.buffer %y [%dj, %k] : memref<CFxf32> -> !sparse.buffer<2 x f32>
)";
  if (kernel == "spmm")
    // X = A Y.
    text += R"(
  sparse.iteration [%i, %j, %k] [#sparse.iterator<spatial>, #sparse.iterator<reduction>, #sparse.iterator<spatial>] init {
  ^bb0(%vi: index, %vk: index):
    %zero = arith.constant 0.0 : f32
    sparse.store %zero, %X[%vi, %vk] : !sparse.buffer<2 x f32>
  } do {
  ^bb0(%vi: index, %vj: index, %vk: index):
    %v = sparse.load %A[%vi, %vj] : !sparse.buffer<2 x f32>
    %w = sparse.load %Y[%vj, %vk] : !sparse.buffer<2 x f32>
    %acc = sparse.load %X[%vi, %vk] : !sparse.buffer<2 x f32>
    %p = arith.mulf %v, %w : f32
    %s = arith.addf %acc, %p : f32
    sparse.store %s, %X[%vi, %vk] : !sparse.buffer<2 x f32>
  }
  return
}
)";
  else
    // A[i, j] = X[i] . Y[j] on A's pattern.
    text += R"(
  sparse.iteration [%i, %j, %k] [#sparse.iterator<spatial>, #sparse.iterator<spatial>, #sparse.iterator<reduction>] init {
  ^bb0(%vi: index, %vj: index):
    %zero = arith.constant 0.0 : f32
    sparse.store %zero, %A[%vi, %vj] : !sparse.buffer<2 x f32>
  } do {
  ^bb0(%vi: index, %vj: index, %vk: index):
    %u = sparse.load %X[%vi, %vk] : !sparse.buffer<2 x f32>
    %w = sparse.load %Y[%vj, %vk] : !sparse.buffer<2 x f32>
    %acc = sparse.load %A[%vi, %vj] : !sparse.buffer<2 x f32>
    %p = arith.mulf %u, %w : f32
    %s = arith.addf %acc, %p : f32
    sparse.store %s, %A[%vi, %vj] : !sparse.buffer<2 x f32>
  }
  return
}
)";
  auto replaceAll = [&](const std::string &key, int64_t value) {
    for (size_t at; (at = text.find(key)) != std::string::npos;)
      text.replace(at, key.size(), std::to_string(value));
  };
  replaceAll("R1", m.rows + 1);
  replaceAll("NNZ", m.nnz());
  replaceAll("RF", m.rows * f);
  replaceAll("CF", m.cols * f);
  replaceAll("R0", m.rows);
  replaceAll("C0", m.cols);
  replaceAll("F0", f);
  return text;
}

/// `text` lowered by the given stages.
OwningOpRef<ModuleOp> lower(MLIRContext &ctx, const std::string &text,
                            bool onDevice) {
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &ctx);
  PassManager pm(&ctx);
  if (onDevice)
    pm.addNestedPass<func::FuncOp>(sparse::createSparseToDevice());
  pm.addNestedPass<func::FuncOp>(sparse::createSparseLowerIterations());
  pm.addNestedPass<func::FuncOp>(sparse::createSparseLowerBuffers());
  pm.addPass(createCanonicalizerPass());
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

} // namespace

int main(int argc, char **argv) {
  llvm::cl::ParseCommandLineOptions(argc, argv, "sparse iteration benchmark\n");
  DialectRegistry registry;
  registerAllDialects(registry);
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
         "|\n|---|---:|---:|---:|---:|\n";
  for (const Csr &m : matrices)
    for (std::string kernel : {"spmm", "sddmm"})
      for (int64_t f : {32, 128, 512}) {
        OwningOpRef<ModuleOp> module = lower(ctx, source(kernel, m, f), false);
        auto compiled =
            module ? jit::CompiledKernel::compile(*module, "kernel")
                   : FailureOr<std::unique_ptr<jit::CompiledKernel>>(failure());
        if (failed(compiled)) {
          llvm::errs() << "cannot compile " << kernel << "\n";
          return 1;
        }
        std::vector<HostArray> args = arguments(m, f, rng);
        double jitTime = bench::bestOf(
            runs, [&] { llvm::cantFail((*compiled)->run(args)); });
        std::vector<float> x = args[3].getValues<float>(),
                           y = args[4].getValues<float>(), a = m.values;
        double loopTime = bench::bestOf(runs, [&] {
          if (kernel == "spmm")
            spmmLoop(m, f, y.data(), x.data());
          else
            sddmmLoop(m, f, x.data(), y.data(), a.data());
        });
        double flops = 2.0 * m.nnz() * f;
        out << "| " << kernel << ", " << m.name << " (" << m.nnz() << "), " << f
            << " | " << llvm::format("%.2f", flops / jitTime / 1e9)
            << " GFLOP/s | "
            << llvm::format("%.3f", flops / jitTime / 1e9 / peak) << " | "
            << llvm::format("%.2f", flops / loopTime / 1e9) << " GFLOP/s | "
            << llvm::format("%.2f", loopTime / jitTime) << "x |\n";
      }
  if (noSim)
    return 0;
  const Csr &m = matrices.front();
  OwningOpRef<ModuleOp> module = lower(ctx, source("spmm", m, 128), true);
  std::vector<HostArray> args = arguments(m, 128, rng);
  sim::SimulationReport report;
  if (!module ||
      failed(sim::simulate(cast<func::FuncOp>(module->lookupSymbol("kernel")),
                           args, {}, report)))
    return 1;
  out << "\nsimulator, mlu590, SpMM R-MAT F 128 (stage 3, 48 tasks): "
      << llvm::format("%.1f", report.seconds * 1e6) << " us modelled, IO "
      << "efficiency " << llvm::format("%.1f%%", report.ioEfficiency * 100)
      << "\n";
  return 0;
}
