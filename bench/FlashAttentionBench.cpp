//===- FlashAttentionBench.cpp - npu.flash_attention, both directions -----===//
//
// The issue's shapes: B 1, N 8, D 128, S = S1 = S2.
//  - Simulator, ascend910b, f16, S 1024 / 4096 (--sim-16k adds 16384), no
//    mask and causal (sparse_mode 2), forward, backward, and backward with
//    recompute_statistics = false (reading the forward's): modelled time,
//    cube utilisation (MACs over what 24 cube cores do at the f16 rate),
//    IO efficiency, the roofline ratio, the L2's hit rate and HBM bytes,
//    and each pipe's busy share of the cores' time.
//  - --sensitivity: the S 4096 forward on each preset with each assumed L2
//    and DMA parameter halved and doubled (docs/device-model.md).
//  - JIT on this machine, one thread, f32, S 1024 / 2048 / 4096, forward
//    and backward: GFLOP/s (forward 4 S^2 D per head: Q K^T and P V;
//    backward 8 S^2 D: dV, dP, dQ, dK, as the peer script counts) and its
//    fraction of this core's peak FMA rate, measured in the same run; the
//    kernels built for --jit-device (mlu590: on a two-core host the `host`
//    device's one vector task per group, in a quarter of the L2, runs the
//    backward 2.4x slower, docs/benchmarks.md).
// The peer is python3-torch's attention, bench/flash_attention_peer.py,
// at its strongest (OpenBLAS, the faster of its kernels for this CPU):
// --peer runs it first and gives each JIT row as a ratio to it.
//
// Usage: npu-flash-attention-bench [--runs=3] [--sim-16k] [--no-sim]
//          [--no-jit] [--peer] [--sensitivity] [--jit-device=mlu590]
//
//===----------------------------------------------------------------------===//

#include "BenchSupport.h"
#include "npu/Conversion/LoweredSignature.h"
#include "npu/Conversion/Pipelines.h"
#include "npu/Dialect/NPUDev/DeviceAttr.h"
#include "npu/InitAll.h"
#include "npu/JIT/Jit.h"
#include "npu/Simulator/Execution.h"
#include "npu/Simulator/Simulator.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <cstdio>
#include <map>
#include <random>

using namespace mlir;
using namespace npu;

static llvm::cl::opt<unsigned> runs("runs", llvm::cl::desc("runs per figure"),
                                    llvm::cl::init(3));
static llvm::cl::opt<bool> sim16k("sim-16k",
                                  llvm::cl::desc("also simulate S = 16384"));
static llvm::cl::opt<bool> noSim("no-sim",
                                 llvm::cl::desc("skip the simulator"));
static llvm::cl::opt<bool> noJit("no-jit", llvm::cl::desc("skip the JIT"));
static llvm::cl::opt<std::string>
    jitDevice("jit-device",
              llvm::cl::desc("device the JIT's kernels are built for (preset "
                             "or JSON; host: this machine)"),
              llvm::cl::init("mlu590"));
static llvm::cl::opt<bool>
    withPeer("peer", llvm::cl::desc("run bench/flash_attention_peer.py "
                                    "(python3-torch) before the JIT and give "
                                    "each JIT row as a ratio to it"));
static llvm::cl::opt<bool>
    sensitivity("sensitivity",
                llvm::cl::desc("simulate the S 4096 forward with each "
                               "assumed device parameter halved and "
                               "doubled"));

namespace {

constexpr int64_t kHeads = 8, kHeadDim = 128;

/// The forward, the backward, or the backward reading the forward's
/// statistics (recompute_statistics = false).
enum class Direction { Forward, Backward, BackwardReading };

const char *getDirectionName(Direction d) {
  switch (d) {
  case Direction::Forward:
    return " forward";
  case Direction::Backward:
    return " backward";
  case Direction::BackwardReading:
    return " backward reading statistics";
  }
  return "";
}

llvm::raw_ostream &out() { return llvm::outs(); }

/// The module of one attention in `direction`, lowered for `device`; with
/// `runTimeLengths` its types read S at run time.
OwningOpRef<ModuleOp> lowerAttention(MLIRContext &ctx, int64_t s,
                                     const char *element, int64_t mode,
                                     const char *device, Direction direction,
                                     bool runTimeLengths = false) {
  bool grad = direction != Direction::Forward;
  std::string length = runTimeLengths ? "?" : std::to_string(s);
  std::string t = llvm::formatv("tensor<1x{0}x{1}x{2}x{3}>", kHeads, length,
                                kHeadDim, element);
  std::string stats = llvm::formatv("tensor<1x{0}x{1}x8xf32>", kHeads, length);
  std::string source =
      grad
          ? llvm::formatv(
                R"mlir(func.func @fa(%q: {0}, %k: {0}, %v: {0}, %dy: {0}, %m: {1}, %s: {1}, %o: {0}) -> ({0}, {0}, {0}) {{
  %dq, %dk, %dv = npu.flash_attention_grad %q, %k, %v, %dy, %m, %s, %o {{input_layout = #npu.attention_layout<BNSD>, head_num = {2}, scale = 8.8388347648318440e-02, sparse_mode = {3}{4}} : ({0}, {0}, {0}, {0}, {1}, {1}, {0}) -> ({0}, {0}, {0})
  return %dq, %dk, %dv : {0}, {0}, {0}
})mlir",
                t, stats, kHeads, mode,
                direction == Direction::BackwardReading
                    ? ", recompute_statistics = false"
                    : "")
                .str()
          : llvm::formatv(
                R"mlir(func.func @fa(%q: {0}, %k: {0}, %v: {0}) -> ({1}, {1}, {0}) {{
  %m, %s, %o = npu.flash_attention %q, %k, %v {{input_layout = #npu.attention_layout<BNSD>, head_num = {2}, scale = 8.8388347648318440e-02, sparse_mode = {3}} : ({0}, {0}, {0}) -> ({1}, {1}, {0})
  return %m, %s, %o : {1}, {1}, {0}
})mlir",
                t, stats, kHeads, mode)
                .str();
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &ctx);
  PassManager pm(&ctx);
  GraphToDevicePipelineOptions options;
  options.device = device;
  buildGraphToDevicePipeline(pm, options);
  if (!module || failed(pm.run(*module)))
    std::exit(1);
  return module;
}

/// Random inputs (a sequence length read at run time: `s`) and empty
/// outputs for the lowered @fa.
std::vector<HostArray> arguments(ModuleOp module, int64_t s) {
  auto func = module.lookupSymbol<func::FuncOp>("fa");
  std::mt19937 rng(1);
  std::uniform_real_distribution<double> unit(-1, 1);
  std::vector<HostArray> args;
  for (auto [i, type] : llvm::enumerate(func.getArgumentTypes())) {
    auto memref = cast<MemRefType>(type);
    HostArray a;
    a.kind = *getElementKind(memref.getElementType());
    // Inputs (the three of the forward, the seven of the backward, whose
    // statistics are then plausible: max near 0, sum near S).
    bool output = func.getArgAttr(i, signature::kOutput) != nullptr;
    a.shape.assign(memref.getShape().begin(), memref.getShape().end());
    if (output)
      a.shape = cantFail(signature::bindOutputShape(
          func, i, memref.getShape(), args.size(),
          [&](unsigned arg) { return ArrayRef<int64_t>(args[arg].shape); }));
    for (int64_t &size : a.shape)
      if (ShapedType::isDynamic(size))
        size = s;
    unsigned bytes = getElementBytes(a.kind);
    a.data.resize(a.getNumElements() * bytes);
    if (!output)
      for (int64_t e = 0; e < a.getNumElements(); ++e)
        storeFloat(a.data.data() + e * bytes, a.kind,
                   a.shape.back() == 8 && i == 5 ? double(s) : unit(rng));
    args.push_back(std::move(a));
  }
  return args;
}

/// Simulates attention at `s` on `device` (`preset` with some of the
/// parameters the lowering does not read changed): the kernel is built for
/// `preset` and then marked as compiled for `device`.
sim::SimulationReport simulateAttention(MLIRContext &ctx, int64_t s,
                                        int64_t mode, Direction direction,
                                        StringRef preset,
                                        const DeviceModel &device,
                                        bool runTimeLengths = false) {
  OwningOpRef<ModuleOp> module = lowerAttention(
      ctx, s, "f16", mode, preset.str().c_str(), direction, runTimeLengths);
  (*module)->setAttr("npudev.device", dev::getDeviceAttr(&ctx, device));
  std::vector<HostArray> args = arguments(*module, s);
  sim::SimulationReport report;
  auto func = module->lookupSymbol<func::FuncOp>("fa");
  if (failed(sim::simulate(func, args, {}, report)))
    std::exit(1);
  return report;
}

void benchSimulator(MLIRContext &ctx, int64_t s, int64_t mode,
                    Direction direction) {
  DeviceModel device = cantFail(DeviceModel::getPreset("ascend910b"));
  sim::SimulationReport report =
      simulateAttention(ctx, s, mode, direction, "ascend910b", device);
  unsigned cores = device.getNumCores(dev::CoreKind::vector) +
                   device.getNumCores(dev::CoreKind::cube);
  std::string pipes;
  for (unsigned p = 0; p < sim::kNumPipes; ++p)
    pipes += llvm::formatv("{0}{1} {2:P0}", p ? ", " : "",
                           sim::getPipeName(static_cast<sim::Pipe>(p)),
                           report.pipeBusyCycles[p] / (cores * report.cycles))
                 .str();
  int64_t lines = report.l2Hits + report.l2Misses;
  out() << "| sim ascend910b f16 S " << s << getDirectionName(direction)
        << (mode ? " causal" : " no mask") << " | "
        << llvm::format("%.1f", report.seconds * 1e6) << " us | "
        << llvm::format("%.1f%%", 100 * report.cubeUtilization) << " | "
        << llvm::format("%.1f%%", 100 * report.ioEfficiency) << " | "
        << llvm::format("%.1f%%", 100 * report.rooflineRatio) << " | "
        << llvm::format("%.1f%%", lines ? 100.0 * report.l2Hits / lines : 0.0)
        << ", HBM " << llvm::format("%.1f", report.hbmBytes / 1e6) << " of "
        << llvm::format("%.1f", report.globalBytes / 1e6) << " MB | " << pipes
        << " |\n";
}

/// The module that reads S at run time against the one built for it
/// (issue #34's target: within 5%), and the forward's template taken.
void benchRunTimeLengths(MLIRContext &ctx, int64_t s, int64_t mode,
                         Direction direction) {
  DeviceModel device = cantFail(DeviceModel::getPreset("ascend910b"));
  sim::SimulationReport fixed =
      simulateAttention(ctx, s, mode, direction, "ascend910b", device);
  sim::SimulationReport read =
      simulateAttention(ctx, s, mode, direction, "ascend910b", device, true);
  std::string taken = "one kernel";
  for (const sim::SimulationReport::Step &step : read.steps)
    if (StringRef(step.name).starts_with("flash_attention."))
      taken = step.name;
  out() << "| sim ascend910b f16 S " << s << getDirectionName(direction)
        << (mode ? " causal" : " no mask") << " | "
        << llvm::format("%.1f", fixed.seconds * 1e6) << " us | "
        << llvm::format("%.1f", read.seconds * 1e6) << " us (" << taken
        << ") | " << llvm::format("%.3fx", read.seconds / fixed.seconds)
        << " |\n";
}

/// The S 4096 forward's cube utilisation on `preset` with each assumed
/// parameter of it (docs/device-model.md) halved and doubled.
void benchSensitivity(MLIRContext &ctx, StringRef preset) {
  using Scale = void (*)(DeviceModel &, double);
  struct Parameter {
    const char *name;
    Scale scale;
    bool sourced910b;
  };
  static const Parameter parameters[] = {
      {"l2_bytes", [](DeviceModel &d, double f) { d.l2Bytes *= f; }, true},
      {"l2_gbps", [](DeviceModel &d, double f) { d.l2GBps *= f; }, true},
      {"l2_line_bytes", [](DeviceModel &d, double f) { d.l2LineBytes *= f; },
       false},
      {"l2_ways", [](DeviceModel &d, double f) { d.l2Ways *= f; }, false},
      {"l2_latency_cycles",
       [](DeviceModel &d, double f) { d.l2LatencyCycles *= f; }, false},
      {"dma_latency_cycles",
       [](DeviceModel &d, double f) { d.dmaLatencyCycles *= f; }, false},
      {"dma_gbps", [](DeviceModel &d, double f) { d.dmaGBps *= f; }, true},
      {"dma_l2_read_gbps",
       [](DeviceModel &d, double f) { d.dmaL2ReadGBps *= f; }, true},
      {"dma_l2_write_gbps",
       [](DeviceModel &d, double f) { d.dmaL2WriteGBps *= f; }, true},
      {"dma_max_outstanding",
       [](DeviceModel &d, double f) { d.dmaMaxOutstanding *= f; }, false},
  };
  DeviceModel base = cantFail(DeviceModel::getPreset(preset));
  auto utilisation = [&](const DeviceModel &device) {
    return 100 *
           simulateAttention(ctx, 4096, 0, Direction::Forward, preset, device)
               .cubeUtilization;
  };
  out() << "\n| " << preset << " parameter (S 4096 forward, cube utilisation "
        << llvm::format("%.1f%%", utilisation(base))
        << " as preset) | halved | doubled |\n|---|---:|---:|\n";
  for (const Parameter &p : parameters) {
    if (preset == "ascend910b" && p.sourced910b)
      continue;
    out() << "| " << p.name;
    for (double f : {0.5, 2.0}) {
      DeviceModel device = base;
      p.scale(device, f);
      out() << " | " << llvm::format("%.1f%%", utilisation(device));
    }
    out() << " |\n";
  }
}

/// The torch peer's configurations (its BLAS and kernels) and, per
/// length, its best seconds forward and backward with the configuration
/// each came from.
struct TorchPeer {
  std::vector<std::string> names;
  std::map<int64_t, std::pair<double, unsigned>> forward, backward;
};

/// Runs bench/flash_attention_peer.py --machine; empty when it fails.
TorchPeer runTorchPeer() {
  TorchPeer peer;
  std::string command = "/usr/bin/python3 " NPU_BENCH_DIR
                        "/flash_attention_peer.py --machine --runs=" +
                        std::to_string(runs);
  FILE *pipe = popen(command.c_str(), "r");
  if (!pipe)
    return peer;
  char buffer[1024];
  while (std::fgets(buffer, sizeof(buffer), pipe)) {
    StringRef line = StringRef(buffer).trim();
    SmallVector<StringRef> fields;
    line.split(fields, ' ');
    if (fields.size() > 2 && fields[0] == "peer")
      peer.names.push_back(line.split(' ').second.split(' ').second.str());
    int64_t s;
    unsigned fwdPeer, bwdPeer;
    double fwd, bwd;
    if (fields.size() == 6 && fields[0] == "S" &&
        !fields[1].getAsInteger(10, s) && !fields[2].getAsDouble(fwd) &&
        !fields[3].getAsInteger(10, fwdPeer) && !fields[4].getAsDouble(bwd) &&
        !fields[5].getAsInteger(10, bwdPeer)) {
      peer.forward[s] = {fwd, fwdPeer};
      peer.backward[s] = {bwd, bwdPeer};
    }
  }
  if (pclose(pipe) != 0)
    llvm::errs() << "torch peer: " << command << " failed\n";
  return peer;
}

void benchJit(MLIRContext &ctx, int64_t s, double peak, bool grad,
              const TorchPeer &peer) {
  OwningOpRef<ModuleOp> module =
      lowerAttention(ctx, s, "f32", 0, jitDevice.c_str(),
                     grad ? Direction::Backward : Direction::Forward);
  std::vector<HostArray> args = arguments(*module, s);
  // Compilation is timed apart: the run time is what a cached kernel costs.
  FailureOr<std::unique_ptr<jit::CompiledKernel>> kernel = failure();
  double compileSeconds = bench::bestOf(
      1, [&] { kernel = jit::CompiledKernel::compile(*module, "fa"); });
  if (failed(kernel))
    std::exit(1);
  double t = bench::bestOf(runs, [&] { llvm::cantFail((*kernel)->run(args)); });
  double gflops = (grad ? 8.0 : 4.0) * kHeads * s * s * kHeadDim / t / 1e9;
  out() << "| JIT f32 1 thread S " << s << (grad ? " backward" : " forward")
        << " | " << llvm::format("%.1f", t * 1e3) << " ms | "
        << llvm::format("%.1f", gflops) << " GFLOP/s | "
        << llvm::format("%.3f", gflops / peak) << " of FMA peak | "
        << llvm::format("%.2f", compileSeconds) << " s | ";
  const auto &peerTimes = grad ? peer.backward : peer.forward;
  auto it = peerTimes.find(s);
  if (it == peerTimes.end()) {
    out() << "| |\n";
    return;
  }
  auto [peerSeconds, config] = it->second;
  out() << llvm::format("%.1f", peerSeconds * 1e3) << " ms (peer " << config
        << ") | " << llvm::format("%.2fx", peerSeconds / t) << " |\n";
}

} // namespace

int main(int argc, char **argv) {
  llvm::cl::ParseCommandLineOptions(argc, argv,
                                    "npu.flash_attention benchmark\n");
  DialectRegistry registry;
  registerAllDialects(registry);
  sim::registerSimulatorModels(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  if (!noSim) {
    out() << "| simulator | modelled time | cube utilisation | IO efficiency "
             "| roofline | L2 hits, HBM bytes | pipe busy share |\n"
             "|---|---:|---:|---:|---:|---|---|\n";
    std::vector<int64_t> lengths = {1024, 4096};
    if (sim16k)
      lengths.push_back(16384);
    for (Direction direction :
         {Direction::Forward, Direction::Backward, Direction::BackwardReading})
      for (int64_t s : lengths)
        for (int64_t mode : {0, 2})
          benchSimulator(ctx, s, mode, direction);
    out() << "\n| lengths read at run time | static | read at run time "
             "(template taken) | ratio |\n|---|---:|---:|---:|\n";
    for (Direction direction : {Direction::Forward, Direction::Backward})
      for (int64_t s : lengths)
        for (int64_t mode : {0, 2})
          benchRunTimeLengths(ctx, s, mode, direction);
  }
  if (sensitivity)
    for (StringRef preset : {"ascend910b", "mlu590"})
      benchSensitivity(ctx, preset);
  if (!noJit) {
    auto [avx2, avx512] = bench::peakFmaGFlops(runs);
    double peak = std::max(avx2, avx512);
    TorchPeer peer = withPeer ? runTorchPeer() : TorchPeer();
    out() << "\n";
    for (auto [i, name] : llvm::enumerate(peer.names))
      out() << "peer " << i << ": " << name << "\n";
    out() << "\n" << bench::describeJitDevice(jitDevice) << "\n";
    out() << "\n| JIT | time | rate | ratio | compile | torch | JIT / torch "
             "|\n|---|---:|---:|---:|---:|---:|---:|\n";
    out() << "| peak FMA rate, 1 core (" << (avx512 > 0 ? "AVX-512" : "AVX2")
          << ") | | " << llvm::format("%.1f", peak)
          << " GFLOP/s | 1.000 | | | |\n";
    for (bool grad : {false, true})
      for (int64_t s : {1024, 2048, 4096})
        benchJit(ctx, s, peak, grad, peer);
  }
  return 0;
}
