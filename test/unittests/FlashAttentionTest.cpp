//===- FlashAttentionTest.cpp - npu.flash_attention on the device ---------===//
//
// Lowers npu.flash_attention for a device and runs it in both executors on
// random inputs: the two give the same bytes (the same ops in the same
// order), and the error against the float64 reference (written from the
// formulas) is at most twice that of a naive float32 attention, flash-attn's
// criterion. Cases: every lowered layout and sparse mode, GQA and MQA,
// S1 != S2, lengths that are no multiple of any tile, head sizes 64, 128
// and 72, rows with every key masked, empty tensors, both devices.
//
//===----------------------------------------------------------------------===//

#include "AttentionReference.h"
#include "DeviceFiles.h"
#include "FloatArrays.h"

#include "npu/Conversion/FlashAttentionTiling.h"
#include "npu/Conversion/LoweredSignature.h"
#include "npu/Conversion/Pipelines.h"
#include "npu/Device/DeviceModel.h"
#include "npu/InitAll.h"
#include "npu/JIT/Jit.h"
#include "npu/Runtime/ElementKind.h"
#include "npu/Simulator/Execution.h"
#include "npu/Simulator/Simulator.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FormatVariadic.h"
#include "gtest/gtest.h"

#include <cmath>
#include <map>
#include <random>
#include <set>

using namespace mlir;
using namespace npu;
using npu::testing::floatArray;
using npu::testing::floatValues;
namespace ref = npu::reference;

namespace {

struct Case {
  ref::Layout layout;
  int64_t batch, headsQ, headsKV, seqQ, seqKV, headDim;
  int64_t mode = 0, pre = 2147483647, next = 2147483647;
  const char *device = "mlu590";
  /// atten_mask: none, [S1, S2], [B, 1, S1, S2], [B, N1, S1, S2], or the
  /// compressed [2048, 2048] (not read).
  enum class Mask {
    None,
    Plain,
    PerBatch,
    PerHead,
    Compressed
  } mask = Mask::None;
  /// pse: none, [B, N1, S1, S2], [B, N1, 1, S2], [1, N1, S1, S2].
  enum class Pse { None, Full, OneRow, OneBatch } pse = Pse::None;
  /// Below 1: a random drop_mask keeping about that share.
  double keepProb = 1;
  /// The element type of query, key, value, pse and the output.
  ElementKind element = ElementKind::F32;
  /// TND: the cumulative sequence lengths (batch is their count, seqQ and
  /// seqKV the longest); modes 5 and 6: the prefix per batch.
  std::vector<int64_t> cumQ, cumKV, prefix;
  /// Check npu.flash_attention_grad instead of the forward.
  bool grad = false;
  /// The backward's recompute_statistics. With false the case passes
  /// statistics and an output that are not the forward's (checkGrad), so
  /// that only reading them gives the reference's gradients.
  bool recomputeStatistics = true;
  /// Types with S1 and S2 read at run time ('?'), or for TND the lengths
  /// given as the seq_qlen / seq_kvlen operands: one module serves every
  /// case that differs only in the lengths.
  bool runTimeLengths = false;
  /// With runTimeLengths outside TND, which lengths the types leave '?'.
  bool dynamicSeqQ = true, dynamicSeqKV = true;
  /// With runTimeLengths in TND, whether the types leave T1 and T2 '?'.
  bool dynamicRows = false;

  bool isDynamic(bool query) const {
    return runTimeLengths && layout != ref::Layout::TND &&
           (query ? dynamicSeqQ : dynamicSeqKV);
  }
  /// TND's rows as the op's type gives them.
  int64_t typeRows(bool query) const {
    return runTimeLengths && dynamicRows ? ShapedType::kDynamic
                                         : (query ? cumQ : cumKV).back();
  }
};

const char *layoutName(ref::Layout layout) {
  static const char *names[] = {"BSH", "SBH", "BSND", "BNSD", "TND"};
  return names[static_cast<int>(layout)];
}

std::string shapeOf(const std::vector<int64_t> &shape,
                    const char *element = "f32") {
  std::string s = "tensor<";
  for (int64_t d : shape)
    s += (ShapedType::isDynamic(d) ? "?" : std::to_string(d)) + "x";
  return s + element + ">";
}

std::vector<int64_t> tensorShape(const Case &c, bool query) {
  int64_t b = c.batch, s = query ? c.seqQ : c.seqKV,
          n = query ? c.headsQ : c.headsKV, d = c.headDim;
  switch (c.layout) {
  case ref::Layout::TND:
    return {(query ? c.cumQ : c.cumKV).back(), n, d};
  case ref::Layout::BSH:
    return {b, s, n * d};
  case ref::Layout::SBH:
    return {s, b, n * d};
  case ref::Layout::BSND:
    return {b, s, n, d};
  default:
    return {b, n, s, d};
  }
}

/// The shape the op's type gives query (key): the data's, with the
/// sequence length '?' when it is read at run time.
std::vector<int64_t> typeShape(const Case &c, bool query) {
  std::vector<int64_t> shape = tensorShape(c, query);
  if (c.layout == ref::Layout::TND)
    shape[0] = c.typeRows(query);
  if (c.isDynamic(query))
    shape[c.layout == ref::Layout::SBH    ? 0
          : c.layout == ref::Layout::BNSD ? 2
                                          : 1] = ShapedType::kDynamic;
  return shape;
}

/// `shape` (an [..., S1, S2] input's) as the op's type gives it: S1 and
/// S2 '?' when they are read at run time (a pse's broadcast row stays 1).
std::vector<int64_t> typeShape(const Case &c, std::vector<int64_t> shape) {
  if (!c.runTimeLengths || shape.size() < 2 ||
      shape == std::vector<int64_t>{2048, 2048})
    return shape;
  size_t rank = shape.size();
  if (c.isDynamic(true) && (shape[rank - 2] != 1 || c.seqQ == 1))
    shape[rank - 2] = ShapedType::kDynamic;
  if (c.isDynamic(false))
    shape[rank - 1] = ShapedType::kDynamic;
  return shape;
}

std::vector<int64_t> maskShape(const Case &c) {
  switch (c.mask) {
  case Case::Mask::Plain:
    return {c.seqQ, c.seqKV};
  case Case::Mask::PerBatch:
    return {c.batch, 1, c.seqQ, c.seqKV};
  case Case::Mask::PerHead:
    return {c.batch, c.headsQ, c.seqQ, c.seqKV};
  case Case::Mask::Compressed:
    return {2048, 2048};
  case Case::Mask::None:
    break;
  }
  return {};
}

std::vector<int64_t> pseShape(const Case &c) {
  switch (c.pse) {
  case Case::Pse::Full:
    return {c.batch, c.headsQ, c.seqQ, c.seqKV};
  case Case::Pse::OneRow:
    return {c.batch, c.headsQ, 1, c.seqKV};
  case Case::Pse::OneBatch:
    return {1, c.headsQ, c.seqQ, c.seqKV};
  case Case::Pse::None:
    break;
  }
  return {};
}

std::string buildSource(const Case &c, double scale) {
  // Every digit: llvm::formatv would print a double with two.
  char scaleText[32], keepText[32];
  std::snprintf(scaleText, sizeof(scaleText), "%.17e", scale);
  std::snprintf(keepText, sizeof(keepText), "%.17e", c.keepProb);
  const char *element = getElementKindName(c.element);
  int64_t seqQ = c.isDynamic(true) ? ShapedType::kDynamic : c.seqQ;
  std::string q = shapeOf(typeShape(c, true), element),
              kv = shapeOf(typeShape(c, false), element),
              stats = c.layout == ref::Layout::TND
                          ? shapeOf({c.typeRows(true), c.headsQ, 8})
                          : shapeOf({c.batch, c.headsQ, seqQ, 8});
  auto array = [](const char *name, const std::vector<int64_t> &values) {
    if (values.empty())
      return std::string();
    std::string text = std::string(", ") + name + " = array<i64: ";
    for (size_t i = 0; i < values.size(); ++i)
      text += (i ? ", " : "") + std::to_string(values[i]);
    return text + ">";
  };
  bool endsAsData = c.runTimeLengths && c.layout == ref::Layout::TND;
  std::string extra =
      (endsAsData ? std::string()
                  : array("actual_seq_qlen", c.cumQ) +
                        array("actual_seq_kvlen", c.cumKV)) +
      array("prefix", c.prefix) +
      (c.recomputeStatistics ? "" : ", recompute_statistics = false");
  std::string args = "%q: " + q + ", %k: " + kv + ", %v: " + kv;
  std::string operands = "%q, %k, %v", types = q + ", " + kv + ", " + kv;
  if (c.grad) {
    args +=
        ", %dy: " + q + ", %max: " + stats + ", %sum: " + stats + ", %o: " + q;
    operands += ", %dy, %max, %sum, %o";
    types += ", " + q + ", " + stats + ", " + stats + ", " + q;
  }
  auto optional = [&](const char *keyword, const char *name,
                      const std::string &type) {
    args += std::string(", %") + name + ": " + type;
    operands += std::string(" ") + keyword + " %" + name;
    types += ", " + type;
  };
  if (c.mask != Case::Mask::None)
    optional("mask", "mask", shapeOf(typeShape(c, maskShape(c)), "i8"));
  if (c.pse != Case::Pse::None)
    optional("pse", "pse", shapeOf(typeShape(c, pseShape(c)), element));
  if (c.keepProb < 1)
    optional("drop_mask", "drop",
             shapeOf(typeShape(c, {c.batch, c.headsQ, c.seqQ, c.seqKV}), "i8"));
  if (endsAsData) {
    std::string ends = shapeOf({int64_t(c.cumQ.size())}, "i64");
    optional("seq_qlen", "qlen", ends);
    optional("seq_kvlen", "kvlen", ends);
  }
  if (c.grad) {
    std::string results = q + ", " + kv + ", " + kv;
    if (c.pse != Case::Pse::None)
      results += ", " + shapeOf(typeShape(c, pseShape(c)), element);
    return llvm::formatv(
               R"mlir(func.func @fa({0}) -> ({1}) {{
  %r:{9} = npu.flash_attention_grad {2} {{input_layout = #npu.attention_layout<{3}>, head_num = {4}, scale = {5}, sparse_mode = {6}, pre_tokens = {7}, next_tokens = {8}, keep_prob = {10}{11}} : ({12}) -> ({1})
  return %r#0, %r#1, %r#2{13} : {1}
})mlir",
               args, results, operands, layoutName(c.layout), c.headsQ,
               scaleText, c.mode, c.pre, c.next,
               c.pse != Case::Pse::None ? 4 : 3, keepText, extra, types,
               c.pse != Case::Pse::None ? ", %r#3" : "")
        .str();
  }
  return llvm::formatv(
             R"mlir(func.func @fa({0}) -> ({1}, {1}, {2}) {{
  %m, %s, %o = npu.flash_attention {3} {{input_layout = #npu.attention_layout<{4}>, head_num = {5}, scale = {6}, sparse_mode = {7}, pre_tokens = {8}, next_tokens = {9}, keep_prob = {10}{12}} : ({11}) -> ({1}, {1}, {2})
  return %m, %s, %o : {1}, {1}, {2}
})mlir",
             args, stats, q, operands, layoutName(c.layout), c.headsQ,
             scaleText, c.mode, c.pre, c.next, keepText, types, extra)
      .str();
}

double maxError(const std::vector<double> &got,
                const std::vector<double> &expected) {
  double worst = 0;
  for (size_t i = 0; i < got.size(); ++i)
    worst = std::max(worst, std::abs(got[i] - expected[i]));
  return worst;
}

class FlashAttentionTest : public ::testing::Test {
protected:
  FlashAttentionTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    sim::registerSimulatorModels(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
  }

  OwningOpRef<ModuleOp> lower(const std::string &source, const char *device) {
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &ctx);
    EXPECT_TRUE(module) << source;
    PassManager pm(&ctx);
    GraphToDevicePipelineOptions options;
    options.device = device;
    buildGraphToDevicePipeline(pm, options);
    EXPECT_TRUE(succeeded(pm.run(*module)));
    return module;
  }

  /// A source lowered for each executor, the JIT's compiled once.
  struct Lowered {
    OwningOpRef<ModuleOp> sim, jit;
    std::unique_ptr<jit::CompiledKernel> kernel;
  };

  /// `source` lowered for `device`, kept until a check needs another:
  /// consecutive cases whose types read their lengths at run time share it.
  Lowered &lowerOnce(const std::string &source, const char *device) {
    std::string key = source + "@" + device;
    Lowered &l = lowered;
    if (key == loweredKey && l.sim)
      return l;
    loweredKey = key;
    l = Lowered();
    l.sim = lower(source, device);
    l.jit = lower(source, device);
    if (l.sim && l.jit) {
      auto kernel = jit::CompiledKernel::compile(*l.jit, "fa");
      EXPECT_TRUE(succeeded(kernel));
      if (succeeded(kernel))
        l.kernel = std::move(*kernel);
    }
    return l;
  }

  /// Runs the lowered @fa on `inputs` (`compiled`: the JIT's kernel of
  /// `module`, which then only gives the types); returns the arguments
  /// after, outputs sized from the inputs.
  std::vector<HostArray> run(ModuleOp module,
                             const std::vector<HostArray> &inputs, bool jit,
                             sim::SimulationReport *simReport = nullptr,
                             jit::CompiledKernel *compiled = nullptr) {
    auto func = module.lookupSymbol<func::FuncOp>("fa");
    std::vector<HostArray> args = inputs;
    for (auto [i, type] :
         llvm::enumerate(func.getArgumentTypes().drop_front(inputs.size()))) {
      auto memref = cast<MemRefType>(type);
      SmallVector<int64_t> shape = cantFail(signature::bindOutputShape(
          func, inputs.size() + i, memref.getShape(), inputs.size(),
          [&](unsigned arg) { return ArrayRef<int64_t>(inputs[arg].shape); }));
      std::vector<double> nan(ShapedType::getNumElements(shape), NAN);
      args.push_back(
          floatArray(*getElementKind(memref.getElementType()), nan, shape));
    }
    if (jit && compiled) {
      llvm::Error error = compiled->run(args);
      EXPECT_FALSE(bool(error)) << llvm::toString(std::move(error));
    } else if (jit) {
      EXPECT_TRUE(succeeded(jit::runJit(module, "fa", args)));
    } else {
      sim::SimulationReport report;
      sim::SimulatorOptions options;
      options.collectTrace = lastTrace != nullptr;
      EXPECT_TRUE(
          succeeded(sim::simulate(func, args, options, report, lastTrace)));
      if (simReport)
        *simReport = report;
    }
    return args;
  }

  void check(const Case &c) {
    SCOPED_TRACE(llvm::formatv("{0} B{1} N{2}/{3} S{4}x{5} D{6} mode {7} "
                               "({8}, {9}) on {10}",
                               layoutName(c.layout), c.batch, c.headsQ,
                               c.headsKV, c.seqQ, c.seqKV, c.headDim, c.mode,
                               c.pre, c.next, c.device)
                     .str());
    std::mt19937 rng(c.seqQ * 131 + c.seqKV * 7 + c.mode);
    std::uniform_real_distribution<float> uniform(-1, 1);
    ref::Attention a;
    a.layout = c.layout;
    a.batch = c.batch;
    a.headsQ = c.headsQ;
    a.headsKV = c.headsKV;
    a.seqQ = c.seqQ;
    a.seqKV = c.seqKV;
    a.headDim = c.headDim;
    a.scale = 1.0 / std::sqrt(double(c.headDim));
    a.sparseMode = c.mode;
    a.preTokens = c.pre;
    a.nextTokens = c.next;
    a.prefix = c.prefix;
    a.cumSeqQ = c.cumQ;
    a.cumSeqKV = c.cumKV;
    // Inputs are values of the element type, held exactly in the
    // reference's doubles.
    auto fill = [&](std::vector<double> &v, int64_t n) {
      v.resize(n);
      for (double &x : v)
        x = roundFloat(c.element, uniform(rng));
    };
    auto elements = [](const std::vector<int64_t> &shape) {
      int64_t n = 1;
      for (int64_t d : shape)
        n *= d;
      return n;
    };
    fill(a.q, elements(tensorShape(c, true)));
    fill(a.k, elements(tensorShape(c, false)));
    fill(a.v, elements(tensorShape(c, false)));
    std::vector<HostArray> inputs = {
        floatArray(c.element, a.q, tensorShape(c, true)),
        floatArray(c.element, a.k, tensorShape(c, false)),
        floatArray(c.element, a.v, tensorShape(c, false))};
    auto bytes = [&](std::vector<uint8_t> &v, std::vector<int64_t> shape,
                     unsigned keepOneIn) {
      v.resize(elements(shape));
      for (uint8_t &x : v)
        x = rng() % keepOneIn == 0;
      inputs.push_back(
          HostArray::fromValues<uint8_t>(ElementKind::I8, v, shape));
    };
    if (c.mask != Case::Mask::None) {
      a.maskShape = maskShape(c);
      bytes(a.mask, a.maskShape, 4); // about a quarter masked
      if (c.mask == Case::Mask::Compressed)
        a.mask.assign(a.mask.size(), 1); // would mask all, if it were read
      inputs.back().data.assign(a.mask.begin(), a.mask.end());
    }
    if (c.pse != Case::Pse::None) {
      a.pseShape = pseShape(c);
      fill(a.pse, elements(a.pseShape));
      inputs.push_back(floatArray(c.element, a.pse, a.pseShape));
    }
    if (c.keepProb < 1) {
      a.keepProb = c.keepProb;
      bytes(a.drop, {c.batch, c.headsQ, c.seqQ, c.seqKV}, 1);
      for (uint8_t &x : a.drop)
        x = uniform(rng) < 2 * c.keepProb - 1;
      inputs.back().data.assign(a.drop.begin(), a.drop.end());
    }
    if (c.runTimeLengths && c.layout == ref::Layout::TND)
      for (const std::vector<int64_t> *ends : {&c.cumQ, &c.cumKV})
        inputs.push_back(HostArray::fromValues<int64_t>(
            ElementKind::I64, *ends, {int64_t(ends->size())}));
    if (c.grad)
      return checkGrad(c, a, inputs, rng);
    // The scale the op gets is the float64 one the reference uses.
    std::string source = buildSource(c, a.scale);
    Lowered &l = lowerOnce(source, c.device);
    ASSERT_TRUE(l.sim && l.kernel);
    std::vector<HostArray> sim = run(*l.sim, inputs, false, &lastReport);
    std::vector<HostArray> jit =
        run(*l.sim, inputs, true, nullptr, l.kernel.get());
    size_t firstResult = inputs.size();
    for (size_t i = firstResult; i < firstResult + 3; ++i)
      EXPECT_EQ(sim[i].data, jit[i].data) << "result " << i - firstResult;

    ref::Forward exact = ref::forward(a),
                 naive = ref::forwardNaive(a, c.element);
    std::vector<double> out = floatValues(sim[firstResult + 2]);
    double error = maxError(out, exact.out);
    double naiveError = maxError(naive.out, exact.out);
    EXPECT_LE(error, 2 * naiveError)
        << "naive " << getElementKindName(c.element) << " error " << naiveError;
    // Statistics: 8 equal copies per row; -inf and 0 on rows that see no
    // key, as the reference has them.
    std::vector<float> max = sim[firstResult].getValues<float>(),
                       sum = sim[firstResult + 1].getValues<float>();
    for (size_t row = 0; row < exact.max.size(); ++row)
      for (int copy = 0; copy < 8; ++copy) {
        float m = max[row * 8 + copy], s = sum[row * 8 + copy];
        if (std::isinf(exact.max[row])) {
          EXPECT_TRUE(std::isinf(m) && m < 0) << "row " << row;
          EXPECT_EQ(s, 0) << "row " << row;
          continue;
        }
        EXPECT_NEAR(m, exact.max[row], 1e-5) << "row " << row;
        EXPECT_NEAR(s, exact.sum[row], 1e-4 * exact.sum[row]) << "row " << row;
      }
  }

  /// The gradients of `a` given the forward's statistics and output (from
  /// the reference) and a random dY: both executors, the same bytes, and
  /// near the float64 reference.
  void checkGrad(const Case &c, ref::Attention &a,
                 std::vector<HostArray> inputs, std::mt19937 &rng) {
    std::uniform_real_distribution<double> uniform(-1, 1);
    ref::Forward f = ref::forward(a);
    // Read statistics are moved off the forward's (P scaled by
    // exp(-0.25) / 1.5, O by 0.75): recomputing them would miss the
    // reference.
    ref::GivenStatistics given;
    bool reads = !c.recomputeStatistics;
    if (reads)
      for (size_t row = 0; row < f.max.size(); ++row) {
        f.max[row] += 0.25;
        f.sum[row] *= 1.5;
      }
    std::vector<double> dy(a.q.size()), out(a.q.size());
    for (size_t i = 0; i < dy.size(); ++i) {
      dy[i] = roundFloat(c.element, uniform(rng));
      out[i] = roundFloat(c.element, (reads ? 0.75 : 1) * f.out[i]);
    }
    given = {f.max, f.sum, out};
    std::vector<int64_t> statsShape =
        c.layout == ref::Layout::TND
            ? std::vector<int64_t>{c.cumQ.back(), c.headsQ, 8}
            : std::vector<int64_t>{c.batch, c.headsQ, c.seqQ, 8};
    auto copies = [](const std::vector<double> &rows) {
      std::vector<double> eight;
      for (double x : rows)
        eight.insert(eight.end(), 8, x);
      return eight;
    };
    std::vector<HostArray> extra = {
        floatArray(c.element, dy, tensorShape(c, true)),
        floatArray(ElementKind::F32, copies(f.max), statsShape),
        floatArray(ElementKind::F32, copies(f.sum), statsShape),
        floatArray(c.element, out, tensorShape(c, true))};
    inputs.insert(inputs.begin() + 3, extra.begin(), extra.end());
    std::string source = buildSource(c, a.scale);
    Lowered &l = lowerOnce(source, c.device);
    ASSERT_TRUE(l.sim && l.kernel);
    std::vector<HostArray> sim = run(*l.sim, inputs, false, &lastReport);
    std::vector<HostArray> jit =
        run(*l.sim, inputs, true, nullptr, l.kernel.get());
    const ref::GivenStatistics *read = reads ? &given : nullptr;
    ref::Gradients exact = ref::backward(a, dy, read),
                   naive = ref::backwardNaive(a, dy, c.element, read);
    const std::vector<double> *exacts[] = {&exact.dq, &exact.dk, &exact.dv,
                                           &exact.dpse};
    const std::vector<double> *naives[] = {&naive.dq, &naive.dk, &naive.dv,
                                           &naive.dpse};
    const char *names[] = {"dq", "dk", "dv", "dpse"};
    size_t results = c.pse != Case::Pse::None ? 4 : 3;
    // Every gradient within twice the naive implementation's error, dpse
    // included: the lowering recomputes each row's statistics and D =
    // rowsum(P * dP') (docs/flash-attention.md), or reads them as the
    // reference and the naive implementation do.
    for (size_t r = 0; r < results; ++r) {
      size_t i = inputs.size() + r;
      EXPECT_EQ(sim[i].data, jit[i].data) << names[r];
      double error = maxError(floatValues(sim[i]), *exacts[r]);
      double naiveError = maxError(*naives[r], *exacts[r]);
      EXPECT_LE(error, 2 * naiveError)
          << names[r] << ": naive " << getElementKindName(c.element)
          << " error " << naiveError;
    }
  }

  MLIRContext ctx;
  Lowered lowered;
  std::string loweredKey;
  /// The simulator's report of the last check(), and its trace when this
  /// is set.
  sim::SimulationReport lastReport;
  std::vector<sim::TraceEvent> *lastTrace = nullptr;
};

TEST_F(FlashAttentionTest, EveryLayout) {
  for (ref::Layout layout : {ref::Layout::BSH, ref::Layout::SBH,
                             ref::Layout::BSND, ref::Layout::BNSD})
    check({layout, 2, 4, 2, 37, 53, 64});
}

TEST_F(FlashAttentionTest, EveryLoweredSparseMode) {
  // Mode 0's pre_tokens / next_tokens band applies with a mask; without
  // one CANN (and this op) computes every position.
  check({ref::Layout::BNSD, 1, 2, 1, 45, 45, 64, 0, 7, 3, "mlu590",
         Case::Mask::Plain});
  check({ref::Layout::BNSD, 1, 2, 1, 45, 45, 64, 0, 7, 3});
  check({ref::Layout::BNSD, 1, 2, 1, 45, 30, 64, 2});
  check({ref::Layout::BNSD, 1, 2, 1, 30, 45, 64, 3});
  // S1 > S2 from the bottom right: the first S1 - S2 rows see no key.
  check({ref::Layout::BNSD, 1, 2, 2, 40, 24, 64, 3});
  check({ref::Layout::BNSD, 1, 2, 1, 33, 50, 64, 4, 5, 2});
}

TEST_F(FlashAttentionTest, GroupsHeadSizesAndLongKeys) {
  check({ref::Layout::BSND, 1, 4, 1, 20, 20, 128});     // MQA
  check({ref::Layout::BSND, 1, 6, 2, 20, 20, 72});      // GQA, odd D
  check({ref::Layout::BNSD, 1, 1, 1, 150, 2100, 64});   // several key blocks
  check({ref::Layout::BNSD, 1, 2, 1, 300, 300, 64, 3}); // skipped blocks
}

TEST_F(FlashAttentionTest, SplitCores) {
  check({ref::Layout::BNSD, 1, 2, 1, 130, 1100, 64, 0, 2147483647, 2147483647,
         "ascend910b"});
  check({ref::Layout::BSH, 2, 4, 2, 37, 53, 64, 3, 2147483647, 2147483647,
         "ascend910b"});
}

TEST_F(FlashAttentionTest, MasksPseAndDropout) {
  using Mask = Case::Mask;
  using Pse = Case::Pse;
  Case c{ref::Layout::BNSD, 2, 2, 1, 24, 40, 64};
  for (Mask mask : {Mask::Plain, Mask::PerBatch, Mask::PerHead}) {
    c.mask = mask;
    check(c);
  }
  c.mask = Mask::None;
  // Mode 1 takes the mask alone; mode 3 ignores the compressed one.
  check({ref::Layout::BSND, 1, 2, 1, 24, 40, 64, 1, 2147483647, 2147483647,
         "mlu590", Mask::PerHead});
  check({ref::Layout::BSND, 1, 2, 1, 24, 40, 64, 3, 2147483647, 2147483647,
         "mlu590", Mask::Compressed});
  for (Pse pse : {Pse::Full, Pse::OneRow, Pse::OneBatch}) {
    c.pse = pse;
    check(c);
  }
  c.keepProb = 0.8;
  check(c);
  // All at once, causal, on the split device.
  check({ref::Layout::BSH, 2, 4, 2, 37, 53, 64, 3, 2147483647, 2147483647,
         "ascend910b", Mask::PerBatch, Pse::OneRow, 0.9});
}

TEST_F(FlashAttentionTest, HalfAndBfloat) {
  for (ElementKind kind : {ElementKind::F16, ElementKind::BF16}) {
    Case c{ref::Layout::BSND, 1, 4, 2, 40, 70, 64, 3};
    c.element = kind;
    check(c);
    c.pse = Case::Pse::Full;
    c.keepProb = 0.9;
    c.device = "ascend910b";
    check(c);
  }
}

TEST_F(FlashAttentionTest, PrefixAndPackedSequences) {
  // Modes 5 and 6: causal from the bottom right plus prefix[b] keys.
  for (int64_t mode : {5, 6}) {
    Case c{ref::Layout::BNSD, 3, 2, 1, 20, 36, 64, mode};
    c.prefix = {0, 25, 36};
    check(c);
  }
  // TND: sequences of 7, 0, 12 and 5 queries over 9, 4, 12 and 0 keys.
  Case c{ref::Layout::TND, 4, 4, 2, 12, 12, 64};
  c.cumQ = {7, 7, 19, 24};
  c.cumKV = {9, 13, 25, 25};
  for (int64_t mode : {0, 2, 3}) {
    c.mode = mode;
    check(c);
  }
  // Modes 7 and 8: the last (first) sequence with queries cut by
  // next_tokens.
  c.cumKV = {10, 14, 30, 35};
  c.mode = 7;
  c.pre = 40;
  c.next = -2;
  check(c);
  c.mode = 8;
  c.next = 1;
  check(c);
  c.device = "ascend910b";
  check(c);
}

/// `c` as a backward case.
Case backward(Case c) {
  c.grad = true;
  return c;
}

TEST_F(FlashAttentionTest, HeadSizesWiderThanTheKeys) {
  // f16 / bf16 output rows are D wide and rounded in a tile of their own,
  // not in one S2 keys wide (the smallest case: one query, one key, D 2).
  for (ElementKind kind : {ElementKind::F16, ElementKind::BF16}) {
    Case c{ref::Layout::BNSD, 1, 1, 1, 1, 1, 2};
    c.element = kind;
    check(c);
    check(backward(c));
    Case gqa{ref::Layout::BSND, 2, 4, 2, 5, 3, 128, 0};
    gqa.element = kind;
    gqa.device = "ascend910b";
    check(gqa);
    check(backward(gqa));
  }
  // The shape of test/Dialect/NPU/flash-attention.mlir's @tnd_and_grad:
  // packed sequences of 3 and 5 queries over 7 and 9 keys, D 64.
  Case tnd{ref::Layout::TND, 2, 2, 1, 5, 9, 64, 7};
  tnd.cumQ = {3, 8};
  tnd.cumKV = {7, 16};
  tnd.element = ElementKind::F16;
  check(tnd);
  check(backward(tnd));
}

TEST_F(FlashAttentionTest, SingleQueryWithMasks) {
  // Decode: S1 = 1 with a per-batch or per-head mask and dropout, whose row
  // axis of size 1 is the query's own, not a broadcast.
  using Mask = Case::Mask;
  for (Mask mask : {Mask::PerBatch, Mask::PerHead, Mask::Plain}) {
    Case c{ref::Layout::BNSD, 2, 4, 2, 1, 37, 64};
    c.mask = mask;
    c.keepProb = 0.8;
    check(c);
    check(backward(c));
    c.pse = Case::Pse::OneRow;
    c.device = "ascend910b";
    check(c);
    check(backward(c));
  }
}

TEST_F(FlashAttentionTest, LargeHeadSizesAreTiledToFit) {
  // CANN takes D up to 512: the query rows and the keys per cube matmul
  // shrink until the tiles fit cube memory.
  for (const char *device : {"mlu590", "ascend910b"}) {
    Case half{ref::Layout::BNSD, 1, 1, 1, 130, 300, 512, 0};
    half.element = ElementKind::F16;
    half.device = device;
    check(half);
    half.headDim = 448;
    half.mode = 2;
    check(half);
    Case single{ref::Layout::BSND, 1, 2, 1, 70, 64, 512, 0};
    single.device = device;
    check(single);
    check(backward(single));
  }
}

TEST_F(FlashAttentionTest, BackwardLayoutsAndModes) {
  for (ref::Layout layout : {ref::Layout::BSH, ref::Layout::SBH,
                             ref::Layout::BSND, ref::Layout::BNSD})
    check(backward({layout, 2, 4, 2, 37, 53, 64}));
  check(backward({ref::Layout::BNSD, 1, 2, 1, 45, 45, 64, 0, 7, 3, "mlu590",
                  Case::Mask::PerHead}));
  check(backward({ref::Layout::BNSD, 1, 2, 1, 45, 30, 64, 2}));
  // S1 > S2 from the bottom right: rows that see no key.
  check(backward({ref::Layout::BNSD, 1, 2, 2, 40, 24, 64, 3}));
  check(backward({ref::Layout::BNSD, 1, 2, 1, 33, 50, 64, 4, 5, 2}));
  Case prefix{ref::Layout::BNSD, 3, 2, 1, 20, 36, 64, 5};
  prefix.prefix = {0, 25, 36};
  check(backward(prefix));
}

TEST_F(FlashAttentionTest, BackwardInputsTypesAndDevices) {
  Case c{ref::Layout::BNSD, 2, 2, 1, 24, 40, 64};
  c.mask = Case::Mask::PerHead;
  c.pse = Case::Pse::Full;
  c.keepProb = 0.8;
  check(backward(c));
  // MQA and an odd head size; several key and query blocks.
  check(backward({ref::Layout::BSND, 1, 4, 1, 150, 140, 72, 3}));
  Case half{ref::Layout::BSND, 1, 4, 2, 40, 70, 64, 3};
  half.element = ElementKind::F16;
  check(backward(half));
  half.element = ElementKind::BF16;
  half.device = "ascend910b";
  check(backward(half));
  Case tnd{ref::Layout::TND, 4, 4, 2, 12, 12, 64, 8};
  tnd.cumQ = {7, 7, 19, 24};
  tnd.cumKV = {10, 14, 30, 35};
  tnd.pre = 40;
  tnd.next = 1;
  check(backward(tnd));
  check(backward({ref::Layout::BNSD, 0, 2, 1, 8, 8, 64}));
}

TEST_F(FlashAttentionTest, BackwardRowsWithFewKeys) {
  // Rows that see one to three keys, where D = rowsum(dY * O) put dq at 6x
  // and statistics not computed from this S put dv at 3x to 9x the naive
  // f32 error: causal from the bottom right with S1 > S2 (row 11, 12, 13
  // sees one, two, three keys), and a band one to three keys wide.
  for (int64_t d : {64, 128}) {
    for (int64_t seqQ : {151, 152, 153}) {
      Case c{ref::Layout::BSND, 2, 2, 1, seqQ, 140, d, 3};
      c.pse = Case::Pse::Full;
      check(backward(c));
    }
    for (int64_t pre : {0, 1, 2}) {
      Case band{ref::Layout::BNSD, 2, 2, 1, 60, 60, d, 4, pre, 0};
      band.pse = Case::Pse::Full;
      check(backward(band));
    }
  }
}
TEST_F(FlashAttentionTest, BackwardPseSharedByBatchesOfOneRow) {
  // With S1 = 1, a pse of [1, N1, 1, S2] over two batches is the one shared
  // by the batches (dpse sums over them), not one shared by the rows (it
  // was taken for that, and the backward failed to lower).
  Case c{ref::Layout::BSND, 2, 2, 1, 1, 40, 16, 0};
  c.pse = Case::Pse::OneBatch;
  check(backward(c));
}

TEST_F(FlashAttentionTest, BackwardBroadcastPse) {
  // dpse of a pse shared by every query row sums dS over the rows; of one
  // shared by the batches, over the batches. Several query blocks (150 rows
  // in blocks of 128 on mlu590, 64 rows per vector task), a causal band,
  // and batches that see different prefixes.
  for (Case::Pse pse :
       {Case::Pse::Full, Case::Pse::OneRow, Case::Pse::OneBatch}) {
    Case c{ref::Layout::BSND, 3, 2, 1, 150, 140, 64, 3};
    c.pse = pse;
    check(backward(c));
    Case prefix{ref::Layout::BNSD, 3, 2, 1, 20, 36, 64, 5};
    prefix.prefix = {0, 25, 36};
    prefix.pse = pse;
    prefix.element = ElementKind::F16;
    check(backward(prefix));
    Case split{ref::Layout::BSH, 2, 4, 2, 37, 53, 64, 0};
    split.pse = pse;
    split.element = ElementKind::BF16;
    split.keepProb = 0.9;
    split.device = "ascend910b";
    check(backward(split));
  }
}

/// Four groups of three cores with 48 KiB of vector memory: key blocks of
/// 256 and 12 vector cores, so that every forward template is taken at
/// lengths the tests can afford.
const char *smallAttentionDevice() {
  return npu::testing::getDeviceFile(
             R"({"name": "small_attention", "base": "mlu590", "clusters": 4,
                 "cores_per_cluster": 3, "vector_bytes": 49152})")
      .c_str();
}

/// A unified device of two cores, as the `host` device of a two-core
/// machine: a group is one cube task and one vector task.
const char *twoCoreDevice() {
  return npu::testing::getDeviceFile(
             R"({"name": "two_core", "base": "mlu590", "clusters": 1,
                 "cores_per_cluster": 2})")
      .c_str();
}

TEST_F(FlashAttentionTest, OneVectorTaskPerGroup) {
  // The vector task takes every row of an item, both directions, with a
  // causal band and with several key blocks.
  for (Case c : {Case{ref::Layout::BNSD, 1, 2, 1, 45, 53, 64},
                 Case{ref::Layout::BSND, 2, 2, 1, 40, 30, 64, 3},
                 Case{ref::Layout::BNSD, 1, 1, 1, 130, 1100, 64}}) {
    c.device = twoCoreDevice();
    check(c);
    check(backward(c));
  }
}

TEST_F(FlashAttentionTest, SequenceLengthsReadAtRunTime) {
  // Per layout and mode, one module (S1 and S2 '?') run at lengths that
  // take each forward template, and at 0, in both executors against the
  // reference. The report names the template selectAttentionTemplate
  // gives the lengths the kernel ran with: the kernel's run-time choice
  // follows the compile-time rule.
  attention::AttentionLimits limits = attention::getAttentionLimits(
      cantFail(DeviceModel::load(smallAttentionDevice())));
  ASSERT_EQ(limits.s2Inner, 256);
  ASSERT_EQ(limits.vectorCores, 12);
  int64_t longKeys = limits.s2Inner + 52;
  std::pair<int64_t, int64_t> lengths[] = {
      {37, 53},  {0, 5},         {5, 0},         {1, 1},
      {70, 200}, {20, longKeys}, {150, longKeys}};
  // Two kinds, each compiled once (four kernels: seconds of JIT
  // compilation): the band measured from the bottom right moves with S2 -
  // S1 read at run time.
  std::pair<ref::Layout, int64_t> kinds[] = {{ref::Layout::BNSD, 3},
                                             {ref::Layout::SBH, 4}};
  std::set<std::string> taken;
  for (auto [layout, mode] : kinds)
    for (auto [s1, s2] : lengths) {
      Case c{layout, 1, 8, 2, s1, s2, 16, mode, 40, 3, smallAttentionDevice()};
      c.runTimeLengths = true;
      check(c);
      if (s1 == 0)
        continue;
      attention::ForwardTiling expected =
          attention::selectAttentionTemplate({1, 2, 4, s1, s2, 16}, limits);
      std::string step =
          "flash_attention." +
          attention::stringifyForwardTemplate(expected.kind).str();
      EXPECT_TRUE(llvm::any_of(lastReport.steps,
                               [&](const auto &s) { return s.name == step; }))
          << "S1 " << s1 << " S2 " << s2 << " should run " << step;
      // s1s2 has two kernels: 64 and 128 query rows per item.
      if (expected.kind == attention::ForwardTemplate::SplitS1S2)
        step += " " + std::to_string(expected.s1Inner);
      taken.insert(step);
    }
  // b, s1, and s1s2 with 64 and with 128 rows.
  EXPECT_EQ(taken.size(), 4u);
}

TEST_F(FlashAttentionTest, OneLengthReadAtRunTime) {
  // Only S2, or only S1, read at run time, with the band measured from the
  // bottom right (mode 3): it moves by S2 - S1, one side known when the
  // kernel is built. Forward both ways, backward with S2 read.
  struct Module {
    bool grad, dynamicQ;
    std::vector<int64_t> lengths;
  } modules[] = {{false, false, {5, 37, 300}},
                 {false, true, {3, 37, 150}},
                 {true, false, {0, 37, 90}}};
  for (const Module &m : modules)
    for (int64_t length : m.lengths) {
      Case c{
          ref::Layout::BSND,        1,  4, 2,          m.dynamicQ ? length : 40,
          m.dynamicQ ? 60 : length, 16, 3, 2147483647, 2147483647,
          smallAttentionDevice()};
      c.runTimeLengths = true;
      c.dynamicSeqQ = m.dynamicQ;
      c.dynamicSeqKV = !m.dynamicQ;
      check(m.grad ? backward(c) : c);
    }
}

TEST_F(FlashAttentionTest, BackwardSequenceLengthsReadAtRunTime) {
  // One backward module per layout and mode (S1 and S2 '?'), run at
  // lengths that leave rows without keys, keys without queries, and
  // several blocks each way, and at 0, in both executors against the
  // reference.
  std::pair<int64_t, int64_t> lengths[] = {{37, 53}, {0, 5},    {5, 0},
                                           {1, 1},   {150, 70}, {20, 300}};
  std::pair<ref::Layout, int64_t> kinds[] = {{ref::Layout::BSND, 3},
                                             {ref::Layout::SBH, 0}};
  for (auto [layout, mode] : kinds)
    for (auto [s1, s2] : lengths) {
      Case c{layout, 1, 4, 2, s1, s2, 16, mode, 40, 3, smallAttentionDevice()};
      c.runTimeLengths = true;
      check(backward(c));
    }
}

TEST_F(FlashAttentionTest, BackwardReadsTheGivenStatistics) {
  // recompute_statistics = false: softmax_max, softmax_sum and D =
  // rowsum(dY * attention_in) are read, as CANN does, given values that are
  // not the forward's. Every layout; mask, pse and dropout; f16 over
  // several blocks on ascend910b; rows that see no key; TND; lengths read
  // at run time; no batch.
  auto reading = [](Case c) {
    c.grad = true;
    c.recomputeStatistics = false;
    return c;
  };
  for (ref::Layout layout : {ref::Layout::BSH, ref::Layout::SBH,
                             ref::Layout::BSND, ref::Layout::BNSD})
    check(reading({layout, 2, 4, 2, 37, 53, 64}));
  Case inputs{ref::Layout::BNSD, 2, 2, 1, 24, 40, 64};
  inputs.mask = Case::Mask::PerHead;
  inputs.pse = Case::Pse::Full;
  inputs.keepProb = 0.8;
  check(reading(inputs));
  Case half{ref::Layout::BSND, 1, 4, 2, 150, 140, 128, 3};
  half.element = ElementKind::F16;
  half.device = "ascend910b";
  check(reading(half));
  check(reading({ref::Layout::BNSD, 1, 2, 2, 40, 24, 64, 3}));
  Case tnd{ref::Layout::TND, 4, 4, 2, 12, 12, 64, 8};
  tnd.cumQ = {7, 7, 19, 24};
  tnd.cumKV = {10, 14, 30, 35};
  check(reading(tnd));
  for (auto [s1, s2] : {std::pair<int64_t, int64_t>{150, 70}, {0, 5}}) {
    Case dynamic{ref::Layout::BSND,     1, 4, 2, s1, s2, 16, 3, 40, 3,
                 smallAttentionDevice()};
    dynamic.runTimeLengths = true;
    check(reading(dynamic));
  }
  check(reading({ref::Layout::BNSD, 0, 2, 1, 8, 8, 64}));
}

TEST_F(FlashAttentionTest, OptionalInputsWithLengthsReadAtRunTime) {
  // atten_mask, pse and drop_mask shaped by S1 and S2 read at run time:
  // each kind of input in one module per direction, run at lengths with
  // several blocks each way and at 0, in both executors against the
  // reference.
  std::pair<int64_t, int64_t> lengths[] = {{37, 53}, {0, 5}, {150, 70}};
  auto cases = [](int64_t s1, int64_t s2) {
    std::vector<Case> all;
    Case mask{ref::Layout::BNSD,
              2,
              2,
              1,
              s1,
              s2,
              16,
              0,
              7,
              3,
              smallAttentionDevice(),
              Case::Mask::PerBatch};
    all.push_back(mask);
    Case pse{ref::Layout::BSND, 2, 2, 1, s1, s2, 16, 3};
    pse.device = smallAttentionDevice();
    pse.pse = Case::Pse::OneRow;
    pse.keepProb = 0.9;
    all.push_back(pse);
    Case full = pse;
    full.pse = Case::Pse::Full;
    all.push_back(full);
    return all;
  };
  // Forward: the mask, and a full pse with dropout; backward: a pse of one
  // row with dropout (its dpse a sum over the rows). Each module compiles
  // its kernels once (seconds each).
  std::pair<bool, size_t> modules[] = {{false, 0}, {false, 2}, {true, 1}};
  for (auto [grad, which] : modules)
    for (auto [s1, s2] : lengths) {
      Case c = cases(s1, s2)[which];
      c.runTimeLengths = true;
      check(grad ? backward(c) : c);
    }
}

/// TND over 4 batches of 4 query heads, 2 key/value heads and head size 16,
/// packed at `cumQ` and `cumKV` (cumulative ends) given as data, with
/// sparse mode `mode` and its tokens: S1 and S2 the longest sequences.
Case packedCase(const std::vector<int64_t> &cumQ,
                const std::vector<int64_t> &cumKV, int64_t mode, int64_t pre,
                int64_t next) {
  Case c{ref::Layout::TND,      4, 4, 2, 0, 0, 16, mode, pre, next,
         smallAttentionDevice()};
  c.cumQ = cumQ;
  c.cumKV = cumKV;
  for (size_t b = 0; b < cumQ.size(); ++b) {
    c.seqQ = std::max(c.seqQ, cumQ[b] - (b ? cumQ[b - 1] : 0));
    c.seqKV = std::max(c.seqKV, cumKV[b] - (b ? cumKV[b - 1] : 0));
  }
  c.runTimeLengths = true;
  return c;
}

TEST_F(FlashAttentionTest, PackedLengthsReadAtRunTime) {
  // TND with seq_qlen and seq_kvlen as operands: one module per direction
  // and mode, run at several packings of the same rows (empty sequences,
  // one sequence holding every row, several blocks), in both executors
  // against the reference.
  std::pair<std::vector<int64_t>, std::vector<int64_t>> packings[] = {
      {{7, 7, 19, 24}, {9, 13, 25, 30}},
      {{0, 0, 24, 24}, {30, 30, 30, 30}},
      {{24, 24, 24, 24}, {0, 10, 20, 30}},
      {{1, 2, 3, 24}, {1, 2, 3, 30}}};
  for (bool grad : {false, true})
    for (int64_t mode : {3, 7})
      for (auto &[cumQ, cumKV] : packings) {
        Case c = packedCase(cumQ, cumKV, mode, 40, -2);
        check(grad ? backward(c) : c);
      }
}

TEST_F(FlashAttentionTest, PackedRowsReadAtRunTime) {
  // TND with T1 and T2 '?' as well as the lengths: one module per
  // direction and mode serves packings of different row counts, none
  // included, in both executors against the reference.
  std::pair<std::vector<int64_t>, std::vector<int64_t>> packings[] = {
      {{7, 7, 19, 24}, {9, 13, 25, 30}},
      {{1, 2, 3, 5}, {40, 41, 60, 61}},
      {{0, 0, 0, 0}, {0, 3, 3, 9}},
      {{0, 0, 0, 0}, {0, 0, 0, 0}},
      {{30, 60, 61, 90}, {2, 2, 2, 2}}};
  for (bool grad : {false, true})
    for (int64_t mode : {0, 3})
      for (auto &[cumQ, cumKV] : packings) {
        Case c = packedCase(cumQ, cumKV, mode, 40, -2);
        c.dynamicRows = true;
        check(grad ? backward(c) : c);
      }
}

TEST_F(FlashAttentionTest, PrefixModesWithLengthsReadAtRunTime) {
  // Modes 5 and 6 (causal from the bottom right, plus the first prefix[b]
  // keys) with the lengths read at run time: the per-batch table is built
  // when the kernel runs, each prefix cut at S2. BNSD with S1 and S2 '?'
  // (mode 5, forward and backward) at lengths that cut prefixes, leave
  // rows without keys, and at 0; TND with its lengths as data (mode 6,
  // forward) at two packings. Both executors against the reference.
  std::pair<int64_t, int64_t> lengths[] = {
      {20, 36}, {0, 5}, {7, 0}, {40, 30}, {5, 12}};
  for (bool grad : {false, true})
    for (auto [s1, s2] : lengths) {
      Case c{
          ref::Layout::BNSD,     3, 2, 1, s1, s2, 16, 5, 2147483647, 2147483647,
          smallAttentionDevice()};
      c.prefix = {0, 25, 36};
      c.runTimeLengths = true;
      check(grad ? backward(c) : c);
    }
  std::pair<std::vector<int64_t>, std::vector<int64_t>> packings[] = {
      {{7, 7, 19, 24}, {9, 13, 25, 30}}, {{0, 0, 24, 24}, {30, 30, 30, 30}}};
  for (auto &[cumQ, cumKV] : packings) {
    Case c = packedCase(cumQ, cumKV, 6, 2147483647, 2147483647);
    c.prefix = {3, 0, 20, 9};
    check(c);
  }
}

TEST_F(FlashAttentionTest, NaNsAreTheSameBytes) {
  // scale 0 times an infinite score is NaN: the softmax statistics and the
  // output are NaN, and both executors must write the same NaN.
  Case c{ref::Layout::BNSD, 1, 1, 1, 2, 3, 4};
  std::vector<double> q = {1, 2, 3, 4, -1, 0.5, 2, 1};
  std::vector<double> k = {INFINITY, 1, 1, 1, 0, 1, 0, 1, 2, 2, 2, 2};
  std::vector<double> v = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  std::vector<HostArray> inputs = {
      floatArray(ElementKind::F32, q, tensorShape(c, true)),
      floatArray(ElementKind::F32, k, tensorShape(c, false)),
      floatArray(ElementKind::F32, v, tensorShape(c, false))};
  std::string source = buildSource(c, 0.0);
  OwningOpRef<ModuleOp> simModule = lower(source, c.device);
  OwningOpRef<ModuleOp> jitModule = lower(source, c.device);
  ASSERT_TRUE(simModule && jitModule);
  std::vector<HostArray> sim = run(*simModule, inputs, false);
  std::vector<HostArray> jit = run(*jitModule, inputs, true);
  for (size_t i = inputs.size(); i < sim.size(); ++i) {
    EXPECT_EQ(sim[i].data, jit[i].data) << "result " << i - inputs.size();
    EXPECT_TRUE(std::isnan(sim[i].getValues<float>()[0]));
  }
}

TEST_F(FlashAttentionTest, EmptyTensors) {
  check({ref::Layout::BNSD, 0, 2, 1, 8, 8, 64});
  check({ref::Layout::BSND, 1, 2, 1, 0, 8, 64});
  // No keys: every row sees none (0 output, -inf and 0 statistics).
  check({ref::Layout::BSND, 1, 2, 1, 8, 0, 64});
}

TEST_F(FlashAttentionTest, MaskedBlocksAreSkipped) {
  // 2100 keys in blocks of 1024 on ascend910b, in query blocks of 64 rows
  // (the tiling's s1_inner at D 64). Causal from the top left, rows [r0, r0
  // + r) see keys [0, r0 + r): the cube multiplies those keys, in the
  // blocks they fall in, and none past them, neither the blocks the band
  // misses nor the rest of the block at the diagonal.
  auto cubeMacs = [&](int64_t mode) {
    check({ref::Layout::BNSD, 1, 1, 1, 2100, 2100, 64, mode, 2147483647,
           2147483647, "ascend910b"});
    return lastReport.cubeMacs;
  };
  double full = cubeMacs(0), causal = cubeMacs(2);
  // Per query block of r rows seeing c keys: S = Q K^T and O = P V, r c D
  // MACs each.
  auto seen = [](bool causalMask) {
    double macs = 0;
    for (int64_t r0 = 0; r0 < 2100; r0 += 64) {
      int64_t rows = std::min<int64_t>(64, 2100 - r0);
      int64_t keys = causalMask ? r0 + rows : 2100;
      macs += 2.0 * rows * keys * 64;
    }
    return macs;
  };
  EXPECT_EQ(full, seen(false));
  EXPECT_EQ(causal, seen(true));
  // 0.52 of the work here, (S + 64) / 2S: whole visited blocks made it 0.74.
  EXPECT_LT(causal, 0.53 * full);
}

TEST_F(FlashAttentionTest, KeysAndValuesReusedAcrossQueryBlocks) {
  // On a device of 4 groups (a cube and two vector cores each), S2 300 >
  // its s2 inner 256: the S1S2 template, 128-row blocks. Without a mask
  // and with 4 items or more per group at 256 rows (N 2, S1 2048: 16), an
  // item takes 256 rows and each K and V chunk serves both vector cores'
  // blocks (CANN's enableL1Reuse, the tiling key's last field). With fewer
  // items (S1 1024: 8) or a causal band, 128 rows. With the lengths read
  // at run time the module holds both kernels and takes the one the static
  // module has: the same bytes through the L2.
  auto expectRows = [&](int64_t rows, unsigned reuseDigit) {
    DictionaryAttr tiling;
    lowered.sim->walk([&](Operation *op) {
      auto t = op->getAttrOfType<DictionaryAttr>("npudev.tiling");
      if (t && t.getAs<StringAttr>("strategy").getValue() == "flash_attention")
        tiling = t;
    });
    ASSERT_TRUE(tiling);
    EXPECT_EQ(tiling.getAs<IntegerAttr>("s1_inner").getInt(), rows);
    uint64_t key =
        std::stoull(tiling.getAs<StringAttr>("tiling_key").getValue().str());
    EXPECT_EQ(key / 1000000000000ULL % 10, reuseDigit);
  };
  Case c{
      ref::Layout::BNSD,     1, 2, 2, 2048, 300, 16, 0, 2147483647, 2147483647,
      smallAttentionDevice()};
  c.element = ElementKind::F16;
  std::vector<int64_t> bytes;
  for (int64_t s1 : {2048, 1024})
    for (bool runTime : {false, true}) {
      c.seqQ = s1;
      c.runTimeLengths = runTime;
      check(c);
      if (!runTime)
        expectRows(s1 == 2048 ? 256 : 128, s1 == 2048 ? 1 : 0);
      bytes.push_back(lastReport.globalBytes);
    }
  EXPECT_EQ(bytes[0], bytes[1]);
  EXPECT_EQ(bytes[2], bytes[3]);
  c.runTimeLengths = false;
  c.seqQ = 2048;
  c.mode = 2;
  check(c);
  expectRows(128, 0);
}

/// The matmul cycles of the busiest of `cores` cube cores in `trace`, as a
/// multiple of their mean; 0 (and a failure) when other than `cores` cores
/// ran matmuls.
double busiestCubeCore(const std::vector<sim::TraceEvent> &trace,
                       unsigned cores) {
  std::map<unsigned, double> matmulCycles;
  double total = 0;
  for (const sim::TraceEvent &e : trace)
    if (e.name == "npudev.matmul") {
      matmulCycles[e.core] += e.cycles;
      total += e.cycles;
    }
  EXPECT_EQ(matmulCycles.size(), cores);
  if (matmulCycles.size() != cores)
    return 0;
  double most = 0;
  for (auto [core, cycles] : matmulCycles)
    most = std::max(most, cycles);
  return most / (total / cores);
}

TEST_F(FlashAttentionTest, CausalWorkIsDealtEvenly) {
  // Causal over 2048 keys (ascend910b, 64-row query blocks): a query
  // block's work grows with its row. Dealt in turn, head by head, items
  // left some of the 24 cube cores 1.25 times the mean work; heaviest
  // first, in a snake, each core is within 5% of it with 10 or more items
  // a core, as here (N 8: 256 items) and at S 4096 (N 8, 128-row blocks:
  // 1.006). With 5 items a core (N 4) it leaves 1.10: the items of the
  // last, part period go unevenly.
  std::vector<sim::TraceEvent> trace;
  lastTrace = &trace;
  check({ref::Layout::BNSD, 1, 8, 8, 2048, 2048, 64, 2, 2147483647, 2147483647,
         "ascend910b"});
  EXPECT_LE(busiestCubeCore(trace, 24), 1.05);
}

TEST_F(FlashAttentionTest, BackwardRunsAreBalancedByWork) {
  // The backward reading its statistics has one mixed launch, over key
  // blocks, whose items go to the cube cores in contiguous runs (so that
  // each core's partial sums of dQ cover few heads) balanced by their work.
  // Causal over 2048 keys in blocks of 128, with query blocks of 64, key
  // block k is reached by query blocks 2k to 31: in order, the items' work
  // falls from 33 units (a step each, and one for the item) to 3. Split by
  // count, the busiest core took 1.54 times the mean; by where each item's
  // work starts, 1.28; by where its midpoint falls, 1.015.
  std::vector<sim::TraceEvent> trace;
  lastTrace = &trace;
  Case c{ref::Layout::BNSD, 1,          8,           8, 2048, 2048, 64, 2,
         2147483647,        2147483647, "ascend910b"};
  c.grad = true;
  c.recomputeStatistics = false;
  check(c);
  EXPECT_LE(busiestCubeCore(trace, 24), 1.05);
}

} // namespace
