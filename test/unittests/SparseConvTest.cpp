//===- SparseConvTest.cpp - the sparse convolution reference --------------===//
//
// Checks the reference (SparseConvReference.cpp) against computations that
// enumerate in the other direction: get_indice_pairs from every output site
// of the dense grid back to its inputs, sparse_conv3d against a float64
// dense convolution at the active sites. Geometries cover subm, strides 1
// and 2, padding 0 and 1, dilation 2, kernels 1, 3, 5 and non-cubic ones,
// transposed convolution, batch 1 and 4, L = 0 and L = 1.
//
//===----------------------------------------------------------------------===//

#include "DeviceFiles.h"
#include "FloatArrays.h"
#include "SparseConvReference.h"
#include "npu/Conversion/LoweredSignature.h"
#include "npu/Conversion/Pipelines.h"
#include "npu/Device/DeviceModel.h"
#include "npu/InitAll.h"
#include "npu/JIT/Jit.h"
#include "npu/Simulator/Execution.h"
#include "npu/Simulator/Simulator.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/FormatVariadic.h"
#include "gtest/gtest.h"

#include <cmath>
#include <functional>
#include <map>
#include <random>
#include <set>

using namespace mlir;
using namespace npu;
using namespace npu::graph;
using namespace npu::testing;

namespace {

struct GeometryCase {
  const char *name;
  int64_t batch;
  SparseConvGeometry::Dims in, kernel, stride, padding, dilation, outPadding;
  bool subm, transpose;
  int64_t sites;
};

SparseConvGeometry makeGeometry(const GeometryCase &c) {
  SparseConvGeometry g;
  g.batch = c.batch;
  g.in = c.in;
  g.kernel = c.kernel;
  g.stride = c.stride;
  g.padding = c.padding;
  g.dilation = c.dilation;
  g.outPadding = c.outPadding;
  g.subm = c.subm;
  g.transpose = c.transpose;
  EXPECT_TRUE(succeeded(g.complete(std::nullopt, "test")));
  return g;
}

// Fields: name, batch, in, kernel, stride, padding, dilation, out_padding,
// subm, transpose, sites.
// clang-format off
const GeometryCase kCases[] = {
    {"subm_k3", 1, {6, 7, 8}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}, true, false, 60},
    {"subm_k5_d2_b4", 4, {9, 9, 9}, {5, 5, 5}, {1, 1, 1}, {4, 4, 4}, {2, 2, 2}, {0, 0, 0}, true, false, 150},
    {"default_s2_p011", 4, {5, 12, 12}, {3, 3, 3}, {2, 2, 2}, {0, 1, 1}, {1, 1, 1}, {0, 0, 0}, false, false, 200},
    {"default_k1", 2, {4, 4, 4}, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}, {1, 1, 1}, {0, 0, 0}, false, false, 40},
    {"default_noncubic_d2", 1, {7, 9, 11}, {1, 3, 2}, {1, 1, 1}, {0, 1, 0}, {1, 2, 3}, {0, 0, 0}, false, false, 90},
    {"transpose_s2", 2, {3, 4, 5}, {2, 3, 3}, {2, 2, 1}, {0, 1, 1}, {1, 1, 1}, {1, 0, 0}, false, true, 30},
    {"one_site", 1, {3, 3, 3}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}, false, false, 1},
    {"no_sites", 1, {3, 3, 3}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}, true, false, 0},
    // subm with an even kernel extent (and so an even dilation): no offset
    // maps a site to itself, offset K / 2 included.
    {"subm_even_x", 2, {5, 6, 8}, {1, 3, 2}, {1, 1, 1}, {0, 1, 1}, {1, 1, 2}, {0, 0, 0}, true, false, 60},
    {"subm_even_all", 1, {6, 6, 6}, {2, 2, 2}, {1, 1, 1}, {1, 1, 1}, {2, 2, 2}, {0, 0, 0}, true, false, 50},
};
// clang-format on

class ReferenceTest : public ::testing::TestWithParam<GeometryCase> {};

/// Pairs (input row, output site) of offset k, found from each output site
/// of the dense grid: the input coordinate it reads is o * s - p + r * d
/// (transposed: solve o = x * s - p + r * d for x).
std::vector<std::multimap<int64_t, Site>>
pairsFromOutputs(const SparseConvGeometry &g, const std::vector<Site> &sites) {
  std::map<Site, int64_t> row;
  for (size_t i = 0; i < sites.size(); ++i)
    row[sites[i]] = i;
  std::vector<std::multimap<int64_t, Site>> pairs(g.getKernelVolume());
  for (int32_t b = 0; b < g.batch; ++b)
    for (int32_t z = 0; z < g.out[0]; ++z)
      for (int32_t y = 0; y < g.out[1]; ++y)
        for (int32_t x = 0; x < g.out[2]; ++x)
          for (int64_t k = 0; k < g.getKernelVolume(); ++k) {
            SparseConvGeometry::Dims r = g.getOffset(k);
            Site o{b, z, y, x}, in{b, 0, 0, 0};
            bool ok = true;
            for (unsigned d = 0; d < 3; ++d) {
              int64_t t = g.transpose
                              ? o[d + 1] + g.padding[d] - r[d] * g.dilation[d]
                              : int64_t(o[d + 1]) * g.stride[d] - g.padding[d] +
                                    r[d] * g.dilation[d];
              if (g.transpose) {
                ok = ok && t % g.stride[d] == 0;
                t /= g.stride[d];
              }
              ok = ok && t >= 0 && t < g.in[d];
              in[d + 1] = t;
            }
            auto it = ok ? row.find(in) : row.end();
            if (it != row.end())
              pairs[k].emplace(it->second, o);
          }
  return pairs;
}

TEST_P(ReferenceTest, PairsMatchTheOutputCentricEnumeration) {
  SparseConvGeometry g = makeGeometry(GetParam());
  std::vector<Site> sites = randomSites(g, GetParam().sites, 7);
  IndicePairs ref = referenceIndicePairs(g, sites);
  ASSERT_EQ(ref.error, "");
  auto expected = pairsFromOutputs(g, sites);
  std::set<Site> subm(sites.begin(), sites.end());
  int64_t l = sites.size(), total = 0;
  for (int64_t k = 0; k < g.getKernelVolume(); ++k) {
    total += ref.num[k];
    std::vector<std::pair<int64_t, Site>> want;
    for (auto &[i, o] : expected[k])
      if (!g.subm || subm.count(o))
        want.emplace_back(i, o);
    ASSERT_EQ(ref.num[k], int32_t(want.size())) << "offset " << k;
    for (int32_t n = 0; n < ref.num[k]; ++n) {
      EXPECT_EQ(ref.pairs[k * 2 * l + n], want[n].first);
      EXPECT_EQ(ref.outIndices[ref.pairs[(k * 2 + 1) * l + n]], want[n].second);
    }
    for (int64_t n = ref.num[k]; n < l; ++n)
      EXPECT_EQ(ref.pairs[k * 2 * l + n], -1);
  }
  // Every site reaches some output here (subm: itself through the
  // identity offset, where the geometry has one).
  if (!g.subm || g.getIdentityOffset()) {
    EXPECT_GE(total, l);
  }
  if (g.subm) {
    EXPECT_EQ(ref.outIndices, sites);
  } else {
    EXPECT_TRUE(std::is_sorted(ref.outIndices.begin(), ref.outIndices.end()));
    EXPECT_EQ(
        std::set<Site>(ref.outIndices.begin(), ref.outIndices.end()).size(),
        ref.outIndices.size());
  }
}

TEST_P(ReferenceTest, ConvolutionMatchesDenseConvolutionAtSites) {
  SparseConvGeometry g = makeGeometry(GetParam());
  std::vector<Site> sites = randomSites(g, GetParam().sites, 11);
  IndicePairs ref = referenceIndicePairs(g, sites);
  const int64_t cin = 5, cout = 3, k = g.getKernelVolume();
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> f(sites.size() * cin), w(k * cin * cout);
  for (float &v : f)
    v = u(rng);
  for (float &v : w)
    v = u(rng);
  std::vector<float> out = referenceSparseConv(
      f, w, ref, cin, cout, ref.outIndices.size(), false, g.subm);
  std::vector<double> dense =
      denseConvAtSites(g, sites, f, w, ref.outIndices, cin, cout);
  ASSERT_EQ(out.size(), dense.size());
  for (size_t i = 0; i < out.size(); ++i)
    EXPECT_NEAR(out[i], dense[i], 1e-4) << "element " << i;
}

INSTANTIATE_TEST_SUITE_P(Geometries, ReferenceTest, ::testing::ValuesIn(kCases),
                         [](const auto &info) { return info.param.name; });

TEST(SparseConvReference, BadRowsAreNamed) {
  SparseConvGeometry g = makeGeometry(kCases[0]);
  std::vector<Site> sites{{0, 1, 1, 1}, {0, 2, 2, 2}, {0, 1, 1, 1}};
  EXPECT_EQ(referenceIndicePairs(g, sites).error,
            "indices row 2 repeats the site of an earlier row");
  sites = {{0, 1, 1, 1}, {1, 0, 0, 0}};
  EXPECT_EQ(referenceIndicePairs(g, sites).error,
            "indices row 1 has a batch index outside [0, 1)");
  sites = {{0, 6, 0, 0}};
  EXPECT_EQ(referenceIndicePairs(g, sites).error,
            "indices row 0 has a coordinate outside the spatial shape " +
                std::to_string(g.in[0]) + "x" + std::to_string(g.in[1]) + "x" +
                std::to_string(g.in[2]));
  // Batch indices come first, then coordinates, then repeats, whatever
  // the rows' order.
  sites = {{0, 6, 0, 0}, {0, 1, 1, 1}, {0, 1, 1, 1}, {1, 0, 0, 0}};
  EXPECT_EQ(referenceIndicePairs(g, sites).error,
            "indices row 3 has a batch index outside [0, 1)");
  sites = {{0, 1, 1, 1}, {0, 1, 1, 1}, {0, 6, 0, 0}};
  EXPECT_EQ(referenceIndicePairs(g, sites).error,
            "indices row 2 has a coordinate outside the spatial shape " +
                std::to_string(g.in[0]) + "x" + std::to_string(g.in[1]) + "x" +
                std::to_string(g.in[2]));
}

TEST(SparseConvGeometry, IdentityOffsetOnlyWhereTheGeometryHasOne) {
  // subm with odd extents: the centre; with an even one: none.
  EXPECT_EQ(makeGeometry(kCases[0]).getIdentityOffset(), 13);
  EXPECT_EQ(makeGeometry(kCases[1]).getIdentityOffset(), 62);
  EXPECT_EQ(makeGeometry(kCases[8]).getIdentityOffset(), std::nullopt);
  EXPECT_EQ(makeGeometry(kCases[9]).getIdentityOffset(), std::nullopt);
  // Stride 2 and transpose map no site to itself; a 1x1x1 kernel does.
  EXPECT_EQ(makeGeometry(kCases[2]).getIdentityOffset(), std::nullopt);
  EXPECT_EQ(makeGeometry(kCases[5]).getIdentityOffset(), std::nullopt);
  EXPECT_EQ(makeGeometry(kCases[3]).getIdentityOffset(), 0);
}

TEST(SparseConvGeometry, WideKeysFromTheShape) {
  SparseConvGeometry g;
  g.in = {41, 1440, 1440};
  g.kernel = {3, 3, 3};
  g.padding = {1, 1, 1};
  g.subm = true;
  g.batch = 4;
  ASSERT_TRUE(succeeded(g.complete(std::nullopt, "test")));
  EXPECT_FALSE(g.needsWideKeys()); // 4 * 41 * 1440^2 = 340 million.
  g.batch = 26;                    // 2.2 billion sites.
  EXPECT_TRUE(g.needsWideKeys());
}

} // namespace

//===----------------------------------------------------------------------===//
// The device kernels, in both executors, against the reference
//===----------------------------------------------------------------------===//

namespace {

std::string dims(const SparseConvGeometry::Dims &d) {
  return llvm::formatv("array<i64: {0}, {1}, {2}>", d[0], d[1], d[2]).str();
}

/// get_indice_pairs feeding sparse_conv3d, as a user writes it; `sites`
/// is the number of sites, or "?" for a number read at run time.
std::string pairsAndConvSource(const SparseConvGeometry &g, std::string sites,
                               int64_t cin, int64_t cout, StringRef element) {
  int64_t k = g.getKernelVolume();
  std::string outRows = g.subm ? sites : "?";
  // The inverse convolution writes one row per input site.
  std::string inputRows =
      sites == "?" ? "%c0i = arith.constant 0 : index\n  %l = tensor.dim "
                     "%idx, %c0i : tensor<?x4xi32>"
                   : "%l = arith.constant " + sites + " : index";
  return llvm::formatv(
             R"(func.func @sc(%idx: tensor<{0}x4xi32>, %f: tensor<{0}x{2}x{14}>,
                 %w: tensor<{1}x{2}x{3}x{14}>, %w2: tensor<{1}x{3}x{2}x{14}>)
    -> (tensor<{4}x4xi32>, tensor<{1}x2x{0}xi32>, tensor<{1}xi32>,
        tensor<?x{3}x{14}>, tensor<{0}x{2}x{14}>) {
  %o, %p, %n = npu.get_indice_pairs %idx {batch_size = {5} : i64,
      spatial_shape = {6}, kernel_size = {7}, stride = {8}, padding = {9},
      dilation = {10}, out_padding = {11}{12}}
      : (tensor<{0}x4xi32>) -> (tensor<{4}x4xi32>, tensor<{1}x2x{0}xi32>,
                                tensor<{1}xi32>)
  %c0 = arith.constant 0 : index
  %m = tensor.dim %o, %c0 : tensor<{4}x4xi32>
  %y = npu.sparse_conv3d %f, %w, %p, %n, %m {13}
      : (tensor<{0}x{2}x{14}>, tensor<{1}x{2}x{3}x{14}>, tensor<{1}x2x{0}xi32>,
         tensor<{1}xi32>, index) -> tensor<?x{3}x{14}>
  {15}
  %z = npu.sparse_conv3d %y, %w2, %p, %n, %l {{inverse}
      : (tensor<?x{3}x{14}>, tensor<{1}x{3}x{2}x{14}>, tensor<{1}x2x{0}xi32>,
         tensor<{1}xi32>, index) -> tensor<{0}x{2}x{14}>
  return %o, %p, %n, %y, %z : tensor<{4}x4xi32>, tensor<{1}x2x{0}xi32>,
                              tensor<{1}xi32>, tensor<?x{3}x{14}>,
                              tensor<{0}x{2}x{14}>
})",
             sites, k, cin, cout, outRows, g.batch, dims(g.in), dims(g.kernel),
             dims(g.stride), dims(g.padding), dims(g.dilation),
             dims(g.outPadding),
             g.subm ? ", subm" : (g.transpose ? ", transpose" : ""),
             g.subm ? "{subm}" : "", element, inputRows)
      .str();
}

struct KernelCase {
  GeometryCase geometry;
  /// A preset name, or the path of a JSON description.
  std::string device;
  std::string deviceName;
  std::string strategy = "auto";
  bool clustered = false, wideKeys = false;
  /// Features and weights: f32, f16 or bf16.
  std::string element = "f32";
};

void PrintTo(const KernelCase &c, std::ostream *os) {
  *os << c.geometry.name << " on " << c.deviceName << ", " << c.strategy << ", "
      << c.element;
}

/// Distinct sites in a 6^3 box at the far corner of a random batch entry,
/// so that they neighbour each other even in a huge shape.
std::vector<Site> clusteredSites(const SparseConvGeometry &g, int64_t count,
                                 uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::set<Site> chosen;
  std::vector<Site> sites;
  while (int64_t(sites.size()) < count) {
    Site s{int32_t(rng() % g.batch), 0, 0, 0};
    for (unsigned d = 0; d < 3; ++d)
      s[d + 1] = int32_t(g.in[d] - 1 - rng() % 6);
    if (chosen.insert(s).second)
      sites.push_back(s);
  }
  return sites;
}

/// Two cores with 4 KiB of vector memory: tiles of 32 rows, so that the
/// row tiles, the merge passes and the conv chunks all run several times.
std::string tinyDevicePath() {
  return npu::testing::getDeviceFile(
      R"({"name": "tiny", "base": "mlu590", "clusters": 1,
          "cores_per_cluster": 2, "vector_bytes": 4096})");
}

class SparseConvKernelsTest : public ::testing::TestWithParam<KernelCase> {
protected:
  SparseConvKernelsTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    sim::registerSimulatorModels(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
  }
  MLIRContext ctx;
};

/// What one executor gave: the outputs, each cut to its row count, or the
/// error it reported.
struct KernelRun {
  std::vector<HostArray> outputs;
  std::string error;
  /// The simulator's report: its steps by name.
  std::vector<std::string> steps;
};

/// Runs the lowered function on `inputs` in one executor. Outputs start
/// poisoned (-7, NaN) so that an element left unwritten shows.
/// With `compiled`, the JIT runs that kernel (`module` compiled once)
/// instead of compiling a copy of `module`.
KernelRun runKernels(ModuleOp module, const std::vector<HostArray> &inputs,
                     const std::string &deviceOption, bool jit,
                     jit::CompiledKernel *compiled = nullptr) {
  func::FuncOp func = *module.getOps<func::FuncOp>().begin();
  std::vector<HostArray> args = inputs;
  for (auto [i, type] :
       llvm::enumerate(func.getArgumentTypes().drop_front(inputs.size()))) {
    auto memref = cast<MemRefType>(type);
    HostArray a;
    a.kind = *getElementKind(memref.getElementType());
    a.shape = cantFail(signature::bindOutputShape(
        func, inputs.size() + i, memref.getShape(), inputs.size(),
        [&](unsigned arg) { return ArrayRef<int64_t>(inputs[arg].shape); }));
    a.data.resize(a.getNumElements() * getElementBytes(a.kind));
    for (int64_t e = 0; e < a.getNumElements(); ++e) {
      uint8_t *p = a.data.data() + e * getElementBytes(a.kind);
      if (isFloat(a.kind))
        storeFloat(p, a.kind, NAN);
      else if (a.kind == ElementKind::I32)
        storeInt(p, a.kind, -7);
    }
    args.push_back(std::move(a));
  }
  std::vector<std::pair<unsigned, int64_t>> outputArgs; // (arg, rows arg)
  for (unsigned i = inputs.size(); i < args.size(); ++i) {
    if (!func.getArgAttr(i, signature::kOutput))
      continue;
    auto rows = func.getArgAttrOfType<IntegerAttr>(i, signature::kRows);
    outputArgs.emplace_back(i, rows ? rows.getInt() : -1);
  }
  KernelRun run;
  ScopedDiagnosticHandler diagnostics(module.getContext(), [&](Diagnostic &d) {
    run.error += d.str();
    return success();
  });
  LogicalResult ran = failure();
  if (jit && compiled) {
    if (llvm::Error error = compiled->run(args))
      run.error = llvm::toString(std::move(error));
    else
      ran = success();
  } else if (jit) {
    // runJit lowers the module in place: run a copy.
    OwningOpRef<ModuleOp> copy = module.clone();
    ran = jit::runJit(*copy, "sc", args);
  } else {
    llvm::Expected<DeviceModel> device = DeviceModel::load(deviceOption);
    EXPECT_TRUE(!!device);
    sim::SimulationReport report;
    ran = sim::simulate(func, args, *device, {}, report);
    for (const sim::SimulationReport::Step &step : report.steps)
      run.steps.push_back(step.name);
  }
  if (failed(ran)) {
    EXPECT_FALSE(run.error.empty());
    return run;
  }
  for (auto [i, rowsArg] : outputArgs) {
    HostArray out = args[i];
    if (rowsArg >= 0) {
      int64_t count = args[rowsArg].getValues<int64_t>()[0];
      EXPECT_GE(count, 0);
      EXPECT_LE(count, out.shape[0]);
      count = std::clamp<int64_t>(count, 0, out.shape[0]);
      out.data.resize(out.data.size() / std::max<int64_t>(1, out.shape[0]) *
                      count);
      out.shape[0] = count;
    }
    run.outputs.push_back(std::move(out));
  }
  return run;
}

std::vector<float> randomFloats(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> v(n);
  for (float &x : v)
    x = u(rng);
  return v;
}

/// pairsAndConvSource parsed and lowered for the case's device and
/// strategy (`sites` negative: read at run time), then canonicalized and
/// CSE'd; null if a step failed.
OwningOpRef<ModuleOp> lowerPairsAndConv(MLIRContext &ctx,
                                        const SparseConvGeometry &g,
                                        int64_t sites, int64_t cin,
                                        int64_t cout, const KernelCase &c) {
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(
      pairsAndConvSource(g, sites < 0 ? "?" : std::to_string(sites), cin, cout,
                         c.element),
      &ctx);
  if (!module)
    return nullptr;
  PassManager pm(&ctx);
  GraphToDevicePipelineOptions options;
  options.device = c.device;
  options.sparseConvStrategy = c.strategy;
  buildGraphToDevicePipeline(pm, options);
  // The site checks must survive the passes a user runs after lowering.
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  if (failed(pm.run(*module)))
    return nullptr;
  return module;
}

/// The four inputs of pairsAndConvSource: indices, features and the two
/// weights (cout from their sizes), the floats stored as `kind`.
std::vector<HostArray> pairsAndConvInputs(const std::vector<Site> &sites,
                                          const std::vector<float> &f,
                                          const std::vector<float> &w,
                                          const std::vector<float> &w2,
                                          int64_t k, int64_t cin,
                                          ElementKind kind = ElementKind::F32) {
  int64_t rows = sites.size();
  int64_t cout = w.size() / (k * cin);
  std::vector<int32_t> flat;
  for (const Site &s : sites)
    flat.insert(flat.end(), s.begin(), s.end());
  return {HostArray::fromValues(ElementKind::I32, flat, {rows, 4}),
          floatArray(kind, f, {rows, cin}), floatArray(kind, w, {k, cin, cout}),
          floatArray(kind, w2, {k, cout, cin})};
}

/// Runs `module` (pairsAndConvSource lowered for `device`, cin 4, cout 3)
/// on `sites` in both executors and compares every output with the
/// reference.
/// Returns the simulator's steps. `compiled`: see runKernels.
std::vector<std::string> expectReferenceOutputs(
    MLIRContext &ctx, ModuleOp module, const SparseConvGeometry &g,
    const std::vector<Site> &sites, ElementKind kind, const std::string &device,
    jit::CompiledKernel *compiled = nullptr) {
  IndicePairs ref = referenceIndicePairs(g, sites);
  EXPECT_EQ(ref.error, "");
  const int64_t cin = 4, cout = 3, k = g.getKernelVolume();
  int64_t rows = sites.size(), outRows = ref.outIndices.size();
  // f16 and bf16: the inputs as stored, the f32 sums rounded once.
  std::vector<float> f = roundTo(kind, randomFloats(rows * cin, 9)),
                     w = roundTo(kind, randomFloats(k * cin * cout, 10)),
                     w2 = roundTo(kind, randomFloats(k * cout * cin, 11));
  std::vector<float> conv = roundTo(
      kind, referenceSparseConv(f, w, ref, cin, cout, outRows, false, g.subm));
  // The inverse convolution maps the result back onto the input sites.
  std::vector<float> inverse = roundTo(
      kind, referenceSparseConv(conv, w2, ref, cout, cin, rows, true, false));
  std::vector<int32_t> refSites;
  for (const Site &s : ref.outIndices)
    refSites.insert(refSites.end(), s.begin(), s.end());
  std::vector<HostArray> inputs =
      pairsAndConvInputs(sites, f, w, w2, k, cin, kind);
  std::vector<std::string> steps;
  for (bool jit : {false, true}) {
    SCOPED_TRACE(jit ? "jit" : "simulator");
    KernelRun run = runKernels(module, inputs, device, jit, compiled);
    EXPECT_EQ(run.error, "");
    const std::vector<HostArray> &out = run.outputs;
    if (out.size() != 5u) {
      ADD_FAILURE() << "expected 5 outputs, got " << out.size();
      continue;
    }
    EXPECT_EQ(out[0].getValues<int32_t>(), refSites);
    EXPECT_EQ(out[1].getValues<int32_t>(), ref.pairs);
    EXPECT_EQ(out[2].getValues<int32_t>(), ref.num);
    expectSameBits(out[3], conv, "sparse_conv3d");
    expectSameBits(out[4], inverse, "inverse");
    if (!jit)
      steps = run.steps;
  }
  return steps;
}

TEST_P(SparseConvKernelsTest, BothExecutorsMatchTheReference) {
  const GeometryCase &c = GetParam().geometry;
  SparseConvGeometry g = makeGeometry(c);
  std::vector<Site> sites = GetParam().clustered ? clusteredSites(g, c.sites, 5)
                                                 : randomSites(g, c.sites, 5);
  EXPECT_EQ(g.needsWideKeys(), GetParam().wideKeys);
  ElementKind kind = *getElementKind(parseType(GetParam().element, &ctx));
  OwningOpRef<ModuleOp> module =
      lowerPairsAndConv(ctx, g, c.sites, 4, 3, GetParam());
  ASSERT_TRUE(module);
  expectReferenceOutputs(ctx, *module, g, sites, kind, GetParam().device);
}

/// One module whose number of sites is read at run time serves every
/// count (a LiDAR frame's): lowered once, run at 0, 1, a few and several
/// row tiles' worth of sites in both executors against the reference, on
/// the 2-core device (where every count spans several tiles and tasks).
/// Under `auto` the kernel picks the grid when there are at least as many
/// candidates (K L) as output cells, else the sort, and the report names
/// the one it took.
class SparseConvDynamicSitesTest : public SparseConvKernelsTest {};

TEST_P(SparseConvDynamicSitesTest, OneCompileServesEveryNumberOfSites) {
  const GeometryCase &c = GetParam().geometry;
  SparseConvGeometry g = makeGeometry(c);
  OwningOpRef<ModuleOp> module =
      lowerPairsAndConv(ctx, g, /*sites=*/-1, 4, 3, GetParam());
  ASSERT_TRUE(module);
  // One native compile too (compile lowers its module in place).
  OwningOpRef<ModuleOp> copy = module->clone();
  auto compiled = jit::CompiledKernel::compile(*copy, "sc", {});
  ASSERT_TRUE(succeeded(compiled));
  int64_t cells = g.batch * g.in[0] * g.in[1] * g.in[2];
  int64_t outCells = g.batch * g.getOutVolume();
  std::vector<int64_t> counts = {0, 1, 7, c.sites,
                                 std::min<int64_t>(cells, 3 * c.sites + 1)};
  // On mlu590 the module holds tiles of 64, 512 and 4096 rows: the grid
  // takes the largest from 2048 sites on.
  if (GetParam().deviceName == "mlu590")
    counts.push_back(std::min<int64_t>(cells, 2100));
  for (int64_t count : counts) {
    SCOPED_TRACE("sites=" + std::to_string(count));
    std::vector<Site> sites = randomSites(g, count, 5 + count);
    std::vector<std::string> steps =
        expectReferenceOutputs(ctx, *module, g, sites, ElementKind::F32,
                               GetParam().device, compiled->get());
    std::string strategy = GetParam().strategy;
    if (strategy == "auto")
      strategy = outCells <= count * g.getKernelVolume() ? "grid" : "sort";
    EXPECT_TRUE(llvm::is_contained(steps, strategy + ".site_keys"));
  }
}

std::vector<KernelCase> kernelCases() {
  std::vector<KernelCase> cases;
  // Both strategies must give the same bytes.
  for (const GeometryCase &c : kCases)
    for (const char *strategy : {"sort", "grid"}) {
      cases.push_back({c, "mlu590", "mlu590", strategy});
      cases.push_back({c, tinyDevicePath(), "tiny", strategy});
    }
  // Linear indices past 2^31 (3 * 1024^3 sites): i64 keys.
  // clang-format off
  GeometryCase wideSubm{"wide_subm", 3, {1024, 1024, 1024}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}, true, false, 80};
  GeometryCase wideDefault{"wide_default", 3, {1024, 1024, 1024}, {3, 3, 3}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}, false, false, 80};
  // clang-format on
  // f16 and bf16 features and weights, f32 sums.
  for (const GeometryCase &c : {kCases[1], kCases[2], kCases[5]})
    for (const char *element : {"f16", "bf16"})
      cases.push_back(
          {c, tinyDevicePath(), "tiny", "sort", false, false, element});
  // Their grid would take 13 GB: auto picks sort.
  for (const GeometryCase &c : {wideSubm, wideDefault}) {
    cases.push_back({c, "mlu590", "mlu590", "auto", true, true});
    cases.push_back({c, tinyDevicePath(), "tiny", "auto", true, true});
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Geometries, SparseConvKernelsTest,
                         ::testing::ValuesIn(kernelCases()),
                         [](const auto &info) {
                           return std::string(info.param.geometry.name) + "_" +
                                  info.param.deviceName + "_" +
                                  info.param.strategy + "_" +
                                  info.param.element;
                         });

/// Subm, default, transposed and an even subm kernel, on the 2-core device,
/// with each strategy and with `auto`, which decides when the kernel runs:
/// the sort for few sites, the grid for many (candidates K L at least the
/// output cells).
std::vector<KernelCase> dynamicSitesCases() {
  std::vector<KernelCase> cases;
  for (const GeometryCase &c : {kCases[0], kCases[2], kCases[5], kCases[8]})
    for (const char *strategy : {"sort", "grid", "auto"})
      cases.push_back({c, tinyDevicePath(), "tiny", strategy});
  // The tile is chosen when the kernel runs where vector memory holds
  // more than one (getRunTimeTiles): every one is taken by some count.
  for (const char *strategy : {"sort", "grid"})
    cases.push_back({kCases[2], "mlu590", "mlu590", strategy});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Geometries, SparseConvDynamicSitesTest,
                         ::testing::ValuesIn(dynamicSitesCases()),
                         [](const auto &info) {
                           return std::string(info.param.geometry.name) + "_" +
                                  info.param.deviceName + "_" +
                                  info.param.strategy;
                         });

/// One way to break valid input: rows overwritten with bad sites.
struct Corruption {
  const char *name;
  std::function<void(const SparseConvGeometry &, std::vector<Site> &)> apply;
};

const Corruption kCorruptions[] = {
    {"batch",
     [](const SparseConvGeometry &g, std::vector<Site> &s) {
       s[90][0] = -1;
       s[70][0] = g.batch;
     }},
    {"coordinate",
     [](const SparseConvGeometry &g, std::vector<Site> &s) {
       s[80][3] = -3;
       s[65][2] = g.in[1];
     }},
    {"repeat",
     [](const SparseConvGeometry &, std::vector<Site> &s) {
       s[95] = s[3];
       s[75] = s[10];
     }},
    // Batch indices are checked before coordinates, coordinates before
    // repeats, whatever the rows.
    {"mixed",
     [](const SparseConvGeometry &g, std::vector<Site> &s) {
       s[40] = s[5];
       s[60][1] = g.in[0];
       s[85][0] = g.batch;
     }},
};

/// Bad sites are an error naming the row, the same in both executors and
/// in the reference, on a device whose tiles split the rows over tasks.
TEST(SparseConvBadInput, BothExecutorsNameTheRow) {
  DialectRegistry registry;
  registerAllDialects(registry);
  sim::registerSimulatorModels(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  for (const GeometryCase &c : {kCases[1], kCases[2]}) {
    SparseConvGeometry g = makeGeometry(c);
    KernelCase kernelCase{c, tinyDevicePath(), "tiny"};
    const int64_t cin = 2, cout = 2, k = g.getKernelVolume();
    OwningOpRef<ModuleOp> lowered =
        lowerPairsAndConv(ctx, g, c.sites, cin, cout, kernelCase);
    ASSERT_TRUE(lowered);
    for (const Corruption &corruption : kCorruptions) {
      SCOPED_TRACE(std::string(c.name) + " " + corruption.name);
      std::vector<Site> sites = randomSites(g, c.sites, 5);
      corruption.apply(g, sites);
      std::string expected = referenceIndicePairs(g, sites).error;
      ASSERT_NE(expected, "");
      std::vector<HostArray> inputs =
          pairsAndConvInputs(sites, randomFloats(c.sites * cin, 1),
                             randomFloats(k * cin * cout, 2),
                             randomFloats(k * cout * cin, 3), k, cin);
      for (bool jit : {false, true}) {
        SCOPED_TRACE(jit ? "jit" : "simulator");
        // The JIT lowers its module in place: give it a copy.
        OwningOpRef<ModuleOp> module = lowered->clone();
        KernelRun run = runKernels(*module, inputs, kernelCase.device, jit);
        EXPECT_NE(run.error.find("'npu.get_indice_pairs' " + expected),
                  std::string::npos)
            << run.error;
      }
    }
  }
}

} // namespace
