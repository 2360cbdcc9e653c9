//===- LayoutAlignBench.cpp - LayoutAlignToNPU at 10^3 .. 10^6 ops --------===//
//
// Generates DNN-like graphs (documented in docs/benchmarks.md), runs each
// strategy on its own copy and prints one row per (size, strategy): time of
// the whole pass and of the solver alone, conversions and bytes left.
//
// Usage: npu-layout-bench [--sizes=1000,10000,...] [--seed=N] [--repeat=N]
//
// Times are the fastest of several runs, each on a freshly generated graph;
// generation is not timed.
//
//===----------------------------------------------------------------------===//

#include "npu/Dialect/NPU/NPUOps.h"
#include "npu/InitAll.h"
#include "npu/Transforms/LayoutAlign.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <random>

using namespace mlir;
using namespace npu;
using namespace npu::graph;

static llvm::cl::list<unsigned> sizes("sizes",
                                      llvm::cl::desc("graph sizes in ops"),
                                      llvm::cl::CommaSeparated);
static llvm::cl::opt<unsigned> seed("seed", llvm::cl::desc("generator seed"),
                                    llvm::cl::init(2024));
static llvm::cl::opt<unsigned> repeat(
    "repeat",
    llvm::cl::desc("runs per row at 10^6 ops (10x more per decade below); "
                   "the fastest is kept"),
    llvm::cl::init(3));

namespace {

/// Builds a chain of residual blocks over a 1x8x8x64 activation:
///  - conv block:      conv 3x3 -> vs_add bias -> relu -> conv 1x1 -> add
///                     (residual) -> relu, with a max_pool 1x1 every 4th;
///  - attention block: reshape to 64x64 -> matmul -> softmax -> matmul ->
///                     reshape back -> sigmoid -> add (residual);
///  - branch block:    slice of the upper 32 channels (dense) -> gelu ->
///                     concat with the lower half (aligned);
///  - a rank-3 detour: reshape to 1x64x64 and back.
/// Block kinds are drawn with a fixed seed; weights are splat constants.
class DnnGraphBuilder : public OpBuilder::Listener {
public:
  DnnGraphBuilder(MLIRContext &ctx, unsigned seed)
      : b(&ctx, this), loc(b.getUnknownLoc()), rng(seed) {
    act = RankedTensorType::get({1, 8, 8, 64}, b.getF32Type());
  }

  void notifyOperationInserted(Operation *, OpBuilder::InsertPoint) override {
    ++numOps;
  }

  OwningOpRef<ModuleOp> build(unsigned targetOps) {
    OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
    b.setInsertionPointToEnd(module->getBody());
    auto func =
        b.create<func::FuncOp>(loc, "dnn", b.getFunctionType({act}, {act}));
    b.setInsertionPointToEnd(func.addEntryBlock());
    Value x = func.getArgument(0);
    numOps = 0;
    while (numOps < targetOps) {
      switch (rng() % 8) {
      case 0:
      case 1:
      case 2:
      case 3:
        x = convBlock(x);
        break;
      case 4:
      case 5:
        x = attentionBlock(x);
        break;
      case 6:
        x = branchBlock(x);
        break;
      default:
        x = rank3Detour(x);
      }
    }
    b.create<func::ReturnOp>(loc, x);
    return module;
  }

private:
  Value constant(ArrayRef<int64_t> shape) {
    auto type = RankedTensorType::get(shape, b.getF32Type());
    return b.create<ConstantOp>(loc, DenseElementsAttr::get(type, 0.01f));
  }

  Value conv(Value x, int64_t k) {
    int64_t p = k / 2;
    return b.create<Conv2DOp>(
        loc, ValueRange{x, constant({64, k, k, 64})},
        b.getNamedAttr("padding", b.getDenseI64ArrayAttr({p, p, p, p})));
  }

  Value convBlock(Value x) {
    Value y = conv(x, 3);
    y = b.create<VSAddOp>(loc, y, constant({64}));
    y = b.create<ReluOp>(loc, y);
    y = conv(y, 1);
    y = b.create<AddOp>(loc, y, x);
    y = b.create<ReluOp>(loc, y);
    if (++convBlocks % 4 == 0)
      y = b.create<MaxPoolOp>(
          loc, ValueRange{y},
          b.getNamedAttr("kernel", b.getDenseI64ArrayAttr({1, 1})));
    return y;
  }

  Value attentionBlock(Value x) {
    auto rows = RankedTensorType::get({64, 64}, b.getF32Type());
    Value r = b.create<ReshapeOp>(loc, rows, x);
    Value s = b.create<MatmulOp>(loc, ValueRange{r, constant({64, 64})},
                                 ArrayRef<NamedAttribute>{});
    s = b.create<SoftmaxOp>(loc, ValueRange{s}, ArrayRef<NamedAttribute>{});
    Value o =
        b.create<MatmulOp>(loc, ValueRange{s, r}, ArrayRef<NamedAttribute>{});
    Value back = b.create<ReshapeOp>(loc, act, o);
    back = b.create<SigmoidOp>(loc, back);
    return b.create<AddOp>(loc, back, x);
  }

  Value sliceChannels(Value x, int64_t begin) {
    return b.create<SliceOp>(
        loc, ValueRange{x},
        ArrayRef<NamedAttribute>{
            b.getNamedAttr("start", b.getDenseI64ArrayAttr({0, 0, 0, begin})),
            b.getNamedAttr("end",
                           b.getDenseI64ArrayAttr({1, 8, 8, begin + 32}))});
  }

  Value branchBlock(Value x) {
    Value upper = sliceChannels(x, 32); // Dense: starts inside C, ends at 64.
    upper = b.create<GeluOp>(loc, upper);
    Value lower = sliceChannels(x, 0); // Aligned.
    return b.create<ConcatOp>(loc, ValueRange{lower, upper},
                              b.getNamedAttr("axis", b.getI64IntegerAttr(3)));
  }

  Value rank3Detour(Value x) {
    auto rank3 = RankedTensorType::get({1, 64, 64}, b.getF32Type());
    Value r = b.create<ReshapeOp>(loc, rank3, x);
    r = b.create<TanhOp>(loc, r);
    return b.create<ReshapeOp>(loc, act, r);
  }

  OpBuilder b;
  Location loc;
  std::mt19937 rng;
  RankedTensorType act;
  unsigned convBlocks = 0;
  unsigned numOps = 0;
};

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

struct Row {
  double passSeconds = 1e30, buildSeconds = 1e30, solveSeconds = 1e30,
         applySeconds = 1e30;
  size_t ops = 0;
  LayoutChanges changes;
};

/// Runs the pass's three steps on a fresh graph, timing each run.
Row measure(MLIRContext &ctx, unsigned size, LayoutStrategy strategy) {
  Row row;
  // Small graphs run in microseconds: repeat them more, so that the fastest
  // run is not timer noise.
  unsigned runs = repeat * std::max(1u, 1000000 / size);
  for (unsigned run = 0; run < runs; ++run) {
    OwningOpRef<ModuleOp> module = DnnGraphBuilder(ctx, seed).build(size);
    auto func = cast<func::FuncOp>(module->getBody()->front());
    row.ops = func.front().getOperations().size();
    auto start = std::chrono::steady_clock::now();
    FailureOr<LayoutGraph> graph =
        buildLayoutGraph(func, AlignMode::NALIGN, ConversionCostKind::Bytes);
    if (failed(graph))
      llvm::report_fatal_error("benchmark graph rejected");
    double build = secondsSince(start);
    auto solveStart = std::chrono::steady_clock::now();
    SmallVector<AlignMode> modes = solveLayoutProblem(graph->problem, strategy);
    double solve = secondsSince(solveStart);
    auto applyStart = std::chrono::steady_clock::now();
    row.changes = applyLayout(func, *graph, modes, AlignMode::NALIGN);
    double apply = secondsSince(applyStart);
    double total = secondsSince(start);
    row.passSeconds = std::min(row.passSeconds, total);
    row.buildSeconds = std::min(row.buildSeconds, build);
    row.solveSeconds = std::min(row.solveSeconds, solve);
    row.applySeconds = std::min(row.applySeconds, apply);
  }
  return row;
}

} // namespace

int main(int argc, char **argv) {
  llvm::cl::ParseCommandLineOptions(argc, argv, "LayoutAlignToNPU benchmark\n");
  SmallVector<unsigned> targets(sizes.begin(), sizes.end());
  if (targets.empty())
    targets = {1000, 10000, 100000, 1000000};
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext ctx(registry);
  ctx.disableMultithreading();
  ctx.loadAllAvailableDialects();

  llvm::outs() << "| ops | strategy | pass (s) | build (s) | solve (s) | "
                  "apply (s) | pass us/op | channel_norms | bytes converted "
                  "|\n"
               << "|---:|---|---:|---:|---:|---:|---:|---:|---:|\n";
  for (unsigned size : targets) {
    for (LayoutStrategy strategy :
         {LayoutStrategy::Greedy, LayoutStrategy::Optimal}) {
      Row row = measure(ctx, size, strategy);
      llvm::outs() << "| " << row.ops << " | "
                   << (strategy == LayoutStrategy::Greedy ? "greedy"
                                                          : "optimal")
                   << " | " << llvm::format("%.3f", row.passSeconds) << " | "
                   << llvm::format("%.3f", row.buildSeconds) << " | "
                   << llvm::format("%.3f", row.solveSeconds) << " | "
                   << llvm::format("%.3f", row.applySeconds) << " | "
                   << llvm::format("%.2f", 1e6 * row.passSeconds / row.ops)
                   << " | " << row.changes.channelNorms << " | "
                   << row.changes.bytesConverted << " |\n";
      llvm::outs().flush();
    }
  }
  return 0;
}
