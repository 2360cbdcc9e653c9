//===- MoEBench.cpp - moe_dispatch_backward_data on the seed's shapes -----===//
//
// For each of seed 001's network shapes: lowers the op for mlu590, runs it
// through the JIT on one thread and reports its bandwidth as a ratio of this
// machine's memcpy bandwidth measured in the same run, next to a peer (a
// plain C++ loop, g++ -O3); then simulates it and reports the modelled IO
// efficiency. Bandwidth counts copy-equivalent bytes, as memcpy's figure
// does: the bytes of grad_input written (each also read from dispatch) plus
// half of the gates/indices/locations read.
//
// Inputs are those of a top-1 router: experts drawn uniformly, each sample
// taking the next free slot of its expert (so every sample is kept at the
// seed's capacities).
//
// The JIT runs on one thread and on two (the speed-up is reported); the
// first line names the host and the vectors used (--max-vector-bits=256:
// an AVX2-only host's code).
//
// Usage: npu-moe-bench [--runs=5] [--max-vector-bits=0|256|128]
//
//===----------------------------------------------------------------------===//

#include "BenchSupport.h"
#include "npu/Conversion/Passes.h"
#include "npu/Device/DeviceModel.h"
#include "npu/InitAll.h"
#include "npu/JIT/Jit.h"
#include "npu/Simulator/Simulator.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

using namespace mlir;
using namespace npu;

static llvm::cl::opt<std::string>
    jitDevice("jit-device",
              llvm::cl::desc("device the JIT's kernel is built for (preset "
                             "or JSON); the simulator always uses mlu590"),
              llvm::cl::init("mlu590"));
static llvm::cl::opt<unsigned> runs("runs", llvm::cl::desc("runs per figure"),
                                    llvm::cl::init(5));
static llvm::cl::opt<unsigned> maxVectorBits(
    "max-vector-bits",
    llvm::cl::desc("widest vectors the JIT may use (0: the host's)"),
    llvm::cl::init(0));

namespace {

struct Shape {
  int64_t samples, hidden, capacity, experts;
};

/// Best wall time of --runs calls of `fn`.
double bestOf(const std::function<void()> &fn) {
  return bench::bestOf(runs, fn);
}

/// gates, indices, locations, dispatch, grad_input.
std::vector<HostArray> routerInputs(const Shape &s) {
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> value(-1, 1);
  std::uniform_int_distribution<int32_t> expert(0, s.experts - 1);
  std::vector<float> gates(s.samples),
      dispatch(s.experts * s.capacity * s.hidden);
  std::vector<int32_t> indices(s.samples), locations(s.samples);
  std::vector<int32_t> used(s.experts, 0);
  for (int64_t i = 0; i < s.samples; ++i) {
    gates[i] = value(rng);
    indices[i] = expert(rng);
    locations[i] = used[indices[i]]++;
  }
  for (float &v : dispatch)
    v = value(rng);
  int64_t rows = s.experts * s.capacity;
  std::vector<HostArray> args;
  args.push_back(HostArray::fromValues(ElementKind::F32, gates, {s.samples}));
  args.push_back(HostArray::fromValues(ElementKind::I32, indices, {s.samples}));
  args.push_back(
      HostArray::fromValues(ElementKind::I32, locations, {s.samples}));
  args.push_back(
      HostArray::fromValues(ElementKind::F32, dispatch, {rows, s.hidden}));
  args.push_back(HostArray::fromValues(ElementKind::F32,
                                       std::vector<float>(s.samples * s.hidden),
                                       {s.samples, s.hidden}));
  return args;
}

OwningOpRef<ModuleOp> lowered(MLIRContext &ctx, const Shape &s,
                              StringRef device) {
  std::string text = llvm::formatv(
      R"(func.func @moe(%g: tensor<{0}xf32>, %i: tensor<{0}xi32>,
                        %l: tensor<{0}xi32>, %d: tensor<{1}x{2}xf32>)
             -> tensor<{0}x{2}xf32> {
           %r = npu.moe_dispatch_backward_data %g, %i, %l, %d
               {capacity = {3}, num_experts = {4}}
               : (tensor<{0}xf32>, tensor<{0}xi32>, tensor<{0}xi32>,
                  tensor<{1}x{2}xf32>) -> tensor<{0}x{2}xf32>
           return %r : tensor<{0}x{2}xf32>
         })",
      s.samples, s.experts * s.capacity, s.hidden, s.capacity, s.experts);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &ctx);
  PassManager pm(&ctx);
  LowerGraphToDeviceOptions options;
  options.device = device.str();
  pm.addPass(createLowerGraphToDevice(options));
  if (!module || failed(pm.run(*module)))
    std::exit(1);
  return module;
}

/// The peer: the op's definition as a plain loop.
void referenceLoop(const Shape &s, llvm::MutableArrayRef<HostArray> a) {
  auto *gates = reinterpret_cast<const float *>(a[0].data.data());
  auto *indices = reinterpret_cast<const int32_t *>(a[1].data.data());
  auto *locations = reinterpret_cast<const int32_t *>(a[2].data.data());
  auto *dispatch = reinterpret_cast<const float *>(a[3].data.data());
  auto *grad = reinterpret_cast<float *>(a[4].data.data());
  for (int64_t i = 0; i < s.samples; ++i) {
    int32_t e = indices[i], l = locations[i];
    float *out = grad + i * s.hidden;
    if (e < 0 || e >= s.experts || l < 0 || l >= s.capacity) {
      std::memset(out, 0, s.hidden * 4);
      continue;
    }
    const float *row = dispatch + (int64_t(e) * s.capacity + l) * s.hidden;
    for (int64_t j = 0; j < s.hidden; ++j)
      out[j] = row[j] * gates[i];
  }
}

void benchShape(MLIRContext &ctx, const Shape &s, double copyGBps) {
  auto &out = llvm::outs();
  std::string name = llvm::formatv("({0}, {1}, {2}, {3})", s.samples, s.hidden,
                                   s.capacity, s.experts);
  double bytes = s.samples * s.hidden * 4.0 + s.samples * 12.0 / 2;
  std::vector<HostArray> args = routerInputs(s);

  std::vector<HostArray> peerArgs = routerInputs(s);
  double tp = bestOf([&] { referenceLoop(s, peerArgs); });
  double t1 = 0;
  for (int32_t threads : {1, 2}) {
    OwningOpRef<ModuleOp> jitModule = lowered(ctx, s, jitDevice);
    jit::JitOptions options;
    options.threads = threads;
    options.maxVectorBits = maxVectorBits;
    auto kernel = jit::CompiledKernel::compile(*jitModule, "moe", options);
    if (failed(kernel))
      std::exit(1);
    double t = bestOf([&] { llvm::cantFail((*kernel)->run(args)); });
    t1 = threads == 1 ? t : t1;
    out << "| JIT " << name << ", " << threads << " thread"
        << (threads > 1 ? "s" : "") << " | " << llvm::format("%.3f", t * 1e3)
        << " ms, " << llvm::format("%.2f", bytes / t / 1e9) << " GB/s | "
        << llvm::format("%.2f", bytes / t / 1e9 / copyGBps) << " of memcpy, "
        << (threads == 1
                ? llvm::formatv("**{0:F2}x the loop**", tp / t).str()
                : llvm::formatv("**{0:F2}x one thread**", t1 / t).str())
        << " |\n";
  }
  out << "| peer: C++ loop " << name << ", 1 thread | "
      << llvm::format("%.3f", tp * 1e3) << " ms, "
      << llvm::format("%.2f", bytes / tp / 1e9) << " GB/s | "
      << llvm::format("%.2f", bytes / tp / 1e9 / copyGBps) << " of memcpy |\n";
  if (args[4].data != peerArgs[4].data) {
    llvm::errs() << "JIT and the C++ loop disagree on " << name << "\n";
    std::exit(1);
  }

  OwningOpRef<ModuleOp> simModule = lowered(ctx, s, "mlu590");
  auto func = *simModule->getOps<func::FuncOp>().begin();
  DeviceModel device = llvm::cantFail(DeviceModel::getPreset("mlu590"));
  sim::SimulationReport report;
  if (failed(sim::simulate(func, args, device, {}, report)))
    std::exit(1);
  out << "| simulator, mlu590 " << name << " | "
      << llvm::format("%.1f", report.seconds * 1e6) << " us modelled | IO "
      << llvm::format("%.1f%%", 100 * report.ioEfficiency) << " |\n";
}

} // namespace

int main(int argc, char **argv) {
  llvm::cl::ParseCommandLineOptions(argc, argv,
                                    "moe_dispatch_backward_data benchmark\n");
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  auto &out = llvm::outs();
  unsigned bits = bench::effectiveVectorBits(maxVectorBits);
  out << "host: " << bench::hostCpuName() << "; vectors used: " << bits
      << "-bit (" << bench::describeVectorBits(bits) << ")\n\n";
  double copyGBps = bench::memcpyGBps(runs, size_t(256) << 20);
  out << "| figure (samples, hidden, capacity, experts) | value | ratio |\n"
      << "|---|---:|---:|\n";
  out << "| memcpy bandwidth, 1 thread, 256 MiB | "
      << llvm::format("%.2f", copyGBps) << " GB/s | 1.00 |\n";
  for (Shape s : {Shape{18432, 512, 11520, 2}, Shape{4608, 1024, 2880, 2}})
    benchShape(ctx, s, copyGBps);
  return 0;
}
