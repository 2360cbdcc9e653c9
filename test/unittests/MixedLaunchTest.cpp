//===- MixedLaunchTest.cpp - cross-core flags and async work --------------===//
//
// A producer/consumer kernel in the shape FlashAttention uses: cube tasks
// compute tiles a[g, i] x b into a two-slot global workspace and signal a
// vector task, which sums them and signals back before a slot is reused.
// Both executors (the JIT with one and two threads) must give the bits of
// a plain C++ reference written from the ops' definitions (each product
// accumulated in k order with one fused multiply-add, the tiles summed in
// order), and the simulator's clock must show the overlap that double
// buffering and npudev.async buy.
//
//===----------------------------------------------------------------------===//

#include "npu/InitAll.h"
#include "npu/JIT/Jit.h"
#include "npu/Simulator/Execution.h"
#include "npu/Simulator/Simulator.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FormatVariadic.h"
#include "gtest/gtest.h"

#include <cmath>
#include <random>

using namespace mlir;
using namespace npu;

namespace {

struct Shape {
  int64_t groups, steps, m, k, n;
};

/// The kernel for `shape`; with `slots` 1 the cube task waits for the
/// vector task before every tile but the first (no double buffering).
std::string buildKernel(const Shape &s, int64_t slots) {
  return llvm::formatv(R"mlir(
#v = #npudev.space<vector>
#c = #npudev.space<cube>
#g = #npudev.space<global>
func.func @kernel(%a: memref<{0}x{1}x{2}x{3}xf32, #g>, %b: memref<{3}x{4}xf32, #g>,
                  %out: memref<{0}x{2}x{4}xf32, #g>) {{
  %ws = memref.alloc() : memref<{0}x{5}x{2}x{4}xf32, #g>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %slots = arith.constant {5} : index
  %steps = arith.constant {1} : index
  npudev.mixed_launch cube({0}) {{
    %g = npudev.task_id
    %bb = npudev.alloc : memref<{3}x{4}xf32, #c>
    npudev.dma %b, %bb : memref<{3}x{4}xf32, #g> to memref<{3}x{4}xf32, #c>
    scf.for %i = %c0 to %steps step %c1 {{
      %slot = arith.remui %i, %slots : index
      %reuse = arith.cmpi uge, %i, %slots : index
      scf.if %reuse {{
        npudev.wait_flag 1
      }
      %aa = npudev.alloc : memref<{2}x{3}xf32, #c>
      %cc = npudev.alloc : memref<{2}x{4}xf32, #c>
      %ai = memref.subview %a[%g, %i, 0, 0] [1, 1, {2}, {3}] [1, 1, 1, 1] : memref<{0}x{1}x{2}x{3}xf32, #g> to memref<{2}x{3}xf32, strided<[{3}, 1], offset: ?>, #g>
      npudev.dma %ai, %aa : memref<{2}x{3}xf32, strided<[{3}, 1], offset: ?>, #g> to memref<{2}x{3}xf32, #c>
      npudev.matmul %aa, %bb, %cc : memref<{2}x{3}xf32, #c>, memref<{3}x{4}xf32, #c>, memref<{2}x{4}xf32, #c>
      %wi = memref.subview %ws[%g, %slot, 0, 0] [1, 1, {2}, {4}] [1, 1, 1, 1] : memref<{0}x{5}x{2}x{4}xf32, #g> to memref<{2}x{4}xf32, strided<[{4}, 1], offset: ?>, #g>
      npudev.dma %cc, %wi : memref<{2}x{4}xf32, #c> to memref<{2}x{4}xf32, strided<[{4}, 1], offset: ?>, #g>
      npudev.set_flag 0 for vector %g
    }
  } vector({0}) {{
    %g = npudev.task_id
    %acc = npudev.alloc : memref<{2}x{4}xf32, #v>
    %zero = arith.constant 0.0 : f32
    npudev.vfill %zero, %acc : f32, memref<{2}x{4}xf32, #v>
    scf.for %i = %c0 to %steps step %c1 {{
      %slot = arith.remui %i, %slots : index
      npudev.wait_flag 0
      %t = npudev.alloc : memref<{2}x{4}xf32, #v>
      %wi = memref.subview %ws[%g, %slot, 0, 0] [1, 1, {2}, {4}] [1, 1, 1, 1] : memref<{0}x{5}x{2}x{4}xf32, #g> to memref<{2}x{4}xf32, strided<[{4}, 1], offset: ?>, #g>
      npudev.dma %wi, %t : memref<{2}x{4}xf32, strided<[{4}, 1], offset: ?>, #g> to memref<{2}x{4}xf32, #v>
      npudev.vbinary <add> %acc, %t, %acc : memref<{2}x{4}xf32, #v>, memref<{2}x{4}xf32, #v>, memref<{2}x{4}xf32, #v>
      npudev.set_flag 1 for cube %g
    }
    %o = memref.subview %out[%g, 0, 0] [1, {2}, {4}] [1, 1, 1] : memref<{0}x{2}x{4}xf32, #g> to memref<{2}x{4}xf32, strided<[{4}, 1], offset: ?>, #g>
    npudev.dma %acc, %o : memref<{2}x{4}xf32, #v> to memref<{2}x{4}xf32, strided<[{4}, 1], offset: ?>, #g>
  }
  memref.dealloc %ws : memref<{0}x{5}x{2}x{4}xf32, #g>
  return
}
)mlir",
                       s.groups, s.steps, s.m, s.k, s.n, slots)
      .str();
}

HostArray randomArray(std::vector<int64_t> shape, std::mt19937 &rng) {
  int64_t count = 1;
  for (int64_t d : shape)
    count *= d;
  std::uniform_real_distribution<float> uniform(-1, 1);
  std::vector<float> values(count);
  for (float &v : values)
    v = uniform(rng);
  return HostArray::fromValues<float>(ElementKind::F32, values, shape);
}

/// out[g] = sum over steps i, in order, of a[g, i] x b, each product
/// accumulated from +0 in k order by fused multiply-adds.
std::vector<float> reference(const Shape &s, const std::vector<float> &a,
                             const std::vector<float> &b) {
  std::vector<float> out(s.groups * s.m * s.n, 0.0f);
  for (int64_t g = 0; g < s.groups; ++g)
    for (int64_t i = 0; i < s.steps; ++i)
      for (int64_t r = 0; r < s.m; ++r)
        for (int64_t c = 0; c < s.n; ++c) {
          float dot = 0;
          for (int64_t k = 0; k < s.k; ++k)
            dot = std::fma(a[((g * s.steps + i) * s.m + r) * s.k + k],
                           b[k * s.n + c], dot);
          out[(g * s.m + r) * s.n + c] += dot;
        }
  return out;
}

class MixedLaunchTest : public ::testing::Test {
protected:
  MixedLaunchTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    sim::registerSimulatorModels(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
  }

  OwningOpRef<ModuleOp> parse(const std::string &source) {
    return parseSourceString<ModuleOp>(source, &ctx);
  }

  std::vector<HostArray> inputs(const Shape &s) {
    std::mt19937 rng(11);
    return {randomArray({s.groups, s.steps, s.m, s.k}, rng),
            randomArray({s.k, s.n}, rng),
            HostArray::fromValues<float>(
                ElementKind::F32,
                std::vector<float>(s.groups * s.m * s.n, 0.0f),
                {s.groups, s.m, s.n})};
  }

  /// Simulated cycles of `source`'s @kernel on `args`.
  double simulateCycles(const std::string &source, std::vector<HostArray> &args,
                        sim::SimulationReport &report) {
    OwningOpRef<ModuleOp> module = parse(source);
    EXPECT_TRUE(module);
    auto func = module->lookupSymbol<func::FuncOp>("kernel");
    EXPECT_TRUE(succeeded(sim::simulate(func, args, {}, report)));
    return report.cycles;
  }

  MLIRContext ctx;
};

TEST_F(MixedLaunchTest, BothExecutorsGiveTheReferenceBits) {
  Shape s{3, 5, 8, 16, 8};
  std::string source = buildKernel(s, 2);
  std::vector<HostArray> simArgs = inputs(s);
  std::vector<float> expected = reference(s, simArgs[0].getValues<float>(),
                                          simArgs[1].getValues<float>());
  sim::SimulationReport report;
  simulateCycles(source, simArgs, report);
  EXPECT_EQ(simArgs[2].getValues<float>(), expected) << "simulator";
  for (int32_t threads : {1, 2}) {
    std::vector<HostArray> jitArgs = inputs(s);
    OwningOpRef<ModuleOp> module = parse(source);
    jit::JitOptions options;
    options.threads = threads;
    ASSERT_TRUE(succeeded(jit::runJit(*module, "kernel", jitArgs, options)));
    EXPECT_EQ(jitArgs[2].getValues<float>(), expected)
        << "JIT, " << threads << " threads";
  }
}

TEST_F(MixedLaunchTest, RepeatedJitRunsAgree) {
  // Threads interleave differently each run; the flags fix every order
  // that matters, so the bits do not move.
  Shape s{4, 7, 4, 8, 4};
  std::string source = buildKernel(s, 2);
  std::vector<float> first;
  for (int run = 0; run < 5; ++run) {
    std::vector<HostArray> args = inputs(s);
    OwningOpRef<ModuleOp> module = parse(source);
    jit::JitOptions options;
    options.threads = 2;
    ASSERT_TRUE(succeeded(jit::runJit(*module, "kernel", args, options)));
    if (run == 0)
      first = args[2].getValues<float>();
    else
      EXPECT_EQ(args[2].getValues<float>(), first) << "run " << run;
  }
}

TEST_F(MixedLaunchTest, DoubleBufferingOverlapsCubeAndVector) {
  // Large enough tiles that compute, not flag latency, dominates.
  Shape s{2, 8, 64, 64, 64};
  std::vector<HostArray> args = inputs(s);
  sim::SimulationReport one, two;
  double single = simulateCycles(buildKernel(s, 1), args, one);
  args = inputs(s);
  double doubled = simulateCycles(buildKernel(s, 2), args, two);
  // With one slot the cube waits for each tile's sum before the next
  // matmul; with two it computes the next tile meanwhile.
  EXPECT_LT(doubled, single);
  // And the vector side's work (its DMA and its additions) is what goes:
  // what remains is the cube chain plus one vector step (mlu590 figures:
  // 16,032 cycles with one slot, 12,054 with two).
  double vectorPerStep =
      (two.pipeBusyCycles[static_cast<unsigned>(sim::Pipe::Vector)]) /
      (s.groups * s.steps);
  EXPECT_GE(single - doubled, (s.steps - 1) * vectorPerStep);
}

TEST_F(MixedLaunchTest, AsyncMatmulOverlapsVectorWork) {
  auto kernel = [](bool async) {
    std::string matmul = "npudev.matmul %x, %x, %y : memref<64x64xf16, #u>, "
                         "memref<64x64xf16, #u>, memref<64x64xf32, #u>";
    std::string issue =
        async ? "%t = npudev.async {\n" + matmul + "\n}" : matmul;
    return llvm::formatv(R"mlir(
#u = #npudev.space<vector>
func.func @kernel(%a: memref<64x64xf16, #npudev.space<global>>,
                  %b: memref<256x256xf32, #npudev.space<global>>) {{
  npudev.launch tasks(1) {{
    %x = npudev.alloc : memref<64x64xf16, #u>
    %y = npudev.alloc : memref<64x64xf32, #u>
    %z = npudev.alloc : memref<256x256xf32, #u>
    npudev.dma %a, %x : memref<64x64xf16, #npudev.space<global>> to memref<64x64xf16, #u>
    npudev.dma %b, %z : memref<256x256xf32, #npudev.space<global>> to memref<256x256xf32, #u>
    {0}
    npudev.vbinary <mul> %z, %z, %z : memref<256x256xf32, #u>, memref<256x256xf32, #u>, memref<256x256xf32, #u>
    {1}
  }
  return
}
)mlir",
                         issue, async ? "npudev.wait %t" : "")
        .str();
  };
  auto args = [] {
    std::mt19937 rng(3);
    std::vector<uint16_t> ones(64 * 64, 0x3c00); // 1.0 in f16
    return std::vector<HostArray>{
        HostArray::fromValues<uint16_t>(ElementKind::F16, ones, {64, 64}),
        randomArray({256, 256}, rng)};
  };
  std::vector<HostArray> syncArgs = args(), asyncArgs = args();
  sim::SimulationReport syncReport, asyncReport;
  double serial = simulateCycles(kernel(false), syncArgs, syncReport);
  double overlapped = simulateCycles(kernel(true), asyncArgs, asyncReport);
  double cube =
      syncReport.pipeBusyCycles[static_cast<unsigned>(sim::Pipe::Cube)];
  double vector =
      syncReport.pipeBusyCycles[static_cast<unsigned>(sim::Pipe::Vector)];
  ASSERT_GT(cube, 0);
  ASSERT_GT(vector, 0);
  // The matmul runs while the vector unit works: the shorter of the two
  // disappears from the kernel's time.
  EXPECT_DOUBLE_EQ(overlapped, serial - std::min(cube, vector));
  // Same results either way.
  EXPECT_EQ(syncArgs[1].data, asyncArgs[1].data);
}

} // namespace
