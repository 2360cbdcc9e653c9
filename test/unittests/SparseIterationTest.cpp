//===- SparseIterationTest.cpp - sparse workloads in both executors -------===//
//
// Each workload is written in the sparse dialect, lowered by the two
// stages (iterations to position loops, buffers to flat memrefs) and run
// by the simulator and the JIT; both must give the same bytes, and match a
// reference written from the definition: the dense computation masked by
// the pattern, in double. Random CSR patterns with a fixed seed include
// empty rows, a full row and an empty matrix.
//
//===----------------------------------------------------------------------===//

#include "SparseKernelSources.h"
#include "npu/Conversion/Passes.h"
#include "npu/Conversion/Pipelines.h"
#include "npu/Dialect/NPUDev/NPUDevOps.h"
#include "npu/Dialect/Sparse/Passes.h"
#include "npu/Dialect/Sparse/SparseOps.h"
#include "npu/InitAll.h"
#include "npu/JIT/Jit.h"
#include "npu/Runtime/HostArray.h"
#include "npu/Simulator/Execution.h"
#include "npu/Simulator/Simulator.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace mlir;
using namespace npu;
using npu::workloads::substituteSizes;

namespace {

/// A CSR pattern with values; columns sorted within each row.
struct Csr {
  int64_t rows = 0, cols = 0;
  std::vector<int32_t> indptr, indices;
  std::vector<float> values;
  int64_t nnz() const { return indices.size(); }
};

/// Row r has about density * cols nonzeros; row 0 is empty and, when there
/// is more than one row, the last is full.
Csr randomCsr(int64_t rows, int64_t cols, double density, std::mt19937 &rng,
              bool integers) {
  Csr m{rows, cols, {0}, {}, {}};
  std::bernoulli_distribution keep(density);
  std::uniform_int_distribution<int> small(-4, 4);
  std::uniform_real_distribution<float> real(-1, 1);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c)
      if (r != 0 && ((rows > 1 && r == rows - 1) || keep(rng))) {
        m.indices.push_back(c);
        m.values.push_back(integers ? small(rng) : real(rng));
      }
    m.indptr.push_back(m.indices.size());
  }
  return m;
}

std::vector<float> randomDense(int64_t n, std::mt19937 &rng, bool integers) {
  std::uniform_int_distribution<int> small(-4, 4);
  std::uniform_real_distribution<float> real(-1, 1);
  std::vector<float> v(n);
  for (float &x : v)
    x = integers ? small(rng) : real(rng);
  return v;
}

/// The CSR axes every workload starts from: rows %i, columns %j.
constexpr const char *kCsrAxes = R"(
  %i = sparse.axis dense_fixed length $R
  %j = sparse.axis sparse_variable parent %i length $C indptr %indptr : memref<$R1xi32> indices %indices : memref<$NNZxi32> sorted
)";

class SparseIterationTest : public ::testing::Test {
protected:
  SparseIterationTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    sim::registerSimulatorModels(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
  }

  /// Lowers `source` by the stages, on the host (1 and 2) and on the
  /// device's tasks (3, 1, 3's tiles and 2), and runs @kernel on `args` in
  /// both
  /// executors; expects the same bytes from all four and returns the first.
  std::vector<HostArray> run(const std::string &source,
                             const std::vector<HostArray> &args) {
    std::vector<HostArray> results[4];
    for (int variant = 0; variant < 4; ++variant) {
      bool jit = variant % 2, onDevice = variant / 2;
      OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &ctx);
      EXPECT_TRUE(module) << source;
      if (!module)
        return args;
      PassManager pm(&ctx);
      SparseToDevicePipelineOptions options;
      options.onDevice = onDevice;
      // Chunks of 3 positions: rows and runs cross chunk boundaries.
      options.stageChunk = 3;
      options.tasks = tasks;
      buildSparseToDevicePipeline(pm, options);
      EXPECT_TRUE(succeeded(pm.run(*module)));
      results[variant] = args;
      if (jit) {
        EXPECT_TRUE(
            succeeded(jit::runJit(*module, "kernel", results[variant])));
      } else {
        auto func = module->lookupSymbol<func::FuncOp>("kernel");
        sim::SimulationReport report;
        EXPECT_TRUE(
            succeeded(sim::simulate(func, results[variant], {}, report)));
      }
    }
    for (int variant = 1; variant < 4; ++variant)
      for (size_t i = 0; i < args.size(); ++i)
        EXPECT_EQ(results[0][i].data, results[variant][i].data)
            << "argument " << i << ", variant " << variant;
    return results[0];
  }

  /// indptr, indices and values of `m` as kernel arguments.
  static std::vector<HostArray> csrArgs(const Csr &m) {
    return {HostArray::fromValues(ElementKind::I32, m.indptr, {m.rows + 1}),
            HostArray::fromValues(ElementKind::I32, m.indices, {m.nnz()}),
            HostArray::fromValues(ElementKind::F32, m.values, {m.nnz()})};
  }

  /// Rows, columns, features and density of a random CSR workload.
  using Shape = std::tuple<int64_t, int64_t, int64_t, double>;

  /// SpMM with `schedule` (attributes of its iteration) on random CSR
  /// matrices, against the dense product.
  void checkSpMM(const std::string &schedule,
                 ArrayRef<Shape> shapes = {{9, 13, 5, 0.3},
                                           {1, 4, 3, 0.5},
                                           {0, 5, 2, 0.5},
                                           {17, 30, 8, 0.1}}) {
    std::mt19937 rng(7);
    for (auto [rows, cols, f, density] : shapes) {
      SCOPED_TRACE(testing::Message() << rows << "x" << cols << " F " << f);
      for (bool integers : {true, false}) {
        Csr m = randomCsr(rows, cols, density, rng, integers);
        std::vector<float> b = randomDense(cols * f, rng, integers);
        std::vector<HostArray> args = csrArgs(m);
        args.push_back(HostArray::fromValues(
            ElementKind::F32, std::vector<float>(rows * f, NAN), {rows * f}));
        args.push_back(HostArray::fromValues(ElementKind::F32, b, {cols * f}));
        std::vector<float> got =
            run(workloads::getSpMMSource(sizes(m, f), schedule), args)[3]
                .getValues<float>();
        // The dense product with A zero outside the pattern.
        std::vector<double> dense(rows * cols, 0);
        for (int64_t r = 0; r < rows; ++r)
          for (int32_t p = m.indptr[r]; p < m.indptr[r + 1]; ++p)
            dense[r * cols + m.indices[p]] = m.values[p];
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t k = 0; k < f; ++k) {
            double want = 0;
            for (int64_t c = 0; c < cols; ++c)
              want += dense[r * cols + c] * b[c * f + k];
            EXPECT_NEAR(got[r * f + k], want, integers ? 0 : 1e-5)
                << "row " << r << " column " << k;
          }
      }
    }
  }

  static std::vector<std::pair<std::string, int64_t>> sizes(const Csr &m,
                                                            int64_t f) {
    workloads::Sizes all = workloads::getCsrSizes(m.rows, m.cols, m.nnz(), f);
    all.push_back({"FC", f * m.cols});
    return all;
  }

  void checkSDDMM(ArrayRef<Shape> shapes);

  /// Tasks per launch on the device (0: the device's vector cores).
  int64_t tasks = 0;
  MLIRContext ctx;
};

TEST_F(SparseIterationTest, SpMM) { checkSpMM(""); }

/// Reordered and fused loops give the same bytes: each output element
/// still sums over j in order.
TEST_F(SparseIterationTest, SchedulesKeepTheResult) {
  // k outside j; rows and their nonzeros as one loop; k outermost, then
  // the fused rows and nonzeros.
  checkSpMM("{loop_order = array<i64: 0, 2, 1>}");
  checkSpMM("{fuse = array<i64: 0, 1>}");
  checkSpMM("{loop_order = array<i64: 2, 0, 1>, fuse = array<i64: 0, 1>}");
}

/// The hybrid split: an ELL kernel over each row's first E nonzeros, then
/// a CSR kernel over the rest, adding in the same order: the same bytes
/// as the CSR kernel (the padding adds 0 times a finite value).
TEST_F(SparseIterationTest, HybridEllCsrSplit) {
  for (int64_t width : {1, 2, 5})
    checkSpMM("{hybrid_ell_width = " + std::to_string(width) + " : i64}");
}

/// SDDMM's arguments: `m`'s pattern with NaN values (the output), x and y.
static std::vector<HostArray> sddmmArgs(const Csr &m, ArrayRef<float> x,
                                        ArrayRef<float> y, int64_t f) {
  return {HostArray::fromValues(ElementKind::I32, m.indptr, {m.rows + 1}),
          HostArray::fromValues(ElementKind::I32, m.indices, {m.nnz()}),
          HostArray::fromValues(ElementKind::F32,
                                std::vector<float>(m.nnz(), NAN), {m.nnz()}),
          HostArray::fromValues(ElementKind::F32, x.vec(), {m.rows * f}),
          HostArray::fromValues(ElementKind::F32, y.vec(), {m.cols * f})};
}

/// Expects SDDMM's output `got` on `m`: out[p] = sum_k x[i, k] y[j, k] at
/// each nonzero p = (i, j), in float64; exact for small integers.
static void expectSDDMM(const Csr &m, ArrayRef<float> x, ArrayRef<float> y,
                        int64_t f, ArrayRef<float> got, bool integers) {
  for (int64_t r = 0; r < m.rows; ++r)
    for (int32_t p = m.indptr[r]; p < m.indptr[r + 1]; ++p) {
      double want = 0;
      for (int64_t k = 0; k < f; ++k)
        want += double(x[r * f + k]) * y[m.indices[p] * f + k];
      EXPECT_NEAR(got[p], want, integers ? 0 : 1e-5) << "nonzero " << p;
    }
}

/// out[i, j] = sum_k X[i, k] Y[j, k] where (i, j) is in the pattern.
void SparseIterationTest::checkSDDMM(ArrayRef<Shape> shapes) {
  std::mt19937 rng(11);
  for (auto [rows, cols, f, density] : shapes) {
    SCOPED_TRACE(testing::Message() << rows << "x" << cols << " F " << f);
    for (bool integers : {true, false}) {
      Csr m = randomCsr(rows, cols, density, rng, integers);
      std::vector<float> x = randomDense(rows * f, rng, integers);
      std::vector<float> y = randomDense(cols * f, rng, integers);
      std::vector<float> got =
          run(workloads::getSDDMMSource(sizes(m, f)), sddmmArgs(m, x, y, f))[2]
              .getValues<float>();
      expectSDDMM(m, x, y, f, got, integers);
    }
  }
}

TEST_F(SparseIterationTest, SDDMM) {
  checkSDDMM({{9, 13, 5, 0.3}, {0, 3, 4, 0.5}, {12, 7, 16, 0.4}});
}

/// With reductions reassociated, the JIT may sum each dot product in vector
/// lanes (as upstream's sparsifier does with reassociate-fp-reductions):
/// small integers still sum exactly, other values to within rounding.
TEST_F(SparseIterationTest, ReassociatedReductionsOnTheHost) {
  std::mt19937 rng(13);
  for (auto [rows, cols, f] :
       {std::tuple<int64_t, int64_t, int64_t>{19, 23, 64},
        {5, 9, 37},
        {0, 4, 16}}) {
    SCOPED_TRACE(testing::Message() << rows << "x" << cols << " F " << f);
    for (bool integers : {true, false}) {
      Csr m = randomCsr(rows, cols, 0.3, rng, integers);
      std::vector<float> x = randomDense(rows * f, rng, integers);
      std::vector<float> y = randomDense(cols * f, rng, integers);
      std::vector<HostArray> args = sddmmArgs(m, x, y, f);
      OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(
          workloads::getSDDMMSource(sizes(m, f)), &ctx);
      ASSERT_TRUE(module);
      PassManager pm(&ctx);
      SparseToDevicePipelineOptions options;
      options.onDevice = false;
      options.reassociateReductions = true;
      buildSparseToDevicePipeline(pm, options);
      ASSERT_TRUE(succeeded(pm.run(*module)));
      ASSERT_TRUE(succeeded(jit::runJit(*module, "kernel", args)));
      expectSDDMM(m, x, y, f, args[2].getValues<float>(), integers);
    }
  }
}

/// On the device the row loop runs at the rows with nonzeros, listed 256
/// rows at a time: two tasks over 1,200 rows, most of them empty, cross
/// the lists' blocks (and the staged chunks of 3 inside them).
TEST_F(SparseIterationTest, RowsListedInBlocks) {
  tasks = 2;
  checkSpMM("", {{1200, 40, 4, 0.01}});
  checkSDDMM({{1200, 40, 4, 0.01}});
}

/// Softmax over each CSR row's nonzeros, with the row maximum subtracted
/// (SparseTIR's example): three iterations sharing the axes.
TEST_F(SparseIterationTest, SparseSoftmax) {
  const char *source = R"(
func.func @kernel(%indptr: memref<$R1xi32>, %indices: memref<$NNZxi32>, %a: memref<$NNZxf32>, %out: memref<$NNZxf32>, %max: memref<$Rxf32>, %sum: memref<$Rxf32>) {
)"
                       "@AXES@"
                       R"(
  %A = sparse.buffer %a [%i, %j] : memref<$NNZxf32> -> !sparse.buffer<2 x f32>
  %O = sparse.buffer %out [%i, %j] : memref<$NNZxf32> -> !sparse.buffer<2 x f32>
  %M = sparse.buffer %max [%i] : memref<$Rxf32> -> !sparse.buffer<1 x f32>
  %S = sparse.buffer %sum [%i] : memref<$Rxf32> -> !sparse.buffer<1 x f32>
  sparse.iteration [%i, %j] [#sparse.iterator<spatial>, #sparse.iterator<reduction>] init {
  ^bb0(%vi: index):
    %ninf = arith.constant 0xFF800000 : f32
    sparse.store %ninf, %M[%vi] : !sparse.buffer<1 x f32>
  } do {
  ^bb0(%vi: index, %vj: index):
    %x = sparse.load %A[%vi, %vj] : !sparse.buffer<2 x f32>
    %m = sparse.load %M[%vi] : !sparse.buffer<1 x f32>
    %n = arith.maximumf %m, %x : f32
    sparse.store %n, %M[%vi] : !sparse.buffer<1 x f32>
  }
  sparse.iteration [%i, %j] [#sparse.iterator<spatial>, #sparse.iterator<reduction>] init {
  ^bb0(%vi: index):
    %zero = arith.constant 0.0 : f32
    sparse.store %zero, %S[%vi] : !sparse.buffer<1 x f32>
  } do {
  ^bb0(%vi: index, %vj: index):
    %x = sparse.load %A[%vi, %vj] : !sparse.buffer<2 x f32>
    %m = sparse.load %M[%vi] : !sparse.buffer<1 x f32>
    %d = arith.subf %x, %m : f32
    %e = math.exp %d : f32
    sparse.store %e, %O[%vi, %vj] : !sparse.buffer<2 x f32>
    %s = sparse.load %S[%vi] : !sparse.buffer<1 x f32>
    %t = arith.addf %s, %e : f32
    sparse.store %t, %S[%vi] : !sparse.buffer<1 x f32>
  }
  sparse.iteration [%i, %j] [#sparse.iterator<spatial>, #sparse.iterator<spatial>] do {
  ^bb0(%vi: index, %vj: index):
    %e = sparse.load %O[%vi, %vj] : !sparse.buffer<2 x f32>
    %s = sparse.load %S[%vi] : !sparse.buffer<1 x f32>
    %q = arith.divf %e, %s : f32
    sparse.store %q, %O[%vi, %vj] : !sparse.buffer<2 x f32>
  }
  return
}
)";
  std::mt19937 rng(13);
  for (auto [rows, cols, density] :
       {std::tuple{9, 13, 0.3}, {1, 1, 1.0}, {0, 4, 0.5}, {20, 40, 0.2}}) {
    SCOPED_TRACE(testing::Message() << rows << "x" << cols);
    Csr m = randomCsr(rows, cols, density, rng, false);
    for (float &v : m.values)
      v *= 30; // exp would overflow without the maximum subtracted.
    std::vector<HostArray> args = csrArgs(m);
    args.push_back(HostArray::fromValues(
        ElementKind::F32, std::vector<float>(m.nnz(), NAN), {m.nnz()}));
    for (int k = 0; k < 2; ++k)
      args.push_back(HostArray::fromValues(
          ElementKind::F32, std::vector<float>(rows, NAN), {rows}));
    std::string text = source;
    text.replace(text.find("@AXES@"), 6, kCsrAxes);
    std::vector<float> got =
        run(substituteSizes(text, sizes(m, 1)), args)[3].getValues<float>();
    for (int64_t r = 0; r < rows; ++r) {
      double top = -INFINITY, total = 0;
      for (int32_t p = m.indptr[r]; p < m.indptr[r + 1]; ++p)
        top = std::max(top, double(m.values[p]));
      for (int32_t p = m.indptr[r]; p < m.indptr[r + 1]; ++p)
        total += std::exp(m.values[p] - top);
      for (int32_t p = m.indptr[r]; p < m.indptr[r + 1]; ++p)
        EXPECT_NEAR(got[p], std::exp(m.values[p] - top) / total, 1e-6)
            << "nonzero " << p;
    }
  }
}

/// out[i, j] = A[i, j] * M[i, j] over A's pattern, M another CSR pattern
/// over the same rows: M's position of (i, j) is found by binary search
/// in M's row, and a column M lacks reads 0.
TEST_F(SparseIterationTest, LookupInAnotherPattern) {
  const char *source = R"(
func.func @kernel(%indptr: memref<$R1xi32>, %indices: memref<$NNZxi32>, %a: memref<$NNZxf32>, %mptr: memref<$R1xi32>, %midx: memref<$MNZxi32>, %m: memref<$MNZxf32>, %out: memref<$NNZxf32>) {
)"
                       "@AXES@"
                       R"(
  %mj = sparse.axis sparse_variable parent %i length $C indptr %mptr : memref<$R1xi32> indices %midx : memref<$MNZxi32> sorted
  %A = sparse.buffer %a [%i, %j] : memref<$NNZxf32> -> !sparse.buffer<2 x f32>
  %M = sparse.buffer %m [%i, %mj] : memref<$MNZxf32> -> !sparse.buffer<2 x f32>
  %O = sparse.buffer %out [%i, %j] : memref<$NNZxf32> -> !sparse.buffer<2 x f32>
  sparse.iteration [%i, %j] [#sparse.iterator<spatial>, #sparse.iterator<spatial>] do {
  ^bb0(%vi: index, %vj: index):
    %x = sparse.load %A[%vi, %vj] : !sparse.buffer<2 x f32>
    %y = sparse.load %M[%vi, %vj] : !sparse.buffer<2 x f32>
    %p = arith.mulf %x, %y : f32
    sparse.store %p, %O[%vi, %vj] : !sparse.buffer<2 x f32>
  }
  return
}
)";
  std::mt19937 rng(17);
  for (auto [rows, cols, density] :
       {std::tuple{9, 13, 0.4}, {6, 1, 0.5}, {0, 3, 0.5}, {15, 50, 0.2}}) {
    SCOPED_TRACE(testing::Message() << rows << "x" << cols);
    Csr a = randomCsr(rows, cols, density, rng, true);
    Csr m = randomCsr(rows, cols, density, rng, true);
    std::vector<HostArray> args = csrArgs(a);
    for (HostArray &array : csrArgs(m))
      args.push_back(array);
    args.push_back(HostArray::fromValues(
        ElementKind::F32, std::vector<float>(a.nnz(), NAN), {a.nnz()}));
    std::string text = source;
    text.replace(text.find("@AXES@"), 6, kCsrAxes);
    auto values = sizes(a, 1);
    values.push_back({"MNZ", m.nnz()});
    std::vector<float> got =
        run(substituteSizes(text, values), args)[6].getValues<float>();
    for (int64_t r = 0; r < rows; ++r)
      for (int32_t p = a.indptr[r]; p < a.indptr[r + 1]; ++p) {
        double other = 0;
        for (int32_t q = m.indptr[r]; q < m.indptr[r + 1]; ++q)
          if (m.indices[q] == a.indices[p])
            other = m.values[q];
        EXPECT_EQ(got[p], a.values[p] * other) << "nonzero " << p;
      }
  }
}

/// BSR SpMM with 2 x 3 blocks: out[i * 2 + bi, k] = sum over the blocks
/// (i, j) and bj of A[i, j, bi, bj] B[j * 3 + bj, k].
TEST_F(SparseIterationTest, BlockSparseSpMM) {
  const char *source = R"(
func.func @kernel(%indptr: memref<$R1xi32>, %indices: memref<$NNZxi32>, %a: memref<$AVxf32>, %b: memref<$BVxf32>, %c: memref<$CVxf32>) {
)"
                       "@AXES@"
                       R"(
  %bi = sparse.axis dense_fixed length 2
  %bj = sparse.axis dense_fixed length 3
  %dj = sparse.axis dense_fixed length $C
  %k = sparse.axis dense_fixed length $F
  %A = sparse.buffer %a [%i, %j, %bi, %bj] : memref<$AVxf32> -> !sparse.buffer<4 x f32>
  %B = sparse.buffer %b [%dj, %bj, %k] : memref<$BVxf32> -> !sparse.buffer<3 x f32>
  %Cb = sparse.buffer %c [%i, %bi, %k] : memref<$CVxf32> -> !sparse.buffer<3 x f32>
  sparse.iteration [%i, %bi, %j, %bj, %k] [#sparse.iterator<spatial>, #sparse.iterator<spatial>, #sparse.iterator<reduction>, #sparse.iterator<reduction>, #sparse.iterator<spatial>] init {
  ^bb0(%vi: index, %vbi: index, %vk: index):
    %zero = arith.constant 0.0 : f32
    sparse.store %zero, %Cb[%vi, %vbi, %vk] : !sparse.buffer<3 x f32>
  } do {
  ^bb0(%vi: index, %vbi: index, %vj: index, %vbj: index, %vk: index):
    %x = sparse.load %A[%vi, %vj, %vbi, %vbj] : !sparse.buffer<4 x f32>
    %y = sparse.load %B[%vj, %vbj, %vk] : !sparse.buffer<3 x f32>
    %acc = sparse.load %Cb[%vi, %vbi, %vk] : !sparse.buffer<3 x f32>
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    sparse.store %s, %Cb[%vi, %vbi, %vk] : !sparse.buffer<3 x f32>
  }
  return
}
)";
  std::mt19937 rng(19);
  for (auto [rows, cols, f] : {std::tuple{4, 5, 3}, {0, 2, 2}, {7, 3, 4}}) {
    SCOPED_TRACE(testing::Message() << rows << "x" << cols << " blocks");
    Csr m = randomCsr(rows, cols, 0.4, rng, true);
    int64_t av = m.nnz() * 6, bv = cols * 3 * f, cv = rows * 2 * f;
    std::vector<float> a = randomDense(av, rng, true);
    std::vector<float> b = randomDense(bv, rng, true);
    std::vector<HostArray> args = csrArgs(m);
    args[2] = HostArray::fromValues(ElementKind::F32, a, {av});
    args.push_back(HostArray::fromValues(ElementKind::F32, b, {bv}));
    args.push_back(HostArray::fromValues(ElementKind::F32,
                                         std::vector<float>(cv, NAN), {cv}));
    std::string text = source;
    text.replace(text.find("@AXES@"), 6, kCsrAxes);
    auto values = sizes(m, f);
    values.insert(values.end(), {{"AV", av}, {"BV", bv}, {"CV", cv}});
    std::vector<float> got =
        run(substituteSizes(text, values), args)[4].getValues<float>();
    // The dense [rows * 2, cols * 3] matrix times B.
    std::vector<double> dense(rows * 2 * cols * 3, 0);
    for (int64_t r = 0; r < rows; ++r)
      for (int32_t p = m.indptr[r]; p < m.indptr[r + 1]; ++p)
        for (int64_t x = 0; x < 2; ++x)
          for (int64_t y = 0; y < 3; ++y)
            dense[(r * 2 + x) * cols * 3 + m.indices[p] * 3 + y] =
                a[(p * 2 + x) * 3 + y];
    for (int64_t r = 0; r < rows * 2; ++r)
      for (int64_t k = 0; k < f; ++k) {
        double want = 0;
        for (int64_t c = 0; c < cols * 3; ++c)
          want += dense[r * cols * 3 + c] * b[c * f + k];
        EXPECT_EQ(got[r * f + k], want) << "row " << r << " column " << k;
      }
  }
}

/// ELL SpMM: E slots per row, padding slots hold column 0 and value 0 (so
/// the axis is not sorted); out[i, k] = sum_e A[i, e] B[col(i, e), k].
TEST_F(SparseIterationTest, EllSpMM) {
  const char *source = R"(
func.func @kernel(%cols: memref<$RExi32>, %a: memref<$RExf32>, %b: memref<$CFxf32>, %c: memref<$RFxf32>) {
  %i = sparse.axis dense_fixed length $R
  %e = sparse.axis sparse_fixed parent %i length $C nnz_cols $E indices %cols : memref<$RExi32>
  %dj = sparse.axis dense_fixed length $C
  %k = sparse.axis dense_fixed length $F
  %A = sparse.buffer %a [%i, %e] : memref<$RExf32> -> !sparse.buffer<2 x f32>
  %B = sparse.buffer %b [%dj, %k] : memref<$CFxf32> -> !sparse.buffer<2 x f32>
  %C = sparse.buffer %c [%i, %k] : memref<$RFxf32> -> !sparse.buffer<2 x f32>
  sparse.iteration [%i, %e, %k] [#sparse.iterator<spatial>, #sparse.iterator<reduction>, #sparse.iterator<spatial>] init {
  ^bb0(%vi: index, %vk: index):
    %zero = arith.constant 0.0 : f32
    sparse.store %zero, %C[%vi, %vk] : !sparse.buffer<2 x f32>
  } do {
  ^bb0(%vi: index, %ve: index, %vk: index):
    %x = sparse.load %A[%vi, %ve] : !sparse.buffer<2 x f32>
    %y = sparse.load %B[%ve, %vk] : !sparse.buffer<2 x f32>
    %acc = sparse.load %C[%vi, %vk] : !sparse.buffer<2 x f32>
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    sparse.store %s, %C[%vi, %vk] : !sparse.buffer<2 x f32>
  }
  return
}
)";
  std::mt19937 rng(23);
  for (auto [rows, cols, f] : {std::tuple{8, 10, 3}, {0, 4, 2}, {5, 1, 6}}) {
    SCOPED_TRACE(testing::Message() << rows << "x" << cols);
    Csr m = randomCsr(rows, cols, 0.3, rng, true);
    int64_t width = 0;
    for (int64_t r = 0; r < rows; ++r)
      width = std::max<int64_t>(width, m.indptr[r + 1] - m.indptr[r]);
    std::vector<int32_t> colsOf(rows * width, 0);
    std::vector<float> a(rows * width, 0);
    for (int64_t r = 0; r < rows; ++r)
      for (int32_t p = m.indptr[r]; p < m.indptr[r + 1]; ++p) {
        colsOf[r * width + p - m.indptr[r]] = m.indices[p];
        a[r * width + p - m.indptr[r]] = m.values[p];
      }
    std::vector<float> b = randomDense(cols * f, rng, true);
    std::vector<HostArray> args = {
        HostArray::fromValues(ElementKind::I32, colsOf, {rows * width}),
        HostArray::fromValues(ElementKind::F32, a, {rows * width}),
        HostArray::fromValues(ElementKind::F32, b, {cols * f}),
        HostArray::fromValues(ElementKind::F32,
                              std::vector<float>(rows * f, NAN), {rows * f})};
    auto values = sizes(m, f);
    values.insert(values.end(), {{"RE", rows * width}, {"E", width}});
    std::vector<float> got =
        run(substituteSizes(source, values), args)[3].getValues<float>();
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t k = 0; k < f; ++k) {
        double want = 0;
        for (int32_t p = m.indptr[r]; p < m.indptr[r + 1]; ++p)
          want += double(m.values[p]) * b[m.indices[p] * f + k];
        EXPECT_EQ(got[r * f + k], want) << "row " << r << " column " << k;
      }
  }
}

/// SparseTIR's irregular batched matmul: batch t multiplies an n[t] x k[t]
/// matrix by a k[t] x m[t] one. j, kk, l are dense-variable axes under
/// the batch axis (their indptrs are prefix sums of n, m, k); each
/// matrix's column axis hangs off its row axis with an indptr over its
/// rows.
TEST_F(SparseIterationTest, IrregularBatchedMatmul) {
  const char *source = R"(
func.func @kernel(%n: memref<$B1xi32>, %m: memref<$B1xi32>, %k: memref<$B1xi32>,
    %aRows: memref<$AR1xi32>, %bRows: memref<$BR1xi32>, %cRows: memref<$AR1xi32>,
    %a: memref<$AVxf32>, %b: memref<$BVxf32>, %c: memref<$CVxf32>) {
  %i = sparse.axis dense_fixed length $B
  %j = sparse.axis dense_variable parent %i length 64 indptr %n : memref<$B1xi32>
  %kk = sparse.axis dense_variable parent %i length 64 indptr %m : memref<$B1xi32>
  %l = sparse.axis dense_variable parent %i length 64 indptr %k : memref<$B1xi32>
  %aj = sparse.axis dense_variable parent %j length 64 indptr %aRows : memref<$AR1xi32>
  %bl = sparse.axis dense_variable parent %l length 64 indptr %bRows : memref<$BR1xi32>
  %cj = sparse.axis dense_variable parent %j length 64 indptr %cRows : memref<$AR1xi32>
  %A = sparse.buffer %a [%i, %j, %aj] : memref<$AVxf32> -> !sparse.buffer<3 x f32>
  %B = sparse.buffer %b [%i, %l, %bl] : memref<$BVxf32> -> !sparse.buffer<3 x f32>
  %C = sparse.buffer %c [%i, %j, %cj] : memref<$CVxf32> -> !sparse.buffer<3 x f32>
  sparse.iteration [%i, %j, %kk, %l] [#sparse.iterator<spatial>, #sparse.iterator<spatial>, #sparse.iterator<spatial>, #sparse.iterator<reduction>] init {
  ^bb0(%vi: index, %vj: index, %vk: index):
    %zero = arith.constant 0.0 : f32
    sparse.store %zero, %C[%vi, %vj, %vk] : !sparse.buffer<3 x f32>
  } do {
  ^bb0(%vi: index, %vj: index, %vk: index, %vl: index):
    %x = sparse.load %A[%vi, %vj, %vl] : !sparse.buffer<3 x f32>
    %y = sparse.load %B[%vi, %vl, %vk] : !sparse.buffer<3 x f32>
    %acc = sparse.load %C[%vi, %vj, %vk] : !sparse.buffer<3 x f32>
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    sparse.store %s, %C[%vi, %vj, %vk] : !sparse.buffer<3 x f32>
  }
  return
}
)";
  std::mt19937 rng(29);
  // n, m, k per batch; a batch of zero rows and one of zero depth.
  std::vector<int32_t> n = {3, 0, 2, 4}, m = {2, 3, 5, 1}, k = {4, 2, 0, 3};
  int64_t batches = n.size();
  auto prefix = [](const std::vector<int32_t> &v) {
    std::vector<int32_t> p = {0};
    for (int32_t x : v)
      p.push_back(p.back() + x);
    return p;
  };
  // Row starts of A (n[t] rows of k[t]), B (k[t] rows of m[t]), C (n[t]
  // rows of m[t]), and where each batch's matrices start.
  std::vector<int32_t> aRows = {0}, bRows = {0}, cRows = {0};
  std::vector<int64_t> aAt, bAt, cAt;
  for (int64_t t = 0; t < batches; ++t) {
    aAt.push_back(aRows.back());
    cAt.push_back(cRows.back());
    for (int32_t r = 0; r < n[t]; ++r) {
      aRows.push_back(aRows.back() + k[t]);
      cRows.push_back(cRows.back() + m[t]);
    }
    bAt.push_back(bRows.back());
    for (int32_t r = 0; r < k[t]; ++r)
      bRows.push_back(bRows.back() + m[t]);
  }
  std::vector<float> a = randomDense(aRows.back(), rng, true);
  std::vector<float> b = randomDense(bRows.back(), rng, true);
  int64_t cv = cRows.back();
  std::vector<HostArray> args = {
      HostArray::fromValues(ElementKind::I32, prefix(n), {batches + 1}),
      HostArray::fromValues(ElementKind::I32, prefix(m), {batches + 1}),
      HostArray::fromValues(ElementKind::I32, prefix(k), {batches + 1}),
      HostArray::fromValues(ElementKind::I32, aRows, {int64_t(aRows.size())}),
      HostArray::fromValues(ElementKind::I32, bRows, {int64_t(bRows.size())}),
      HostArray::fromValues(ElementKind::I32, cRows, {int64_t(cRows.size())}),
      HostArray::fromValues(ElementKind::F32, a, {int64_t(a.size())}),
      HostArray::fromValues(ElementKind::F32, b, {int64_t(b.size())}),
      HostArray::fromValues(ElementKind::F32, std::vector<float>(cv, NAN),
                            {cv})};
  std::string text = substituteSizes(source, {{"B1", batches + 1},
                                              {"B", batches},
                                              {"AR1", int64_t(aRows.size())},
                                              {"BR1", int64_t(bRows.size())},
                                              {"AV", int64_t(a.size())},
                                              {"BV", int64_t(b.size())},
                                              {"CV", cv}});
  std::vector<float> got = run(text, args)[8].getValues<float>();
  for (int64_t t = 0; t < batches; ++t)
    for (int32_t r = 0; r < n[t]; ++r)
      for (int32_t c = 0; c < m[t]; ++c) {
        double want = 0;
        for (int32_t x = 0; x < k[t]; ++x)
          want += double(a[aAt[t] + r * k[t] + x]) * b[bAt[t] + x * m[t] + c];
        EXPECT_EQ(got[cAt[t] + r * m[t] + c], want)
            << "batch " << t << " (" << r << ", " << c << ")";
      }
}

/// Lookups through two sparse levels: a coordinate missing at the first
/// level must not feed the second (its prefix would lie past the first
/// level's positions), and each level's offset is its own axis's even when
/// two buffers share positions. B is a CSF [i, j, k] read at (i, d, d) for
/// every d; M and A share the row axis but differ below it.
TEST_F(SparseIterationTest, ChainedLookups) {
  const char *source = R"(
func.func @kernel(%jp: memref<2xi32>, %ji: memref<1xi32>, %kp: memref<2xi32>, %ki: memref<1xi32>, %b: memref<1xf32>, %out: memref<4xf32>) {
  %i = sparse.axis dense_fixed length 1
  %j = sparse.axis sparse_variable parent %i length 4 indptr %jp : memref<2xi32> indices %ji : memref<1xi32> sorted
  %k = sparse.axis sparse_variable parent %j length 4 indptr %kp : memref<2xi32> indices %ki : memref<1xi32> sorted
  %d = sparse.axis dense_fixed length 4
  %B = sparse.buffer %b [%i, %j, %k] : memref<1xf32> -> !sparse.buffer<3 x f32>
  %O = sparse.buffer %out [%d] : memref<4xf32> -> !sparse.buffer<1 x f32>
  sparse.iteration [%i, %d] [#sparse.iterator<spatial>, #sparse.iterator<spatial>] do {
  ^bb0(%vi: index, %vd: index):
    %x = sparse.load %B[%vi, %vd, %vd] : !sparse.buffer<3 x f32>
    sparse.store %x, %O[%vd] : !sparse.buffer<1 x f32>
  }
  return
}
)";
  // B holds one element, at (0, 0, 0): d = 0 finds it, d = 1..3 miss at j
  // (d = 1 lands one past the last j position).
  std::vector<HostArray> args = {
      HostArray::fromValues(ElementKind::I32, std::vector<int32_t>{0, 1}, {2}),
      HostArray::fromValues(ElementKind::I32, std::vector<int32_t>{0}, {1}),
      HostArray::fromValues(ElementKind::I32, std::vector<int32_t>{0, 1}, {2}),
      HostArray::fromValues(ElementKind::I32, std::vector<int32_t>{0}, {1}),
      HostArray::fromValues(ElementKind::F32, std::vector<float>{7}, {1}),
      HostArray::fromValues(ElementKind::F32, std::vector<float>(4, NAN), {4})};
  EXPECT_EQ(run(source, args)[5].getValues<float>(),
            (std::vector<float>{7, 0, 0, 0}));

  // Rows ja (2 then 1 per b) and jm (3 then 2 per b) under b; ka and km
  // sorted under them. out[b, ja, c] = A[b, ja, c] + M[b, ja, c]: M's
  // offset at level 1 is indptr_jm[b] + ja, not indptr_ja[b] + ja.
  const char *twoBuffers = R"(
func.func @kernel(%pa: memref<3xi32>, %pm: memref<3xi32>, %kap: memref<4xi32>, %kai: memref<4xi32>, %kmp: memref<6xi32>, %kmi: memref<6xi32>, %a: memref<4xf32>, %m: memref<6xf32>, %out: memref<9xf32>) {
  %b = sparse.axis dense_fixed length 2
  %ja = sparse.axis dense_variable parent %b length 3 indptr %pa : memref<3xi32>
  %jm = sparse.axis dense_variable parent %b length 3 indptr %pm : memref<3xi32>
  %ka = sparse.axis sparse_variable parent %ja length 3 indptr %kap : memref<4xi32> indices %kai : memref<4xi32> sorted
  %km = sparse.axis sparse_variable parent %jm length 3 indptr %kmp : memref<6xi32> indices %kmi : memref<6xi32> sorted
  %c = sparse.axis dense_fixed length 3
  %A = sparse.buffer %a [%b, %ja, %ka] : memref<4xf32> -> !sparse.buffer<3 x f32>
  %M = sparse.buffer %m [%b, %jm, %km] : memref<6xf32> -> !sparse.buffer<3 x f32>
  %O = sparse.buffer %out [%b, %ja, %c] : memref<9xf32> -> !sparse.buffer<3 x f32>
  sparse.iteration [%b, %ja, %c] [#sparse.iterator<spatial>, #sparse.iterator<spatial>, #sparse.iterator<spatial>] do {
  ^bb0(%vb: index, %vj: index, %vc: index):
    %x = sparse.load %A[%vb, %vj, %vc] : !sparse.buffer<3 x f32>
    %y = sparse.load %M[%vb, %vj, %vc] : !sparse.buffer<3 x f32>
    %s = arith.addf %x, %y : f32
    sparse.store %s, %O[%vb, %vj, %vc] : !sparse.buffer<3 x f32>
  }
  return
}
)";
  std::vector<int32_t> pa = {0, 2, 3}, pm = {0, 3, 5};
  // ka: rows (b0, 0) {1}, (b0, 1) {0, 2}, (b1, 0) {2}.
  std::vector<int32_t> kap = {0, 1, 3, 4}, kai = {1, 0, 2, 2};
  // km: rows (b0, 0) {0}, (b0, 1) {2}, (b0, 2) {1}, (b1, 0) {0, 2}, (b1, 1)
  // {1}.
  std::vector<int32_t> kmp = {0, 1, 2, 3, 5, 6}, kmi = {0, 2, 1, 0, 2, 1};
  std::vector<float> a = {1, 2, 3, 4}, m = {10, 20, 30, 40, 50, 60};
  auto i32s = [](const std::vector<int32_t> &v) {
    return HostArray::fromValues(ElementKind::I32, v, {int64_t(v.size())});
  };
  auto f32s = [](const std::vector<float> &v) {
    return HostArray::fromValues(ElementKind::F32, v, {int64_t(v.size())});
  };
  std::vector<float> got =
      run(twoBuffers,
          {i32s(pa), i32s(pm), i32s(kap), i32s(kai), i32s(kmp), i32s(kmi),
           f32s(a), f32s(m), f32s(std::vector<float>(9, NAN))})[8]
          .getValues<float>();
  // From the definitions: the element of a CSF level at (row, c), or 0.
  auto at = [](const std::vector<int32_t> &ptr, const std::vector<int32_t> &idx,
               const std::vector<float> &val, int64_t row, int64_t c) {
    for (int32_t p = ptr[row]; p < ptr[row + 1]; ++p)
      if (idx[p] == c)
        return val[p];
    return 0.0f;
  };
  std::vector<float> want;
  for (int64_t bb = 0; bb < 2; ++bb)
    for (int64_t j = 0; j < pa[bb + 1] - pa[bb]; ++j)
      for (int64_t c = 0; c < 3; ++c)
        want.push_back(at(kap, kai, a, pa[bb] + j, c) +
                       at(kmp, kmi, m, pm[bb] + j, c));
  EXPECT_EQ(got, want);
}

/// npu-sparse-to-device gives each of T tasks the rows from the first r with
/// indptr[r] - indptr[0] + c r >= t * (nnz + c rows) / T (task 0 from row 0,
/// the last to the end): a row weighs its nonzeros plus its row-cost c
/// (default 4; 1 and 7 too). The test records,
/// per row, the task that ran it: a store of npudev.task_id put into the body
/// after npu-sparse-to-device.
TEST_F(SparseIterationTest, RowsSplitByWork) {
  const char *source = R"(
func.func @kernel(%indptr: memref<$R1xi32>, %indices: memref<$NNZxi32>, %owner: memref<$Rxi32>) {
)"
                       "@AXES@"
                       R"(
  %O = sparse.buffer %owner [%i] : memref<$Rxi32> -> !sparse.buffer<1 x i32>
  sparse.iteration [%i, %j] [#sparse.iterator<spatial>, #sparse.iterator<reduction>] init {
  ^bb0(%vi: index):
  } do {
  ^bb0(%vi: index, %vj: index):
  }
  return
}
)";
  std::mt19937 rng(31);
  constexpr int64_t kTasks = 4;
  for (auto [rows, density, rowCost] : {std::tuple{40, 0.1, int64_t(10)},
                                        {40, 0.1, 1},
                                        {40, 0.3, 6},
                                        {7, 0.5, 10},
                                        {3, 0.0, 10},
                                        {0, 0.5, 10}}) {
    SCOPED_TRACE(testing::Message() << rows << " rows, row-cost " << rowCost);
    Csr m = randomCsr(rows, 60, density, rng, true);
    std::string text = source;
    text.replace(text.find("@AXES@"), 6, kCsrAxes);
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(substituteSizes(text, sizes(m, 1)), &ctx);
    ASSERT_TRUE(module);
    PassManager toDevice(&ctx);
    SparseToDeviceOptions options;
    options.tasks = kTasks;
    if (rowCost != 6) // 6 is the default.
      options.rowCost = rowCost;
    toDevice.addNestedPass<func::FuncOp>(createSparseToDevice(options));
    ASSERT_TRUE(succeeded(toDevice.run(*module)));
    // owner[row] = the running task, from init (which sees every row).
    sparse::IterationOp iteration;
    module->walk([&](sparse::IterationOp op) { iteration = op; });
    auto owner =
        cast<func::FuncOp>(module->lookupSymbol("kernel")).getArgument(2);
    sparse::BufferOp buffer;
    module->walk([&](sparse::BufferOp op) {
      if (op.getData() == owner)
        buffer = op;
    });
    Block &init = iteration.getInit().front();
    OpBuilder b = OpBuilder::atBlockBegin(&init);
    Location loc = iteration.getLoc();
    Value task = b.create<dev::TaskIdOp>(loc, b.getIndexType());
    Value value = b.create<arith::IndexCastOp>(loc, b.getI32Type(), task);
    b.create<sparse::StoreOp>(loc, value, buffer.getResult(),
                              ValueRange{init.getArgument(0)});
    PassManager pm(&ctx);
    pm.addNestedPass<func::FuncOp>(sparse::createSparseLowerIterations());
    pm.addNestedPass<func::FuncOp>(sparse::createSparseLowerBuffers());
    ASSERT_TRUE(succeeded(pm.run(*module)));
    std::vector<HostArray> args = {
        HostArray::fromValues(ElementKind::I32, m.indptr, {rows + 1}),
        HostArray::fromValues(ElementKind::I32, m.indices, {m.nnz()}),
        HostArray::fromValues(ElementKind::I32, std::vector<int32_t>(rows, -1),
                              {rows})};
    sim::SimulationReport report;
    ASSERT_TRUE(succeeded(sim::simulate(
        cast<func::FuncOp>(module->lookupSymbol("kernel")), args, {}, report)));
    std::vector<int32_t> got = args[2].getValues<int32_t>();
    // The partition from its definition.
    std::vector<int32_t> want(rows);
    for (int64_t t = 0; t < kTasks; ++t) {
      auto startOf = [&, rows = rows, c = rowCost](int64_t task) -> int64_t {
        if (task == 0)
          return 0;
        if (task == kTasks)
          return rows;
        // A row weighs its nonzeros plus the row cost.
        int64_t target = task * (m.nnz() + c * rows) / kTasks;
        int64_t r = 0;
        while (r <= rows && m.indptr[r] + c * r < target)
          ++r;
        return r;
      };
      for (int64_t r = startOf(t); r < startOf(t + 1); ++r)
        want[r] = t;
    }
    EXPECT_EQ(got, want);
  }
}

/// The checked mode (npu-sparse-check-formats) on inputs that break each
/// rule: both executors fail with the same message, naming the axis, the
/// rule and the first offending entry, after --canonicalize --cse too;
/// valid inputs still run.
class SparseCheckedModeTest : public SparseIterationTest {
protected:
  /// Runs @kernel checked, on the device path, with and without the
  /// checks' reads staged on chip (in runs of 3); the error text ("" if it
  /// ran) of the simulator, after checking the JIT's and the staged
  /// lowering's are the same.
  std::string runChecked(const std::string &source,
                         std::vector<HostArray> args) {
    std::string errors[4];
    for (int variant = 0; variant < 4; ++variant) {
      bool jit = variant % 2, staged = variant / 2;
      OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &ctx);
      EXPECT_TRUE(module) << source;
      if (!module)
        return "";
      PassManager pm(&ctx);
      pm.addNestedPass<func::FuncOp>(createSparseCheckFormats());
      // No pass may erase a check: canonicalize and CSE right after it and
      // at the end.
      pm.addPass(createCanonicalizerPass());
      pm.addPass(createCSEPass());
      SparseToDevicePipelineOptions options;
      options.tile = false;
      options.stageChunk = staged ? 3 : 0;
      buildSparseToDevicePipeline(pm, options);
      pm.addPass(createCSEPass());
      EXPECT_TRUE(succeeded(pm.run(*module)));
      ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
        errors[variant] += d.str();
        return success();
      });
      std::vector<HostArray> copy = args;
      if (jit) {
        (void)jit::runJit(*module, "kernel", copy);
      } else {
        sim::SimulationReport report;
        (void)sim::simulate(cast<func::FuncOp>(module->lookupSymbol("kernel")),
                            copy, {}, report);
      }
    }
    for (int variant = 1; variant < 4; ++variant) {
      // The JIT says which function it could not run first.
      StringRef error = errors[variant];
      error.consume_front("cannot run 'kernel': ");
      EXPECT_EQ(errors[0], error.str()) << "variant " << variant;
    }
    return errors[0];
  }

  static HostArray i32s(std::vector<int32_t> v) {
    int64_t n = v.size();
    return HostArray::fromValues(ElementKind::I32, v, {n});
  }
  static HostArray f32s(int64_t n) {
    return HostArray::fromValues(ElementKind::F32, std::vector<float>(n, 1),
                                 {n});
  }
};

/// Row sums of a 3 x 4 CSR matrix with 4 nonzeros.
constexpr const char *kRowSums = R"(
func.func @kernel(%indptr: memref<4xi32>, %indices: memref<4xi32>, %a: memref<4xf32>, %c: memref<3xf32>) {
  %i = sparse.axis dense_fixed length 3
  %j = sparse.axis sparse_variable parent %i length 4 indptr %indptr : memref<4xi32> indices %indices : memref<4xi32> sorted
  %A = sparse.buffer %a [%i, %j] : memref<4xf32> -> !sparse.buffer<2 x f32>
  %C = sparse.buffer %c [%i] : memref<3xf32> -> !sparse.buffer<1 x f32>
  sparse.iteration [%i, %j] [#sparse.iterator<spatial>, #sparse.iterator<reduction>] init {
  ^bb0(%vi: index):
    %zero = arith.constant 0.0 : f32
    sparse.store %zero, %C[%vi] : !sparse.buffer<1 x f32>
  } do {
  ^bb0(%vi: index, %vj: index):
    %x = sparse.load %A[%vi, %vj] : !sparse.buffer<2 x f32>
    %acc = sparse.load %C[%vi] : !sparse.buffer<1 x f32>
    %s = arith.addf %acc, %x : f32
    sparse.store %s, %C[%vi] : !sparse.buffer<1 x f32>
  }
  return
}
)";

TEST_F(SparseCheckedModeTest, CsrRules) {
  auto check = [&](std::vector<int32_t> indptr, std::vector<int32_t> indices) {
    return runChecked(kRowSums,
                      {i32s(indptr), i32s(indices), f32s(4), f32s(3)});
  };
  EXPECT_EQ(check({0, 1, 1, 4}, {2, 0, 1, 3}), "");
  // The checks come before a split's copies, and see the user's arrays.
  std::string split = kRowSums;
  split.replace(split.rfind("  }\n  return"), 4,
                "  } {hybrid_ell_width = 2 : i64}");
  EXPECT_EQ(runChecked(split, {i32s({0, 1, 1, 4}), i32s({2, 0, 1, 3}), f32s(4),
                               f32s(3)}),
            "");
  EXPECT_EQ(runChecked(split, {i32s({0, 3, 2, 4}), i32s({2, 0, 1, 3}), f32s(4),
                               f32s(3)}),
            "sparse.axis #1 (sparse_variable): indptr decreases at entry 2");
  EXPECT_EQ(check({1, 1, 2, 4}, {2, 0, 1, 3}),
            "sparse.axis #1 (sparse_variable): indptr[0] is not 0");
  EXPECT_EQ(check({0, 3, 2, 4}, {2, 0, 1, 3}),
            "sparse.axis #1 (sparse_variable): indptr decreases at entry 2");
  EXPECT_EQ(check({0, 1, 1, 3}, {2, 0, 1, 3}),
            "sparse.axis #1 (sparse_variable): indptr ends at 3, not at the "
            "number of indices");
  EXPECT_EQ(check({0, 1, 1, 4}, {2, 0, 4, 3}),
            "sparse.axis #1 (sparse_variable): the coordinate at position 2 "
            "is outside [0, 4)");
  EXPECT_EQ(check({0, 1, 1, 4}, {2, -1, 1, 3}),
            "sparse.axis #1 (sparse_variable): the coordinate at position 1 "
            "is outside [0, 4)");
  // Row 2 holds 1, 1, 3: a repeat is out of order too.
  EXPECT_EQ(check({0, 1, 1, 4}, {2, 1, 1, 3}),
            "sparse.axis #1 (sparse_variable): coordinates are not "
            "increasing at position 2, but the axis is declared sorted");
}

/// Without the checked mode the simulator still refuses a read past an
/// array (its bounds checks), here indices[4] of 4 through an indptr
/// that ends at 5; the JIT's behaviour is then undefined (documented).
TEST_F(SparseCheckedModeTest, UncheckedSimulatorCatchesReadsPastAnArray) {
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kRowSums, &ctx);
  ASSERT_TRUE(module);
  PassManager pm(&ctx);
  pm.addNestedPass<func::FuncOp>(sparse::createSparseLowerIterations());
  pm.addNestedPass<func::FuncOp>(sparse::createSparseLowerBuffers());
  ASSERT_TRUE(succeeded(pm.run(*module)));
  std::string error;
  ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) {
    error += d.str();
    return success();
  });
  std::vector<HostArray> args = {i32s({0, 1, 1, 5}), i32s({2, 0, 1, 3}),
                                 f32s(4), f32s(3)};
  sim::SimulationReport report;
  EXPECT_TRUE(failed(sim::simulate(
      cast<func::FuncOp>(module->lookupSymbol("kernel")), args, {}, report)));
  EXPECT_NE(error.find("out of bounds"), std::string::npos) << error;
}

TEST_F(SparseCheckedModeTest, NestedAndFixedAndRaggedRules) {
  // j under i (2 rows), k under j, e (2 per j position) under j, and a
  // ragged v (runs of at most 2) under i.
  const char *source = R"(
func.func @kernel(%jp: memref<3xi32>, %ji: memref<3xi32>, %kp: memref<?xi32>, %ki: memref<?xi32>, %ei: memref<?xi32>, %vp: memref<3xi32>, %c: memref<2xf32>) {
  %i = sparse.axis dense_fixed length 2
  %j = sparse.axis sparse_variable parent %i length 5 indptr %jp : memref<3xi32> indices %ji : memref<3xi32>
  %k = sparse.axis sparse_variable parent %j length 5 indptr %kp : memref<?xi32> indices %ki : memref<?xi32>
  %e = sparse.axis sparse_fixed parent %j length 5 nnz_cols 2 indices %ei : memref<?xi32>
  %v = sparse.axis dense_variable parent %i length 2 indptr %vp : memref<3xi32>
  %C = sparse.buffer %c [%i] : memref<2xf32> -> !sparse.buffer<1 x f32>
  sparse.iteration [%i] [#sparse.iterator<spatial>] do {
  ^bb0(%vi: index):
    %one = arith.constant 1.0 : f32
    sparse.store %one, %C[%vi] : !sparse.buffer<1 x f32>
  }
  return
}
)";
  auto check = [&](std::vector<int32_t> kp, int64_t kCount, int64_t eCount,
                   std::vector<int32_t> vp) {
    return runChecked(source, {i32s({0, 1, 3}), i32s({0, 1, 4}), i32s(kp),
                               i32s(std::vector<int32_t>(kCount, 0)),
                               i32s(std::vector<int32_t>(eCount, 0)), i32s(vp),
                               f32s(2)});
  };
  // j has 3 positions: k's indptr needs 4 entries, e 6 indices.
  EXPECT_EQ(check({0, 1, 1, 2}, 2, 6, {0, 2, 3}), "");
  EXPECT_EQ(check({0, 1, 2}, 2, 6, {0, 2, 3}),
            "sparse.axis #2 (sparse_variable): indptr has 3 entries, not the "
            "parent's positions plus one");
  EXPECT_EQ(check({0, 1, 1, 2}, 2, 5, {0, 2, 3}),
            "sparse.axis #3 (sparse_fixed): indices has 5 entries, not "
            "nnz_cols per parent position");
  EXPECT_EQ(check({0, 1, 1, 2}, 2, 6, {0, 1, 4}),
            "sparse.axis #4 (dense_variable): run 1 is longer than the axis "
            "length 2");
}

} // namespace
