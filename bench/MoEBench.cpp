//===- MoEBench.cpp - the MoE dispatch family on mlu-ops' shapes ----------===//
//
// For each network shape of mlu-ops' MoE dispatch backward
// (mluOpMoeDispatchBackwardData) and each op of the family
// (backward_data, forward, backward_gate, combine): lowers the op for
// --jit-device (host: this machine, one task per hardware thread and tiles
// sized from its L2), runs it
// through the JIT on one thread and reports its bandwidth as a ratio of this
// machine's memcpy bandwidth measured in the same run, next to a peer (a
// plain C++ loop, g++ -O3 -march=native); then simulates it on --sim-device
// (mlu590) and reports the modelled IO efficiency, roofline ratio and L2 hit
// rate. Bandwidth counts copy-equivalent bytes, as memcpy's figure does: the
// bytes of the [*, hidden] result written (each also read once), or for
// backward_gate one row per sample, plus half of the gates/indices/locations
// read; for combine, half of the rows read and written.
//
// Inputs are those of a top-1 router: experts drawn uniformly, each sample
// taking the next free slot of its expert (so every sample is kept at
// mlu-ops' capacities). combine's are a top-2 router's: each sample's two
// slots name distinct experts and take their next free slots, so slots past
// an expert's capacity are dropped, as in tutel (with two experts and
// mlu-ops' capacities, 23040 of the 36864 slots are kept).
//
// The JIT runs on one thread and on two (the speed-up is reported); the
// first line names the host and the vectors used (--max-vector-bits=256:
// an AVX2-only host's code).
//
// Usage: npu-moe-bench [--runs=5] [--max-vector-bits=0|256|128]
//                      [--trace-dir=DIR]  (DIR/<op>-<samples>.json: each
//                      simulation's Chrome trace)
//
//===----------------------------------------------------------------------===//

#include "BenchSupport.h"
#include "npu/Conversion/Pipelines.h"
#include "npu/Device/DeviceModel.h"
#include "npu/InitAll.h"
#include "npu/JIT/Jit.h"
#include "npu/Simulator/Execution.h"
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
                             "or JSON; host: this machine)"),
              llvm::cl::init("host"));
static llvm::cl::opt<std::string>
    simDevice("sim-device",
              llvm::cl::desc("device the simulator models (preset or JSON)"),
              llvm::cl::init("mlu590"));
static llvm::cl::opt<unsigned> runs("runs", llvm::cl::desc("runs per figure"),
                                    llvm::cl::init(5));
static llvm::cl::opt<std::string>
    traceDir("trace-dir",
             llvm::cl::desc("write each simulation's Chrome trace to "
                            "DIR/<op>-<samples>.json"),
             llvm::cl::value_desc("DIR"));
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

/// A top-1 router's gates, indices and locations, and random input and
/// dispatch tensors.
struct RouterData {
  std::vector<float> gates, input, dispatch;
  std::vector<int32_t> indices, locations;
  /// A top-2 router's [2, samples] operands, for combine.
  std::vector<float> topGates;
  std::vector<int32_t> topIndices, topLocations;

  explicit RouterData(const Shape &s) {
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> value(-1, 1);
    std::uniform_int_distribution<int32_t> expert(0, s.experts - 1);
    std::vector<int32_t> used(s.experts, 0);
    for (int64_t i = 0; i < s.samples; ++i) {
      gates.push_back(value(rng));
      indices.push_back(expert(rng));
      locations.push_back(used[indices.back()]++);
    }
    std::uniform_int_distribution<int32_t> other(1, s.experts - 1);
    topGates.resize(2 * s.samples);
    topIndices.resize(2 * s.samples);
    std::fill(used.begin(), used.end(), 0);
    for (int64_t j = 0; j < 2; ++j)
      for (int64_t i = 0; i < s.samples; ++i) {
        int32_t e = j == 0 ? expert(rng)
                           : (topIndices[i] + other(rng)) % int32_t(s.experts);
        topGates[j * s.samples + i] = value(rng);
        topIndices[j * s.samples + i] = e;
        topLocations.push_back(used[e]++);
      }
    input.resize(s.samples * s.hidden);
    dispatch.resize(s.experts * s.capacity * s.hidden);
    for (float &v : input)
      v = value(rng);
    for (float &v : dispatch)
      v = value(rng);
  }
};

/// The operands the ops of the family take (Top*: combine's [2, samples]).
enum class Operand {
  Gates,
  Indices,
  Locations,
  Input,
  Dispatch,
  TopGates,
  TopIndices,
  TopLocations
};

int64_t rowsOf(const Shape &s) { return s.experts * s.capacity; }

/// A size in a tensor type: "?" when dynamic.
std::string dimText(int64_t size) {
  return ShapedType::isDynamic(size) ? "?" : std::to_string(size);
}

/// An operand's tensor type (its samples "?" when they are dynamic) and
/// its data.
std::string typeOf(const Shape &s, Operand operand) {
  switch (operand) {
  case Operand::Gates:
    return llvm::formatv("tensor<{0}xf32>", dimText(s.samples));
  case Operand::Indices:
  case Operand::Locations:
    return llvm::formatv("tensor<{0}xi32>", dimText(s.samples));
  case Operand::Input:
    return llvm::formatv("tensor<{0}x{1}xf32>", dimText(s.samples), s.hidden);
  case Operand::Dispatch:
    return llvm::formatv("tensor<{0}x{1}xf32>", rowsOf(s), s.hidden);
  case Operand::TopGates:
    return llvm::formatv("tensor<2x{0}xf32>", dimText(s.samples));
  case Operand::TopIndices:
  case Operand::TopLocations:
    return llvm::formatv("tensor<2x{0}xi32>", dimText(s.samples));
  }
  llvm_unreachable("unknown operand");
}
HostArray arrayOf(const Shape &s, const RouterData &d, Operand operand) {
  switch (operand) {
  case Operand::Gates:
    return HostArray::fromValues(ElementKind::F32, d.gates, {s.samples});
  case Operand::Indices:
    return HostArray::fromValues(ElementKind::I32, d.indices, {s.samples});
  case Operand::Locations:
    return HostArray::fromValues(ElementKind::I32, d.locations, {s.samples});
  case Operand::Input:
    return HostArray::fromValues(ElementKind::F32, d.input,
                                 {s.samples, s.hidden});
  case Operand::Dispatch:
    return HostArray::fromValues(ElementKind::F32, d.dispatch,
                                 {rowsOf(s), s.hidden});
  case Operand::TopGates:
    return HostArray::fromValues(ElementKind::F32, d.topGates, {2, s.samples});
  case Operand::TopIndices:
    return HostArray::fromValues(ElementKind::I32, d.topIndices,
                                 {2, s.samples});
  case Operand::TopLocations:
    return HostArray::fromValues(ElementKind::I32, d.topLocations,
                                 {2, s.samples});
  }
  llvm_unreachable("unknown operand");
}

/// The dispatch row of sample i, or -1 when it is dropped.
int64_t rowOf(const Shape &s, const int32_t *indices, const int32_t *locations,
              int64_t i) {
  int32_t e = indices[i], l = locations[i];
  if (e < 0 || e >= s.experts || l < 0 || l >= s.capacity)
    return -1;
  return int64_t(e) * s.capacity + l;
}

template <typename T> T *at(llvm::MutableArrayRef<HostArray> a, unsigned i) {
  return reinterpret_cast<T *>(a[i].data.data());
}

/// One op of the family: its operands, result and peer loop.
struct OpBench {
  /// The op's name in figures and its mnemonic.
  const char *name, *mnemonic;
  std::vector<Operand> operands;
  /// The result's shape; it takes the argument after the operands.
  SmallVector<int64_t> (*resultShape)(const Shape &);
  void (*loop)(const Shape &, llvm::MutableArrayRef<HostArray>);
  /// Copy-equivalent bytes: the data written (each also read once) plus
  /// half of the per-sample words read.
  double (*bytes)(const Shape &, const RouterData &);

  std::vector<HostArray> arguments(const Shape &s, const RouterData &d) const {
    std::vector<HostArray> args;
    for (Operand operand : operands)
      args.push_back(arrayOf(s, d, operand));
    SmallVector<int64_t> shape = resultShape(s);
    int64_t n = 1;
    for (int64_t size : shape)
      n *= size;
    args.push_back(
        HostArray::fromValues(ElementKind::F32, std::vector<float>(n), shape));
    return args;
  }
};

const OpBench kBackwardData = {
    "backward_data",
    "moe_dispatch_backward_data",
    {Operand::Gates, Operand::Indices, Operand::Locations, Operand::Dispatch},
    [](const Shape &s) { return SmallVector<int64_t>{s.samples, s.hidden}; },
    [](const Shape &s, llvm::MutableArrayRef<HostArray> a) {
      const float *gates = at<float>(a, 0), *dispatch = at<float>(a, 3);
      float *grad = at<float>(a, 4);
      for (int64_t i = 0; i < s.samples; ++i) {
        int64_t row = rowOf(s, at<int32_t>(a, 1), at<int32_t>(a, 2), i);
        float *out = grad + i * s.hidden;
        if (row < 0) {
          std::memset(out, 0, s.hidden * 4);
          continue;
        }
        for (int64_t j = 0; j < s.hidden; ++j)
          out[j] = dispatch[row * s.hidden + j] * gates[i];
      }
    },
    [](const Shape &s, const RouterData &) {
      return s.samples * s.hidden * 4.0 + s.samples * 12.0 / 2;
    }};

const OpBench kForward = {
    "forward",
    "moe_dispatch_forward",
    {Operand::Gates, Operand::Indices, Operand::Locations, Operand::Input},
    [](const Shape &s) { return SmallVector<int64_t>{rowsOf(s), s.hidden}; },
    [](const Shape &s, llvm::MutableArrayRef<HostArray> a) {
      const float *gates = at<float>(a, 0), *input = at<float>(a, 3);
      float *out = at<float>(a, 4);
      std::memset(out, 0, rowsOf(s) * s.hidden * 4);
      for (int64_t i = 0; i < s.samples; ++i) {
        int64_t row = rowOf(s, at<int32_t>(a, 1), at<int32_t>(a, 2), i);
        if (row < 0)
          continue;
        for (int64_t j = 0; j < s.hidden; ++j)
          out[row * s.hidden + j] = input[i * s.hidden + j] * gates[i];
      }
    },
    [](const Shape &s, const RouterData &) {
      return rowsOf(s) * s.hidden * 4.0 + s.samples * 12.0 / 2;
    }};

const OpBench kCombine = {
    "combine",
    "moe_combine",
    {Operand::TopGates, Operand::TopIndices, Operand::TopLocations,
     Operand::Dispatch},
    [](const Shape &s) { return SmallVector<int64_t>{s.samples, s.hidden}; },
    [](const Shape &s, llvm::MutableArrayRef<HostArray> a) {
      const float *gates = at<float>(a, 0), *dispatch = at<float>(a, 3);
      float *out = at<float>(a, 4);
      std::memset(out, 0, s.samples * s.hidden * 4);
      for (int64_t i = 0; i < s.samples; ++i)
        for (int64_t j = 0; j < 2; ++j) {
          int64_t slot = j * s.samples + i;
          int64_t row = rowOf(s, at<int32_t>(a, 1), at<int32_t>(a, 2), slot);
          for (int64_t x = 0; row >= 0 && x < s.hidden; ++x)
            out[i * s.hidden + x] = out[i * s.hidden + x] +
                                    dispatch[row * s.hidden + x] * gates[slot];
        }
    },
    // Half of the kept rows read and the output written, plus half of the
    // per-slot words.
    [](const Shape &s, const RouterData &d) {
      int64_t kept = 0;
      for (size_t slot = 0; slot < d.topIndices.size(); ++slot)
        kept += rowOf(s, d.topIndices.data(), d.topLocations.data(), slot) >= 0;
      return (kept + s.samples) * s.hidden * 4.0 / 2 + s.samples * 24.0 / 2;
    }};

const OpBench kBackwardGate = {
    "backward_gate",
    "moe_dispatch_backward_gate",
    {Operand::Indices, Operand::Locations, Operand::Input, Operand::Dispatch},
    [](const Shape &s) { return SmallVector<int64_t>{s.samples}; },
    [](const Shape &s, llvm::MutableArrayRef<HostArray> a) {
      const float *input = at<float>(a, 2), *dispatch = at<float>(a, 3);
      float *grad = at<float>(a, 4);
      for (int64_t i = 0; i < s.samples; ++i) {
        int64_t row = rowOf(s, at<int32_t>(a, 0), at<int32_t>(a, 1), i);
        float sum = 0.0f;
        for (int64_t j = 0; row >= 0 && j < s.hidden; ++j)
          sum = sum + dispatch[row * s.hidden + j] * input[i * s.hidden + j];
        grad[i] = sum;
      }
    },
    // Reads two rows per sample and writes one word: counted as one row's
    // copy per sample.
    [](const Shape &s, const RouterData &) {
      return s.samples * s.hidden * 4.0 + s.samples * 12.0 / 2;
    }};

/// `op` at shape `s` lowered for `device`; with `dynamicSamples` the
/// module reads its number of samples at run time.
OwningOpRef<ModuleOp> lowered(MLIRContext &ctx, const OpBench &op, Shape s,
                              StringRef device, bool dynamicSamples = false) {
  if (dynamicSamples)
    s.samples = ShapedType::kDynamic;
  std::string args, types;
  for (auto [i, operand] : llvm::enumerate(op.operands)) {
    std::string type = typeOf(s, operand);
    args += llvm::formatv("{0}%a{1}: {2}", i ? ", " : "", i, type).str();
    types += (i ? ", " : "") + type;
  }
  std::string result = "tensor<";
  for (int64_t size : op.resultShape(s))
    result += dimText(size) + "x";
  result += "f32>";
  std::string text =
      llvm::formatv("func.func @moe({0}) -> {1} {\n"
                    "  %r = npu.{2} %a0, %a1, %a2, %a3 {capacity = {3}, "
                    "num_experts = {4}} : ({5}) -> {1}\n"
                    "  return %r : {1}\n}",
                    args, result, op.mnemonic, s.capacity, s.experts, types);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &ctx);
  PassManager pm(&ctx);
  GraphToDevicePipelineOptions options;
  options.device = device.str();
  buildGraphToDevicePipeline(pm, options);
  if (!module || failed(pm.run(*module)))
    std::exit(1);
  return module;
}

/// Bandwidths of this host measured in the same run: memcpy on one thread,
/// and how much faster two threads copy than one (the physical limit of a
/// memory-bound op's two-thread speed-up).
struct HostLimits {
  double copyGBps, twoThreadCopyScaling;
};

/// Writes `events` to `path` as a Chrome trace; exits on failure.
void writeTrace(llvm::ArrayRef<sim::TraceEvent> events,
                const DeviceModel &device, const std::string &path) {
  std::error_code error;
  llvm::raw_fd_ostream os(path, error);
  if (error) {
    llvm::errs() << "cannot write " << path << ": " << error.message() << "\n";
    std::exit(1);
  }
  sim::writeChromeTrace(events, device, os);
}

void benchOp(MLIRContext &ctx, const OpBench &op, const Shape &s,
             const RouterData &data, const HostLimits &host) {
  double copyGBps = host.copyGBps;
  auto &out = llvm::outs();
  std::string name = llvm::formatv("{0} ({1}, {2}, {3}, {4})", op.name,
                                   s.samples, s.hidden, s.capacity, s.experts);
  double bytes = op.bytes(s, data);
  std::vector<HostArray> args = op.arguments(s, data);

  std::vector<HostArray> peerArgs = op.arguments(s, data);
  double tp = bestOf([&] { op.loop(s, peerArgs); });
  double t1 = 0;
  for (int32_t threads : {1, 2}) {
    OwningOpRef<ModuleOp> jitModule = lowered(ctx, op, s, jitDevice);
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
                : llvm::formatv("**{0:F2}x one thread** (limit {1:F2}x)",
                                t1 / t, host.twoThreadCopyScaling)
                      .str())
        << " |\n";
  }
  out << "| peer: C++ loop " << name
      << " (" NPU_BENCH_LOOP_FLAGS "), 1 thread | "
      << llvm::format("%.3f", tp * 1e3) << " ms, "
      << llvm::format("%.2f", bytes / tp / 1e9) << " GB/s | "
      << llvm::format("%.2f", bytes / tp / 1e9 / copyGBps) << " of memcpy |\n";
  if (args.back().data != peerArgs.back().data) {
    llvm::errs() << "JIT and the C++ loop disagree on " << name << "\n";
    std::exit(1);
  }

  OwningOpRef<ModuleOp> simModule = lowered(ctx, op, s, simDevice);
  auto func = *simModule->getOps<func::FuncOp>().begin();
  DeviceModel device = llvm::cantFail(DeviceModel::load(simDevice));
  sim::SimulationReport report;
  std::vector<sim::TraceEvent> trace;
  sim::SimulatorOptions options;
  options.collectTrace = !traceDir.empty();
  if (failed(sim::simulate(func, args, device, options, report, &trace)))
    std::exit(1);
  if (!traceDir.empty())
    writeTrace(trace, device,
               llvm::formatv("{0}/{1}-{2}.json", traceDir.getValue(), op.name,
                             s.samples)
                   .str());
  int64_t lines = report.l2Hits + report.l2Misses;
  out << "| simulator, " << device.name << " " << name << " | "
      << llvm::format("%.1f", report.seconds * 1e6) << " us modelled | IO "
      << llvm::format("%.1f%%", 100 * report.ioEfficiency) << ", roofline "
      << llvm::format("%.1f%%", 100 * report.rooflineRatio) << ", L2 hits "
      << llvm::format("%.1f%%", lines ? 100.0 * report.l2Hits / lines : 0.0)
      << " |\n";

  // The same op compiled once for any number of samples (issue #34).
  OwningOpRef<ModuleOp> dynamicModule =
      lowered(ctx, op, s, simDevice, /*dynamicSamples=*/true);
  sim::SimulationReport dynamicReport;
  std::vector<HostArray> dynamicArgs = op.arguments(s, data);
  if (failed(sim::simulate(*dynamicModule->getOps<func::FuncOp>().begin(),
                           dynamicArgs, device, {}, dynamicReport)))
    std::exit(1);
  if (dynamicArgs.back().data != args.back().data) {
    llvm::errs() << "dynamic and static kernels disagree on " << name << "\n";
    std::exit(1);
  }
  out << "| simulator, " << device.name << " " << name
      << ", samples read at run time | "
      << llvm::format("%.1f", dynamicReport.seconds * 1e6) << " us modelled | "
      << llvm::format("%.3f", dynamicReport.seconds / report.seconds)
      << "x the static kernel |\n";
}

} // namespace

int main(int argc, char **argv) {
  llvm::cl::ParseCommandLineOptions(argc, argv,
                                    "MoE dispatch family benchmark\n");
  DialectRegistry registry;
  registerAllDialects(registry);
  sim::registerSimulatorModels(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  auto &out = llvm::outs();
  unsigned bits = bench::effectiveVectorBits(maxVectorBits);
  out << "host: " << bench::hostCpuName() << "; vectors used: " << bits
      << "-bit (" << bench::describeVectorBits(bits) << "); "
      << bench::describeJitDevice(jitDevice) << "\n\n";
  double copyGBps = bench::memcpyGBps(runs, size_t(256) << 20);
  double twoThreadGBps = bench::memcpyGBpsOnThreads(runs, size_t(256) << 20, 2);
  HostLimits host{copyGBps, twoThreadGBps / copyGBps};
  out << "| figure (samples, hidden, capacity, experts) | value | ratio |\n"
      << "|---|---:|---:|\n";
  out << "| memcpy bandwidth, 1 thread, 256 MiB | "
      << llvm::format("%.2f", copyGBps) << " GB/s | 1.00 |\n";
  out << "| memcpy bandwidth, 2 threads at once, 256 MiB | "
      << llvm::format("%.2f", twoThreadGBps) << " GB/s | "
      << llvm::format("%.2f", host.twoThreadCopyScaling) << "x one thread |\n";
  for (Shape s : {Shape{18432, 512, 11520, 2}, Shape{4608, 1024, 2880, 2}}) {
    RouterData data(s);
    for (const OpBench *op :
         {&kBackwardData, &kForward, &kBackwardGate, &kCombine})
      benchOp(ctx, *op, s, data, host);
  }
  return 0;
}
