//===- SparseConvBench.cpp - get_indice_pairs and sparse_conv3d -----------===//
//
// The two shapes of mlu-ops' get_indice_pairs design, with sites from the
// LiDAR-like generator (LidarSites.h, calibrated so the default shape
// reaches about that design's 58,838 output sites):
//  - subm:    L 248,636, batch 4, 41x1440x1440, k3 s1 p1;
//  - default: L 149,100, batch 4, 11x360x360,   k3 s2 p(0,1,1);
//  - small:   the default shape with a frame of 2,000 sites, where a
//    module whose L is read at run time must not pay the default's tile.
// For each and each strategy (sort, grid): the global workspace the
// lowering allocates; the simulator's modelled time on mlu590 with its
// time by step (default shape; --sim-subm adds subm); the JIT on one
// thread against two peers timed in the same run, spconv 1.x's CPU
// algorithm (a dense grid of the output sites, rows in discovery order)
// and a hash map (rows in ascending order, as the op defines them).
// Every executor's indice_num must equal the peers'.
// Then sparse_conv3d at Cin = Cout = 64 on the subm shape's pairs, JIT on
// one thread, as GFLOP/s and as a fraction of this core's peak FMA rate
// measured in the same run.
//
// The JIT's kernels are built for --jit-device (host: this machine, one
// task per hardware thread), the simulator's for --device (mlu590).
//
// Usage: npu-sparse-conv-bench [--runs=3] [--sim-subm] [--no-sim]
//          [--shapes=default,subm,small,conv] [--strategies=sort,grid]
//          [--jit-device=host]
//
//===----------------------------------------------------------------------===//

#include "BenchSupport.h"
#include "LidarSites.h"
#include "npu/Conversion/LoweredSignature.h"
#include "npu/Conversion/Pipelines.h"
#include "npu/Device/DeviceModel.h"
#include "npu/Dialect/NPUDev/NPUDevDialect.h"
#include "npu/InitAll.h"
#include "npu/JIT/Jit.h"
#include "npu/Simulator/Execution.h"
#include "npu/Simulator/Simulator.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <numeric>
#include <unordered_map>

using namespace mlir;
using namespace npu;

static llvm::cl::opt<unsigned> runs("runs", llvm::cl::desc("runs per figure"),
                                    llvm::cl::init(3));
static llvm::cl::opt<bool> simSubm("sim-subm",
                                   llvm::cl::desc("also simulate the subm "
                                                  "shape (1.4 GB grid)"));
static llvm::cl::opt<bool> noSim("no-sim",
                                 llvm::cl::desc("skip the simulator"));
static llvm::cl::opt<std::string>
    simDevice("device",
              llvm::cl::desc("device the simulator models (preset or JSON)"),
              llvm::cl::init("mlu590"));
static llvm::cl::opt<std::string>
    jitDevice("jit-device",
              llvm::cl::desc("device the JIT's kernels are built for (preset "
                             "or JSON; host: this machine)"),
              llvm::cl::init("host"));
static llvm::cl::list<std::string>
    strategies("strategies", llvm::cl::desc("strategies to run (sort, grid)"),
               llvm::cl::CommaSeparated);
static llvm::cl::list<std::string>
    shapes("shapes",
           llvm::cl::desc("shapes to run (default, subm, small, conv)"),
           llvm::cl::CommaSeparated);

/// Whether `name` is in `list` (an empty list takes everything).
static bool selected(const llvm::cl::list<std::string> &list,
                     llvm::StringRef name) {
  return list.empty() || llvm::is_contained(list, name.str());
}

namespace {

using Site = std::array<int32_t, 4>;

struct Shape {
  const char *name;
  int64_t sites, batch;
  std::array<int64_t, 3> spatial, stride, padding;
  bool subm;

  std::array<int64_t, 3> out() const {
    std::array<int64_t, 3> o;
    for (int d = 0; d < 3; ++d)
      o[d] = (spatial[d] + 2 * padding[d] - 3) / stride[d] + 1;
    return o;
  }
};

const Shape kSubm{"subm",    248636,    4,   {41, 1440, 1440},
                  {1, 1, 1}, {1, 1, 1}, true};
const Shape kDefault{"default", 149100,    4,    {11, 360, 360},
                     {2, 2, 2}, {0, 1, 1}, false};
const Shape kSmall{"small",   2000,      4,    {11, 360, 360},
                   {2, 2, 2}, {0, 1, 1}, false};
constexpr int64_t kOffsets = 27;

std::string dims(const std::array<int64_t, 3> &d) {
  return llvm::formatv("array<i64: {0}, {1}, {2}>", d[0], d[1], d[2]).str();
}

/// get_indice_pairs alone, lowered for `device` with `strategy`; with
/// `dynamicSites` the number of sites is read at run time.
OwningOpRef<ModuleOp> lowerPairs(MLIRContext &ctx, const Shape &s,
                                 StringRef strategy,
                                 StringRef device = "mlu590",
                                 bool dynamicSites = false) {
  std::string sites = dynamicSites ? "?" : std::to_string(s.sites);
  std::string rows = s.subm ? sites : "?";
  std::string text = llvm::formatv(
      R"(func.func @pairs(%idx: tensor<{0}x4xi32>)
             -> (tensor<{1}x4xi32>, tensor<27x2x{0}xi32>, tensor<27xi32>) {
           %o, %p, %n = npu.get_indice_pairs %idx {batch_size = {2} : i64,
               spatial_shape = {3}, kernel_size = array<i64: 3, 3, 3>,
               stride = {4}, padding = {5}{6}}
               : (tensor<{0}x4xi32>) -> (tensor<{1}x4xi32>,
                                         tensor<27x2x{0}xi32>, tensor<27xi32>)
           return %o, %p, %n : tensor<{1}x4xi32>, tensor<27x2x{0}xi32>,
                               tensor<27xi32>
         })",
      sites, rows, s.batch, dims(s.spatial), dims(s.stride), dims(s.padding),
      s.subm ? ", subm" : "");
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &ctx);
  PassManager pm(&ctx);
  GraphToDevicePipelineOptions options;
  options.sparseConvStrategy = strategy.str();
  options.device = device.str();
  buildGraphToDevicePipeline(pm, options);
  if (!module || failed(pm.run(*module)))
    std::exit(1);
  return module;
}

/// Bytes of the global buffers the lowered function allocates.
int64_t workspaceBytes(func::FuncOp func) {
  int64_t bytes = 0;
  func.walk([&](memref::AllocOp alloc) {
    MemRefType type = alloc.getType();
    if (isa_and_nonnull<dev::MemorySpaceAttr>(type.getMemorySpace()))
      bytes += type.getNumElements() * type.getElementTypeBitWidth() / 8;
  });
  return bytes;
}

/// The function's arguments: the sites, then zeroed results.
std::vector<HostArray> pairsArguments(func::FuncOp func,
                                      const std::vector<Site> &sites) {
  std::vector<int32_t> flat;
  for (const Site &s : sites)
    flat.insert(flat.end(), s.begin(), s.end());
  std::vector<HostArray> args = {HostArray::fromValues(
      ElementKind::I32, flat, {int64_t(sites.size()), 4})};
  for (auto [i, type] : llvm::enumerate(func.getArgumentTypes())) {
    if (i == 0)
      continue;
    auto memref = cast<MemRefType>(type);
    HostArray a;
    a.kind = *getElementKind(memref.getElementType());
    a.shape = cantFail(signature::bindOutputShape(
        func, i, memref.getShape(), 1,
        [&](unsigned) { return ArrayRef<int64_t>(args[0].shape); }));
    a.data.assign(a.getNumElements() * getElementBytes(a.kind), 0);
    args.push_back(std::move(a));
  }
  return args;
}

//===--- Peers
//-------------------------------------------------------------===//

/// What a peer computes: the output sites' count and indice_num (the
/// pairs themselves are written too, to cost what the op costs).
struct PeerResult {
  int64_t outputs = 0;
  std::vector<int32_t> num;
};

struct PairsBuffers {
  std::vector<int32_t> pairs, num;
  std::vector<Site> outIndices;
  PairsBuffers(int64_t sites)
      : pairs(kOffsets * 2 * sites), num(kOffsets),
        outIndices(kOffsets * sites) {}
};

/// Per dimension, the output coordinate of x through offset r at
/// [x * 3 + r], or -1: the peers look reaches up instead of dividing.
using ReachTables = std::array<std::vector<int32_t>, 3>;
ReachTables reachTables(const Shape &s) {
  std::array<int64_t, 3> out = s.out();
  ReachTables tables;
  for (int d = 0; d < 3; ++d)
    for (int64_t x = 0; x < s.spatial[d]; ++x)
      for (int64_t r = 0; r < 3; ++r) {
        int64_t t = x + s.padding[d] - r, o = t / s.stride[d];
        bool valid = t >= 0 && t % s.stride[d] == 0 && o < out[d];
        tables[d].push_back(valid ? int32_t(o) : -1);
      }
  return tables;
}

/// Calls `fn(k, i, key)` for every valid candidate, offsets outermost as
/// the pair table is laid out.
template <typename Fn>
void forEachCandidate(const Shape &s, const ReachTables &tables,
                      const std::vector<Site> &sites, Fn fn) {
  std::array<int64_t, 3> out = s.out();
  for (int64_t k = 0; k < kOffsets; ++k) {
    int64_t r[3] = {k / 9, k / 3 % 3, k % 3};
    for (size_t i = 0; i < sites.size(); ++i) {
      const Site &p = sites[i];
      int64_t oz = tables[0][p[1] * 3 + r[0]];
      int64_t oy = tables[1][p[2] * 3 + r[1]];
      int64_t ox = tables[2][p[3] * 3 + r[2]];
      if ((oz | oy | ox) < 0)
        continue;
      fn(k, int64_t(i), ((p[0] * out[0] + oz) * out[1] + oy) * out[2] + ox);
    }
  }
}

/// spconv 1.x's CPU algorithm: a dense grid of the output sites holds
/// each site's row, numbered in discovery order (subm: the input rows).
PeerResult denseGridPeer(const Shape &s, const ReachTables &tables,
                         const std::vector<Site> &sites, PairsBuffers &b,
                         std::vector<int32_t> &grid) {
  std::array<int64_t, 3> out = s.out();
  std::fill(grid.begin(), grid.end(), -1);
  std::fill(b.num.begin(), b.num.end(), 0);
  int64_t L = sites.size(), outputs = 0;
  if (s.subm) {
    for (int64_t i = 0; i < L; ++i) {
      const Site &p = sites[i];
      grid[((p[0] * out[0] + p[1]) * out[1] + p[2]) * out[2] + p[3]] = i;
    }
    outputs = L;
  }
  forEachCandidate(s, tables, sites, [&](int64_t k, int64_t i, int64_t key) {
    int32_t &row = grid[key];
    if (row < 0) {
      if (s.subm)
        return;
      row = outputs;
      b.outIndices[outputs++] = sites[i];
    }
    int32_t n = b.num[k]++;
    b.pairs[(k * 2) * L + n] = i;
    b.pairs[(k * 2 + 1) * L + n] = row;
  });
  return {outputs, b.num};
}

/// A hash map from site to row; default mode numbers the distinct
/// reached sites in ascending order first, as the op defines.
PeerResult hashMapPeer(const Shape &s, const ReachTables &tables,
                       const std::vector<Site> &sites, PairsBuffers &b) {
  std::array<int64_t, 3> out = s.out();
  std::fill(b.num.begin(), b.num.end(), 0);
  int64_t L = sites.size();
  std::unordered_map<int64_t, int32_t> rowOf;
  rowOf.reserve(2 * L);
  if (s.subm) {
    for (int64_t i = 0; i < L; ++i) {
      const Site &p = sites[i];
      rowOf[((p[0] * out[0] + p[1]) * out[1] + p[2]) * out[2] + p[3]] = i;
    }
  } else {
    forEachCandidate(s, tables, sites, [&](int64_t, int64_t, int64_t key) {
      rowOf.emplace(key, 0);
    });
    std::vector<int64_t> keys;
    keys.reserve(rowOf.size());
    for (const auto &entry : rowOf)
      keys.push_back(entry.first);
    std::sort(keys.begin(), keys.end());
    for (size_t r = 0; r < keys.size(); ++r)
      rowOf[keys[r]] = r;
  }
  forEachCandidate(s, tables, sites, [&](int64_t k, int64_t i, int64_t key) {
    auto it = rowOf.find(key);
    if (it == rowOf.end())
      return;
    int32_t n = b.num[k]++;
    b.pairs[(k * 2) * L + n] = i;
    b.pairs[(k * 2 + 1) * L + n] = it->second;
  });
  return {int64_t(rowOf.size()), b.num};
}

//===--- Figures
//-----------------------------------------------------------===//

llvm::raw_ostream &out() { return llvm::outs(); }

/// indice_num and the output count of a run of the lowered function.
PeerResult resultOf(const std::vector<HostArray> &args, const Shape &s) {
  PeerResult r;
  r.num = args[3].getValues<int32_t>();
  r.outputs = s.subm ? s.sites : args[4].getValues<int64_t>()[0];
  return r;
}

void check(const PeerResult &got, const PeerResult &want, const char *what) {
  if (got.outputs != want.outputs || got.num != want.num) {
    llvm::errs() << what << " disagrees with the peers: " << got.outputs
                 << " output sites against " << want.outputs << "\n";
    std::exit(1);
  }
}

/// The simulator's report of get_indice_pairs at `s` on `sites`, its
/// number of sites static or (`dynamicSites`) read at run time.
sim::SimulationReport simulatePairs(MLIRContext &ctx, const Shape &s,
                                    const std::vector<Site> &sites,
                                    StringRef strategy, const PeerResult &want,
                                    const DeviceModel &device,
                                    bool dynamicSites) {
  OwningOpRef<ModuleOp> module =
      lowerPairs(ctx, s, strategy, simDevice, dynamicSites);
  auto func = *module->getOps<func::FuncOp>().begin();
  std::vector<HostArray> args = pairsArguments(func, sites);
  sim::SimulationReport report;
  if (failed(sim::simulate(func, args, device, {}, report)))
    std::exit(1);
  check(resultOf(args, s), want, "the simulator");
  return report;
}

void simulateStrategy(MLIRContext &ctx, const Shape &s,
                      const std::vector<Site> &sites, StringRef strategy,
                      const PeerResult &want) {
  DeviceModel device = llvm::cantFail(DeviceModel::load(simDevice));
  sim::SimulationReport report =
      simulatePairs(ctx, s, sites, strategy, want, device, false);
  out() << "| simulator, " << device.name << ", " << s.name << ", " << strategy
        << " | " << llvm::format("%.1f", report.seconds * 1e6)
        << " us modelled | IO "
        << llvm::format("%.1f%%", 100 * report.ioEfficiency) << ", roofline "
        << llvm::format("%.1f%%", 100 * report.rooflineRatio) << " |\n";
  for (const sim::SimulationReport::Step &step : report.steps)
    out() << "| &nbsp;&nbsp;step " << step.name << " | "
          << llvm::format("%.1f", step.cycles / (device.clockGHz * 1e3))
          << " us | "
          << llvm::format("%.1f%%", 100 * step.cycles / report.cycles)
          << ", roofline "
          << llvm::format("%.1f%%", 100 * step.boundCycles / step.cycles) << " "
          << step.getLimit() << " |\n";
  // The same compiled for any number of sites (issue #34).
  sim::SimulationReport dynamic =
      simulatePairs(ctx, s, sites, strategy, want, device, true);
  out() << "| simulator, " << device.name << ", " << s.name << ", " << strategy
        << ", sites read at run time | "
        << llvm::format("%.1f", dynamic.seconds * 1e6) << " us modelled | "
        << llvm::format("%.3f", dynamic.seconds / report.seconds)
        << "x the static kernel |\n";
}

double jitStrategy(MLIRContext &ctx, const Shape &s,
                   const std::vector<Site> &sites, StringRef strategy,
                   const PeerResult &want, double peerSeconds) {
  OwningOpRef<ModuleOp> module = lowerPairs(ctx, s, strategy, jitDevice);
  auto func = *module->getOps<func::FuncOp>().begin();
  int64_t workspace = workspaceBytes(func);
  std::vector<HostArray> args = pairsArguments(func, sites);
  auto kernel = jit::CompiledKernel::compile(*module, "pairs");
  if (failed(kernel))
    std::exit(1);
  double t = bench::bestOf(runs, [&] { llvm::cantFail((*kernel)->run(args)); });
  check(resultOf(args, s), want, "the JIT");
  out() << "| JIT, 1 thread, " << s.name << ", " << strategy << " | "
        << llvm::format("%.2f", t * 1e3) << " ms | "
        << llvm::format("%.2f", peerSeconds / t)
        << "x the faster peer; workspace "
        << llvm::format("%.1f", workspace / 1e6) << " MB |\n";
  return t;
}

void benchShape(MLIRContext &ctx, const Shape &s,
                const std::vector<Site> &sites) {
  std::array<int64_t, 3> o = s.out();
  PairsBuffers buffers(sites.size());
  std::vector<int32_t> grid(s.batch * o[0] * o[1] * o[2]);
  ReachTables tables = reachTables(s);
  PeerResult dense, hash;
  double tDense = bench::bestOf(
      runs, [&] { dense = denseGridPeer(s, tables, sites, buffers, grid); });
  double tHash = bench::bestOf(
      runs, [&] { hash = hashMapPeer(s, tables, sites, buffers); });
  check(dense, hash, "the dense-grid peer");
  out() << "| " << s.name << ": L " << sites.size() << ", num_act_out "
        << hash.outputs << ", pairs "
        << std::accumulate(hash.num.begin(), hash.num.end(), int64_t(0))
        << " | | |\n";
  out() << "| peer: dense grid (spconv 1.x CPU; " NPU_BENCH_LOOP_FLAGS "), "
        << s.name << " | " << llvm::format("%.2f", tDense * 1e3) << " ms | |\n";
  out() << "| peer: hash map (" NPU_BENCH_LOOP_FLAGS "), " << s.name << " | "
        << llvm::format("%.2f", tHash * 1e3) << " ms | |\n";
  for (StringRef strategy : {"sort", "grid"})
    if (selected(strategies, strategy))
      jitStrategy(ctx, s, sites, strategy, hash, std::min(tDense, tHash));
  if (!noSim && (!s.subm || simSubm))
    for (StringRef strategy : {"sort", "grid"})
      if (selected(strategies, strategy))
        simulateStrategy(ctx, s, sites, strategy, hash);
}

/// sparse_conv3d, subm, Cin = Cout = 64, on the pairs of `sites`.
void benchConv(MLIRContext &ctx, const Shape &s, const std::vector<Site> &sites,
               double peakGFlops) {
  const int64_t c = 64, L = sites.size();
  PairsBuffers buffers(L);
  std::vector<int32_t> grid(s.batch * s.spatial[0] * s.spatial[1] *
                            s.spatial[2]);
  PeerResult pairs = denseGridPeer(s, reachTables(s), sites, buffers, grid);
  int64_t total =
      std::accumulate(pairs.num.begin(), pairs.num.end(), int64_t(0));
  std::string text = llvm::formatv(
      R"(func.func @conv(%f: tensor<{0}x{1}xf32>, %w: tensor<27x{1}x{1}xf32>,
                         %p: tensor<27x2x{0}xi32>, %n: tensor<27xi32>)
             -> tensor<{0}x{1}xf32> {
           %rows = arith.constant {0} : index
           %y = npu.sparse_conv3d %f, %w, %p, %n, %rows {subm}
               : (tensor<{0}x{1}xf32>, tensor<27x{1}x{1}xf32>,
                  tensor<27x2x{0}xi32>, tensor<27xi32>, index)
               -> tensor<{0}x{1}xf32>
           return %y : tensor<{0}x{1}xf32>
         })",
      L, c);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &ctx);
  PassManager pm(&ctx);
  GraphToDevicePipelineOptions options;
  options.device = jitDevice.getValue();
  buildGraphToDevicePipeline(pm, options);
  if (!module || failed(pm.run(*module)))
    std::exit(1);
  std::vector<float> features(L * c), weights(kOffsets * c * c);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> unit(-1, 1);
  for (float &x : features)
    x = unit(rng);
  for (float &x : weights)
    x = unit(rng);
  std::vector<HostArray> args = {
      HostArray::fromValues(ElementKind::F32, features, {L, c}),
      HostArray::fromValues(ElementKind::F32, weights, {kOffsets, c, c}),
      HostArray::fromValues(ElementKind::I32, buffers.pairs, {kOffsets, 2, L}),
      HostArray::fromValues(ElementKind::I32, pairs.num, {kOffsets}),
      HostArray::fromValues(ElementKind::F32, std::vector<float>(L * c),
                            {L, c})};
  auto kernel = jit::CompiledKernel::compile(*module, "conv");
  if (failed(kernel))
    std::exit(1);
  double t = bench::bestOf(runs, [&] { llvm::cantFail((*kernel)->run(args)); });
  double gflops = 2.0 * total * c * c / t / 1e9;
  out() << "| JIT sparse_conv3d, 1 thread, subm, Cin = Cout = 64, " << total
        << " pairs | " << llvm::format("%.2f", t * 1e3) << " ms, "
        << llvm::format("%.1f", gflops) << " GFLOP/s | "
        << llvm::format("%.2f", gflops / peakGFlops) << " of FMA peak |\n";
}

} // namespace

int main(int argc, char **argv) {
  llvm::cl::ParseCommandLineOptions(argc, argv,
                                    "get_indice_pairs / sparse_conv3d "
                                    "benchmark\n");
  DialectRegistry registry;
  registerAllDialects(registry);
  sim::registerSimulatorModels(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  auto [avx2, avx512] = bench::peakFmaGFlops(runs);
  double peak = std::max(avx2, avx512);
  out() << bench::describeJitDevice(jitDevice) << "\n\n";
  out() << "| figure | value | ratio |\n|---|---:|---:|\n";
  out() << "| peak FMA rate, 1 core (" << (avx512 > 0 ? "AVX-512" : "AVX2")
        << ") | " << llvm::format("%.1f", peak) << " GFLOP/s | 1.00 |\n";
  for (const Shape &s : {kDefault, kSubm, kSmall}) {
    if (!selected(shapes, s.name))
      continue;
    bench::LidarScene scene{s.batch, s.spatial, s.sites};
    benchShape(ctx, s, bench::generateLidarSites(scene));
  }
  if (selected(shapes, "conv")) {
    bench::LidarScene scene{kSubm.batch, kSubm.spatial, kSubm.sites};
    benchConv(ctx, kSubm, bench::generateLidarSites(scene), peak);
  }
  return 0;
}
