//===- GraphKernelTest.cpp - the graph ops' kernels on the device ---------===//
//
// Lowers npu graph ops for a device and runs them in both executors on
// random inputs: the two give the same bytes, and each result is the
// float64 reference written from the op's definition, here, index by index
// (numpy broadcasting, the matrix product), rounded to the element type.
// Elementwise ops: exactly for the ops IEEE arithmetic rounds once (+, -,
// *, /, max, min, neg, abs, relu, clip), within a few units in the last
// place for the others; every op, every broadcast form the kernel reads
// (leading, trailing, per row, a scalar, both operands broadcast), tiles
// cut within a row and across rows, f16, i32, both devices, empty tensors.
// matmul: within the f32 accumulation's bound; batches shared or not,
// transposed operands, bias, f16, edges of every tile, K = 0.
//
//===----------------------------------------------------------------------===//

#include "FloatArrays.h"

#include "npu/Conversion/DeviceKernelOpInterface.h"
#include "npu/Conversion/LoweredSignature.h"
#include "npu/Conversion/Pipelines.h"
#include "npu/InitAll.h"
#include "npu/JIT/Jit.h"
#include "npu/Runtime/ElementKind.h"
#include "npu/Simulator/Execution.h"
#include "npu/Simulator/Simulator.h"
#include "npu/Target/ONNX/ImportONNX.h"
#include "npu/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <random>

using namespace mlir;
using namespace npu;
using npu::testing::floatArray;
using npu::testing::floatValues;

namespace {

using Shape = std::vector<int64_t>;

int64_t numElements(const Shape &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

std::string tensorType(const Shape &shape, const char *element) {
  std::string s = "tensor<";
  for (int64_t d : shape)
    s += std::to_string(d) + "x";
  return s + element + ">";
}

/// numpy broadcasting: the result's shape, and the element of an operand
/// that result element `linear` reads.
Shape broadcastShape(const Shape &a, const Shape &b) {
  size_t rank = std::max(a.size(), b.size());
  Shape result(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t x = i + a.size() >= rank ? a[i + a.size() - rank] : 1;
    int64_t y = i + b.size() >= rank ? b[i + b.size() - rank] : 1;
    result[i] = x == 1 ? y : x;
  }
  return result;
}

int64_t operandIndex(const Shape &result, const Shape &operand,
                     int64_t linear) {
  int64_t index = 0, stride = 1;
  for (int64_t d = result.size() - 1; d >= 0; --d) {
    int64_t coordinate = linear % result[d];
    linear /= result[d];
    int64_t od = d - (int64_t(result.size()) - int64_t(operand.size()));
    if (od < 0)
      continue;
    if (operand[od] != 1)
      index += coordinate * stride;
    stride *= operand[od];
  }
  return index;
}

struct UnaryCase {
  const char *op;
  /// Extra attributes in the op's attr-dict, "" for none.
  const char *attrs;
  std::function<double(double)> ref;
  bool exact;
  /// Inputs drawn from (0.1, 2) rather than (-2, 2).
  bool positive = false;
};

double gelu(double x) {
  return 0.5 * x *
         (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
}

const std::vector<UnaryCase> &unaryCases() {
  static const std::vector<UnaryCase> cases = {
      {"relu", "", [](double x) { return std::max(x, 0.0); }, true},
      {"neg", "", [](double x) { return -x; }, true},
      {"abs", "", [](double x) { return std::fabs(x); }, true},
      {"exp", "", [](double x) { return std::exp(x); }, false},
      {"log", "", [](double x) { return std::log(x); }, false, true},
      {"tanh", "", [](double x) { return std::tanh(x); }, false},
      {"sigmoid", "", [](double x) { return 1 / (1 + std::exp(-x)); }, false},
      {"sqrt", "", [](double x) { return std::sqrt(x); }, false, true},
      {"rsqrt", "", [](double x) { return 1 / std::sqrt(x); }, false, true},
      {"clip", "{min = -0.5 : f64, max = 1.25 : f64}",
       [](double x) { return std::min(std::max(x, -0.5), 1.25); }, true},
      {"hard_sigmoid", "{alpha = 0.25 : f64, beta = 0.375 : f64}",
       [](double x) { return std::max(0.0, std::min(1.0, 0.25 * x + 0.375)); },
       false},
      {"hard_swish", "",
       [](double x) { return x * std::max(0.0, std::min(1.0, x / 6 + 0.5)); },
       false},
      {"gelu", "", gelu, false},
      {"erf", "", [](double x) { return std::erf(x); }, false},
  };
  return cases;
}

struct BinaryCase {
  const char *op;
  std::function<double(double, double)> ref;
};

const std::vector<BinaryCase> &binaryCases() {
  static const std::vector<BinaryCase> cases = {
      {"add", [](double a, double b) { return a + b; }},
      {"sub", [](double a, double b) { return a - b; }},
      {"mul", [](double a, double b) { return a * b; }},
      {"div", [](double a, double b) { return a / b; }},
      {"max", [](double a, double b) { return std::max(a, b); }},
      {"min", [](double a, double b) { return std::min(a, b); }},
  };
  return cases;
}

/// npu.conv2d ([N, H, W, C] input, [O, KH, KW, I] filter) against a
/// float64 sum from the definition, within the f32 accumulation's bound.
struct ConvCase {
  Shape input, filter;
  std::vector<int64_t> strides = {1, 1}, padding = {0, 0, 0, 0},
                       dilations = {1, 1};
  int64_t groups = 1;
  bool bias = false;
  ElementKind element = ElementKind::F32;
  const char *device = "ascend910b";
};

/// npu.matmul against a float64 product: every element within the bound of
/// its K-term f32 sum, |error| <= (K + 1) 2^-24 sum |a b| (+ the bias), and
/// the result's own rounding.
struct MatmulCase {
  Shape lhs, rhs;
  bool transposeLhs = false, transposeRhs = false, bias = false;
  ElementKind element = ElementKind::F32;
  const char *device = "ascend910b";
};

/// Whether LayoutAlignToNPU runs before the lowering: every test runs with
/// dense storage and again with the layouts it chooses when the function's
/// inputs and outputs are aligned too, so that each kernel is checked
/// reading and writing padded rows (and the host padding them).
enum class Storage { Dense, Aligned };

class GraphKernelTest : public ::testing::TestWithParam<Storage> {
protected:
  GraphKernelTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    sim::registerSimulatorModels(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
  }

  OwningOpRef<ModuleOp> lower(const std::string &source, const char *device) {
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &ctx);
    EXPECT_TRUE(module) << source;
    if (!module)
      return module;
    if (failed(lowerModule(*module, device))) {
      ADD_FAILURE() << "lowering failed:\n" << source;
      return nullptr;
    }
    return module;
  }

  /// Lays `module` out (for Storage::Aligned) and lowers it for `device`.
  LogicalResult lowerModule(ModuleOp module, const char *device) {
    PassManager pm(&ctx);
    if (GetParam() == Storage::Aligned) {
      LayoutAlignToNPUOptions layout;
      layout.graphIOMode = graph::AlignMode::ALIGN;
      pm.addNestedPass<func::FuncOp>(createLayoutAlignToNPU(layout));
      pm.addPass(createCanonicalizerPass());
    }
    GraphToDevicePipelineOptions options;
    options.device = device;
    buildGraphToDevicePipeline(pm, options);
    return pm.run(module);
  }

  /// Runs @f of `source` on `inputs` in both executors; expects the same
  /// bytes and returns the result.
  HostArray runBoth(const std::string &source, std::vector<HostArray> inputs,
                    const char *device) {
    return runBoth([&] { return lower(source, device); }, "f",
                   std::move(inputs));
  }

  /// The same for function `name` of the modules `lowered` gives.
  HostArray runBoth(function_ref<OwningOpRef<ModuleOp>()> lowered,
                    StringRef name, std::vector<HostArray> inputs) {
    HostArray results[2];
    for (bool jit : {false, true}) {
      OwningOpRef<ModuleOp> module = lowered();
      if (!module)
        return {};
      auto func = module->lookupSymbol<func::FuncOp>(name);
      std::vector<HostArray> args = inputs;
      // The result starts as 0xff bytes (NaN in floats): an element the
      // kernel skips shows.
      auto out = cast<MemRefType>(func.getArgumentTypes().back());
      HostArray result;
      result.kind = *getElementKind(out.getElementType());
      result.shape.assign(out.getShape().begin(), out.getShape().end());
      result.data.assign(out.getNumElements() * getElementBytes(result.kind),
                         0xff);
      args.push_back(result);
      // Arguments stored aligned take padded rows.
      std::vector<int64_t> channels(args.size(), -1);
      for (auto [i, arg] : llvm::enumerate(args))
        if (auto c =
                func.getArgAttrOfType<IntegerAttr>(i, signature::kChannels)) {
          channels[i] = c.getInt();
          if (i + 1 < args.size())
            arg = padRows(
                arg,
                cast<MemRefType>(func.getArgumentTypes()[i]).getShape().back());
        }
      if (jit) {
        EXPECT_TRUE(succeeded(jit::runJit(*module, name, args)));
      } else {
        sim::SimulationReport report;
        EXPECT_TRUE(succeeded(sim::simulate(func, args, {}, report)));
      }
      results[jit] = channels.back() < 0
                         ? args.back()
                         : cutRows(args.back(), channels.back());
    }
    EXPECT_EQ(results[0].data, results[1].data) << "simulator and JIT differ";
    return results[0];
  }

  std::vector<double> randomValues(int64_t n, ElementKind kind, bool positive) {
    std::uniform_real_distribution<double> uniform(positive ? 0.1 : -2, 2);
    std::vector<double> v(n);
    for (double &x : v)
      x = roundFloat(kind, uniform(rng));
    return v;
  }

  /// Expects `got` to be `expected` rounded to `kind` (exactly, or within
  /// `ulps` units in the last place of the rounded value).
  void expectNear(const HostArray &got, const std::vector<double> &expected,
                  ElementKind kind, bool exact) {
    std::vector<double> values = floatValues(got);
    ASSERT_EQ(values.size(), expected.size());
    double ulp = kind == ElementKind::F32 ? 0x1p-23 : 0x1p-10;
    for (size_t i = 0; i < values.size(); ++i) {
      double want = roundFloat(kind, expected[i]);
      if (exact) {
        ASSERT_EQ(values[i], want) << "element " << i;
        continue;
      }
      double tolerance = 4 * ulp * std::max(1.0, std::fabs(want));
      ASSERT_NEAR(values[i], want, tolerance) << "element " << i;
    }
  }

  void checkUnary(const UnaryCase &c, const Shape &shape, ElementKind kind,
                  const char *device) {
    const char *element = getElementKindName(kind);
    SCOPED_TRACE(llvm::formatv("npu.{0} {1} on {2}", c.op,
                               tensorType(shape, element), device)
                     .str());
    std::string type = tensorType(shape, element);
    std::string source = llvm::formatv("func.func @f(%x: {0}) -> {0} {{\n"
                                       "  %r = npu.{1} %x {2} : {0} -> {0}\n"
                                       "  return %r : {0}\n}\n",
                                       type, c.op, c.attrs)
                             .str();
    std::vector<double> x = randomValues(numElements(shape), kind, c.positive);
    HostArray got = runBoth(source, {floatArray(kind, x, shape)}, device);
    std::vector<double> expected;
    for (double v : x)
      expected.push_back(c.ref(v));
    expectNear(got, expected, kind, c.exact);
  }

  void checkBinary(const BinaryCase &c, const Shape &lhs, const Shape &rhs,
                   ElementKind kind, const char *device,
                   bool vectorScalar = false) {
    const char *element = getElementKindName(kind);
    Shape shape = broadcastShape(lhs, rhs);
    std::string op = vectorScalar ? std::string("vs_") + c.op : c.op;
    SCOPED_TRACE(llvm::formatv("npu.{0} {1}, {2} on {3}", op,
                               tensorType(lhs, element),
                               tensorType(rhs, element), device)
                     .str());
    std::string source =
        llvm::formatv("func.func @f(%a: {0}, %b: {1}) -> {2} {{\n"
                      "  %r = npu.{3} %a, %b : ({0}, {1}) -> {2}\n"
                      "  return %r : {2}\n}\n",
                      tensorType(lhs, element), tensorType(rhs, element),
                      tensorType(shape, element), op)
            .str();
    std::vector<double> a = randomValues(numElements(lhs), kind, false);
    std::vector<double> b = randomValues(numElements(rhs), kind, false);
    HostArray got = runBoth(
        source, {floatArray(kind, a, lhs), floatArray(kind, b, rhs)}, device);
    std::vector<double> expected(numElements(shape));
    for (int64_t i = 0; i < numElements(shape); ++i)
      expected[i] =
          c.ref(a[operandIndex(shape, lhs, i)], b[operandIndex(shape, rhs, i)]);
    expectNear(got, expected, kind, /*exact=*/true);
  }

  void checkMatmul(const MatmulCase &c) {
    const char *element = getElementKindName(c.element);
    // [..., M, K] x [..., K, N] as the op reads them.
    Shape l = c.lhs, r = c.rhs;
    if (c.transposeLhs)
      std::swap(l[l.size() - 2], l[l.size() - 1]);
    if (c.transposeRhs)
      std::swap(r[r.size() - 2], r[r.size() - 1]);
    int64_t m = l[l.size() - 2], k = l.back(), n = r.back();
    Shape batchL(l.begin(), l.end() - 2), batchR(r.begin(), r.end() - 2);
    Shape out = broadcastShape(batchL, batchR);
    int64_t batches = numElements(out);
    out.push_back(m);
    out.push_back(n);
    std::string attrs;
    if (c.transposeLhs)
      attrs += "transpose_lhs";
    if (c.transposeRhs)
      attrs += std::string(attrs.empty() ? "" : ", ") + "transpose_rhs";
    std::string operandTypes = tensorType(c.lhs, element) + ", " +
                               tensorType(c.rhs, element) +
                               (c.bias ? ", " + tensorType({n}, element) : "");
    std::string source =
        llvm::formatv("func.func @f(%a: {0}, %b: {1}{2}) -> {3} {{\n"
                      "  %r = npu.matmul %a, %b{4} {5} : ({6}) -> {3}\n"
                      "  return %r : {3}\n}\n",
                      tensorType(c.lhs, element), tensorType(c.rhs, element),
                      c.bias ? ", %bias: " + tensorType({n}, element) : "",
                      tensorType(out, element), c.bias ? ", %bias" : "",
                      attrs.empty() ? "" : "{" + attrs + "}", operandTypes)
            .str();
    SCOPED_TRACE(source);
    std::vector<double> a = randomValues(numElements(c.lhs), c.element, false);
    std::vector<double> b = randomValues(numElements(c.rhs), c.element, false);
    std::vector<double> bias =
        c.bias ? randomValues(n, c.element, false) : std::vector<double>();
    std::vector<HostArray> inputs = {floatArray(c.element, a, c.lhs),
                                     floatArray(c.element, b, c.rhs)};
    if (c.bias)
      inputs.push_back(floatArray(c.element, bias, Shape{n}));
    HostArray got = runBoth(source, inputs, c.device);
    std::vector<double> values = floatValues(got);
    ASSERT_EQ(int64_t(values.size()), batches * m * n);
    // Element (i, j) of batch t of an operand stored as `shape`, read as
    // [..., rows, cols] (transposed when `transposed`).
    auto at = [&](const std::vector<double> &v, const Shape &shape,
                  bool transposed, int64_t t, int64_t i, int64_t j) {
      int64_t rows = shape[shape.size() - 2], cols = shape.back();
      int64_t own = numElements(Shape(shape.begin(), shape.end() - 2));
      int64_t base = (own == 1 ? 0 : t) * rows * cols;
      return transposed ? v[base + j * cols + i] : v[base + i * cols + j];
    };
    double unit = c.element == ElementKind::F32 ? 0x1p-24 : 0x1p-11;
    for (int64_t t = 0; t < batches; ++t)
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          double sum = c.bias ? bias[j] : 0, magnitude = std::fabs(sum);
          for (int64_t q = 0; q < k; ++q) {
            double p = at(a, c.lhs, c.transposeLhs, t, i, q) *
                       at(b, c.rhs, c.transposeRhs, t, q, j);
            sum += p;
            magnitude += std::fabs(p);
          }
          double bound = (k + 1) * 0x1p-24 * magnitude + unit * std::fabs(sum);
          ASSERT_NEAR(values[(t * m + i) * n + j], sum, bound)
              << "batch " << t << " element (" << i << ", " << j << ")";
        }
  }

  /// softmax over the last axis, or layer_norm over the trailing
  /// dimensions from `axis`, of random rows of `shape`.
  void checkRows(bool softmax, const Shape &shape, int64_t axis,
                 ElementKind kind, const char *device) {
    const char *element = getElementKindName(kind);
    int64_t rank = shape.size();
    int64_t from = axis < 0 ? axis + rank : axis;
    Shape trailing(shape.begin() + from, shape.end());
    std::string type = tensorType(shape, element);
    std::string paramType = tensorType(trailing, element);
    std::string source =
        softmax
            ? llvm::formatv("func.func @f(%x: {0}) -> {0} {{\n"
                            "  %r = npu.softmax %x {{axis = {1} : i64} : {0} "
                            "-> {0}\n  return %r : {0}\n}\n",
                            type, axis)
                  .str()
            : llvm::formatv(
                  "func.func @f(%x: {0}, %g: {1}, %b: {1}) -> {0} {{\n"
                  "  %r = npu.layer_norm %x, %g, %b {{axis = {2} : i64, "
                  "epsilon = 1.0e-3 : f32} : ({0}, {1}, {1}) -> {0}\n"
                  "  return %r : {0}\n}\n",
                  type, paramType, axis)
                  .str();
    SCOPED_TRACE(source);
    std::vector<double> x = randomValues(numElements(shape), kind, false);
    std::vector<HostArray> inputs = {floatArray(kind, x, shape)};
    std::vector<double> gamma, beta;
    if (!softmax) {
      gamma = randomValues(numElements(trailing), kind, false);
      beta = randomValues(numElements(trailing), kind, false);
      inputs.push_back(floatArray(kind, gamma, trailing));
      inputs.push_back(floatArray(kind, beta, trailing));
    }
    HostArray got = runBoth(source, inputs, device);
    std::vector<double> values = floatValues(got);
    ASSERT_EQ(values.size(), x.size());
    int64_t length = numElements(trailing);
    // f32 arithmetic over a row: a few units in the last place per term.
    double unit = kind == ElementKind::F32 ? 0x1p-24 : 0x1p-11;
    double tolerance = 8 * length * 0x1p-24 + 2 * unit;
    for (int64_t r = 0; r * length < int64_t(x.size()); ++r) {
      const double *row = &x[r * length];
      std::vector<double> want(length);
      if (softmax) {
        double max = *std::max_element(row, row + length), sum = 0;
        for (int64_t i = 0; i < length; ++i)
          sum += want[i] = std::exp(row[i] - max);
        for (double &w : want)
          w /= sum;
      } else {
        double mean = 0, var = 0;
        for (int64_t i = 0; i < length; ++i)
          mean += row[i] / length;
        for (int64_t i = 0; i < length; ++i)
          var += (row[i] - mean) * (row[i] - mean) / length;
        for (int64_t i = 0; i < length; ++i)
          want[i] =
              (row[i] - mean) / std::sqrt(var + double(1.0e-3f)) * gamma[i] +
              beta[i];
      }
      for (int64_t i = 0; i < length; ++i)
        ASSERT_NEAR(values[r * length + i], want[i],
                    tolerance * std::max(1.0, std::fabs(want[i])))
            << "row " << r << " element " << i;
    }
  }

  /// test/Target/ONNX/models/NAME.onnx imported (weights as arguments)
  /// and lowered for `device`.
  OwningOpRef<ModuleOp> importModel(StringRef name, const char *device) {
    std::string path =
        (Twine(NPU_SOURCE_DIR) + "/test/Target/ONNX/models/" + name + ".onnx")
            .str();
    auto bytes = llvm::MemoryBuffer::getFile(path);
    EXPECT_TRUE(bool(bytes)) << path;
    if (!bytes)
      return nullptr;
    OwningOpRef<ModuleOp> module =
        importONNX((*bytes)->getBuffer(), path, &ctx, ONNXImportOptions());
    EXPECT_TRUE(module) << path;
    if (!module)
      return nullptr;
    if (failed(lowerModule(*module, device))) {
      ADD_FAILURE() << "lowering failed: " << path;
      return nullptr;
    }
    return module;
  }

  void checkConv(const ConvCase &c) {
    const char *element = getElementKindName(c.element);
    int64_t n = c.input[0], h = c.input[1], w = c.input[2], ch = c.input[3];
    int64_t o = c.filter[0], kh = c.filter[1], kw = c.filter[2],
            in = c.filter[3];
    auto extent = [](int64_t size, int64_t k, int64_t stride, int64_t lo,
                     int64_t hi, int64_t dilation) {
      return (size + lo + hi - dilation * (k - 1) - 1) / stride + 1;
    };
    int64_t oh =
        extent(h, kh, c.strides[0], c.padding[0], c.padding[1], c.dilations[0]);
    int64_t ow =
        extent(w, kw, c.strides[1], c.padding[2], c.padding[3], c.dilations[1]);
    Shape out = {n, oh, ow, o};
    auto list = [](const std::vector<int64_t> &v) {
      std::string s;
      for (int64_t x : v)
        s += (s.empty() ? "" : ", ") + std::to_string(x);
      return s;
    };
    std::string types = tensorType(c.input, element) + ", " +
                        tensorType(c.filter, element) +
                        (c.bias ? ", " + tensorType({o}, element) : "");
    std::string source = llvm::formatv(
        "func.func @f(%x: {0}, %w: {1}{2}) -> {3} {{\n"
        "  %r = npu.conv2d %x, %w{4} {{strides = array<i64: {5}>, padding = "
        "array<i64: {6}>, dilations = array<i64: {7}>, groups = {8} : i64} : "
        "({9}) -> {3}\n  return %r : {3}\n}\n",
        tensorType(c.input, element), tensorType(c.filter, element),
        c.bias ? ", %b: " + tensorType({o}, element) : "",
        tensorType(out, element), c.bias ? ", %b" : "", list(c.strides),
        list(c.padding), list(c.dilations), c.groups, types);
    SCOPED_TRACE(source);
    std::vector<double> x =
        randomValues(numElements(c.input), c.element, false);
    std::vector<double> f =
        randomValues(numElements(c.filter), c.element, false);
    std::vector<double> bias =
        c.bias ? randomValues(o, c.element, false) : std::vector<double>();
    std::vector<HostArray> inputs = {floatArray(c.element, x, c.input),
                                     floatArray(c.element, f, c.filter)};
    if (c.bias)
      inputs.push_back(floatArray(c.element, bias, Shape{o}));
    std::vector<double> got = floatValues(runBoth(source, inputs, c.device));
    ASSERT_EQ(int64_t(got.size()), numElements(out));
    double unit = c.element == ElementKind::F32 ? 0x1p-24 : 0x1p-11;
    int64_t og = o / c.groups;
    for (int64_t b = 0; b < n; ++b)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t z = 0; z < ow; ++z)
          for (int64_t q = 0; q < o; ++q) {
            int64_t group = q / og;
            double sum = c.bias ? bias[q] : 0, magnitude = std::fabs(sum);
            for (int64_t i = 0; i < kh; ++i)
              for (int64_t j = 0; j < kw; ++j) {
                int64_t iy =
                    y * c.strides[0] - c.padding[0] + i * c.dilations[0];
                int64_t iz =
                    z * c.strides[1] - c.padding[2] + j * c.dilations[1];
                if (iy < 0 || iy >= h || iz < 0 || iz >= w)
                  continue;
                for (int64_t r = 0; r < in; ++r) {
                  double p = x[((b * h + iy) * w + iz) * ch + group * in + r] *
                             f[((q * kh + i) * kw + j) * in + r];
                  sum += p;
                  magnitude += std::fabs(p);
                }
              }
            double bound = (kh * kw * in + 1) * 0x1p-24 * magnitude +
                           unit * std::fabs(sum);
            ASSERT_NEAR(got[((b * oh + y) * ow + z) * o + q], sum, bound)
                << "output (" << b << ", " << y << ", " << z << ", " << q
                << ")";
          }
  }

  MLIRContext ctx;
  std::mt19937 rng{7};
};

TEST_P(GraphKernelTest, ElementwiseEveryUnaryOp) {
  // 10500 elements: tiles of 4096 (ascend910b) cut within the one row.
  for (const UnaryCase &c : unaryCases())
    checkUnary(c, {3, 50, 70}, ElementKind::F32, "ascend910b");
}

TEST_P(GraphKernelTest, ElementwiseUnaryInHalfOnBothDevices) {
  for (const char *device : {"ascend910b", "mlu590"})
    for (const UnaryCase &c : unaryCases())
      checkUnary(c, {7, 33}, ElementKind::F16, device);
}

TEST_P(GraphKernelTest, ElementwiseEveryBinaryOpAndBroadcast) {
  // Same shape; a per-channel operand of an NCHW tensor on either side
  // (one element per row, the rows of the channel wrapping over the
  // batch); a trailing row vector (one row for all); a column with a
  // leading broadcast; a scalar; both operands broadcast.
  const std::vector<std::pair<Shape, Shape>> shapes = {
      {{4, 6, 8}, {4, 6, 8}},
      {{2, 3, 5, 7}, {1, 3, 1, 1}},
      {{1, 3, 1, 1}, {2, 3, 5, 7}},
      {{4, 6, 8}, {8}},
      {{8}, {4, 6, 8}},
      {{4, 6, 8}, {6, 1}},
      {{4, 6, 8}, {}},
      {{}, {4, 6, 8}},
      {{5, 1}, {1, 7}},
      {{6, 1}, {2, 6, 9}},
      // Broadcasts between kept dimensions: rows one by one, a row that
      // repeats over the innermost leading dimensions copied once and
      // spread (a whole row, one element per row, RAFT's window offsets).
      {{3, 1, 9}, {1, 5, 1}},
      {{3, 1, 1}, {1, 5, 9}},
      {{6, 1, 1, 2}, {7, 7, 2}},
      {{1, 4, 3, 5, 5}, {4, 1, 5, 5}}};
  for (const BinaryCase &c : binaryCases())
    for (const auto &[lhs, rhs] : shapes)
      checkBinary(c, lhs, rhs, ElementKind::F32, "ascend910b");
}

TEST_P(GraphKernelTest, ElementwiseTilesAcrossRowsAndHalf) {
  // Rows of 100 in tiles of 40 rows (4096 elements) with a partial last
  // tile; f16 tiles of 8192 elements on mlu590.
  for (const BinaryCase &c : binaryCases()) {
    checkBinary(c, {2, 150, 100}, {150, 1}, ElementKind::F32, "ascend910b");
    checkBinary(c, {2, 150, 100}, {100}, ElementKind::F16, "mlu590");
    // A row repeated 150 times, the runs cut by the tiles' edges.
    checkBinary(c, {2, 1, 100}, {2, 150, 1}, ElementKind::F32, "ascend910b");
  }
}

TEST_P(GraphKernelTest, ElementwiseVectorScalarOps) {
  for (const BinaryCase &c : binaryCases()) {
    checkBinary(c, {2, 4, 4, 64}, {64}, ElementKind::F32, "ascend910b",
                /*vectorScalar=*/true);
    checkBinary(c, {2, 4, 4, 64}, {1}, ElementKind::F32, "mlu590",
                /*vectorScalar=*/true);
  }
}

TEST_P(GraphKernelTest, ElementwiseIntegers) {
  // i32, exactly: the binary ops but division (which truncates) with a
  // per-row broadcast, and the unary ops integers have.
  std::uniform_int_distribution<int32_t> small(-50, 50);
  auto values = [&](int64_t n) {
    std::vector<int32_t> v(n);
    for (int32_t &x : v)
      x = small(rng);
    return v;
  };
  Shape lhs = {3, 4, 5}, rhs = {4, 1};
  std::vector<int32_t> a = values(60), b = values(4);
  for (const BinaryCase &c : binaryCases()) {
    if (std::string(c.op) == "div")
      continue;
    SCOPED_TRACE(c.op);
    std::string source = llvm::formatv(
        "func.func @f(%a: tensor<3x4x5xi32>, %b: tensor<4x1xi32>) -> "
        "tensor<3x4x5xi32> {{\n"
        "  %r = npu.{0} %a, %b : (tensor<3x4x5xi32>, tensor<4x1xi32>) -> "
        "tensor<3x4x5xi32>\n  return %r : tensor<3x4x5xi32>\n}\n",
        c.op);
    HostArray got =
        runBoth(source,
                {HostArray::fromValues<int32_t>(ElementKind::I32, a, lhs),
                 HostArray::fromValues<int32_t>(ElementKind::I32, b, rhs)},
                "ascend910b");
    std::vector<int32_t> result = got.getValues<int32_t>();
    ASSERT_EQ(result.size(), 60u);
    for (int64_t i = 0; i < 60; ++i)
      EXPECT_EQ(result[i], c.ref(a[i], b[operandIndex(lhs, rhs, i)]))
          << "element " << i;
  }
  for (const UnaryCase &c : unaryCases()) {
    if (!c.exact)
      continue;
    SCOPED_TRACE(c.op);
    std::string source =
        llvm::formatv("func.func @f(%x: tensor<3x4x5xi32>) -> "
                      "tensor<3x4x5xi32> {{\n"
                      "  %r = npu.{0} %x {1} : tensor<3x4x5xi32> -> "
                      "tensor<3x4x5xi32>\n  return %r : tensor<3x4x5xi32>\n}\n",
                      c.op,
                      std::string(c.op) == "clip"
                          ? "{min = -7.0 : f64, max = 9.0 : f64}"
                          : "")
            .str();
    HostArray got = runBoth(
        source, {HostArray::fromValues<int32_t>(ElementKind::I32, a, lhs)},
        "mlu590");
    std::vector<int32_t> result = got.getValues<int32_t>();
    ASSERT_EQ(result.size(), 60u);
    for (int64_t i = 0; i < 60; ++i) {
      double want = std::string(c.op) == "clip"
                        ? std::min(std::max<double>(a[i], -7), 9.0)
                        : c.ref(a[i]);
      EXPECT_EQ(result[i], want) << "element " << i;
    }
  }
}

TEST_P(GraphKernelTest, ElementwiseEqualNotSelect) {
  // Every comparison of values drawn from five (so that many are equal)
  // and NaNs against a per-row operand; and, or; not; select with a per-row
  // condition and a trailing row, and with a scalar. Exact.
  std::uniform_int_distribution<int> pick(-2, 2);
  auto few = [&](int64_t n) {
    std::vector<float> v(n);
    for (float &x : v)
      x = 0.5f * pick(rng);
    return v;
  };
  auto bits = [&](int64_t n) {
    std::vector<uint8_t> v(n);
    for (uint8_t &x : v)
      x = pick(rng) > 0;
    return v;
  };
  auto f32 = [](const std::vector<float> &v, const Shape &shape) {
    return HostArray::fromValues<float>(ElementKind::F32, v, shape);
  };
  auto i1 = [](const std::vector<uint8_t> &v, const Shape &shape) {
    return HostArray::fromValues<uint8_t>(ElementKind::I1, v, shape);
  };
  Shape full = {3, 4, 5}, row = {4, 1}, trail = {5};
  std::vector<float> a = few(60), b = few(4), c = few(5);
  // A NaN on each side: every comparison with it is false.
  std::vector<float> an = a, bn = b;
  an[7] = bn[2] = std::nanf("");
  const std::pair<const char *, std::function<bool(float, float)>>
      comparisons[] = {{"equal", std::equal_to<float>()},
                       {"less", std::less<float>()},
                       {"less_equal", std::less_equal<float>()},
                       {"greater", std::greater<float>()},
                       {"greater_equal", std::greater_equal<float>()}};
  std::vector<uint8_t> got;
  for (const auto &[op, ref] : comparisons) {
    got = runBoth(llvm::formatv("func.func @f(%a: tensor<3x4x5xf32>, %b: "
                                "tensor<4x1xf32>) -> tensor<3x4x5xi1> {{\n"
                                "  %r = npu.{0} %a, %b : (tensor<3x4x5xf32>, "
                                "tensor<4x1xf32>) -> tensor<3x4x5xi1>\n"
                                "  return %r : tensor<3x4x5xi1>\n}\n",
                                op),
                  {f32(an, full), f32(bn, row)}, "ascend910b")
              .getValues<uint8_t>();
    ASSERT_EQ(got.size(), 60u);
    for (int64_t i = 0; i < 60; ++i)
      EXPECT_EQ(got[i], ref(an[i], bn[operandIndex(full, row, i)]))
          << op << " " << i;
  }

  // and / or, one operand broadcast per row.
  std::vector<uint8_t> p = bits(60), q = bits(4);
  for (bool isAnd : {true, false}) {
    got = runBoth(llvm::formatv("func.func @f(%p: tensor<3x4x5xi1>, %q: "
                                "tensor<4x1xi1>) -> tensor<3x4x5xi1> {{\n"
                                "  %r = npu.{0} %p, %q : (tensor<3x4x5xi1>, "
                                "tensor<4x1xi1>) -> tensor<3x4x5xi1>\n"
                                "  return %r : tensor<3x4x5xi1>\n}\n",
                                isAnd ? "and" : "or"),
                  {i1(p, full), i1(q, row)}, "mlu590")
              .getValues<uint8_t>();
    ASSERT_EQ(got.size(), 60u);
    for (int64_t i = 0; i < 60; ++i) {
      bool x = p[i], y = q[operandIndex(full, row, i)];
      EXPECT_EQ(got[i], isAnd ? x && y : x || y) << i;
    }
  }

  std::vector<uint8_t> m = bits(60);
  got = runBoth("func.func @f(%m: tensor<3x4x5xi1>) -> tensor<3x4x5xi1> {\n"
                "  %r = npu.not %m : tensor<3x4x5xi1> -> tensor<3x4x5xi1>\n"
                "  return %r : tensor<3x4x5xi1>\n}\n",
                {i1(m, full)}, "mlu590")
            .getValues<uint8_t>();
  ASSERT_EQ(got.size(), 60u);
  for (int64_t i = 0; i < 60; ++i)
    EXPECT_EQ(got[i], !m[i]) << "not " << i;

  std::vector<uint8_t> perRow = bits(4);
  std::vector<float> picked =
      runBoth("func.func @f(%m: tensor<4x1xi1>, %a: tensor<3x4x5xf32>, %c: "
              "tensor<5xf32>) -> tensor<3x4x5xf32> {\n  %r = npu.select %m, "
              "%a, %c : (tensor<4x1xi1>, tensor<3x4x5xf32>, tensor<5xf32>) "
              "-> tensor<3x4x5xf32>\n  return %r : tensor<3x4x5xf32>\n}\n",
              {i1(perRow, row), f32(a, full), f32(c, trail)}, "ascend910b")
          .getValues<float>();
  ASSERT_EQ(picked.size(), 60u);
  for (int64_t i = 0; i < 60; ++i)
    EXPECT_EQ(picked[i], perRow[operandIndex(full, row, i)]
                             ? a[i]
                             : c[operandIndex(full, trail, i)])
        << "select " << i;

  picked = runBoth("func.func @f(%m: tensor<3x4x5xi1>, %s: tensor<f32>, %a: "
                   "tensor<3x4x5xf32>) -> tensor<3x4x5xf32> {\n  %r = "
                   "npu.select %m, %s, %a : (tensor<3x4x5xi1>, tensor<f32>, "
                   "tensor<3x4x5xf32>) -> tensor<3x4x5xf32>\n  return %r : "
                   "tensor<3x4x5xf32>\n}\n",
                   {i1(m, full), f32({-7.5f}, {}), f32(a, full)}, "mlu590")
               .getValues<float>();
  ASSERT_EQ(picked.size(), 60u);
  for (int64_t i = 0; i < 60; ++i)
    EXPECT_EQ(picked[i], m[i] ? -7.5f : a[i]) << "select scalar " << i;
}

TEST_P(GraphKernelTest, Cast) {
  // ONNX Cast. Float to integer truncates toward zero; where ONNX leaves it
  // undefined (NaN, out of range) the kernel gives 0 and the nearest value
  // in range that the float type holds. To bool: x != 0 (NaN is true).
  const double nan = std::nan(""), inf = HUGE_VAL;
  std::vector<double> special = {nan, inf,  -inf,         3e9,  -3e9,
                                 2.7, -2.7, 0.5,          -0.0, 0.0,
                                 1.0, -1.0, 2147483520.0, 1e-3, 123456.7};
  std::vector<double> x = randomValues(45, ElementKind::F32, false);
  for (double &v : x)
    v = roundFloat(ElementKind::F32, v * 1000);
  x.insert(x.end(), special.begin(), special.end());
  Shape shape = {6, 10};
  HostArray in = floatArray(ElementKind::F32, x, shape);
  auto castSource = [](const char *from, const char *to) {
    return llvm::formatv("func.func @f(%x: tensor<6x10x{0}>) -> "
                         "tensor<6x10x{1}> {{\n  %r = npu.cast %x : "
                         "tensor<6x10x{0}> -> tensor<6x10x{1}>\n  return %r : "
                         "tensor<6x10x{1}>\n}\n",
                         from, to)
        .str();
  };
  std::vector<int32_t> ints =
      runBoth(castSource("f32", "i32"), {in}, "ascend910b")
          .getValues<int32_t>();
  ASSERT_EQ(ints.size(), 60u);
  for (size_t i = 0; i < 60; ++i) {
    double want = std::isnan(x[i])
                      ? 0
                      : std::clamp(std::trunc(x[i]), -0x1p31, 2147483520.0);
    EXPECT_EQ(ints[i], int64_t(want)) << "f32 " << x[i] << " to i32";
  }
  std::vector<uint8_t> bools =
      runBoth(castSource("f32", "i1"), {in}, "mlu590").getValues<uint8_t>();
  ASSERT_EQ(bools.size(), 60u);
  for (size_t i = 0; i < 60; ++i)
    EXPECT_EQ(bools[i], x[i] != 0) << "f32 " << x[i] << " to i1";
  std::vector<double> halves =
      floatValues(runBoth(castSource("f32", "f16"), {in}, "ascend910b"));
  ASSERT_EQ(halves.size(), 60u);
  for (size_t i = 0; i < 60; ++i) {
    double want = roundFloat(ElementKind::F16, x[i]);
    if (std::isnan(want))
      EXPECT_TRUE(std::isnan(halves[i])) << "f32 " << x[i] << " to f16";
    else
      EXPECT_EQ(halves[i], want) << "f32 " << x[i] << " to f16";
  }
  // Integers: i1 to f32 is 0 or 1; i32 to i8 wraps; i32 to f16 rounds.
  std::vector<uint8_t> flags(60);
  std::vector<int32_t> wide(60);
  for (size_t i = 0; i < 60; ++i) {
    flags[i] = i % 3 == 0;
    wide[i] = int32_t(i * 2654435761u);
  }
  std::vector<float> fromBool =
      runBoth(castSource("i1", "f32"),
              {HostArray::fromValues<uint8_t>(ElementKind::I1, flags, shape)},
              "ascend910b")
          .getValues<float>();
  std::vector<int8_t> narrow =
      runBoth(castSource("i32", "i8"),
              {HostArray::fromValues<int32_t>(ElementKind::I32, wide, shape)},
              "mlu590")
          .getValues<int8_t>();
  std::vector<double> wideHalves = floatValues(
      runBoth(castSource("i32", "f16"),
              {HostArray::fromValues<int32_t>(ElementKind::I32, wide, shape)},
              "mlu590"));
  ASSERT_EQ(fromBool.size(), 60u);
  ASSERT_EQ(narrow.size(), 60u);
  ASSERT_EQ(wideHalves.size(), 60u);
  for (size_t i = 0; i < 60; ++i) {
    EXPECT_EQ(fromBool[i], flags[i] ? 1.0f : 0.0f) << "i1 to f32 " << i;
    EXPECT_EQ(narrow[i], int8_t(uint8_t(wide[i] & 0xff))) << "i32 to i8 " << i;
    EXPECT_EQ(wideHalves[i], roundFloat(ElementKind::F16, wide[i]))
        << "i32 " << wide[i] << " to f16";
  }
}

TEST_P(GraphKernelTest, Pow) {
  // ONNX Pow (numpy's power) against std::pow in float64: a tensor
  // exponent (integers and fractions, zeros, negative and zero bases), and
  // constant exponents the kernel raises to by multiplication or sqrt.
  std::uniform_int_distribution<int> integer(-3, 3), choose(0, 3);
  std::vector<double> x = randomValues(80, ElementKind::F32, false);
  std::vector<double> y = randomValues(80, ElementKind::F32, false);
  for (size_t i = 0; i < 80; ++i) {
    if (choose(rng) == 0)
      y[i] = integer(rng);
    if (i % 16 == 0)
      x[i] = 0;
  }
  y[1] = 0;
  x[2] = -0.5, y[2] = 3;
  x[3] = -0.5, y[3] = 0.5;
  x[16] = 0, y[16] = -1;
  auto check = [&](const std::vector<double> &got,
                   const std::vector<double> &base,
                   std::function<double(size_t)> exponent) {
    ASSERT_EQ(got.size(), base.size());
    for (size_t i = 0; i < got.size(); ++i) {
      double want = std::pow(base[i], exponent(i));
      SCOPED_TRACE(llvm::formatv("{0} ^ {1}", base[i], exponent(i)).str());
      if (std::isnan(want))
        EXPECT_TRUE(std::isnan(got[i])) << got[i];
      else if (std::isinf(want))
        EXPECT_EQ(got[i], want);
      else
        EXPECT_NEAR(got[i], want, 4e-6 * std::max(1.0, std::fabs(want)));
    }
  };
  Shape shape = {8, 10};
  check(floatValues(runBoth(
            "func.func @f(%x: tensor<8x10xf32>, %y: tensor<8x10xf32>) -> "
            "tensor<8x10xf32> {\n  %r = npu.pow %x, %y : (tensor<8x10xf32>, "
            "tensor<8x10xf32>) -> tensor<8x10xf32>\n  return %r : "
            "tensor<8x10xf32>\n}\n",
            {floatArray(ElementKind::F32, x, shape),
             floatArray(ElementKind::F32, y, shape)},
            "ascend910b")),
        x, [&](size_t i) { return y[i]; });
  std::vector<double> positive = randomValues(80, ElementKind::F32, true);
  for (double n : {2.0, -3.0, 0.5, -0.5, 0.0, 1.0}) {
    std::string source = llvm::formatv(
        "func.func @f(%x: tensor<8x10xf32>) -> tensor<8x10xf32> {{\n"
        "  %n = npu.constant dense<{0:e}> : tensor<1xf32> -> tensor<1xf32>\n"
        "  %r = npu.pow %x, %n : (tensor<8x10xf32>, tensor<1xf32>) -> "
        "tensor<8x10xf32>\n  return %r : tensor<8x10xf32>\n}\n",
        n);
    SCOPED_TRACE(source);
    check(floatValues(runBoth(source,
                              {floatArray(ElementKind::F32, positive, shape)},
                              "mlu590")),
          positive, [&](size_t) { return n; });
  }
  std::vector<int32_t> base(80);
  for (size_t i = 0; i < 80; ++i)
    base[i] = int32_t(i) - 40;
  std::vector<int32_t> cubes =
      runBoth("func.func @f(%x: tensor<8x10xi32>) -> tensor<8x10xi32> {\n"
              "  %n = npu.constant dense<3> : tensor<i32> -> tensor<i32>\n"
              "  %r = npu.pow %x, %n : (tensor<8x10xi32>, tensor<i32>) -> "
              "tensor<8x10xi32>\n  return %r : tensor<8x10xi32>\n}\n",
              {HostArray::fromValues<int32_t>(ElementKind::I32, base, shape)},
              "ascend910b")
          .getValues<int32_t>();
  ASSERT_EQ(cubes.size(), 80u);
  for (size_t i = 0; i < 80; ++i)
    EXPECT_EQ(cubes[i], base[i] * base[i] * base[i]) << base[i] << " ^ 3";
}

TEST_P(GraphKernelTest, ElementwiseEmptyTensors) {
  checkUnary(unaryCases()[0], {0, 5}, ElementKind::F32, "ascend910b");
  checkBinary(binaryCases()[0], {3, 0, 4}, {4}, ElementKind::F32, "ascend910b");
}

TEST_P(GraphKernelTest, Softmax) {
  // Rows of 1000 (a classifier) and of 4096 (attention) in f32 and f16;
  // more rows than a tile holds.
  checkRows(true, {2, 1000}, -1, ElementKind::F32, "ascend910b");
  checkRows(true, {3, 4096}, 1, ElementKind::F16, "ascend910b");
  checkRows(true, {4, 30, 70}, -1, ElementKind::F32, "mlu590");
}

TEST_P(GraphKernelTest, LayerNorm) {
  // Over the last axis (a transformer's hidden size) and over two
  // trailing dimensions; f16 and both devices.
  checkRows(false, {2, 50, 768}, -1, ElementKind::F32, "ascend910b");
  checkRows(false, {3, 8, 16}, 1, ElementKind::F32, "mlu590");
  checkRows(false, {64, 256}, -1, ElementKind::F16, "ascend910b");
}

TEST_P(GraphKernelTest, ReshapeAndConstants) {
  // A reshape copies the elements in order (here through three tiles of
  // 4096 on ascend910b); constants: a splat filled by a launch, a few
  // values stored one by one, a scalar.
  Shape from = {3, 50, 70}, to = {70, 150};
  std::vector<double> x = randomValues(10500, ElementKind::F32, false);
  std::string source =
      "func.func @f(%x: tensor<3x50x70xf32>) -> tensor<70x150xf32> {\n"
      "  %r = npu.reshape %x : tensor<3x50x70xf32> -> tensor<70x150xf32>\n"
      "  return %r : tensor<70x150xf32>\n}\n";
  HostArray got =
      runBoth(source, {floatArray(ElementKind::F32, x, from)}, "ascend910b");
  EXPECT_EQ(floatValues(got), x);
  // To and from rank 0 (a transformer's scale, reshaped from [1]): views
  // with no reassociation groups, in a pooled intermediate.
  std::vector<double> y = randomValues(12, ElementKind::F32, false);
  got = runBoth(
      "func.func @f(%s: tensor<1xf32>, %y: tensor<3x4xf32>) -> tensor<3x4xf32> "
      "{\n  %r = npu.reshape %s : tensor<1xf32> -> tensor<f32>\n"
      "  %b = npu.reshape %r : tensor<f32> -> tensor<1x1xf32>\n"
      "  %m = npu.mul %y, %b : (tensor<3x4xf32>, tensor<1x1xf32>) -> "
      "tensor<3x4xf32>\n  return %m : tensor<3x4xf32>\n}\n",
      {floatArray(ElementKind::F32, std::vector<double>{-2.5}, Shape{1}),
       floatArray(ElementKind::F32, y, Shape{3, 4})},
      "mlu590");
  std::vector<double> scaled = floatValues(got);
  ASSERT_EQ(scaled.size(), 12u);
  for (size_t i = 0; i < 12; ++i)
    EXPECT_EQ(scaled[i], roundFloat(ElementKind::F32, -2.5 * y[i])) << i;
  struct Constant {
    const char *type, *value;
    std::vector<double> expected;
  };
  std::vector<double> splat(5000, -1.5);
  // 300 distinct values: a constant global copied by a launch.
  std::vector<double> table(300);
  std::string tableText = "dense<[[";
  for (int i = 0; i < 300; ++i) {
    table[i] = (i * 37 % 300) - 150.5;
    tableText += (i == 0    ? ""
                  : i % 100 ? ", "
                            : "], [") +
                 std::to_string(table[i]);
  }
  tableText += "]]>";
  for (const Constant &c :
       {Constant{"tensor<50x100xf16>", "dense<-1.5>", splat},
        Constant{"tensor<3x100xf32>", tableText.c_str(), table},
        Constant{"tensor<2x2xf32>",
                 "dense<[[1.0, -2.0], [0.5, 3.0]]>",
                 {1.0, -2.0, 0.5, 3.0}},
        Constant{"tensor<f32>", "dense<4.25>", {4.25}}}) {
    std::string source = llvm::formatv(
        "func.func @f() -> {0} {{\n"
        "  %c = npu.constant {1} : {0} -> {0}\n  return %c : {0}\n}\n",
        c.type, c.value);
    EXPECT_EQ(floatValues(runBoth(source, {}, "mlu590")), c.expected) << source;
  }
}

TEST_P(GraphKernelTest, ImportedModelsRunEndToEnd) {
  // test/Target/ONNX/models, made by scripts/make-onnx-test-models.py, run
  // from their inputs and weights against float64 formulas of the ONNX
  // ops. gemm: Flatten, then Gemm with transB, alpha 0.5, beta 2.
  std::vector<double> x = randomValues(8, ElementKind::F32, false);
  std::vector<double> w = randomValues(12, ElementKind::F32, false);
  std::vector<double> c = randomValues(3, ElementKind::F32, false);
  HostArray y =
      runBoth([&] { return importModel("gemm", "ascend910b"); }, "main",
              {floatArray(ElementKind::F32, x, Shape{2, 4, 1, 1}),
               floatArray(ElementKind::F32, w, Shape{3, 4}),
               floatArray(ElementKind::F32, c, Shape{3})});
  std::vector<double> got = floatValues(y);
  ASSERT_EQ(got.size(), 6u);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j) {
      double dot = 0;
      for (int q = 0; q < 4; ++q)
        dot += x[i * 4 + q] * w[j * 4 + q];
      EXPECT_NEAR(got[i * 3 + j], 0.5 * dot + 2 * c[j], 1e-6)
          << "gemm y[" << i << ", " << j << "]";
    }
  // layernorm: LayerNormalization over the last axis, epsilon 1e-6.
  std::vector<double> in = randomValues(80, ElementKind::F32, false);
  std::vector<double> g = randomValues(8, ElementKind::F32, false);
  std::vector<double> b = randomValues(8, ElementKind::F32, false);
  HostArray norm =
      runBoth([&] { return importModel("layernorm", "mlu590"); }, "main",
              {floatArray(ElementKind::F32, in, Shape{2, 5, 8}),
               floatArray(ElementKind::F32, g, Shape{8}),
               floatArray(ElementKind::F32, b, Shape{8})});
  got = floatValues(norm);
  ASSERT_EQ(got.size(), 80u);
  for (int r = 0; r < 10; ++r) {
    double mean = 0, var = 0;
    for (int i = 0; i < 8; ++i)
      mean += in[r * 8 + i] / 8;
    for (int i = 0; i < 8; ++i)
      var += (in[r * 8 + i] - mean) * (in[r * 8 + i] - mean) / 8;
    for (int i = 0; i < 8; ++i)
      EXPECT_NEAR(
          got[r * 8 + i],
          (in[r * 8 + i] - mean) / std::sqrt(var + double(1e-6f)) * g[i] + b[i],
          1e-5)
          << "layernorm row " << r << " element " << i;
  }
}

TEST_P(GraphKernelTest, Transpose) {
  // The last dimension staying (rows copied) or moving (tiles transposed
  // on chip), planes larger than a tile, rank 1 and 2, f16 and i32.
  struct Case {
    Shape shape;
    std::vector<int64_t> perm;
    ElementKind kind;
    const char *device;
  };
  const std::vector<Case> cases = {
      {{2, 3, 4}, {1, 0, 2}, ElementKind::F32, "ascend910b"},
      {{2, 300, 5, 64}, {0, 2, 1, 3}, ElementKind::F32, "ascend910b"},
      {{1, 3, 40, 200}, {0, 2, 3, 1}, ElementKind::F16, "ascend910b"},
      {{1, 40, 200, 3}, {0, 3, 1, 2}, ElementKind::F32, "mlu590"},
      {{300, 260}, {1, 0}, ElementKind::I32, "ascend910b"},
      {{3, 4, 5, 6}, {3, 2, 1, 0}, ElementKind::F32, "mlu590"},
      {{17}, {0}, ElementKind::F32, "ascend910b"},
  };
  for (const Case &c : cases) {
    const char *element = getElementKindName(c.kind);
    Shape out;
    for (int64_t p : c.perm)
      out.push_back(c.shape[p]);
    std::string perms;
    for (int64_t p : c.perm)
      perms += (perms.empty() ? "" : ", ") + std::to_string(p);
    std::string source = llvm::formatv(
        "func.func @f(%x: {0}) -> {1} {{\n"
        "  %r = npu.transpose %x, [{2}] : {0} -> {1}\n"
        "  return %r : {1}\n}\n",
        tensorType(c.shape, element), tensorType(out, element), perms);
    SCOPED_TRACE(source);
    int64_t n = numElements(c.shape);
    std::vector<int32_t> values(n);
    std::iota(values.begin(), values.end(), 1);
    std::vector<double> asDouble(values.begin(), values.end());
    HostArray input =
        c.kind == ElementKind::I32
            ? HostArray::fromValues<int32_t>(c.kind, values, c.shape)
            : floatArray(c.kind, asDouble, c.shape);
    HostArray got = runBoth(source, {input}, c.device);
    std::vector<double> result;
    if (c.kind == ElementKind::I32) {
      std::vector<int32_t> ints = got.getValues<int32_t>();
      result.assign(ints.begin(), ints.end());
    } else {
      result = floatValues(got);
    }
    ASSERT_EQ(int64_t(result.size()), n);
    // Output element i: its index in the output, permuted back.
    for (int64_t i = 0; i < n; ++i) {
      int64_t rest = i, source = 0;
      std::vector<int64_t> index(out.size());
      for (int64_t d = out.size() - 1; d >= 0; --d) {
        index[d] = rest % out[d];
        rest /= out[d];
      }
      std::vector<int64_t> inIndex(c.shape.size());
      for (size_t d = 0; d < out.size(); ++d)
        inIndex[c.perm[d]] = index[d];
      for (size_t d = 0; d < c.shape.size(); ++d)
        source = source * c.shape[d] + inIndex[d];
      double want = values[source];
      if (c.kind != ElementKind::I32)
        want = roundFloat(c.kind, want);
      ASSERT_EQ(result[i], want) << "element " << i;
    }
  }
}

TEST_P(GraphKernelTest, Conv2D) {
  const std::vector<ConvCase> cases = {
      // 3x3, same padding; strided with uneven padding and a bias;
      // dilated; grouped and depthwise; a 1x1 over more than 128 channels
      // into more than 128; rows of more than 128 pixels; f16 on mlu590;
      // a padded border larger than the kernel needs.
      {{1, 8, 8, 3}, {4, 3, 3, 3}, {1, 1}, {1, 1, 1, 1}},
      {{2, 9, 10, 6}, {5, 3, 3, 6}, {2, 2}, {1, 0, 2, 1}, {1, 1}, 1, true},
      {{1, 12, 12, 4}, {3, 3, 3, 4}, {1, 1}, {2, 2, 2, 2}, {2, 2}},
      {{1, 7, 7, 8}, {6, 3, 3, 4}, {1, 1}, {1, 1, 1, 1}, {1, 1}, 2, true},
      {{1, 6, 6, 5}, {5, 3, 3, 1}, {1, 1}, {1, 1, 1, 1}, {1, 1}, 5},
      {{1, 3, 4, 200}, {150, 1, 1, 200}},
      {{1, 2, 140, 3}, {4, 1, 3, 3}, {1, 1}, {0, 0, 1, 1}},
      {{1, 10, 10, 16},
       {8, 3, 3, 16},
       {2, 2},
       {1, 1, 1, 1},
       {1, 1},
       1,
       true,
       ElementKind::F16,
       "mlu590"},
      {{1, 4, 4, 2}, {2, 2, 2, 2}, {1, 1}, {3, 3, 3, 3}},
      // Tiles of several output rows: 2 rows of 50 pixels, the last tile
      // one row; 9 rows of 14 with strides and dilations, the last 5.
      {{1, 7, 50, 4}, {6, 3, 3, 4}, {1, 1}, {1, 1, 1, 1}},
      {{1, 30, 30, 8}, {16, 3, 3, 8}, {2, 2}, {1, 1, 1, 1}, {2, 2}},
      // One tile for many cores: the contraction split into partial sums
      // that the epilogue adds (f32 without bias, which would otherwise
      // be stored directly; f16 with a bias, 48 cores).
      {{1, 4, 4, 64}, {32, 3, 3, 64}, {1, 1}, {1, 1, 1, 1}},
      {{1, 5, 5, 96},
       {40, 3, 3, 96},
       {1, 1},
       {1, 1, 1, 1},
       {1, 1},
       1,
       true,
       ElementKind::F16,
       "mlu590"},
  };
  for (const ConvCase &c : cases)
    checkConv(c);
}

TEST_P(GraphKernelTest, Conv3D) {
  // npu-decompose-conv3d's conv2d per depth tap, summed, against a float64
  // 3-D convolution: depth stride and padding with bias; depth dilation
  // and groups; a filter one deep (no slice); an empty batch.
  struct Case {
    Shape input, filter;
    std::vector<int64_t> strides, padding, dilations;
    int64_t groups;
    bool bias;
  };
  const std::vector<Case> cases = {
      {{2, 5, 6, 6, 4},
       {8, 3, 3, 3, 4},
       {2, 1, 1},
       {1, 1, 1, 1, 1, 1},
       {1, 1, 1},
       1,
       true},
      {{1, 7, 5, 4, 4},
       {6, 2, 1, 3, 2},
       {1, 1, 2},
       {0, 1, 0, 0, 1, 1},
       {2, 1, 1},
       2,
       false},
      {{1, 3, 4, 4, 3},
       {5, 1, 2, 2, 3},
       {1, 2, 2},
       {0, 0, 0, 0, 0, 0},
       {1, 1, 1},
       1,
       true},
      {{0, 3, 4, 4, 3},
       {5, 1, 2, 2, 3},
       {1, 1, 1},
       {0, 0, 0, 0, 0, 0},
       {1, 1, 1},
       1,
       false},
  };
  auto list = [](const std::vector<int64_t> &v) {
    std::string s;
    for (int64_t x : v)
      s += (s.empty() ? "" : ", ") + std::to_string(x);
    return s;
  };
  for (const Case &c : cases) {
    Shape out = {c.input[0]};
    for (int d = 0; d < 3; ++d)
      out.push_back((c.input[d + 1] + c.padding[2 * d] + c.padding[2 * d + 1] -
                     c.dilations[d] * (c.filter[d + 1] - 1) - 1) /
                        c.strides[d] +
                    1);
    int64_t o = c.filter[0], ig = c.filter[4], og = o / c.groups;
    out.push_back(o);
    std::string types = tensorType(c.input, "f32") + ", " +
                        tensorType(c.filter, "f32") +
                        (c.bias ? ", " + tensorType({o}, "f32") : "");
    std::string source = llvm::formatv(
        "func.func @f(%x: {0}, %w: {1}{2}) -> {3} {{\n"
        "  %r = npu.conv3d %x, %w{4} {{strides = array<i64: {5}>, padding = "
        "array<i64: {6}>, dilations = array<i64: {7}>, groups = {8} : i64} : "
        "({9}) -> {3}\n  return %r : {3}\n}\n",
        tensorType(c.input, "f32"), tensorType(c.filter, "f32"),
        c.bias ? ", %b: " + tensorType({o}, "f32") : "", tensorType(out, "f32"),
        c.bias ? ", %b" : "", list(c.strides), list(c.padding),
        list(c.dilations), c.groups, types);
    SCOPED_TRACE(source);
    std::vector<double> x =
        randomValues(numElements(c.input), ElementKind::F32, false);
    std::vector<double> f =
        randomValues(numElements(c.filter), ElementKind::F32, false);
    std::vector<double> b = randomValues(o, ElementKind::F32, false);
    std::vector<HostArray> inputs = {floatArray(ElementKind::F32, x, c.input),
                                     floatArray(ElementKind::F32, f, c.filter)};
    if (c.bias)
      inputs.push_back(floatArray(ElementKind::F32, b, Shape{o}));
    std::vector<double> got =
        floatValues(runBoth(source, inputs, "ascend910b"));
    ASSERT_EQ(int64_t(got.size()), numElements(out));
    const Shape &in = c.input, &k = c.filter;
    for (int64_t i = 0; i < int64_t(got.size()); ++i) {
      int64_t q = i % o, z = i / o % out[3], y = i / o / out[3] % out[2],
              d = i / o / out[3] / out[2] % out[1],
              n = i / o / out[3] / out[2] / out[1];
      double sum = c.bias ? b[q] : 0, magnitude = std::fabs(sum);
      for (int64_t kd = 0; kd < k[1]; ++kd)
        for (int64_t kh = 0; kh < k[2]; ++kh)
          for (int64_t kw = 0; kw < k[3]; ++kw) {
            int64_t id = d * c.strides[0] - c.padding[0] + kd * c.dilations[0];
            int64_t ih = y * c.strides[1] - c.padding[2] + kh * c.dilations[1];
            int64_t iw = z * c.strides[2] - c.padding[4] + kw * c.dilations[2];
            if (id < 0 || id >= in[1] || ih < 0 || ih >= in[2] || iw < 0 ||
                iw >= in[3])
              continue;
            for (int64_t r = 0; r < ig; ++r) {
              double p =
                  x[(((n * in[1] + id) * in[2] + ih) * in[3] + iw) * in[4] +
                    q / og * ig + r] *
                  f[(((q * k[1] + kd) * k[2] + kh) * k[3] + kw) * ig + r];
              sum += p;
              magnitude += std::fabs(p);
            }
          }
      ASSERT_NEAR(got[i], sum,
                  (k[1] * k[2] * k[3] * ig + 2) * 0x1p-24 * magnitude)
          << "output " << i;
    }
  }
}

TEST_P(GraphKernelTest, DepthwiseConv2D) {
  // On the vector unit: 3x3 same padding with a bias over more than one
  // tile of output columns; stride 2 with uneven padding, f16 on mlu590;
  // dilated 5x5 whose taps fall outside whole rows; 7x7 over more channels
  // than one tile holds; a border larger than the filter needs; f16 with
  // different strides along the two axes.
  const std::vector<ConvCase> cases = {
      {{1, 9, 70, 32}, {32, 3, 3, 1}, {1, 1}, {1, 1, 1, 1}, {1, 1}, 32, true},
      {{2, 11, 12, 24},
       {24, 3, 3, 1},
       {2, 2},
       {0, 1, 0, 1},
       {1, 1},
       24,
       true,
       ElementKind::F16,
       "mlu590"},
      {{1, 10, 11, 8}, {8, 5, 5, 1}, {1, 1}, {4, 4, 4, 4}, {2, 2}, 8},
      {{1, 8, 8, 300}, {300, 7, 7, 1}, {1, 1}, {3, 3, 3, 3}, {1, 1}, 300, true},
      {{1, 3, 4, 6}, {6, 2, 2, 1}, {1, 1}, {3, 2, 1, 3}, {1, 1}, 6},
      {{1, 6, 6, 16},
       {16, 3, 3, 1},
       {1, 2},
       {1, 1, 1, 1},
       {1, 1},
       16,
       true,
       ElementKind::F16},
  };
  for (const ConvCase &c : cases)
    checkConv(c);
}

TEST_P(GraphKernelTest, ImportedConvBatchNormRelu) {
  // conv_bn_relu.onnx: Conv 3x3 (pads 1) with bias, BatchNormalization
  // (epsilon 1e-3), Relu, in NCHW; the importer computes in NHWC and takes
  // the filter stored as [O, KH, KW, I] (npu.onnx_perm 0, 2, 3, 1).
  std::vector<double> x = randomValues(3 * 64, ElementKind::F32, false);
  std::vector<double> w = randomValues(4 * 3 * 9, ElementKind::F32, false);
  std::vector<double> b = randomValues(4, ElementKind::F32, false);
  std::vector<double> gamma = randomValues(4, ElementKind::F32, false);
  std::vector<double> beta = randomValues(4, ElementKind::F32, false);
  std::vector<double> mean = randomValues(4, ElementKind::F32, false);
  std::vector<double> var = randomValues(4, ElementKind::F32, true);
  // [O, I, KH, KW] stored as [O, KH, KW, I].
  std::vector<double> stored(w.size());
  for (int o = 0; o < 4; ++o)
    for (int i = 0; i < 3; ++i)
      for (int y = 0; y < 3; ++y)
        for (int z = 0; z < 3; ++z)
          stored[((o * 3 + y) * 3 + z) * 3 + i] =
              w[((o * 3 + i) * 3 + y) * 3 + z];
  auto vec = [](const std::vector<double> &v) {
    return floatArray(ElementKind::F32, v, Shape{int64_t(v.size())});
  };
  HostArray out =
      runBoth([&] { return importModel("conv_bn_relu", "ascend910b"); }, "main",
              {floatArray(ElementKind::F32, x, Shape{1, 3, 8, 8}),
               floatArray(ElementKind::F32, stored, Shape{4, 3, 3, 3}), vec(b),
               vec(gamma), vec(beta), vec(mean), vec(var)});
  std::vector<double> got = floatValues(out);
  ASSERT_EQ(got.size(), 4u * 64);
  for (int o = 0; o < 4; ++o)
    for (int y = 0; y < 8; ++y)
      for (int z = 0; z < 8; ++z) {
        double sum = b[o];
        for (int i = 0; i < 3; ++i)
          for (int p = 0; p < 3; ++p)
            for (int q = 0; q < 3; ++q) {
              int iy = y + p - 1, iz = z + q - 1;
              if (iy >= 0 && iy < 8 && iz >= 0 && iz < 8)
                sum +=
                    x[(i * 8 + iy) * 8 + iz] * w[((o * 3 + i) * 3 + p) * 3 + q];
            }
        double norm =
            (sum - mean[o]) / std::sqrt(var[o] + double(1e-3f)) * gamma[o] +
            beta[o];
        EXPECT_NEAR(got[(o * 8 + y) * 8 + z], std::max(norm, 0.0), 1e-5)
            << "y[0, " << o << ", " << y << ", " << z << "]";
      }
}

/// ONNX Resize's input coordinate of output index x along an axis of
/// `in` -> `out`, from the operator's definition.
static double resizeCoordinate(const std::string &mode, int64_t x, int64_t in,
                               int64_t out) {
  double scale = double(out) / double(in);
  if (mode == "half_pixel")
    return (x + 0.5) / scale - 0.5;
  if (mode == "pytorch_half_pixel")
    return out > 1 ? (x + 0.5) / scale - 0.5 : 0.0;
  if (mode == "align_corners")
    return out == 1 ? 0.0 : x * double(in - 1) / double(out - 1);
  return x / scale; // asymmetric
}

TEST_P(GraphKernelTest, Resize) {
  // Nearest (each rounding) and linear over every coordinate mode;
  // upsampling by an integer and a fractional factor, downsampling, a
  // single output row, f16, both devices.
  struct Case {
    bool linear;
    std::string coordinates, rounding;
    Shape input;
    std::vector<int64_t> size;
    ElementKind kind;
    const char *device;
  };
  const std::vector<Case> cases = {
      {true,
       "half_pixel",
       "",
       {1, 3, 4, 5},
       {12, 16},
       ElementKind::F32,
       "ascend910b"},
      {true,
       "align_corners",
       "",
       {2, 5, 3, 4},
       {7, 8},
       ElementKind::F32,
       "mlu590"},
      {true,
       "pytorch_half_pixel",
       "",
       {1, 6, 7, 3},
       {1, 3},
       ElementKind::F16,
       "ascend910b"},
      {true,
       "asymmetric",
       "",
       {1, 4, 4, 70},
       {9, 5},
       ElementKind::F32,
       "ascend910b"},
      {false,
       "asymmetric",
       "floor",
       {1, 3, 5, 2},
       {7, 11},
       ElementKind::F32,
       "ascend910b"},
      {false,
       "half_pixel",
       "round_prefer_floor",
       {1, 4, 4, 3},
       {10, 6},
       ElementKind::F32,
       "mlu590"},
      {false,
       "half_pixel",
       "round_prefer_ceil",
       {1, 4, 4, 3},
       {10, 6},
       ElementKind::F16,
       "ascend910b"},
      {false,
       "align_corners",
       "ceil",
       {2, 5, 6, 2},
       {3, 4},
       ElementKind::F32,
       "ascend910b"},
  };
  for (const Case &c : cases) {
    const char *element = getElementKindName(c.kind);
    int64_t n = c.input[0], h = c.input[1], w = c.input[2], ch = c.input[3];
    int64_t oh = c.size[0], ow = c.size[1];
    Shape out = {n, oh, ow, ch};
    std::string attrs =
        "coordinate_mode = #npu.resize_coordinate_mode<" + c.coordinates + ">";
    if (!c.linear)
      attrs += ", nearest_mode = #npu.resize_nearest_mode<" + c.rounding + ">";
    std::string source = llvm::formatv(
        "func.func @f(%x: {0}) -> {1} {{\n"
        "  %r = npu.resize %x <{2}> {{{3}, size = array<i64: {4}, {5}>} : "
        "{0} -> {1}\n  return %r : {1}\n}\n",
        tensorType(c.input, element), tensorType(out, element),
        c.linear ? "linear" : "nearest", attrs, oh, ow);
    SCOPED_TRACE(source);
    std::vector<double> x = randomValues(numElements(c.input), c.kind, false);
    std::vector<double> got = floatValues(
        runBoth(source, {floatArray(c.kind, x, c.input)}, c.device));
    ASSERT_EQ(int64_t(got.size()), numElements(out));
    auto nearest = [&](int64_t i, int64_t in, int64_t size) {
      double v = resizeCoordinate(c.coordinates, i, in, size);
      double r = c.rounding == "floor"               ? std::floor(v)
                 : c.rounding == "ceil"              ? std::ceil(v)
                 : c.rounding == "round_prefer_ceil" ? std::floor(v + 0.5)
                                                     : std::ceil(v - 0.5);
      return std::clamp<int64_t>(int64_t(r), 0, in - 1);
    };
    struct Blend {
      int64_t first, second;
      double weight;
    };
    auto blend = [&](int64_t i, int64_t in, int64_t size) {
      double v = std::clamp(resizeCoordinate(c.coordinates, i, in, size), 0.0,
                            double(in - 1));
      int64_t first = int64_t(std::floor(v));
      return Blend{first, std::min(first + 1, in - 1), v - double(first)};
    };
    for (int64_t b = 0; b < n; ++b)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t z = 0; z < ow; ++z)
          for (int64_t q = 0; q < ch; ++q) {
            auto at = [&](int64_t iy, int64_t iz) {
              return x[((b * h + iy) * w + iz) * ch + q];
            };
            double want;
            if (!c.linear) {
              want = at(nearest(y, h, oh), nearest(z, w, ow));
            } else {
              Blend by = blend(y, h, oh), bz = blend(z, w, ow);
              auto across = [&](int64_t iy) {
                return (1 - bz.weight) * at(iy, bz.first) +
                       bz.weight * at(iy, bz.second);
              };
              want = (1 - by.weight) * across(by.first) +
                     by.weight * across(by.second);
            }
            want = roundFloat(c.kind, want);
            // Nearest copies; linear blends in f32: eight roundings of
            // values in [-2, 2], then the result's own.
            double unit = c.kind == ElementKind::F32 ? 0x1p-24 : 0x1p-11;
            double tolerance =
                c.linear ? 16 * 0x1p-24 + 2 * unit * std::fabs(want) : 0;
            ASSERT_NEAR(got[((b * oh + y) * ow + z) * ch + q], want, tolerance)
                << "output (" << b << ", " << y << ", " << z << ", " << q
                << ")";
          }
  }
}

TEST_P(GraphKernelTest, Pools) {
  // max_pool and avg_pool (with and without the padding counted) over
  // [N, H, W, C]: strides, asymmetric padding (as ceil mode extends it),
  // more than 64 output columns, f16, both devices.
  struct Case {
    bool max, includePad;
    Shape input;
    std::vector<int64_t> kernel, strides, padding;
    ElementKind kind;
    const char *device;
  };
  const std::vector<Case> cases = {
      {true,
       false,
       {1, 9, 9, 5},
       {3, 3},
       {2, 2},
       {1, 1, 1, 1},
       ElementKind::F32,
       "ascend910b"},
      {false,
       false,
       {2, 7, 8, 3},
       {3, 2},
       {1, 2},
       {1, 2, 0, 1},
       ElementKind::F32,
       "ascend910b"},
      {false,
       true,
       {1, 6, 6, 4},
       {3, 3},
       {1, 1},
       {1, 1, 1, 1},
       ElementKind::F32,
       "mlu590"},
      {true,
       false,
       {1, 4, 140, 3},
       {2, 2},
       {1, 1},
       {0, 0, 0, 0},
       ElementKind::F16,
       "mlu590"},
      {false,
       false,
       {1, 5, 5, 300},
       {2, 2},
       {2, 2},
       {0, 1, 0, 1},
       ElementKind::F16,
       "ascend910b"},
      // One channel and a stride (RAFT's correlation pyramid): W and C
      // share a stride, which once made the input window drop the wrong
      // dimensions.
      {false,
       false,
       {3, 8, 8, 1},
       {2, 2},
       {2, 2},
       {0, 0, 0, 0},
       ElementKind::F32,
       "ascend910b"},
  };
  for (const Case &c : cases) {
    const char *element = getElementKindName(c.kind);
    int64_t n = c.input[0], h = c.input[1], w = c.input[2], ch = c.input[3];
    int64_t oh =
        (h + c.padding[0] + c.padding[1] - c.kernel[0]) / c.strides[0] + 1;
    int64_t ow =
        (w + c.padding[2] + c.padding[3] - c.kernel[1]) / c.strides[1] + 1;
    Shape out = {n, oh, ow, ch};
    auto list = [](const std::vector<int64_t> &v) {
      std::string s;
      for (int64_t x : v)
        s += (s.empty() ? "" : ", ") + std::to_string(x);
      return s;
    };
    std::string source = llvm::formatv(
        "func.func @f(%x: {0}) -> {1} {{\n"
        "  %r = npu.{2} %x {{kernel = array<i64: {3}>, strides = array<i64: "
        "{4}>, padding = array<i64: {5}>{6}} : {0} -> {1}\n"
        "  return %r : {1}\n}\n",
        tensorType(c.input, element), tensorType(out, element),
        c.max ? "max_pool" : "avg_pool", list(c.kernel), list(c.strides),
        list(c.padding), c.includePad ? ", count_include_pad" : "");
    SCOPED_TRACE(source);
    std::vector<double> x = randomValues(numElements(c.input), c.kind, false);
    std::vector<double> got = floatValues(
        runBoth(source, {floatArray(c.kind, x, c.input)}, c.device));
    ASSERT_EQ(int64_t(got.size()), numElements(out));
    for (int64_t b = 0; b < n; ++b)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t z = 0; z < ow; ++z)
          for (int64_t q = 0; q < ch; ++q) {
            double acc = c.max ? -INFINITY : 0, magnitude = 0;
            int64_t inside = 0;
            for (int64_t i = 0; i < c.kernel[0]; ++i)
              for (int64_t j = 0; j < c.kernel[1]; ++j) {
                int64_t iy = y * c.strides[0] - c.padding[0] + i;
                int64_t iz = z * c.strides[1] - c.padding[2] + j;
                if (iy < 0 || iy >= h || iz < 0 || iz >= w)
                  continue;
                double v = x[((b * h + iy) * w + iz) * ch + q];
                acc = c.max ? std::max(acc, v) : acc + v;
                magnitude += std::fabs(v);
                ++inside;
              }
            double divisor =
                c.includePad ? double(c.kernel[0] * c.kernel[1]) : inside;
            if (!c.max)
              acc /= divisor;
            double want = roundFloat(c.kind, acc);
            // max is exact; the average's f32 sum errs by a unit of its
            // magnitude per term, then rounds.
            double unit = c.kind == ElementKind::F32 ? 0x1p-24 : 0x1p-11;
            double tolerance =
                c.max ? 0
                      : (inside + 1) * 0x1p-24 * magnitude / divisor +
                            2 * unit * std::fabs(want);
            ASSERT_NEAR(got[((b * oh + y) * ow + z) * ch + q], want, tolerance)
                << "output (" << b << ", " << y << ", " << z << ", " << q
                << ")";
          }
  }
}

TEST_P(GraphKernelTest, Reduce) {
  // Over a block of axes in the middle (a global pool), the last axes and
  // the first; more rows than a chunk; every kind; f16; an empty reduction.
  struct Case {
    const char *kind;
    Shape input;
    std::vector<int64_t> axes;
    ElementKind element;
    const char *device;
  };
  const std::vector<Case> cases = {
      {"mean", {2, 7, 7, 200}, {1, 2}, ElementKind::F32, "ascend910b"},
      {"sum", {3, 4, 300}, {2}, ElementKind::F32, "mlu590"},
      {"max", {5, 6, 7}, {0, 1}, ElementKind::F32, "ascend910b"},
      {"min", {4, 130, 3}, {1}, ElementKind::F16, "ascend910b"},
      // Nothing to reduce: the sum of no terms.
      {"sum", {2, 0, 3}, {1}, ElementKind::F32, "mlu590"},
  };
  for (const Case &c : cases) {
    const char *element = getElementKindName(c.element);
    int64_t first = c.axes.front(), last = c.axes.back();
    int64_t outer = 1, reduced = 1, inner = 1;
    Shape out;
    for (int64_t d = 0; d < int64_t(c.input.size()); ++d) {
      if (d < first)
        outer *= c.input[d];
      else if (d <= last)
        reduced *= c.input[d];
      else
        inner *= c.input[d];
      out.push_back(d >= first && d <= last ? 1 : c.input[d]);
    }
    std::string axes;
    for (int64_t a : c.axes)
      axes += (axes.empty() ? "" : ", ") + std::to_string(a);
    std::string source = llvm::formatv(
        "func.func @f(%x: {0}) -> {1} {{\n"
        "  %r = npu.reduce <{2}> %x {{axes = array<i64: {3}>, keepdims} : {0} "
        "-> {1}\n  return %r : {1}\n}\n",
        tensorType(c.input, element), tensorType(out, element), c.kind, axes);
    SCOPED_TRACE(source);
    std::vector<double> x =
        randomValues(numElements(c.input), c.element, false);
    std::vector<double> got = floatValues(
        runBoth(source, {floatArray(c.element, x, c.input)}, c.device));
    ASSERT_EQ(int64_t(got.size()), outer * inner);
    std::string kind = c.kind;
    for (int64_t a = 0; a < outer; ++a)
      for (int64_t b = 0; b < inner; ++b) {
        double acc = kind == "max"   ? -INFINITY
                     : kind == "min" ? INFINITY
                                     : 0,
               magnitude = 0;
        for (int64_t r = 0; r < reduced; ++r) {
          double v = x[(a * reduced + r) * inner + b];
          acc = kind == "max"   ? std::max(acc, v)
                : kind == "min" ? std::min(acc, v)
                                : acc + v;
          magnitude += std::fabs(v);
        }
        if (kind == "mean")
          acc /= reduced;
        double want = roundFloat(c.element, acc);
        double unit = c.element == ElementKind::F32 ? 0x1p-24 : 0x1p-11;
        double tolerance =
            kind == "max" || kind == "min"
                ? 0
                : reduced * 0x1p-24 * magnitude + 2 * unit * std::fabs(want);
        ASSERT_NEAR(got[a * inner + b], want, tolerance)
            << "output (" << a << ", " << b << ")";
      }
  }
}

/// Runs `op` (its attr-dict `attrs`) on inputs of `shapes` holding 1, 2,
/// 3, ... and expects `expected(inputs)`, exactly.
struct MoveCase {
  std::string op, attrs;
  std::vector<Shape> inputs;
  Shape output;
  const char *device = "ascend910b";
  ElementKind kind = ElementKind::F32;
};

TEST_P(GraphKernelTest, DataMovement) {
  auto index = [](const Shape &shape, const std::vector<int64_t> &at) {
    int64_t i = 0;
    for (size_t d = 0; d < shape.size(); ++d)
      i = i * shape[d] + at[d];
    return i;
  };
  auto coordinates = [](const Shape &shape, int64_t i) {
    std::vector<int64_t> at(shape.size());
    for (int64_t d = shape.size() - 1; d >= 0; --d) {
      at[d] = i % shape[d];
      i /= shape[d];
    }
    return at;
  };
  struct Checked {
    MoveCase c;
    // The value of output element `at` from the inputs.
    std::function<double(const std::vector<std::vector<double>> &,
                         const std::vector<int64_t> &)>
        expected;
  };
  std::vector<Checked> cases;
  // concat along the channels (three inputs, rows longer than a tile) and
  // along the first axis.
  cases.push_back(
      {{"concat",
        "{axis = 3 : i64}",
        {{1, 4, 5, 3}, {1, 4, 5, 6}, {1, 4, 5, 1}},
        {1, 4, 5, 10}},
       [&](auto &in, auto &at) {
         int64_t c = at[3];
         const Shape shapes[] = {{1, 4, 5, 3}, {1, 4, 5, 6}, {1, 4, 5, 1}};
         for (int i = 0; i < 3; ++i) {
           if (c < shapes[i][3])
             return in[i][index(shapes[i], {at[0], at[1], at[2], c})];
           c -= shapes[i][3];
         }
         return -1.0;
       }});
  cases.push_back({{"concat",
                    "{axis = 0 : i64}",
                    {{2, 3000}, {1, 3000}},
                    {3, 3000},
                    "mlu590",
                    ElementKind::F16},
                   [&](auto &in, auto &at) {
                     return at[0] < 2 ? in[0][index({2, 3000}, at)]
                                      : in[1][index({1, 3000}, {0, at[1]})];
                   }});
  // A strided slice in every dimension, and a slice of channels.
  cases.push_back(
      {{"slice",
        "{start = array<i64: 1, 0, 2>, end = array<i64: 7, 5, 9>, strides = "
        "array<i64: 2, 1, 3>}",
        {{8, 5, 9}},
        {3, 5, 3}},
       [&](auto &in, auto &at) {
         return in[0][index({8, 5, 9}, {1 + 2 * at[0], at[1], 2 + 3 * at[2]})];
       }});
  cases.push_back(
      {{"slice",
        "{start = array<i64: 0, 0, 0, 2>, end = array<i64: 1, 3, 3, 6>}",
        {{1, 3, 3, 8}},
        {1, 3, 3, 4}},
       [&](auto &in, auto &at) {
         return in[0][index({1, 3, 3, 8}, {at[0], at[1], at[2], at[3] + 2})];
       }});
  // pad with a value, and an expand of a row and of a column.
  cases.push_back(
      {{"pad",
        "{pad_low = array<i64: 0, 1, 2, 0>, pad_high = array<i64: 0, 2, 1, 3>, "
        "value = -2.5 : f64}",
        {{1, 3, 4, 2}},
        {1, 6, 7, 5}},
       [&](auto &in, auto &at) {
         int64_t h = at[1] - 1, w = at[2] - 2;
         if (h < 0 || h >= 3 || w < 0 || w >= 4 || at[3] >= 2)
           return -2.5;
         return in[0][index({1, 3, 4, 2}, {0, h, w, at[3]})];
       }});
  cases.push_back(
      {{"expand", "{shape = array<i64: 4, 5, 6>}", {{6}}, {4, 5, 6}},
       [&](auto &in, auto &at) { return in[0][at[2]]; }});
  cases.push_back(
      {{"expand",
        "{shape = array<i64: 3, 1, 7>}",
        {{3, 4, 1}},
        {3, 4, 7},
        "mlu590"},
       [&](auto &in, auto &at) { return in[0][at[0] * 4 + at[1]]; }});
  for (const Checked &checked : cases) {
    const MoveCase &c = checked.c;
    const char *element = getElementKindName(c.kind);
    std::string args, types;
    std::vector<HostArray> inputs;
    std::vector<std::vector<double>> values;
    double next = 1;
    for (size_t i = 0; i < c.inputs.size(); ++i) {
      std::string type = tensorType(c.inputs[i], element);
      args += (i ? ", " : "") + ("%a" + std::to_string(i)) + ": " + type;
      types += (i ? ", " : "") + type;
      std::vector<double> v(numElements(c.inputs[i]));
      for (double &x : v)
        x = roundFloat(c.kind, next++);
      values.push_back(v);
      inputs.push_back(floatArray(c.kind, v, c.inputs[i]));
    }
    std::string operands;
    for (size_t i = 0; i < c.inputs.size(); ++i)
      operands += (i ? ", %a" : "%a") + std::to_string(i);
    std::string out = tensorType(c.output, element);
    std::string signature = c.inputs.size() == 1 && c.op != "concat"
                                ? types + " -> " + out
                                : "(" + types + ") -> " + out;
    std::string source = llvm::formatv(
        "func.func @f({0}) -> {1} {{\n  %r = npu.{2} {3} {4} : {5}\n"
        "  return %r : {1}\n}\n",
        args, out, c.op, operands, c.attrs, signature);
    SCOPED_TRACE(source);
    std::vector<double> got = floatValues(runBoth(source, inputs, c.device));
    ASSERT_EQ(int64_t(got.size()), numElements(c.output));
    for (int64_t i = 0; i < int64_t(got.size()); ++i)
      ASSERT_EQ(got[i], checked.expected(values, coordinates(c.output, i)))
          << "element " << i;
  }
}

TEST_P(GraphKernelTest, Gather) {
  // Rows along the middle axis with negative indices, a scalar index (a
  // class token), rows of more than a tile along the first axis (f16).
  struct Case {
    Shape data, indices;
    int64_t axis;
    std::vector<int64_t> values;
    ElementKind kind;
  };
  const std::vector<Case> cases = {
      {{2, 5, 3}, {2, 2}, 1, {4, -1, 0, -5}, ElementKind::F32},
      {{1, 197, 8}, {}, 1, {0}, ElementKind::F32},
      {{3, 40, 300}, {2}, 0, {2, -3}, ElementKind::F16},
      // axis -1: single elements of the last dimension.
      {{4, 6}, {3}, -1, {5, 0, -2}, ElementKind::F32},
  };
  for (const Case &c : cases) {
    const char *element = getElementKindName(c.kind);
    int64_t axis = c.axis < 0 ? c.axis + int64_t(c.data.size()) : c.axis;
    Shape out(c.data.begin(), c.data.begin() + axis);
    out.insert(out.end(), c.indices.begin(), c.indices.end());
    out.insert(out.end(), c.data.begin() + axis + 1, c.data.end());
    std::string source = llvm::formatv(
        "func.func @f(%x: {0}, %i: {1}) -> {2} {{\n"
        "  %r = npu.gather %x, %i {{axis = {3} : i64} : ({0}, {1}) -> {2}\n"
        "  return %r : {2}\n}\n",
        tensorType(c.data, element), tensorType(c.indices, "i64"),
        tensorType(out, element), c.axis);
    SCOPED_TRACE(source);
    std::vector<double> x(numElements(c.data));
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = roundFloat(c.kind, double(i + 1));
    HostArray got = runBoth(
        source,
        {floatArray(c.kind, x, c.data),
         HostArray::fromValues<int64_t>(ElementKind::I64, c.values, c.indices)},
        "ascend910b");
    std::vector<double> values = floatValues(got);
    int64_t outer = 1, inner = 1, n = c.data[axis];
    for (int64_t d = 0; d < int64_t(c.data.size()); ++d)
      if (d < axis)
        outer *= c.data[d];
      else if (d > axis)
        inner *= c.data[d];
    int64_t count = c.values.size();
    ASSERT_EQ(int64_t(values.size()), outer * count * inner);
    for (int64_t a = 0; a < outer; ++a)
      for (int64_t i = 0; i < count; ++i) {
        int64_t row = c.values[i] < 0 ? c.values[i] + n : c.values[i];
        for (int64_t b = 0; b < inner; ++b)
          ASSERT_EQ(values[(a * count + i) * inner + b],
                    x[(a * n + row) * inner + b])
              << "(" << a << ", " << i << ", " << b << ")";
      }
  }
}

/// The positions of the k largest (smallest) elements of `row` from the
/// definition: ordered by value, equal values by position, NaNs after every
/// number.
static std::vector<int64_t> topkPositions(const std::vector<double> &row,
                                          int64_t k, bool largest) {
  std::vector<int64_t> order(row.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    double x = row[a], y = row[b];
    if (std::isnan(x) || std::isnan(y))
      return !std::isnan(x) && std::isnan(y);
    return largest ? x > y : x < y;
  });
  order.resize(k);
  return order;
}

TEST_P(GraphKernelTest, TopK) {
  // Rows along the last axis and along a middle one (strided rows), ties
  // among few distinct values, NaNs, both directions; the RPN's 150 of
  // 6000 anchors; rows of more than one tile (f16, 25001 elements: a full
  // tile merged with a shorter one); k = 0 and an empty row set.
  struct Case {
    Shape shape;
    int64_t axis, k;
    bool largest;
    ElementKind kind;
    int distinct; // 0: continuous random values; else values in [0, n).
    bool nans;
  };
  const std::vector<Case> cases = {
      {{2, 37}, 1, 5, true, ElementKind::F32, 6, false},
      {{3, 20, 4}, 1, 3, false, ElementKind::F32, 0, false},
      {{2, 9}, 1, 9, true, ElementKind::F32, 3, true},
      {{2, 9}, 1, 9, false, ElementKind::F32, 3, true},
      {{1, 6000}, 1, 150, true, ElementKind::F32, 0, false},
      {{1, 25001}, 1, 64, true, ElementKind::F16, 40, false},
      {{2, 5}, 1, 0, true, ElementKind::F32, 0, false},
      {{0, 5}, 1, 2, true, ElementKind::F32, 0, false},
  };
  for (const Case &c : cases) {
    const char *element = getElementKindName(c.kind);
    Shape out = c.shape;
    out[c.axis] = c.k;
    std::vector<double> x = randomValues(numElements(c.shape), c.kind, false);
    std::uniform_int_distribution<int> pick(0, std::max(c.distinct - 1, 0));
    for (size_t i = 0; i < x.size(); ++i) {
      if (c.distinct)
        x[i] = pick(rng);
      if (c.nans && i % 4 == 1)
        x[i] = std::nan("");
    }
    HostArray got[2];
    for (int result : {0, 1}) {
      std::string source = llvm::formatv(
          "func.func @f(%x: {0}) -> {3} {{\n"
          "  %v, %i = npu.topk %x {{k = {4} : i64, axis = {5} : i64, "
          "largest = {6}} : {0} -> {1}, {2}\n"
          "  return {7} : {3}\n}\n",
          tensorType(c.shape, element), tensorType(out, element),
          tensorType(out, "i64"),
          result ? tensorType(out, "i64") : tensorType(out, element), c.k,
          c.axis, c.largest ? "true" : "false", result ? "%i" : "%v");
      SCOPED_TRACE(source);
      got[result] =
          runBoth(source, {floatArray(c.kind, x, c.shape)}, "ascend910b");
    }
    std::vector<double> values = floatValues(got[0]);
    std::vector<int64_t> indices = got[1].getValues<int64_t>();
    int64_t outer = 1, inner = 1, n = c.shape[c.axis];
    for (int64_t d = 0; d < int64_t(c.shape.size()); ++d)
      if (d < c.axis)
        outer *= c.shape[d];
      else if (d > c.axis)
        inner *= c.shape[d];
    ASSERT_EQ(int64_t(values.size()), outer * c.k * inner);
    ASSERT_EQ(int64_t(indices.size()), outer * c.k * inner);
    for (int64_t a = 0; a < outer; ++a)
      for (int64_t b = 0; b < inner; ++b) {
        std::vector<double> row(n);
        for (int64_t i = 0; i < n; ++i)
          row[i] = x[(a * n + i) * inner + b];
        std::vector<int64_t> want = topkPositions(row, c.k, c.largest);
        for (int64_t j = 0; j < c.k; ++j) {
          int64_t at = (a * c.k + j) * inner + b;
          ASSERT_EQ(indices[at], want[j])
              << "row (" << a << ", " << b << "), rank " << j;
          double v = row[want[j]];
          if (std::isnan(v))
            ASSERT_TRUE(std::isnan(values[at])) << "element " << at;
          else
            ASSERT_EQ(values[at], v) << "element " << at;
        }
      }
  }
}

TEST_P(GraphKernelTest, Scatter) {
  // ONNX ScatterND and ScatterElements against loops written from their
  // definitions: negative indices count from the end; a repeated index
  // keeps its last update (index order); slices wider than a tile.
  auto f32 = [&](const Shape &shape) {
    return floatArray(ElementKind::F32,
                      randomValues(numElements(shape), ElementKind::F32, false),
                      shape);
  };
  auto i64 = [](const std::vector<int64_t> &v, const Shape &shape) {
    return HostArray::fromValues<int64_t>(ElementKind::I64, v, shape);
  };
  // scatter_nd into [5, 3, 4000] with tuples of depth 2 (rows of 4000,
  // cut into tiles), one repeated.
  Shape data = {5, 3, 4000}, indexShape = {4, 2}, updateShape = {4, 4000};
  std::vector<int64_t> tuples = {4, 0, -1, 2, 1, 1, 4, -3};
  HostArray d = f32(data), u = f32(updateShape);
  std::vector<double> got = floatValues(runBoth(
      "func.func @f(%d: tensor<5x3x4000xf32>, %i: tensor<4x2xi64>, %u: "
      "tensor<4x4000xf32>) -> tensor<5x3x4000xf32> {\n  %r = npu.scatter_nd "
      "%d, %i, %u : (tensor<5x3x4000xf32>, tensor<4x2xi64>, "
      "tensor<4x4000xf32>) -> tensor<5x3x4000xf32>\n  return %r : "
      "tensor<5x3x4000xf32>\n}\n",
      {d, i64(tuples, indexShape), u}, "ascend910b"));
  std::vector<double> want = floatValues(d), updates = floatValues(u);
  for (int64_t j = 0; j < 4; ++j) {
    int64_t a = tuples[2 * j] < 0 ? tuples[2 * j] + 5 : tuples[2 * j];
    int64_t b =
        tuples[2 * j + 1] < 0 ? tuples[2 * j + 1] + 3 : tuples[2 * j + 1];
    for (int64_t c = 0; c < 4000; ++c)
      want[(a * 3 + b) * 4000 + c] = updates[j * 4000 + c];
  }
  EXPECT_EQ(got, want) << "scatter_nd";

  // scatter (ScatterElements) along axis 1 of [3, 5] with [2, 3] indices
  // (smaller than the data off the axis), one repeated in a row.
  Shape elems = {3, 5}, small = {2, 3};
  std::vector<int64_t> along = {4, -5, 4, 0, 2, -1};
  HostArray e = f32(elems), v = f32(small);
  got = floatValues(runBoth(
      "func.func @f(%d: tensor<3x5xf32>, %i: tensor<2x3xi64>, %u: "
      "tensor<2x3xf32>) -> tensor<3x5xf32> {\n  %r = npu.scatter %d, %i, %u "
      "{axis = 1 : i64} : (tensor<3x5xf32>, tensor<2x3xi64>, tensor<2x3xf32>) "
      "-> tensor<3x5xf32>\n  return %r : tensor<3x5xf32>\n}\n",
      {e, i64(along, small), v}, "mlu590"));
  want = floatValues(e);
  std::vector<double> values = floatValues(v);
  for (int64_t r = 0; r < 2; ++r)
    for (int64_t c = 0; c < 3; ++c) {
      int64_t t =
          along[r * 3 + c] < 0 ? along[r * 3 + c] + 5 : along[r * 3 + c];
      want[r * 5 + t] = values[r * 3 + c];
    }
  EXPECT_EQ(got, want) << "scatter";
}

TEST_P(GraphKernelTest, Matmul) {
  const std::vector<MatmulCase> cases = {
      // One tile; edges of 128 in M, N and K; a shared rhs over batches.
      {{3, 5}, {5, 7}},
      {{130, 129}, {129, 257}},
      {{2, 3, 70, 300}, {300, 40}},
      {{2, 40, 70}, {2, 70, 33}, false, false, true},
      {{300, 20}, {300, 90}, true, false},
      {{20, 300}, {90, 300}, false, true, true},
      {{4, 64, 64}, {4, 64, 64}, true, true, false, ElementKind::F16},
      {{1, 2048}, {2048, 100}, false, false, true, ElementKind::F16, "mlu590"},
      {{5, 0}, {0, 4}, false, false, true},
      {{5, 0}, {0, 4}},
  };
  for (const MatmulCase &c : cases)
    checkMatmul(c);
}

} // namespace

INSTANTIATE_TEST_SUITE_P(Storage, GraphKernelTest,
                         ::testing::Values(Storage::Dense, Storage::Aligned),
                         [](const ::testing::TestParamInfo<Storage> &info) {
                           return info.param == Storage::Dense ? "Dense"
                                                               : "Aligned";
                         });

/// Every op the graph dialect defines (the importer produces a subset)
/// lowers to device kernels: the lowering reports an op without a model as
/// an error, so a new op without one would fail only on the first network
/// that uses it.
TEST(GraphKernelCoverage, EveryGraphOpHasAKernel) {
  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  // npu-graph-to-device rewrites conv3d into conv2d per depth tap
  // (npu-decompose-conv3d) before any kernel is built; the lowering itself
  // turns npu.map_batch (and its npu.yield) into a loop over the samples.
  const StringRef rewritten[] = {"npu.conv3d", "npu.map_batch", "npu.yield"};
  int64_t ops = 0;
  for (RegisteredOperationName name : ctx.getRegisteredOperations()) {
    if (name.getDialectNamespace() != "npu" ||
        llvm::is_contained(rewritten, name.getStringRef()))
      continue;
    ++ops;
    EXPECT_TRUE(name.hasInterface<DeviceKernelOpInterface>())
        << name.getStringRef().str() << " has no device kernel";
  }
  EXPECT_GT(ops, 60);
}
