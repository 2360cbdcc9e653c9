//===- LayoutAlignPropertyTest.cpp - LayoutAlignToNPU on random graphs ----===//
//
// Thousands of random DAGs (fixed seed), for both strategies and both cost
// kinds: after the pass no conflict remains and the IR verifies; a second
// run changes nothing; the conversions in the IR cost what the solver
// said; the optimal cost equals a brute-force minimum whenever at most 16
// ops adapt, and never exceeds greedy's.
//
//===----------------------------------------------------------------------===//

#include "npu/Dialect/NPU/NPUOps.h"
#include "npu/InitAll.h"
#include "npu/Transforms/LayoutAlign.h"
#include "npu/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "gtest/gtest.h"

#include <random>

using namespace mlir;
using namespace npu;
using namespace npu::graph;

namespace {

/// Builds random DNN-like graphs from ops whose modes cover every rule:
/// ALIGN kernels, adapting unary/binary ops, broadcast ops, pinned ops,
/// reshapes that change padding or rank, constants, weight arguments.
class RandomGraphBuilder {
public:
  RandomGraphBuilder(MLIRContext &ctx, unsigned seed)
      : b(&ctx), loc(b.getUnknownLoc()), rng(seed) {}

  OwningOpRef<ModuleOp> build(unsigned numOps) {
    OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
    b.setInsertionPointToEnd(module->getBody());
    unsigned numArgs = pick(1, 3);
    SmallVector<Type> argTypes;
    for (unsigned i = 0; i < numArgs; ++i)
      argTypes.push_back(shapes()[pick(0, 2)]);
    auto func =
        b.create<func::FuncOp>(loc, "g", b.getFunctionType(argTypes, {}));
    // About a third of the inputs are weights, which adapt.
    for (unsigned i = 0; i < numArgs; ++i)
      if (pick(0, 2) == 0)
        func.setArgAttr(i, NPUDialect::getWeightAttrName(), b.getUnitAttr());
    b.setInsertionPointToEnd(func.addEntryBlock());
    values.assign(func.getArguments().begin(), func.getArguments().end());
    for (unsigned i = 0; i < numOps; ++i)
      values.push_back(addRandomOp());
    SmallVector<Value> outputs;
    for (unsigned i = 0, e = pick(1, 3); i < e; ++i)
      outputs.push_back(values[pick(0, values.size() - 1)]);
    b.create<func::ReturnOp>(loc, outputs);
    func.setFunctionType(
        b.getFunctionType(argTypes, ValueRange(outputs).getTypes()));
    return module;
  }

private:
  /// Same element count, different padding and rank: C = 16 pads to 64,
  /// C = 64 does not, the rank-3 form cannot be aligned.
  SmallVector<RankedTensorType> shapes() {
    Type f32 = b.getF32Type();
    return {RankedTensorType::get({1, 4, 4, 16}, f32),
            RankedTensorType::get({1, 4, 1, 64}, f32),
            RankedTensorType::get({4, 64}, f32),
            RankedTensorType::get({1, 16, 16}, f32)};
  }

  unsigned pick(unsigned lo, unsigned hi) {
    return std::uniform_int_distribution<unsigned>(lo, hi)(rng);
  }
  Value anyValue() { return values[pick(0, values.size() - 1)]; }
  /// A value of an alignable shape, reshaping a rank-3 one.
  Value alignableValue() {
    Value v = anyValue();
    if (isLayoutRelevant(v.getType()))
      return v;
    return b.create<ReshapeOp>(loc, shapes()[0], v);
  }

  void pin(Value v, AlignMode mode) {
    v.getDefiningOp()->setAttr(NPUDialect::getDevInfoAttrName(),
                               AlignModeAttr::get(b.getContext(), mode));
  }

  Value addRandomOp() {
    switch (pick(0, 9)) {
    case 0: // ALIGN kernel.
    case 1: {
      Value v = alignableValue();
      auto type = cast<RankedTensorType>(v.getType());
      return b.create<TransposeOp>(
          loc, ValueRange{v},
          b.getNamedAttr("perms",
                         b.getDenseI64ArrayAttr(identity(type.getRank()))));
    }
    case 2:
      return b.create<ReluOp>(loc, anyValue());
    case 3:
    case 4: { // Adapting binary op on two values of one shape.
      Value lhs = anyValue();
      SmallVector<Value> same;
      for (Value v : values)
        if (v.getType() == lhs.getType())
          same.push_back(v);
      return b.create<AddOp>(loc, lhs, same[pick(0, same.size() - 1)]);
    }
    case 5: { // Broadcast op with a rank-1 operand.
      Value v = anyValue();
      int64_t channels = cast<RankedTensorType>(v.getType()).getShape().back();
      auto vec = RankedTensorType::get({channels}, b.getF32Type());
      Value c = b.create<ConstantOp>(loc, DenseElementsAttr::get(vec, 1.0f));
      return b.create<VSMulOp>(loc, v, c);
    }
    case 6: { // Pinned adapting op.
      Value r = b.create<SigmoidOp>(loc, anyValue());
      pin(r, pick(0, 1) ? AlignMode::ALIGN : AlignMode::NALIGN);
      if (!isLayoutRelevant(r.getType()))
        r.getDefiningOp()->removeAttr(NPUDialect::getDevInfoAttrName());
      return r;
    }
    case 7: // Reshape: changes padding or rank.
      return b.create<ReshapeOp>(loc, shapes()[pick(0, 3)], anyValue());
    case 8: {
      RankedTensorType type = shapes()[pick(0, 2)];
      return b.create<ConstantOp>(loc, DenseElementsAttr::get(type, 0.5f));
    }
    default: { // Dense by the slice rule, through an adapting op, then
               // concatenated back to 1x4x1x64 (ALIGN).
      Value slice = b.create<SliceOp>(
          loc, ValueRange{alignableValueWithChannels()},
          ArrayRef<NamedAttribute>{
              b.getNamedAttr("start", b.getDenseI64ArrayAttr({0, 0, 0, 32})),
              b.getNamedAttr("end", b.getDenseI64ArrayAttr({1, 4, 1, 64}))});
      Value relu = b.create<ReluOp>(loc, slice);
      return b.create<ConcatOp>(loc, ValueRange{relu, slice},
                                b.getNamedAttr("axis", b.getI64IntegerAttr(3)));
    }
    }
  }

  /// A 1x4x1x64 value to slice channels from.
  Value alignableValueWithChannels() {
    Value v = anyValue();
    if (v.getType() == shapes()[1])
      return v;
    return b.create<ReshapeOp>(loc, shapes()[1], v);
  }

  static SmallVector<int64_t> identity(int64_t rank) {
    SmallVector<int64_t> perms;
    for (int64_t i = 0; i < rank; ++i)
      perms.push_back(i);
    return perms;
  }

  OpBuilder b;
  Location loc;
  std::mt19937 rng;
  SmallVector<Value> values;
};

/// Minimum conversion price over all assignments of the free nodes, by
/// enumeration (written independently of npu::evaluateLayout).
int64_t bruteForceMinimum(const LayoutProblem &problem) {
  SmallVector<unsigned> free;
  for (auto [i, node] : llvm::enumerate(problem.nodes))
    if (node.mode == AlignMode::BOTH)
      free.push_back(i);
  int64_t best = std::numeric_limits<int64_t>::max();
  SmallVector<bool> aligned(problem.nodes.size());
  for (uint32_t mask = 0; mask < (1u << free.size()); ++mask) {
    for (auto [i, node] : llvm::enumerate(problem.nodes))
      aligned[i] = node.mode == AlignMode::ALIGN;
    for (auto [bit, v] : llvm::enumerate(free))
      aligned[v] = (mask >> bit) & 1;
    int64_t price = 0;
    for (auto [i, node] : llvm::enumerate(problem.nodes)) {
      bool wantsAligned = node.neededAligned, wantsDense = node.neededDense;
      for (unsigned c : node.freeConsumers)
        (aligned[c] ? wantsAligned : wantsDense) = true;
      if (aligned[i] ? wantsDense : wantsAligned)
        price += node.conversionCost;
    }
    best = std::min(best, price);
  }
  return best;
}

/// The price of the conversions present in `module`.
int64_t priceOfConversions(ModuleOp module, ConversionCostKind kind) {
  int64_t price = 0;
  module.walk([&](ChannelNormOp op) {
    price += kind == ConversionCostKind::Count
                 ? 1
                 : getConversionBytes(op.getInput().getType());
  });
  return price;
}

std::string print(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  op->print(os);
  return text;
}

class LayoutAlignPropertyTest : public ::testing::Test {
protected:
  LayoutAlignPropertyTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
  }

  /// Runs npu-layout-align then npu-verify-layout; returns the diagnostics
  /// on failure.
  std::optional<std::string> runPass(ModuleOp module, LayoutStrategy strategy,
                                     ConversionCostKind cost) {
    std::string errors;
    ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &diag) {
      errors += diag.str() + "\n";
      return success();
    });
    PassManager pm(&ctx);
    LayoutAlignToNPUOptions options;
    options.strategy = strategy;
    options.costKind = cost;
    pm.addNestedPass<func::FuncOp>(createLayoutAlignToNPU(options));
    pm.addPass(createVerifyLayout());
    if (failed(pm.run(module)) || failed(verify(module)))
      return errors.empty() ? std::string("failed") : errors;
    return std::nullopt;
  }

  MLIRContext ctx;
};

TEST_F(LayoutAlignPropertyTest, RandomGraphs) {
  constexpr unsigned kGraphs = 2000;
  unsigned bruteForced = 0, optimalBeatsGreedy = 0;
  for (unsigned seed = 0; seed < kGraphs; ++seed) {
    RandomGraphBuilder generator(ctx, seed);
    OwningOpRef<ModuleOp> original = generator.build(5 + seed % 26);
    ASSERT_TRUE(succeeded(verify(*original))) << "seed " << seed;
    auto func = cast<func::FuncOp>(original->getBody()->front());

    for (ConversionCostKind cost :
         {ConversionCostKind::Bytes, ConversionCostKind::Count}) {
      FailureOr<LayoutGraph> graph =
          buildLayoutGraph(func, AlignMode::NALIGN, cost);
      ASSERT_TRUE(succeeded(graph)) << "seed " << seed;
      int64_t prices[2];
      for (LayoutStrategy strategy :
           {LayoutStrategy::Greedy, LayoutStrategy::Optimal}) {
        OwningOpRef<ModuleOp> module = original->clone();
        std::optional<std::string> error = runPass(*module, strategy, cost);
        ASSERT_FALSE(error)
            << "seed " << seed << ": " << *error << print(*module);
        // What the IR holds is what the solver promised.
        SmallVector<AlignMode> modes =
            solveLayoutProblem(graph->problem, strategy);
        int64_t price = priceOfConversions(*module, cost);
        EXPECT_EQ(price, evaluateLayout(graph->problem, modes).price)
            << "seed " << seed;
        prices[strategy == LayoutStrategy::Optimal] = price;
        // A second run changes nothing.
        std::string once = print(*module);
        ASSERT_FALSE(runPass(*module, strategy, cost)) << "seed " << seed;
        EXPECT_EQ(once, print(*module)) << "seed " << seed;
      }
      EXPECT_LE(prices[1], prices[0]) << "seed " << seed;
      optimalBeatsGreedy += prices[1] < prices[0];
      unsigned numFree = llvm::count_if(graph->problem.nodes, [](auto &n) {
        return n.mode == AlignMode::BOTH;
      });
      if (numFree <= 16) {
        ++bruteForced;
        EXPECT_EQ(prices[1], bruteForceMinimum(graph->problem))
            << "seed " << seed << print(*original);
      }
    }
  }
  llvm::outs() << "brute-forced " << bruteForced << " of " << 2 * kGraphs
               << " cases; optimal cheaper than greedy in "
               << optimalBeatsGreedy << "\n";
  // The generator must exercise what the test claims.
  EXPECT_GT(bruteForced, kGraphs); // Most of the 2 x kGraphs cases.
  EXPECT_GT(optimalBeatsGreedy, kGraphs / 10);
}

TEST_F(LayoutAlignPropertyTest, OptimalPrefersLessPaddingAmongEqualCosts) {
  // conv-like ALIGN producer -> adapting op -> dense graph output: converting
  // before or after the adapting op costs the same; before pads less.
  LayoutProblem problem;
  problem.nodes.resize(2);
  problem.nodes[0].mode = AlignMode::ALIGN;
  problem.nodes[0].freeConsumers = {1};
  problem.nodes[0].conversionCost = 10;
  problem.nodes[1].neededDense = true;
  problem.nodes[1].producers = {0};
  problem.nodes[1].conversionCost = 10;
  problem.nodes[1].alignedPadding = 7;
  SmallVector<AlignMode> modes =
      solveLayoutProblem(problem, LayoutStrategy::Optimal);
  EXPECT_EQ(modes[1], AlignMode::NALIGN);
  EXPECT_EQ(evaluateLayout(problem, modes),
            (LayoutCost{/*conversions=*/1, /*price=*/10, /*paddingBytes=*/0}));
  // Greedy follows the producer and pays the padding.
  SmallVector<AlignMode> greedy =
      solveLayoutProblem(problem, LayoutStrategy::Greedy);
  EXPECT_EQ(greedy[1], AlignMode::ALIGN);
  EXPECT_EQ(evaluateLayout(problem, greedy).paddingBytes, 7);
}

} // namespace
