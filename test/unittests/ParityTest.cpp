//===- ParityTest.cpp - simulator and JIT agree, op by op -----------------===//
//
// Table-driven: every op the simulator has a model for must appear in some
// kernel here, and every kernel must give the same output bytes in the
// simulator and in the JIT. The kernels are the functions of
// test/npu-run/parity.mlir (npudev, memref and scf ops), those of the
// per-op test files in test/Dialect/NPUDev/ops, and one generated kernel
// per row of the scalar table below (arith and math). Coverage is
// computed by walking the kernels, not declared, so a new op without a
// parity kernel fails EveryModelledOpIsCovered.
//
// Every kernel also runs in the JIT's checked mode, with the same bytes.
// Also: every kernel round-trips through the printer and parser, every
// arith op is simulated (the JIT lowers them all), and the math
// ops the simulator does not model are the ones the JIT cannot lower either.
//
//===----------------------------------------------------------------------===//

#include "npu/InitAll.h"
#include "npu/JIT/Jit.h"
#include "npu/Simulator/Execution.h"
#include "npu/Simulator/Simulator.h"
#include "npu/Support/DeviceExp.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "gtest/gtest.h"

#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <thread>

using namespace mlir;
using namespace npu;

namespace {

/// One generated scalar kernel: out[i] = body(a[i], b[i]) over 16 elements.
struct ScalarRow {
  const char *a, *b, *result;
  /// Defines %r from %x (an element of a) and %y (of b).
  const char *body;
};

const ScalarRow kScalarRows[] = {
    {"i32", "i32", "i32", "%r = arith.constant 42 : i32"},
    {"i32", "i32", "i32", "%r = arith.addi %x, %y : i32"},
    {"i32", "i32", "i32", "%r = arith.subi %x, %y : i32"},
    {"i32", "i32", "i32", "%r = arith.muli %x, %y : i32"},
    {"i32", "i32", "i32", "%r = arith.divsi %x, %y : i32"},
    {"i32", "i32", "i32", "%r = arith.divui %x, %y : i32"},
    {"i32", "i32", "i32", "%r = arith.remsi %x, %y : i32"},
    {"i32", "i32", "i32", "%r = arith.remui %x, %y : i32"},
    {"i32", "i32", "i32", "%r = arith.ceildivsi %x, %y : i32"},
    {"i32", "i32", "i32", "%r = arith.ceildivui %x, %y : i32"},
    {"i32", "i32", "i32", "%r = arith.floordivsi %x, %y : i32"},
    {"i32", "i32", "i32", "%r = arith.maxsi %x, %y : i32"},
    {"i32", "i32", "i32", "%r = arith.minsi %x, %y : i32"},
    {"i32", "i32", "i32", "%r = arith.maxui %x, %y : i32"},
    {"i32", "i32", "i32", "%r = arith.minui %x, %y : i32"},
    {"i32", "i32", "i32", "%r = arith.andi %x, %y : i32"},
    {"i32", "i32", "i32", "%r = arith.ori %x, %y : i32"},
    {"i32", "i32", "i32", "%r = arith.xori %x, %y : i32"},
    {"i32", "i32", "i32", "%r = arith.shli %x, %y : i32"},
    {"i32", "i32", "i32", "%r = arith.shrsi %x, %y : i32"},
    {"i32", "i32", "i32", "%r = arith.shrui %x, %y : i32"},
    {"i32", "i32", "i32",
     "%s, %o = arith.addui_extended %x, %y : i32, i1\n"
     "%oi = arith.extui %o : i1 to i32\n%r = arith.addi %s, %oi : i32"},
    {"i32", "i32", "i32",
     "%lo, %hi = arith.mulsi_extended %x, %y : i32\n"
     "%r = arith.xori %lo, %hi : i32"},
    {"i32", "i32", "i32",
     "%lo, %hi = arith.mului_extended %x, %y : i32\n"
     "%r = arith.xori %lo, %hi : i32"},
    // 64-bit halves: negative operands are huge unsigned ones.
    {"i64", "i64", "i64",
     "%lo, %hi = arith.mului_extended %x, %y : i64\n"
     "%r = arith.xori %lo, %hi : i64"},
    {"i64", "i64", "i64",
     "%lo, %hi = arith.mulsi_extended %x, %y : i64\n"
     "%r = arith.xori %lo, %hi : i64"},
    {"i32", "i32", "i32",
     "%c = arith.cmpi ult, %x, %y : i32\n%r = arith.extui %c : i1 to i32"},
    {"i32", "i32", "i32",
     "%c = arith.cmpi sle, %x, %y : i32\n%r = arith.select %c, %x, %y : i32"},
    // i4 wraps as LLVM's does: 7 + 1 is -8.
    {"i32", "i32", "i32",
     "%p = arith.trunci %x : i32 to i4\n%q = arith.trunci %y : i32 to i4\n"
     "%s = arith.addi %p, %q : i4\n%r = arith.extsi %s : i4 to i32"},
    {"i32", "i32", "i64", "%r = arith.extsi %x : i32 to i64"},
    {"i32", "i32", "i64", "%r = arith.extui %x : i32 to i64"},
    {"i32", "i32", "i32",
     "%n = arith.index_cast %x : i32 to index\n"
     "%r = arith.index_cast %n : index to i32"},
    {"i32", "i32", "i64",
     "%n = arith.index_castui %x : i32 to index\n"
     "%r = arith.index_cast %n : index to i64"},
    {"i32", "i32", "f32", "%r = arith.sitofp %x : i32 to f32"},
    {"i32", "i32", "f32", "%r = arith.uitofp %x : i32 to f32"},
    {"i32", "i32", "f32", "%r = arith.bitcast %x : i32 to f32"},
    {"f32", "f32", "f32", "%r = arith.addf %x, %y : f32"},
    {"f32", "f32", "f32", "%r = arith.subf %x, %y : f32"},
    {"f32", "f32", "f32", "%r = arith.mulf %x, %y : f32"},
    {"f32", "f32", "f32", "%r = arith.divf %x, %y : f32"},
    {"f32", "f32", "f32", "%r = arith.maximumf %x, %y : f32"},
    {"f32", "f32", "f32", "%r = arith.minimumf %x, %y : f32"},
    {"f32", "f32", "f32", "%r = arith.maxnumf %x, %y : f32"},
    {"f32", "f32", "f32", "%r = arith.minnumf %x, %y : f32"},
    {"f32", "f32", "f32", "%r = arith.remf %x, %y : f32"},
    {"f32", "f32", "f32", "%r = arith.negf %x : f32"},
    {"f32", "f32", "i32",
     "%c = arith.cmpf olt, %x, %y : f32\n%r = arith.extui %c : i1 to i32"},
    {"f32", "f32", "i32",
     "%s = arith.mulf %x, %y : f32\n%r = arith.fptosi %s : f32 to i32"},
    {"f32", "f32", "i32",
     "%s = arith.mulf %x, %y : f32\n%r = arith.fptoui %s : f32 to i32"},
    {"f32", "f32", "f64", "%r = arith.extf %x : f32 to f64"},
    {"f32", "f32", "f16", "%r = arith.truncf %x : f32 to f16"},
    {"f32", "f32", "bf16", "%r = arith.truncf %x : f32 to bf16"},
    {"f32", "f32", "i32", "%r = arith.bitcast %x : f32 to i32"},
    {"f16", "f16", "f16", "%r = arith.mulf %x, %y : f16"},
    {"bf16", "bf16", "bf16", "%r = arith.addf %x, %y : bf16"},
    {"f64", "f64", "f64", "%r = arith.divf %x, %y : f64"},
    {"f32", "f32", "f32", "%r = math.absf %x : f32"},
    {"f32", "f32", "f32", "%r = math.exp %x : f32"},
    {"f32", "f32", "f32", "%r = math.log %x : f32"},
    {"f32", "f32", "f32", "%r = math.sqrt %x : f32"},
    {"f32", "f32", "f32", "%r = math.rsqrt %x : f32"},
    {"f32", "f32", "f32", "%r = math.tanh %x : f32"},
    {"f32", "f32", "f32", "%r = math.exp2 %x : f32"},
    {"f32", "f32", "f32", "%r = math.expm1 %x : f32"},
    {"f32", "f32", "f32", "%r = math.log2 %x : f32"},
    {"f32", "f32", "f32", "%r = math.log10 %x : f32"},
    {"f32", "f32", "f32", "%r = math.log1p %x : f32"},
    {"f32", "f32", "f32", "%r = math.sin %x : f32"},
    {"f32", "f32", "f32", "%r = math.cos %x : f32"},
    {"f32", "f32", "f32", "%r = math.tan %x : f32"},
    {"f32", "f32", "f32", "%r = math.sinh %x : f32"},
    {"f32", "f32", "f32", "%r = math.cosh %x : f32"},
    {"f32", "f32", "f32", "%r = math.asin %x : f32"},
    {"f32", "f32", "f32", "%r = math.acos %x : f32"},
    {"f32", "f32", "f32", "%r = math.atan %x : f32"},
    {"f32", "f32", "f32", "%r = math.asinh %x : f32"},
    {"f32", "f32", "f32", "%r = math.acosh %x : f32"},
    {"f32", "f32", "f32", "%r = math.atanh %x : f32"},
    {"f32", "f32", "f32", "%r = math.cbrt %x : f32"},
    {"f32", "f32", "f32", "%r = math.erf %x : f32"},
    {"f32", "f32", "f32", "%r = math.floor %x : f32"},
    {"f32", "f32", "f32", "%r = math.ceil %x : f32"},
    {"f32", "f32", "f32", "%r = math.round %x : f32"},
    {"f32", "f32", "f32", "%r = math.roundeven %x : f32"},
    {"f32", "f32", "f32", "%r = math.trunc %x : f32"},
    {"f32", "f32", "f32", "%r = math.powf %x, %y : f32"},
    {"f32", "f32", "f32", "%r = math.atan2 %x, %y : f32"},
    {"f32", "f32", "f32", "%r = math.copysign %x, %y : f32"},
    {"f32", "f32", "f32", "%r = math.fma %x, %y, %x : f32"},
    {"f32", "i32", "f32", "%r = math.fpowi %x, %y : f32, i32"},
    {"f16", "f16", "f16", "%r = math.exp %x : f16"},
    {"i32", "i32", "i32", "%r = math.absi %x : i32"},
    {"i32", "i32", "i32", "%r = math.ctpop %x : i32"},
    {"i32", "i32", "i32", "%r = math.ctlz %x : i32"},
    {"i32", "i32", "i32", "%r = math.cttz %x : i32"},
};

std::string scalarKernel(const ScalarRow &row) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "func.func @f(%a: memref<16x" << row.a << ">, %b: memref<16x" << row.b
     << ">, %out: memref<16x" << row.result << ">) {\n"
     << "  %c0 = arith.constant 0 : index\n"
     << "  %c1 = arith.constant 1 : index\n"
     << "  %c16 = arith.constant 16 : index\n"
     << "  scf.for %i = %c0 to %c16 step %c1 {\n"
     << "    %x = memref.load %a[%i] : memref<16x" << row.a << ">\n"
     << "    %y = memref.load %b[%i] : memref<16x" << row.b << ">\n"
     << "    " << row.body << "\n"
     << "    memref.store %r, %out[%i] : memref<16x" << row.result << ">\n"
     << "  }\n"
     << "  return\n"
     << "}\n";
  return s;
}

/// A kernel both executors run: a module's source and the function to run,
/// with the range of the first argument's integers.
struct Kernel {
  std::string source, function;
  int64_t lo, hi;
};

/// The functions of `source` as kernels.
void addModuleKernels(MLIRContext &ctx, const std::string &source, int64_t lo,
                      int64_t hi, std::vector<Kernel> &kernels) {
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &ctx);
  if (!module)
    return;
  for (auto func : module->getOps<func::FuncOp>())
    kernels.push_back({source, func.getSymName().str(), lo, hi});
}

/// Every parity kernel: one per scalar row (integers of the first argument
/// in [-100, 100)); every function of parity.mlir (first arguments in
/// [0, 16): its kernels gather with them); and every function of the
/// per-op test files in test/Dialect/NPUDev/ops, whose `// -----` chunks
/// without expected errors are kernels.
std::vector<Kernel> getKernels(MLIRContext &ctx) {
  std::vector<Kernel> kernels;
  for (const ScalarRow &row : kScalarRows)
    kernels.push_back({scalarKernel(row), "f", -100, 100});
  if (auto file = llvm::MemoryBuffer::getFile(NPU_SOURCE_DIR
                                              "/test/npu-run/parity.mlir"))
    addModuleKernels(ctx, (*file)->getBuffer().str(), 0, 16, kernels);
  std::error_code ec;
  std::vector<std::string> paths;
  for (llvm::sys::fs::directory_iterator
           it(NPU_SOURCE_DIR "/test/Dialect/NPUDev/ops", ec),
       end;
       it != end && !ec; it.increment(ec))
    if (StringRef(it->path()).ends_with(".mlir"))
      paths.push_back(it->path());
  llvm::sort(paths);
  for (const std::string &path : paths) {
    auto file = llvm::MemoryBuffer::getFile(path);
    if (!file)
      continue;
    SmallVector<StringRef> chunks;
    (*file)->getBuffer().split(chunks, "// -----");
    for (StringRef chunk : chunks)
      // The parser reads to a null terminator: give it its own string.
      if (!chunk.contains("expected-error"))
        addModuleKernels(ctx, chunk.str(), 0, 16, kernels);
  }
  return kernels;
}

class ParityTest : public ::testing::Test {
protected:
  ParityTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    sim::registerSimulatorModels(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
  }

  /// Random data for the arguments of `func`: integers of argument 0 in
  /// [lo, hi), of the others in [1, 9] (no zero divisors, shifts in
  /// range); floats in [0.25, 2).
  std::vector<HostArray> randomArguments(func::FuncOp func, int64_t lo,
                                         int64_t hi, unsigned seed) {
    std::mt19937_64 rng(seed);
    std::vector<HostArray> args;
    for (auto [i, type] : llvm::enumerate(func.getArgumentTypes())) {
      auto memref = cast<MemRefType>(type);
      HostArray a;
      a.kind = *getElementKind(memref.getElementType());
      a.shape.assign(memref.getShape().begin(), memref.getShape().end());
      unsigned bytes = getElementBytes(a.kind);
      a.data.resize(a.getNumElements() * bytes);
      for (int64_t k = 0; k < a.getNumElements(); ++k) {
        uint8_t *p = a.data.data() + k * bytes;
        if (isFloat(a.kind))
          storeFloat(p, a.kind, 0.25 + double(rng() % 1750) / 1000.0);
        else if (i == 0)
          storeInt(p, a.kind, lo + static_cast<int64_t>(rng() % (hi - lo)));
        else
          storeInt(p, a.kind, 1 + static_cast<int64_t>(rng() % 9));
      }
      args.push_back(std::move(a));
    }
    return args;
  }

  /// A way of running the JIT, and how a mismatch names it.
  struct JitVariant {
    jit::JitOptions options;
    std::string label;
  };

  /// Runs `kernel` in the simulator once and in the JIT once per variant;
  /// expects identical bytes in every argument afterwards.
  void expectParity(const Kernel &kernel, llvm::ArrayRef<JitVariant> variants) {
    SCOPED_TRACE("kernel @" + kernel.function + ":\n" + kernel.source);
    OwningOpRef<ModuleOp> simModule =
        parseSourceString<ModuleOp>(kernel.source, &ctx);
    ASSERT_TRUE(simModule);
    auto func = simModule->lookupSymbol<func::FuncOp>(kernel.function);
    ASSERT_TRUE(func);
    std::vector<HostArray> simArgs =
        randomArguments(func, kernel.lo, kernel.hi, 7);
    std::vector<HostArray> inputs = simArgs;
    sim::SimulationReport report;
    // The device the module names (mlu590 when it names none).
    ASSERT_TRUE(succeeded(sim::simulate(func, simArgs, {}, report)));
    for (const JitVariant &variant : variants) {
      OwningOpRef<ModuleOp> jitModule =
          parseSourceString<ModuleOp>(kernel.source, &ctx);
      ASSERT_TRUE(jitModule);
      std::vector<HostArray> jitArgs = inputs;
      ASSERT_TRUE(succeeded(
          jit::runJit(*jitModule, kernel.function, jitArgs, variant.options)))
          << variant.label;
      for (size_t i = 0; i < simArgs.size(); ++i)
        EXPECT_EQ(simArgs[i].data, jitArgs[i].data)
            << "argument #" << i << variant.label;
    }
  }

  MLIRContext ctx;
};

TEST_F(ParityTest, SimulatorAndJitGiveTheSameBytes) {
  std::vector<Kernel> kernels = getKernels(ctx);
  ASSERT_GT(kernels.size(), std::size(kScalarRows)) << "parity.mlir not read";
  // The checked mode's guards change nothing in a kernel that stays in
  // bounds.
  jit::JitOptions checked;
  checked.checked = true;
  for (const Kernel &kernel : kernels)
    expectParity(kernel, {{jit::JitOptions(), ""}, {checked, ", checked"}});
}

// The roofline is a lower bound: no kernel, and no step of one, models
// faster than its slowest resource at the device's peak.
TEST_F(ParityTest, NoKernelBeatsItsRoofline) {
  for (const Kernel &kernel : getKernels(ctx)) {
    SCOPED_TRACE("kernel @" + kernel.function);
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(kernel.source, &ctx);
    ASSERT_TRUE(module);
    auto func = module->lookupSymbol<func::FuncOp>(kernel.function);
    std::vector<HostArray> args =
        randomArguments(func, kernel.lo, kernel.hi, 7);
    sim::SimulationReport report;
    ASSERT_TRUE(succeeded(sim::simulate(func, args, {}, report)));
    EXPECT_LE(report.boundCycles, report.cycles * (1 + 1e-12));
    for (const sim::SimulationReport::Step &step : report.steps)
      EXPECT_LE(step.boundCycles, step.cycles * (1 + 1e-12)) << step.name;
  }
}

// An AVX2 host's code (and the runtime's AVX2 kernels), and a host's
// without AVX, run here too: the same bytes.
TEST_F(ParityTest, NarrowerHostsGiveTheSameBytes) {
  std::vector<JitVariant> narrow;
  for (unsigned bits : {256u, 128u}) {
    narrow.push_back({jit::JitOptions(), ", vectors of at most " +
                                             std::to_string(bits) + " bits"});
    narrow.back().options.maxVectorBits = bits;
  }
  for (const Kernel &kernel : getKernels(ctx))
    expectParity(kernel, narrow);
}

// The vector unit's exp and sigmoid are the device's (DeviceExp.h): over
// inputs from -110 to 95, the edges and NaNs (a signalling one comes out
// quiet in both), the simulator and the JIT (at
// every vector width) give npu::deviceExp's bits, which libm's expf would
// not (exp is not correctly rounded by either).
TEST_F(ParityTest, VectorExpIsTheDeviceExpInBoth) {
  const char *source = R"mlir(
    !g = memref<128x256xf32, #npudev.space<global>>
    !v = memref<128x256xf32, #npudev.space<vector>>
    func.func @exp(%x: !g, %e: !g {npudev.output}, %s: !g {npudev.output}) {
      npudev.launch tasks(1) {
        %a = npudev.alloc : !v
        %b = npudev.alloc : !v
        npudev.dma %x, %a : !g to !v
        npudev.vunary <exp> %a, %b : !v, !v
        npudev.dma %b, %e : !v to !g
        npudev.vunary <sigmoid> %a, %b : !v, !v
        npudev.dma %b, %s : !v to !g
      }
      return
    })mlir";
  constexpr int64_t kCount = 128 * 256;
  std::vector<float> x = {0.0f,
                          -0.0f,
                          1.0f,
                          -1.0f,
                          88.7228317f,
                          88.723f,
                          -87.34f,
                          -103.9f,
                          -104.0f,
                          1e30f,
                          -1e30f,
                          std::numeric_limits<float>::infinity(),
                          -std::numeric_limits<float>::infinity(),
                          std::numeric_limits<float>::quiet_NaN(),
                          std::numeric_limits<float>::signaling_NaN()};
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> range(-110.0f, 95.0f);
  while (x.size() < kCount)
    x.push_back(range(rng));
  std::vector<float> exp(kCount), sigmoid(kCount);
  for (int64_t i = 0; i < kCount; ++i) {
    exp[i] = deviceExp(x[i]);
    sigmoid[i] = 1.0f / (1.0f + deviceExp(-x[i]));
  }
  // A NaN's sign is the host's choice: any NaN stands for the reference's.
  auto bitsOf = [](const std::vector<float> &v) {
    std::vector<uint32_t> bits(v.size());
    std::memcpy(bits.data(), v.data(), v.size() * sizeof(float));
    for (auto [value, b] : llvm::zip(v, bits))
      if (std::isnan(value))
        b = 0x7fc00000;
    return bits;
  };
  auto expectDeviceBits = [&](std::vector<HostArray> &args,
                              const std::string &label) {
    EXPECT_EQ(bitsOf(args[1].getValues<float>()), bitsOf(exp)) << label;
    EXPECT_EQ(bitsOf(args[2].getValues<float>()), bitsOf(sigmoid)) << label;
  };
  // Else an executor calling libm would pass too.
  std::vector<float> libmExp(kCount);
  for (int64_t i = 0; i < kCount; ++i)
    libmExp[i] = std::exp(x[i]);
  ASSERT_NE(bitsOf(libmExp), bitsOf(exp));
  auto arguments = [&] {
    std::vector<HostArray> args;
    for (int i = 0; i < 3; ++i)
      args.push_back(HostArray::fromValues(ElementKind::F32, x, {128, 256}));
    return args;
  };
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &ctx);
  ASSERT_TRUE(module);
  std::vector<HostArray> simArgs = arguments();
  sim::SimulationReport report;
  ASSERT_TRUE(succeeded(sim::simulate(module->lookupSymbol<func::FuncOp>("exp"),
                                      simArgs, {}, report)));
  expectDeviceBits(simArgs, "simulator");
  // 0: the host's widest vectors.
  for (unsigned bits : {0u, 256u, 128u}) {
    OwningOpRef<ModuleOp> jitModule = parseSourceString<ModuleOp>(source, &ctx);
    ASSERT_TRUE(jitModule);
    jit::JitOptions options;
    options.maxVectorBits = bits;
    std::vector<HostArray> jitArgs = arguments();
    ASSERT_TRUE(succeeded(jit::runJit(*jitModule, "exp", jitArgs, options)));
    std::string label = "JIT, vectors of at most " + std::to_string(bits);
    expectDeviceBits(jitArgs, label);
    for (int i : {1, 2})
      EXPECT_EQ(jitArgs[i].data, simArgs[i].data) << label << ", #" << i;
  }
}

// Threaded kernels one after another in one process: the async runtime
// outlives each kernel (a destroyed ExecutionEngine used to take it along,
// and the next threaded kernel crashed).
TEST_F(ParityTest, ThreadedKernelsRunOneAfterAnother) {
  const char *source = R"mlir(
    func.func @twice(%x: memref<64xf32, #npudev.space<global>>) {
      %c16 = arith.constant 16 : index
      npudev.launch tasks(4) {
        %t = npudev.task_id
        %at = arith.muli %t, %c16 : index
        %w = memref.subview %x[%at] [16] [1] : memref<64xf32, #npudev.space<global>> to memref<16xf32, strided<[1], offset: ?>, #npudev.space<global>>
        %v = npudev.alloc : memref<16xf32, #npudev.space<vector>>
        npudev.dma %w, %v : memref<16xf32, strided<[1], offset: ?>, #npudev.space<global>> to memref<16xf32, #npudev.space<vector>>
        npudev.vbinary <add> %v, %v, %v : memref<16xf32, #npudev.space<vector>>, memref<16xf32, #npudev.space<vector>>, memref<16xf32, #npudev.space<vector>>
        npudev.dma %v, %w : memref<16xf32, #npudev.space<vector>> to memref<16xf32, strided<[1], offset: ?>, #npudev.space<global>>
      }
      return
    })mlir";
  std::vector<float> values(64, 1.5f);
  for (int round = 1; round <= 3; ++round) {
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &ctx);
    ASSERT_TRUE(module);
    jit::JitOptions threaded;
    threaded.threads = 2;
    HostArray x = HostArray::fromValues(ElementKind::F32, values, {64});
    ASSERT_TRUE(succeeded(jit::runJit(*module, "twice", x, threaded)));
    EXPECT_EQ(x.getValues<float>(), std::vector<float>(64, 3.0f))
        << "round " << round;
  }
}

// A threaded kernel's tasks are coroutines: a worker can still be running
// the end of one after the kernel's last await has returned. Destroying the
// kernel then unmapped code under the worker (a crash in about one run in
// seven on a busy two-core host). Many short kernels, each destroyed as
// soon as it returns, with another thread keeping the cores busy.
TEST_F(ParityTest, ThreadedKernelsLeaveNoWorkerInTheirCode) {
  const char *source = R"mlir(
    func.func @fill(%x: memref<256xi32, #npudev.space<global>>) {
      %c4 = arith.constant 4 : index
      npudev.launch tasks(64) {
        %t = npudev.task_id
        %at = arith.muli %t, %c4 : index
        %w = memref.subview %x[%at] [4] [1] : memref<256xi32, #npudev.space<global>> to memref<4xi32, strided<[1], offset: ?>, #npudev.space<global>>
        %v = npudev.alloc : memref<4xi32, #npudev.space<vector>>
        npudev.iota %at, %v : memref<4xi32, #npudev.space<vector>>
        npudev.dma %v, %w : memref<4xi32, #npudev.space<vector>> to memref<4xi32, strided<[1], offset: ?>, #npudev.space<global>>
      }
      return
    })mlir";
  std::atomic<bool> done = false;
  std::thread busy([&] {
    volatile uint64_t spin = 0;
    while (!done)
      spin = spin + 1;
  });
  std::vector<int32_t> expected(256);
  std::iota(expected.begin(), expected.end(), 0);
  for (int round = 0; round < 24; ++round) {
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &ctx);
    ASSERT_TRUE(module);
    jit::JitOptions threaded;
    threaded.threads = 2;
    HostArray x = HostArray::fromValues(ElementKind::I32,
                                        std::vector<int32_t>(256, -1), {256});
    ASSERT_TRUE(succeeded(jit::runJit(*module, "fill", x, threaded)));
    EXPECT_EQ(x.getValues<int32_t>(), expected) << "round " << round;
  }
  done = true;
  busy.join();
}

TEST_F(ParityTest, EveryModelledOpIsCovered) {
  llvm::StringSet<> covered;
  for (const Kernel &kernel : getKernels(ctx)) {
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(kernel.source, &ctx);
    ASSERT_TRUE(module);
    module->lookupSymbol(kernel.function)->walk([&](Operation *op) {
      covered.insert(op->getName().getStringRef());
    });
  }
  for (RegisteredOperationName name : ctx.getRegisteredOperations()) {
    if (name.hasInterface<sim::SimulatedOpInterface>()) {
      EXPECT_TRUE(covered.contains(name.getStringRef()))
          << name.getStringRef().str()
          << " has a simulator model but no parity kernel";
    }
  }
}

/// Every kernel prints and parses back to the same text: the printers of
/// every op the kernels use, without a round-trip test per op.
TEST_F(ParityTest, KernelsRoundTrip) {
  auto print = [](ModuleOp module) {
    std::string text;
    llvm::raw_string_ostream os(text);
    module.print(os);
    return text;
  };
  for (const Kernel &kernel : getKernels(ctx)) {
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(kernel.source, &ctx);
    ASSERT_TRUE(module);
    std::string printed = print(*module);
    OwningOpRef<ModuleOp> reparsed = parseSourceString<ModuleOp>(printed, &ctx);
    ASSERT_TRUE(reparsed) << printed;
    EXPECT_EQ(print(*reparsed), printed);
  }
}

TEST_F(ParityTest, EveryArithOpIsSimulated) {
  for (RegisteredOperationName name : ctx.getRegisteredOperations()) {
    if (name.getDialectNamespace() == "arith") {
      EXPECT_TRUE(name.hasInterface<sim::SimulatedOpInterface>())
          << name.getStringRef().str() << " lowers in the JIT but is not "
          << "simulated";
    }
  }
}

/// The math ops without a simulator model do not lower in the JIT either.
TEST_F(ParityTest, UnsimulatedMathOpsDoNotLowerInTheJit) {
  const std::pair<const char *, const char *> unsimulated[] = {
      {"math.ipowi", "%r = math.ipowi %x, %y : i32"},
  };
  // Compiling loads dialects, which changes the registered op list: copy it.
  SmallVector<RegisteredOperationName> names(ctx.getRegisteredOperations());
  for (RegisteredOperationName name : names) {
    if (name.getDialectNamespace() != "math" ||
        name.hasInterface<sim::SimulatedOpInterface>())
      continue;
    auto it = llvm::find_if(unsimulated, [&](auto &entry) {
      return name.getStringRef() == entry.first;
    });
    ASSERT_NE(it, std::end(unsimulated))
        << name.getStringRef().str() << " is neither simulated nor listed";
    std::string source = scalarKernel({"i32", "i32", "i32", it->second});
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &ctx);
    ASSERT_TRUE(module);
    ctx.getDiagEngine().registerHandler([](Diagnostic &) { return success(); });
    EXPECT_TRUE(failed(jit::CompiledKernel::compile(*module, "f")))
        << it->first << " lowers in the JIT: give it a simulator model";
  }
}

} // namespace

// Compiling generates the machine code: a kernel that cannot be linked fails
// in compile(), and no run pays for code generation (the engine generates
// code when a symbol is first looked up; the first run of a MoE kernel used
// to take 140 ms where the next took 8).
TEST_F(ParityTest, CompilingGeneratesTheMachineCode) {
  const char *source = R"mlir(
    func.func private @npu_no_such_function(i32)
    func.func @calls(%x: i32) {
      func.call @npu_no_such_function(%x) : (i32) -> ()
      return
    })mlir";
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &ctx);
  ASSERT_TRUE(module);
  std::string message;
  ScopedDiagnosticHandler capture(&ctx, [&](Diagnostic &diagnostic) {
    message += diagnostic.str();
    return success();
  });
  EXPECT_TRUE(failed(jit::CompiledKernel::compile(*module, "calls")));
  // LLVM's session prints the missing symbol; the diagnostic names the
  // kernel's symbols that could not be materialized.
  EXPECT_NE(message.find("cannot JIT the kernel"), std::string::npos)
      << message;
  EXPECT_NE(message.find("calls"), std::string::npos) << message;
}
