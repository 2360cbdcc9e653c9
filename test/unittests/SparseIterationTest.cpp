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

#include "npu/Dialect/Sparse/Passes.h"
#include "npu/InitAll.h"
#include "npu/JIT/Jit.h"
#include "npu/Runtime/HostArray.h"
#include "npu/Simulator/Simulator.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace mlir;
using namespace npu;

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

/// `text` with each "$NAME" of `values` replaced.
std::string substitute(std::string text,
                       std::vector<std::pair<std::string, int64_t>> values) {
  // Longer names first: $RF before $R.
  llvm::sort(values, [](const auto &x, const auto &y) {
    return x.first.size() > y.first.size();
  });
  for (auto &[name, value] : values) {
    std::string key = "$" + name;
    for (size_t at; (at = text.find(key)) != std::string::npos;)
      text.replace(at, key.size(), std::to_string(value));
  }
  return text;
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
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
  }

  /// Lowers `source` by the two stages and runs @kernel on `args` in both
  /// executors; expects the same bytes and returns the simulator's.
  std::vector<HostArray> run(const std::string &source,
                             const std::vector<HostArray> &args) {
    std::vector<HostArray> results[2];
    for (bool jit : {false, true}) {
      OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &ctx);
      EXPECT_TRUE(module) << source;
      if (!module)
        return args;
      PassManager pm(&ctx);
      pm.addNestedPass<func::FuncOp>(sparse::createSparseLowerIterations());
      pm.addNestedPass<func::FuncOp>(sparse::createSparseLowerBuffers());
      pm.addPass(createCanonicalizerPass());
      EXPECT_TRUE(succeeded(pm.run(*module)));
      results[jit] = args;
      if (jit) {
        EXPECT_TRUE(succeeded(jit::runJit(*module, "kernel", results[jit])));
      } else {
        auto func = module->lookupSymbol<func::FuncOp>("kernel");
        sim::SimulationReport report;
        EXPECT_TRUE(succeeded(sim::simulate(func, results[jit], {}, report)));
      }
    }
    for (size_t i = 0; i < args.size(); ++i)
      EXPECT_EQ(results[0][i].data, results[1][i].data) << "argument " << i;
    return results[0];
  }

  /// indptr, indices and values of `m` as kernel arguments.
  static std::vector<HostArray> csrArgs(const Csr &m) {
    return {HostArray::fromValues(ElementKind::I32, m.indptr, {m.rows + 1}),
            HostArray::fromValues(ElementKind::I32, m.indices, {m.nnz()}),
            HostArray::fromValues(ElementKind::F32, m.values, {m.nnz()})};
  }

  static std::vector<std::pair<std::string, int64_t>> sizes(const Csr &m,
                                                            int64_t f) {
    return {{"R1", m.rows + 1}, {"R", m.rows},     {"C", m.cols},
            {"NNZ", m.nnz()},   {"F", f},          {"RF", m.rows * f},
            {"CF", m.cols * f}, {"FC", f * m.cols}};
  }

  MLIRContext ctx;
};

/// out[i, k] = sum_j A[i, j] B[j, k], B dense [C, F].
TEST_F(SparseIterationTest, SpMM) {
  const char *source = R"(
func.func @kernel(%indptr: memref<$R1xi32>, %indices: memref<$NNZxi32>, %a: memref<$NNZxf32>, %b: memref<$CFxf32>, %c: memref<$RFxf32>) {
)"
                       "@AXES@"
                       R"(
  %dj = sparse.axis dense_fixed length $C
  %k = sparse.axis dense_fixed length $F
  %A = sparse.buffer %a [%i, %j] : memref<$NNZxf32> -> !sparse.buffer<2 x f32>
  %B = sparse.buffer %b [%dj, %k] : memref<$CFxf32> -> !sparse.buffer<2 x f32>
  %C = sparse.buffer %c [%i, %k] : memref<$RFxf32> -> !sparse.buffer<2 x f32>
  sparse.iteration [%i, %j, %k] [#sparse.iterator<spatial>, #sparse.iterator<reduction>, #sparse.iterator<spatial>] init {
  ^bb0(%vi: index, %vk: index):
    %zero = arith.constant 0.0 : f32
    sparse.store %zero, %C[%vi, %vk] : !sparse.buffer<2 x f32>
  } do {
  ^bb0(%vi: index, %vj: index, %vk: index):
    %x = sparse.load %A[%vi, %vj] : !sparse.buffer<2 x f32>
    %y = sparse.load %B[%vj, %vk] : !sparse.buffer<2 x f32>
    %acc = sparse.load %C[%vi, %vk] : !sparse.buffer<2 x f32>
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    sparse.store %s, %C[%vi, %vk] : !sparse.buffer<2 x f32>
  }
  return
}
)";
  std::mt19937 rng(7);
  for (auto [rows, cols, f, density] : {std::tuple{9, 13, 5, 0.3},
                                        {1, 4, 3, 0.5},
                                        {0, 5, 2, 0.5},
                                        {17, 30, 8, 0.1}}) {
    SCOPED_TRACE(testing::Message() << rows << "x" << cols << " F " << f);
    for (bool integers : {true, false}) {
      Csr m = randomCsr(rows, cols, density, rng, integers);
      std::vector<float> b = randomDense(cols * f, rng, integers);
      std::vector<HostArray> args = csrArgs(m);
      args.push_back(HostArray::fromValues(ElementKind::F32, b, {cols * f}));
      args.push_back(HostArray::fromValues(
          ElementKind::F32, std::vector<float>(rows * f, NAN), {rows * f}));
      std::string text = source;
      text.replace(text.find("@AXES@"), 6, kCsrAxes);
      std::vector<float> got =
          run(substitute(text, sizes(m, f)), args)[4].getValues<float>();
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

/// out[i, j] = sum_k X[i, k] Y[j, k] where (i, j) is in the pattern.
TEST_F(SparseIterationTest, SDDMM) {
  const char *source = R"(
func.func @kernel(%indptr: memref<$R1xi32>, %indices: memref<$NNZxi32>, %out: memref<$NNZxf32>, %x: memref<$RFxf32>, %y: memref<$CFxf32>) {
)"
                       "@AXES@"
                       R"(
  %dj = sparse.axis dense_fixed length $C
  %k = sparse.axis dense_fixed length $F
  %O = sparse.buffer %out [%i, %j] : memref<$NNZxf32> -> !sparse.buffer<2 x f32>
  %X = sparse.buffer %x [%i, %k] : memref<$RFxf32> -> !sparse.buffer<2 x f32>
  %Y = sparse.buffer %y [%dj, %k] : memref<$CFxf32> -> !sparse.buffer<2 x f32>
  sparse.iteration [%i, %j, %k] [#sparse.iterator<spatial>, #sparse.iterator<spatial>, #sparse.iterator<reduction>] init {
  ^bb0(%vi: index, %vj: index):
    %zero = arith.constant 0.0 : f32
    sparse.store %zero, %O[%vi, %vj] : !sparse.buffer<2 x f32>
  } do {
  ^bb0(%vi: index, %vj: index, %vk: index):
    %a = sparse.load %X[%vi, %vk] : !sparse.buffer<2 x f32>
    %b = sparse.load %Y[%vj, %vk] : !sparse.buffer<2 x f32>
    %acc = sparse.load %O[%vi, %vj] : !sparse.buffer<2 x f32>
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    sparse.store %s, %O[%vi, %vj] : !sparse.buffer<2 x f32>
  }
  return
}
)";
  std::mt19937 rng(11);
  for (auto [rows, cols, f, density] :
       {std::tuple{9, 13, 5, 0.3}, {0, 3, 4, 0.5}, {12, 7, 16, 0.4}}) {
    SCOPED_TRACE(testing::Message() << rows << "x" << cols << " F " << f);
    for (bool integers : {true, false}) {
      Csr m = randomCsr(rows, cols, density, rng, integers);
      std::vector<float> x = randomDense(rows * f, rng, integers);
      std::vector<float> y = randomDense(cols * f, rng, integers);
      std::vector<HostArray> args = csrArgs(m);
      args[2] = HostArray::fromValues(
          ElementKind::F32, std::vector<float>(m.nnz(), NAN), {m.nnz()});
      args.push_back(HostArray::fromValues(ElementKind::F32, x, {rows * f}));
      args.push_back(HostArray::fromValues(ElementKind::F32, y, {cols * f}));
      std::string text = source;
      text.replace(text.find("@AXES@"), 6, kCsrAxes);
      std::vector<float> got =
          run(substitute(text, sizes(m, f)), args)[2].getValues<float>();
      for (int64_t r = 0; r < rows; ++r)
        for (int32_t p = m.indptr[r]; p < m.indptr[r + 1]; ++p) {
          double want = 0;
          for (int64_t k = 0; k < f; ++k)
            want += double(x[r * f + k]) * y[m.indices[p] * f + k];
          EXPECT_NEAR(got[p], want, integers ? 0 : 1e-5) << "nonzero " << p;
        }
    }
  }
}

/// Softmax over each CSR row's nonzeros, with the row maximum subtracted
/// (seed 003's example): three iterations sharing the axes.
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
        run(substitute(text, sizes(m, 1)), args)[3].getValues<float>();
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
        run(substitute(text, values), args)[6].getValues<float>();
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

} // namespace
