//===- MoEKernelsTest.cpp - MoE dispatch kernels against a C++ reference --===//
//
// Each case lowers one function holding the three MoE dispatch ops for a
// device, runs it on the simulator and through the JIT, and compares both,
// bit for bit, with a plain C++ reference (this file is compiled with
// -ffp-contract=off so that the reference rounds every product and sum).
// Shapes cover every strategy: samples <= cores (split_hidden), one more
// sample than cores, several pipelined tiles per core, rows larger than
// vector memory (chunked), many samples per dispatch row, and every
// zero-element case, in f32, f16 and bf16 (the reference computes in f32
// and rounds each result once); the JIT runs with one thread and with
// three.
//
//===----------------------------------------------------------------------===//

#include "FloatArrays.h"
#include "npu/Conversion/Pipelines.h"
#include "npu/Device/DeviceModel.h"
#include "npu/Dialect/NPUDev/NPUDevOps.h"
#include "npu/InitAll.h"
#include "npu/JIT/Jit.h"
#include "npu/Simulator/Execution.h"
#include "npu/Simulator/Simulator.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

#include <random>

using namespace mlir;
using namespace npu;
using npu::testing::expectSameBits;
using npu::testing::floatArray;
using npu::testing::roundTo;

namespace {

struct MoECase {
  int64_t samples, hidden, capacity, experts;
  /// A preset name, or the JSON text of a device.
  std::string device;
  /// The strategies of the launches, in order (backward_data's first,
  /// moe_combine's last).
  std::string strategies;
  /// moe_combine's slots per sample.
  int64_t topK = 2;
  /// Gates, data and results: f32, f16 or bf16.
  std::string element = "f32";
};

/// Two cores with 1 KiB of vector memory: several tiles per core, and rows
/// that do not fit.
const char *kTinyDevice = R"({"name": "tiny", "base": "mlu590",
  "clusters": 1, "cores_per_cluster": 2, "vector_bytes": 1024})";

void PrintTo(const MoECase &c, std::ostream *os) {
  *os << "samples=" << c.samples << " hidden=" << c.hidden
      << " capacity=" << c.capacity << " experts=" << c.experts
      << " k=" << c.topK << " " << c.element;
}

std::string printCase(const ::testing::TestParamInfo<MoECase> &info) {
  const MoECase &c = info.param;
  std::string device = c.device.front() == '{' ? "tiny" : c.device;
  return llvm::formatv("S{0}_H{1}_C{2}_E{3}_K{4}_{5}_{6}", c.samples, c.hidden,
                       c.capacity, c.experts, c.topK, device, c.element);
}

/// The inputs of one case, as stored in its element kind, and the reference
/// outputs: products and sums in f32, each result rounded once.
struct MoEData {
  std::vector<float> gates, input, dispatch;
  std::vector<int32_t> indices, locations;
  /// moe_combine's [k, samples] operands.
  std::vector<float> topGates;
  std::vector<int32_t> topIndices, topLocations;

  std::vector<float> gradInput, dispatched, gradGates, combined;

  MoEData(const MoECase &c, ElementKind kind) {
    std::mt19937 rng(c.samples * 131 + c.hidden * 7 + c.capacity);
    std::uniform_real_distribution<float> value(-2, 2);
    // One step out of range on each side, so that dropped samples occur.
    std::uniform_int_distribution<int32_t> expert(-1, c.experts);
    std::uniform_int_distribution<int32_t> slot(-1, c.capacity);
    int64_t rows = c.experts * c.capacity;
    for (int64_t s = 0; s < c.samples; ++s) {
      gates.push_back(value(rng));
      indices.push_back(expert(rng));
      locations.push_back(slot(rng));
    }
    for (int64_t i = 0; i < c.topK * c.samples; ++i) {
      topGates.push_back(value(rng));
      topIndices.push_back(expert(rng));
      topLocations.push_back(slot(rng));
    }
    for (int64_t i = 0; i < c.samples * c.hidden; ++i)
      input.push_back(value(rng));
    for (int64_t i = 0; i < rows * c.hidden; ++i)
      dispatch.push_back(value(rng));
    for (std::vector<float> *v : {&gates, &topGates, &input, &dispatch})
      *v = roundTo(kind, *v);
    computeReference(c);
    for (std::vector<float> *v :
         {&gradInput, &dispatched, &gradGates, &combined})
      *v = roundTo(kind, *v);
  }

  void computeReference(const MoECase &c) {
    int64_t h = c.hidden;
    gradInput.assign(c.samples * h, 0.0f);
    dispatched.assign(c.experts * c.capacity * h, 0.0f);
    gradGates.assign(c.samples, 0.0f);
    for (int64_t s = 0; s < c.samples; ++s) {
      int32_t e = indices[s], l = locations[s];
      if (e < 0 || e >= c.experts || l < 0 || l >= c.capacity)
        continue;
      int64_t row = int64_t(e) * c.capacity + l;
      float sum = 0.0f;
      for (int64_t j = 0; j < h; ++j) {
        gradInput[s * h + j] = dispatch[row * h + j] * gates[s];
        dispatched[row * h + j] = input[s * h + j] * gates[s];
        sum = sum + dispatch[row * h + j] * input[s * h + j];
      }
      gradGates[s] = sum;
    }
    // combine: each element sums its kept slots in order from +0.
    combined.assign(c.samples * h, 0.0f);
    for (int64_t s = 0; s < c.samples; ++s)
      for (int64_t j = 0; j < c.topK; ++j) {
        int32_t e = topIndices[j * c.samples + s];
        int32_t l = topLocations[j * c.samples + s];
        if (e < 0 || e >= c.experts || l < 0 || l >= c.capacity)
          continue;
        int64_t row = int64_t(e) * c.capacity + l;
        for (int64_t x = 0; x < h; ++x)
          combined[s * h + x] =
              combined[s * h + x] +
              dispatch[row * h + x] * topGates[j * c.samples + s];
      }
  }
};

class MoEKernelsTest : public ::testing::TestWithParam<MoECase> {
protected:
  MoEKernelsTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    sim::registerSimulatorModels(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
  }

  /// The device option: the preset name, or a file holding the JSON.
  std::string deviceOption(const MoECase &c) {
    if (c.device.front() != '{')
      return c.device;
    if (!devicePath.empty())
      return devicePath;
    SmallString<128> path;
    EXPECT_FALSE(
        llvm::sys::fs::createTemporaryFile("moe-device", "json", path));
    std::error_code error;
    llvm::raw_fd_ostream(path, error) << c.device;
    EXPECT_FALSE(error);
    devicePath = path.str().str();
    return devicePath;
  }

  ~MoEKernelsTest() override {
    if (!devicePath.empty())
      llvm::sys::fs::remove(devicePath);
  }

  /// One function with the four ops, lowered for the case's device; its
  /// number of samples is `samples` (the case's, or "?": read at run time).
  OwningOpRef<ModuleOp> buildLowered(const MoECase &c,
                                     std::string samples = "") {
    if (samples.empty())
      samples = std::to_string(c.samples);
    std::string source = llvm::formatv(
        R"(func.func @moe(%g: tensor<{0}x{6}>, %i: tensor<{0}xi32>,
                          %l: tensor<{0}xi32>, %x: tensor<{0}x{1}x{6}>,
                          %d: tensor<{2}x{1}x{6}>, %gk: tensor<{5}x{0}x{6}>,
                          %ik: tensor<{5}x{0}xi32>, %lk: tensor<{5}x{0}xi32>)
            -> (tensor<{0}x{1}x{6}>, tensor<{2}x{1}x{6}>, tensor<{0}x{6}>,
                tensor<{0}x{1}x{6}>) {
          %0 = npu.moe_dispatch_backward_data %g, %i, %l, %d
              {capacity = {3}, num_experts = {4}}
              : (tensor<{0}x{6}>, tensor<{0}xi32>, tensor<{0}xi32>,
                 tensor<{2}x{1}x{6}>) -> tensor<{0}x{1}x{6}>
          %1 = npu.moe_dispatch_forward %g, %i, %l, %x
              {capacity = {3}, num_experts = {4}}
              : (tensor<{0}x{6}>, tensor<{0}xi32>, tensor<{0}xi32>,
                 tensor<{0}x{1}x{6}>) -> tensor<{2}x{1}x{6}>
          %2 = npu.moe_dispatch_backward_gate %i, %l, %x, %d
              {capacity = {3}, num_experts = {4}}
              : (tensor<{0}xi32>, tensor<{0}xi32>, tensor<{0}x{1}x{6}>,
                 tensor<{2}x{1}x{6}>) -> tensor<{0}x{6}>
          %3 = npu.moe_combine %gk, %ik, %lk, %d
              {capacity = {3}, num_experts = {4}}
              : (tensor<{5}x{0}x{6}>, tensor<{5}x{0}xi32>,
                 tensor<{5}x{0}xi32>, tensor<{2}x{1}x{6}>)
              -> tensor<{0}x{1}x{6}>
          return %0, %1, %2, %3 : tensor<{0}x{1}x{6}>, tensor<{2}x{1}x{6}>,
                                  tensor<{0}x{6}>, tensor<{0}x{1}x{6}>
        })",
        samples, c.hidden, c.experts * c.capacity, c.capacity, c.experts,
        c.topK, c.element);
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &ctx);
    EXPECT_TRUE(module);
    PassManager pm(&ctx);
    GraphToDevicePipelineOptions options;
    options.device = deviceOption(c);
    buildGraphToDevicePipeline(pm, options);
    EXPECT_TRUE(succeeded(pm.run(*module)));
    return module;
  }

  ElementKind kindOf(const MoECase &c) {
    return *getElementKind(parseType(c.element, &ctx));
  }

  std::vector<HostArray> arguments(const MoECase &c, const MoEData &data) {
    int64_t rows = c.experts * c.capacity;
    ElementKind kind = kindOf(c);
    std::vector<HostArray> args;
    args.push_back(floatArray(kind, data.gates, {c.samples}));
    args.push_back(
        HostArray::fromValues(ElementKind::I32, data.indices, {c.samples}));
    args.push_back(
        HostArray::fromValues(ElementKind::I32, data.locations, {c.samples}));
    args.push_back(floatArray(kind, data.input, {c.samples, c.hidden}));
    args.push_back(floatArray(kind, data.dispatch, {rows, c.hidden}));
    args.push_back(floatArray(kind, data.topGates, {c.topK, c.samples}));
    args.push_back(HostArray::fromValues(ElementKind::I32, data.topIndices,
                                         {c.topK, c.samples}));
    args.push_back(HostArray::fromValues(ElementKind::I32, data.topLocations,
                                         {c.topK, c.samples}));
    // Outputs start as NaN so that an element left unwritten shows.
    auto poisoned = [&](int64_t n, llvm::ArrayRef<int64_t> shape) {
      return floatArray(kind, std::vector<float>(n, std::nanf("")), shape);
    };
    args.push_back(poisoned(c.samples * c.hidden, {c.samples, c.hidden}));
    args.push_back(poisoned(rows * c.hidden, {rows, c.hidden}));
    args.push_back(poisoned(c.samples, {c.samples}));
    args.push_back(poisoned(c.samples * c.hidden, {c.samples, c.hidden}));
    return args;
  }

  void expectReference(const std::vector<HostArray> &args, const MoEData &data,
                       StringRef executor) {
    expectSameBits(args[8], data.gradInput,
                   (executor + " backward_data").str());
    expectSameBits(args[9], data.dispatched, (executor + " forward").str());
    expectSameBits(args[10], data.gradGates,
                   (executor + " backward_gate").str());
    expectSameBits(args[11], data.combined, (executor + " combine").str());
  }

  MLIRContext ctx;
  std::string devicePath;
};

TEST_P(MoEKernelsTest, SimulatorAndJitMatchReference) {
  const MoECase &c = GetParam();
  MoEData data(c, kindOf(c));
  OwningOpRef<ModuleOp> module = buildLowered(c);
  ASSERT_TRUE(module);

  // The strategies follow the shape; ops with nothing to write launch
  // nothing.
  std::string strategies;
  module->walk([&](dev::LaunchOp launch) {
    auto tiling = launch->getAttrOfType<DictionaryAttr>("npudev.tiling");
    ASSERT_TRUE(tiling);
    strategies += (strategies.empty() ? "" : ",") +
                  tiling.getAs<StringAttr>("strategy").str();
  });
  EXPECT_EQ(strategies, c.strategies);

  llvm::Expected<DeviceModel> device =
      DeviceModel::load(c.device.front() == '{' ? devicePath : c.device);
  ASSERT_TRUE(!!device) << llvm::toString(device.takeError());
  std::vector<HostArray> simArgs = arguments(c, data);
  auto func = cast<func::FuncOp>(module->getBody()->front());
  sim::SimulationReport report;
  ASSERT_TRUE(succeeded(sim::simulate(func, simArgs, *device, {}, report)));
  expectReference(simArgs, data, "sim");

  std::vector<HostArray> jitArgs = arguments(c, data);
  ASSERT_TRUE(succeeded(jit::runJit(*module, "moe", jitArgs)));
  expectReference(jitArgs, data, "jit");

  // Tasks in any order: forward's duplicate rows still go to the last
  // sample.
  // (runJit lowers the module in place: lower a fresh one.)
  OwningOpRef<ModuleOp> again = buildLowered(c);
  ASSERT_TRUE(again);
  std::vector<HostArray> threadedArgs = arguments(c, data);
  jit::JitOptions threaded;
  threaded.threads = 3;
  ASSERT_TRUE(succeeded(jit::runJit(*again, "moe", threadedArgs, threaded)));
  expectReference(threadedArgs, data, "jit, 3 threads");
}

#define ALL_OPS(data, forward, gate, combine)                                  \
  data "," forward "," gate "," combine
INSTANTIATE_TEST_SUITE_P(
    Shapes, MoEKernelsTest,
    ::testing::Values(
        MoECase{1, 64, 4, 2, "mlu590",
                ALL_OPS("split_hidden", "gather_rows", "dot_tiles",
                        "combine_tiles")},
        MoECase{47, 40, 8, 4, "mlu590",
                ALL_OPS("split_hidden", "gather_rows", "dot_tiles",
                        "combine_tiles"),
                3},
        MoECase{49, 24, 8, 4, "mlu590",
                ALL_OPS("split_samples", "gather_rows", "dot_tiles",
                        "combine_tiles")},
        // Built for the machine running the test (the JIT's device).
        MoECase{49, 24, 8, 4, "host",
                ALL_OPS("split_samples", "gather_rows", "dot_tiles",
                        "combine_tiles")},
        MoECase{300, 33, 16, 8, "ascend910b",
                ALL_OPS("split_samples", "gather_rows", "dot_tiles",
                        "combine_tiles"),
                1},
        MoECase{37, 8, 6, 8, kTinyDevice,
                ALL_OPS("split_samples", "gather_rows", "dot_tiles",
                        "combine_tiles"),
                4},
        // Many samples per row: duplicates in every row, several winner
        // chunks and scan tiles per task.
        MoECase{500, 4, 40, 3, kTinyDevice,
                ALL_OPS("split_samples", "gather_rows", "dot_tiles",
                        "combine_tiles")},
        MoECase{9, 200, 3, 4, kTinyDevice,
                ALL_OPS("split_samples_chunked", "gather_rows_chunked",
                        "dot_per_sample", "combine_chunked")},
        MoECase{1, 300, 2, 2, kTinyDevice,
                ALL_OPS("split_hidden", "gather_rows_chunked", "dot_per_sample",
                        "combine_chunked")},
        // Zero elements: no samples, no hidden size, no capacity, no
        // experts, no slots per sample (combine writes zeros).
        MoECase{0, 16, 4, 2, "mlu590", "gather_rows"},
        MoECase{5, 0, 4, 2, "mlu590", "dot_per_sample"},
        MoECase{6, 16, 0, 2, "mlu590", "split_hidden,dot_tiles,combine_tiles"},
        MoECase{6, 16, 4, 0, "mlu590", "split_hidden,dot_tiles,combine_tiles"},
        MoECase{7, 16, 4, 2, "mlu590",
                ALL_OPS("split_hidden", "gather_rows", "dot_tiles",
                        "combine_chunked"),
                0},
        // f16 and bf16: every strategy and the zero-element cases.
        MoECase{1, 64, 4, 2, "mlu590",
                ALL_OPS("split_hidden", "gather_rows", "dot_tiles",
                        "combine_tiles"),
                2, "f16"},
        MoECase{49, 24, 8, 4, "mlu590",
                ALL_OPS("split_samples", "gather_rows", "dot_tiles",
                        "combine_tiles"),
                3, "bf16"},
        MoECase{300, 33, 16, 8, "ascend910b",
                ALL_OPS("split_samples", "gather_rows", "dot_tiles",
                        "combine_tiles"),
                1, "f16"},
        MoECase{37, 8, 6, 8, kTinyDevice,
                ALL_OPS("split_samples", "gather_rows", "dot_tiles",
                        "combine_tiles"),
                4, "bf16"},
        MoECase{500, 4, 40, 3, kTinyDevice,
                ALL_OPS("split_samples", "gather_rows", "dot_tiles",
                        "combine_tiles"),
                2, "f16"},
        MoECase{9, 300, 3, 4, kTinyDevice,
                ALL_OPS("split_samples_chunked", "gather_rows_chunked",
                        "dot_per_sample", "combine_chunked"),
                2, "f16"},
        MoECase{9, 300, 3, 4, kTinyDevice,
                ALL_OPS("split_samples_chunked", "gather_rows_chunked",
                        "dot_per_sample", "combine_chunked"),
                2, "bf16"},
        MoECase{1, 600, 2, 2, kTinyDevice,
                ALL_OPS("split_hidden", "gather_rows_chunked", "dot_per_sample",
                        "combine_chunked"),
                2, "bf16"},
        MoECase{0, 16, 4, 2, "mlu590", "gather_rows", 2, "f16"},
        MoECase{5, 0, 4, 2, "mlu590", "dot_per_sample", 2, "bf16"},
        MoECase{7, 16, 4, 2, "mlu590",
                ALL_OPS("split_hidden", "gather_rows", "dot_tiles",
                        "combine_chunked"),
                0, "f16"}),
    printCase);

/// One module whose number of samples is read at run time serves every
/// count: lowered and compiled once, run at several counts (0, below, at and
/// above the core count), each against the reference, in both executors;
/// the report names the backward_data kernel each count took.
class MoEDynamicSamplesTest : public MoEKernelsTest {};

TEST_P(MoEDynamicSamplesTest, OneCompileServesEveryCount) {
  const MoECase &base = GetParam();
  OwningOpRef<ModuleOp> module = buildLowered(base, "?");
  ASSERT_TRUE(module);
  auto func = cast<func::FuncOp>(module->getBody()->front());
  llvm::Expected<DeviceModel> device =
      DeviceModel::load(base.device.front() == '{' ? devicePath : base.device);
  ASSERT_TRUE(!!device) << llvm::toString(device.takeError());
  int64_t cores = device->getNumCores();
  OwningOpRef<ModuleOp> compiled = buildLowered(base, "?");
  auto kernel = jit::CompiledKernel::compile(*compiled, "moe", {});
  ASSERT_TRUE(succeeded(kernel));

  for (int64_t samples :
       {int64_t(0), int64_t(1), cores - 1, cores + 1, 6 * cores + 5}) {
    SCOPED_TRACE("samples=" + std::to_string(samples));
    MoECase c = base;
    c.samples = samples;
    MoEData data(c, kindOf(c));
    std::vector<HostArray> simArgs = arguments(c, data);
    sim::SimulationReport report;
    ASSERT_TRUE(succeeded(sim::simulate(func, simArgs, *device, {}, report)));
    expectReference(simArgs, data, "sim");
    std::vector<std::string> steps;
    for (const sim::SimulationReport::Step &step : report.steps)
      steps.push_back(step.name);
    bool splitHidden = samples > 0 && samples <= cores;
    EXPECT_TRUE(llvm::is_contained(steps, splitHidden ? "split_hidden"
                                                      : "split_samples"));
    EXPECT_FALSE(llvm::is_contained(steps, splitHidden ? "split_samples"
                                                       : "split_hidden"));
    EXPECT_TRUE(llvm::is_contained(steps, "check_sizes"));

    std::vector<HostArray> jitArgs = arguments(c, data);
    llvm::Error error = (*kernel)->run(jitArgs);
    ASSERT_FALSE(error) << llvm::toString(std::move(error));
    expectReference(jitArgs, data, "jit");
  }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, MoEDynamicSamplesTest,
    ::testing::Values(MoECase{0, 24, 8, 4, "mlu590", "", 3},
                      MoECase{0, 33, 16, 8, "ascend910b", "", 1, "f16"},
                      MoECase{0, 8, 6, 8, kTinyDevice, "", 4, "bf16"}),
    printCase);

} // namespace
