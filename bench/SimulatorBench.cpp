//===- SimulatorBench.cpp - how fast the simulator runs kernels -----------===//
//
// The simulator's own speed, on the three kinds of work kernels give it:
//  - scalar-heavy: a CSR SpMV (65,536 rows, ~2.06M nonzeros, loads from
//    indptr and indices), in interpreted ops per second, next to the JIT's
//    time for the same kernel (compilation included and not);
//  - vector and DMA work: a tiled scaled copy, in elements per second
//    through the vector unit and DMA;
//  - a 512x512x512 matmul with f32, f16 and bf16 inputs (f32 accumulation),
//    in seconds, f16 and bf16 as a ratio to f32.
// Each figure is the best of --runs runs.
//
// Usage: npu-simulator-bench [--runs=3]
//
//===----------------------------------------------------------------------===//

#include "BenchKernels.h"
#include "BenchSupport.h"
#include "npu/InitAll.h"
#include "npu/JIT/Jit.h"
#include "npu/Simulator/Execution.h"
#include "npu/Simulator/Simulator.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <random>

using namespace mlir;
using namespace npu;

static llvm::cl::opt<unsigned> runs("runs", llvm::cl::desc("runs per figure"),
                                    llvm::cl::init(3));
static llvm::cl::opt<std::string>
    only("only", llvm::cl::desc("one figure: spmv, vector or matmul"));

/// Whether the figure `name` is measured in this run.
static bool wanted(llvm::StringRef name) {
  return only.empty() || only == name;
}

namespace {

constexpr int64_t kRows = 65536;

/// A CSR matrix with 1 to 62 nonzeros per row (31.5 on average, about
/// 2.06M in all), sorted distinct columns.
struct Csr {
  std::vector<int32_t> indptr, indices;
  std::vector<float> values;
};

Csr makeCsr() {
  std::mt19937 rng(7);
  Csr m;
  m.indptr.push_back(0);
  for (int64_t r = 0; r < kRows; ++r) {
    int64_t count = 1 + rng() % 62;
    std::vector<int32_t> cols;
    for (int64_t k = 0; k < count; ++k)
      cols.push_back(rng() % kRows);
    std::sort(cols.begin(), cols.end());
    cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
    for (int32_t c : cols) {
      m.indices.push_back(c);
      m.values.push_back(static_cast<float>(rng() % 1000) / 500.0f - 1.0f);
    }
    m.indptr.push_back(m.indices.size());
  }
  return m;
}

/// y = A x, rows split over 16 tasks; every access a scalar load.
std::string spmvKernel(int64_t nnz) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "!ip = memref<" << kRows + 1 << "xi32, #npudev.space<global>>\n"
     << "!ix = memref<" << nnz << "xi32, #npudev.space<global>>\n"
     << "!vals = memref<" << nnz << "xf32, #npudev.space<global>>\n"
     << "!vec = memref<" << kRows << "xf32, #npudev.space<global>>\n"
     << R"mlir(
func.func @spmv(%indptr: !ip, %indices: !ix, %values: !vals, %x: !vec,
                %y: !vec) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rowsPerTask = arith.constant 4096 : index
  %zero = arith.constant 0.0 : f32
  npudev.launch tasks(16) {
    %t = npudev.task_id
    %first = arith.muli %t, %rowsPerTask : index
    %last = arith.addi %first, %rowsPerTask : index
    scf.for %r = %first to %last step %c1 {
      %r1 = arith.addi %r, %c1 : index
      %b32 = memref.load %indptr[%r] : !ip
      %e32 = memref.load %indptr[%r1] : !ip
      %b = arith.index_cast %b32 : i32 to index
      %e = arith.index_cast %e32 : i32 to index
      %sum = scf.for %p = %b to %e step %c1 iter_args(%acc = %zero) -> (f32) {
        %col32 = memref.load %indices[%p] : !ix
        %col = arith.index_cast %col32 : i32 to index
        %a = memref.load %values[%p] : !vals
        %xv = memref.load %x[%col] : !vec
        %prod = arith.mulf %a, %xv : f32
        %next = arith.addf %acc, %prod : f32
        scf.yield %next : f32
      }
      memref.store %sum, %y[%r] : !vec
    }
  }
  return
})mlir";
  return s;
}

template <typename T>
HostArray arrayOf(ElementKind kind, const std::vector<T> &values) {
  return HostArray::fromValues(kind, values,
                               {static_cast<int64_t>(values.size())});
}

/// C = A x B at host level (untimed), on on-chip buffers filled by DMA.
std::string matmulKernel(StringRef element) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "!g = memref<512x512x" << element << ", #npudev.space<global>>\n"
     << "!a = memref<512x512x" << element << ", #npudev.space<vector>>\n"
     << "!b = memref<512x512x" << element << ", #npudev.space<cube>>\n"
     << R"mlir(
!gc = memref<512x512xf32, #npudev.space<global>>
!c = memref<512x512xf32, #npudev.space<vector>>
func.func @matmul(%ga: !g, %gb: !g, %gc: !gc) {
  %a = npudev.alloc : !a
  %b = npudev.alloc : !b
  %c = npudev.alloc : !c
  npudev.dma %ga, %a : !g to !a
  npudev.dma %gb, %b : !g to !b
  npudev.matmul %a, %b, %c : !a, !b, !c
  npudev.dma %c, %gc : !c to !gc
  return
})mlir";
  return s;
}

HostArray randomMatrix(ElementKind kind, unsigned seed) {
  HostArray a = bench::randomArray(ElementKind::F32, {512, 512}, seed);
  if (kind == ElementKind::F32)
    return a;
  HostArray narrow{kind, a.shape, std::vector<uint8_t>(512 * 512 * 2)};
  for (int64_t i = 0; i < 512 * 512; ++i)
    storeFloat(narrow.data.data() + 2 * i, kind,
               loadFloat(a.data.data() + 4 * i, ElementKind::F32));
  return narrow;
}

} // namespace

int main(int argc, char **argv) {
  llvm::cl::ParseCommandLineOptions(argc, argv, "simulator benchmark\n");
  DialectRegistry registry;
  registerAllDialects(registry);
  sim::registerSimulatorModels(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  DeviceModel device = llvm::cantFail(DeviceModel::getPreset("mlu590"));
  llvm::raw_ostream &out = llvm::outs();
  out << "| figure | value | detail |\n|---|---:|---|\n";
  // The physical limit of the vector and DMA figure: each element is four
  // bytes through each of three passes (DMA in, scale, DMA out).
  double copyGBps = bench::memcpyGBps(runs, size_t(256) << 20);
  out << "| memcpy bandwidth, 1 thread, 256 MiB | "
      << llvm::format("%.2f", copyGBps) << " GB/s | physical limit |\n";

  auto simulateOnce = [&](func::FuncOp func, MutableArrayRef<HostArray> args,
                          sim::SimulationReport &report) {
    if (failed(sim::simulate(func, args, device, {}, report)))
      std::exit(1);
  };

  if (wanted("spmv")) {
    Csr csr = makeCsr();
    int64_t nnz = csr.indices.size();
    std::vector<float> x(kRows);
    for (int64_t i = 0; i < kRows; ++i)
      x[i] = static_cast<float>(i % 17) / 8.0f - 1.0f;
    auto makeArgs = [&] {
      return std::vector<HostArray>{
          arrayOf(ElementKind::I32, csr.indptr),
          arrayOf(ElementKind::I32, csr.indices),
          arrayOf(ElementKind::F32, csr.values), arrayOf(ElementKind::F32, x),
          arrayOf(ElementKind::F32, std::vector<float>(kRows))};
    };
    std::string text = spmvKernel(nnz);
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &ctx);
    auto func = *module->getOps<func::FuncOp>().begin();
    std::vector<HostArray> simArgs = makeArgs();
    sim::SimulationReport report;
    double t =
        bench::bestOf(runs, [&] { simulateOnce(func, simArgs, report); });
    out << "| simulator, CSR SpMV (" << kRows << " rows, " << nnz
        << " nonzeros) | " << llvm::format("%.2e", report.opsExecuted / t)
        << " ops/s | " << llvm::format("%.3f", t) << " s, "
        << report.opsExecuted << " ops |\n";

    std::vector<HostArray> jitArgs = makeArgs();
    double tCompiled = 0;
    double tWithCompile = bench::bestOf(runs, [&] {
      OwningOpRef<ModuleOp> fresh = parseSourceString<ModuleOp>(text, &ctx);
      auto start = std::chrono::steady_clock::now();
      auto kernel = jit::CompiledKernel::compile(*fresh, "spmv");
      if (failed(kernel))
        std::exit(1);
      auto compiled = std::chrono::steady_clock::now();
      llvm::cantFail((*kernel)->run(jitArgs));
      tCompiled = std::chrono::duration<double>(
                      std::chrono::steady_clock::now() - compiled)
                      .count();
      (void)start;
    });
    bool same = jitArgs[4].data == simArgs[4].data;
    out << "| JIT, same SpMV | " << llvm::format("%.3f", tWithCompile)
        << " s with compilation | " << llvm::format("%.4f", tCompiled)
        << " s run; output " << (same ? "identical" : "DIFFERS")
        << " to the simulator's |\n";
  }

  if (wanted("vector")) {
    int64_t n = 1 << 22;
    std::string text = bench::scaledCopyKernel(n, 8192);
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &ctx);
    auto func = *module->getOps<func::FuncOp>().begin();
    HostArray args[] = {bench::randomArray(ElementKind::F32, {n}, 1),
                        bench::randomArray(ElementKind::F32, {n}, 2)};
    sim::SimulationReport report;
    double t = bench::bestOf(runs, [&] { simulateOnce(func, args, report); });
    // Each element goes through two DMAs and one vector op.
    double gbps = 3.0 * n * 4 / t / 1e9;
    out << "| simulator, vector and DMA work (scaled copy, " << n
        << " elements) | " << llvm::format("%.2e", 3.0 * n / t)
        << " elements/s | " << llvm::format("%.3f", t) << " s, "
        << llvm::format("%.2f", gbps / copyGBps) << " of memcpy |\n";
  }

  double f32Seconds = 0;
  std::vector<std::pair<ElementKind, const char *>> matmulKinds;
  if (wanted("matmul"))
    matmulKinds = {{ElementKind::F32, "f32"},
                   {ElementKind::F16, "f16"},
                   {ElementKind::BF16, "bf16"}};
  for (auto [kind, name] : matmulKinds) {
    std::string text = matmulKernel(name);
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &ctx);
    auto func = *module->getOps<func::FuncOp>().begin();
    HostArray args[] = {randomMatrix(kind, 3), randomMatrix(kind, 4),
                        HostArray{ElementKind::F32,
                                  {512, 512},
                                  std::vector<uint8_t>(512 * 512 * 4)}};
    sim::SimulationReport report;
    double t = bench::bestOf(runs, [&] { simulateOnce(func, args, report); });
    if (kind == ElementKind::F32)
      f32Seconds = t;
    out << "| simulator, matmul 512x512x512 " << name << " inputs | "
        << llvm::format("%.3f", t) << " s | "
        << llvm::format("%.2f", t / f32Seconds) << "x f32 |\n";
  }
  return 0;
}
