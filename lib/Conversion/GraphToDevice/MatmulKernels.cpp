//===- MatmulKernels.cpp - npu.matmul on the cube -------------------------===//
//
// (Batched) gemm as cube tiles. The result [batch, M, N] is cut into
// [tm, tn] output tiles dealt to the cube tasks in turn; per output tile
// the contraction is walked in steps of tk: an A tile [tm, tk] and a B
// tile [tk, tn] are copied in and multiplied into an f32 tile
// (npudev.matmul accumulates in k order, one fused multiply-add each, so
// both executors give the same bits). The first step starts the sum, the
// others are a plain tile loop that npu-pipeline-dma-loops pipelines.
// Transposed operands are read as they are stored (transpose_a / _b).
//
// An f32 result without bias is stored straight from the tile. Otherwise
// the tiles go to an f32 workspace and a vector launch adds the bias and
// rounds to the element type (vcast), as CANN's Fixpipe does on the way
// out of the cube. An empty contraction (K = 0) gives the bias, or zeros.
// Batch dimensions broadcast when an operand has all of the result's or
// none. Work O(batch M N K); each A tile crosses DMA ceil(N / tn) times,
// each B tile ceil(M / tm) times.
//
//===----------------------------------------------------------------------===//

#include "GemmCommon.h"
#include "OperatorKernels.h"

#include "npu/Conversion/DeviceKernelOpInterface.h"
#include "npu/Device/DeviceModel.h"
#include "npu/Dialect/NPU/NPUDialect.h"
#include "npu/Dialect/NPU/NPUOps.h"
#include "npu/Dialect/NPUDev/KernelBuilder.h"

#include "mlir/Dialect/Utils/IndexingUtils.h"

#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace npu;
using namespace npu::graph;

namespace {

/// The sizes of a matmul and how its operands are stored.
struct GemmShape {
  int64_t batch, m, n, k;
  /// Batches of each operand: the result's, or 1 (shared by all).
  int64_t lhsBatch, rhsBatch;
  bool transposeLhs, transposeRhs;
};

FailureOr<GemmShape> getGemmShape(MatmulOp op) {
  ArrayRef<int64_t> l = op.getLhs().getType().getShape();
  ArrayRef<int64_t> r = op.getRhs().getType().getShape();
  ArrayRef<int64_t> out = op.getOutput().getType().getShape();
  GemmShape s;
  s.transposeLhs = op.getTransposeLhs();
  s.transposeRhs = op.getTransposeRhs();
  s.batch = computeProduct(out.drop_back(2));
  s.m = out[out.size() - 2];
  s.n = out.back();
  s.k = s.transposeLhs ? l[l.size() - 2] : l.back();
  s.lhsBatch = computeProduct(l.drop_back(2));
  s.rhsBatch = computeProduct(r.drop_back(2));
  for (int64_t operandBatch : {s.lhsBatch, s.rhsBatch})
    if (operandBatch != 1 && operandBatch != s.batch)
      return op.emitOpError("cannot be lowered to the device: batch "
                            "dimensions broadcast in part (an operand has "
                            "all of the result's batches or one)");
  if (failed(checkCubeElement(op, op.getLhs().getType().getElementType())))
    return failure();
  return s;
}

class MatmulKernel {
public:
  MatmulKernel(KernelBuilder &k, MatmulOp op, const KernelOperands &io,
               const GemmShape &shape, const DeviceModel &device)
      : k(k), op(op), io(io), s(shape), device(device) {
    element = op.getLhs().getType().getElementType();
    f32 = Float32Type::get(op.getContext());
  }

  /// Tiles of up to 128 x 128 x 128 whose A and B (two copies each, for
  /// the pipeline) and f32 sum fit cube memory; fails with a diagnostic
  /// when one element of each does not.
  LogicalResult chooseTiles() {
    FailureOr<CubeTiles> tiles =
        chooseCubeTiles(op, s.m, s.n, s.k, element, device);
    if (failed(tiles))
      return failure();
    tm = tiles->m;
    tn = tiles->n;
    tk = tiles->k;
    return needsEpilogue() ? checkVectorBytes(op, epilogueBytes(), device)
                           : success();
  }

  void build() {
    bool direct = !needsEpilogue();
    Value sums = io.results[0];
    if (!direct)
      sums = k.builder().create<memref::AllocOp>(
          k.location(),
          MemRefType::get({s.batch, s.m, s.n}, f32, MemRefLayoutAttrInterface(),
                          dev::MemorySpaceAttr::get(op.getContext(),
                                                    dev::MemorySpace::global)));
    if (s.k > 0)
      buildProducts(k.reshape(sums, {s.batch, s.m, s.n}));
    if (direct)
      return;
    GemmEpilogue epilogue;
    epilogue.sums = s.k > 0 ? sums : Value();
    epilogue.bias = op.getBias() ? io.operands[2] : Value();
    epilogue.result = io.results[0];
    epilogue.rows = s.batch * s.m;
    epilogue.width = s.n;
    epilogue.strategy = "gemm";
    buildGemmEpilogue(k, epilogue, device);
    k.builder().create<memref::DeallocOp>(k.location(), sums);
  }

private:
  bool needsEpilogue() {
    return needsGemmEpilogue(element, bool(op.getBias()), s.k == 0);
  }

  int64_t epilogueBytes() {
    return getGemmEpilogueBytes(element, bool(op.getBias()));
  }

  /// The cube launch: every output tile's sum of products into `sums`
  /// ([batch, M, N], f32).
  void buildProducts(Value sums) {
    int64_t mTiles = llvm::divideCeil(s.m, tm),
            nTiles = llvm::divideCeil(s.n, tn);
    int64_t tiles = s.batch * mTiles * nTiles;
    int64_t tasks =
        std::min<int64_t>(device.getNumCores(dev::CoreKind::cube), tiles);
    dev::LaunchOp launch = k.launch(
        tasks,
        [&](Value task) {
          Value lhs = batchedView(io.operands[0], s.lhsBatch);
          Value rhs = batchedView(io.operands[1], s.rhsBatch);
          Value a = cube(s.transposeLhs ? ArrayRef<int64_t>{tk, tm}
                                        : ArrayRef<int64_t>{tm, tk},
                         element);
          Value b = cube(s.transposeRhs ? ArrayRef<int64_t>{tn, tk}
                                        : ArrayRef<int64_t>{tk, tn},
                         element);
          Value c = cube({tm, tn}, f32);
          k.forEachItem(task, tasks, tiles, [&](Value t) {
            Tile tile;
            Value perBatch = k.index(mTiles * nTiles);
            tile.batch = k.div(t, perBatch);
            Value inBatch = k.rem(t, perBatch);
            tile.m0 = k.mul(k.div(inBatch, k.index(nTiles)), k.index(tm));
            tile.n0 = k.mul(k.rem(inBatch, k.index(nTiles)), k.index(tn));
            tile.rows = k.min(k.index(tm), k.sub(k.index(s.m), tile.m0));
            tile.cols = k.min(k.index(tn), k.sub(k.index(s.n), tile.n0));
            Value sum =
                window2(c, k.index(0), tile.rows, k.index(0), tile.cols);
            k.forLoop(k.index(0), k.index(s.k), k.index(tk),
                      [&](Value k0) { step(tile, lhs, rhs, a, b, sum, k0); });
            OpBuilder &builder = k.builder();
            OpFoldResult one = builder.getIndexAttr(1);
            k.dma(sum, k.window(sums, {tile.batch, tile.m0, tile.n0},
                                {one, tile.rows, tile.cols}, {0}));
          });
        },
        dev::CoreKind::cube);
    OpBuilder &b = k.builder();
    KernelBuilder::recordTiling(
        launch, {b.getNamedAttr("strategy", b.getStringAttr("gemm")),
                 b.getNamedAttr("tile_m", b.getI64IntegerAttr(tm)),
                 b.getNamedAttr("tile_n", b.getI64IntegerAttr(tn)),
                 b.getNamedAttr("tile_k", b.getI64IntegerAttr(tk))});
  }

  struct Tile {
    Value batch, m0, n0, rows, cols;
  };

  /// An operand as [batches, rows, cols].
  Value batchedView(Value operand, int64_t batches) {
    ArrayRef<int64_t> shape = cast<MemRefType>(operand.getType()).getShape();
    return k.reshape(operand, {batches, shape[shape.size() - 2], shape.back()});
  }

  Value cube(ArrayRef<int64_t> shape, Type type) {
    return k.alloc(shape, type, dev::MemorySpace::cube);
  }

  /// Rows [r0, r0 + rows), columns [c0, c0 + cols) of a 2-D buffer.
  Value window2(Value buffer, Value r0, Value rows, Value c0, Value cols) {
    return k.window(buffer, {r0, c0}, {rows, cols});
  }

  /// Batch `batch` (of `batches`) of a [batches, R, C] view: rows
  /// [r0, r0 + rows), columns [c0, c0 + cols).
  Value operandWindow(Value view, int64_t batches, Value batch, Value r0,
                      Value rows, Value c0, Value cols) {
    Value b = batches == 1 ? k.index(0) : batch;
    OpFoldResult one = k.builder().getIndexAttr(1);
    return k.window(view, {b, r0, c0}, {one, rows, cols}, {0});
  }

  /// sum (+)= A[m0.., k0..] B[k0.., n0..] over up to tk of the contraction;
  /// the first step (k0 = 0) starts the sum.
  void step(const Tile &tile, Value lhs, Value rhs, Value a, Value b, Value sum,
            Value k0) {
    Value zero = k.index(0);
    Value depth = k.min(k.index(tk), k.sub(k.index(s.k), k0));
    Value aTile, bTile;
    if (s.transposeLhs) {
      aTile = window2(a, zero, depth, zero, tile.rows);
      k.dma(operandWindow(lhs, s.lhsBatch, tile.batch, k0, depth, tile.m0,
                          tile.rows),
            aTile);
    } else {
      aTile = window2(a, zero, tile.rows, zero, depth);
      k.dma(operandWindow(lhs, s.lhsBatch, tile.batch, tile.m0, tile.rows, k0,
                          depth),
            aTile);
    }
    if (s.transposeRhs) {
      bTile = window2(b, zero, tile.cols, zero, depth);
      k.dma(operandWindow(rhs, s.rhsBatch, tile.batch, tile.n0, tile.cols, k0,
                          depth),
            bTile);
    } else {
      bTile = window2(b, zero, depth, zero, tile.cols);
      k.dma(operandWindow(rhs, s.rhsBatch, tile.batch, k0, depth, tile.n0,
                          tile.cols),
            bTile);
    }
    k.matmulSum(aTile, bTile, sum, k.eq(k0, zero), s.transposeLhs,
                s.transposeRhs);
  }

  KernelBuilder &k;
  MatmulOp op;
  const KernelOperands &io;
  GemmShape s;
  const DeviceModel &device;
  Type element, f32;
  int64_t tm = 1, tn = 1, tk = 1;
};

struct MatmulKernelModel
    : DeviceKernelOpInterface::ExternalModel<MatmulKernelModel, MatmulOp> {
  bool readsAlignedStorage(Operation *, Value) const { return true; }

  LogicalResult buildDeviceKernels(Operation *op, OpBuilder &b,
                                   const KernelOperands &io,
                                   const DeviceModel &device,
                                   const KernelOptions &) const {
    auto matmul = cast<MatmulOp>(op);
    FailureOr<GemmShape> shape = getGemmShape(matmul);
    if (failed(shape))
      return failure();
    // An empty result has nothing to compute.
    if (shape->batch * shape->m * shape->n == 0)
      return success();
    KernelBuilder k(b, op->getLoc());
    MatmulKernel kernel(k, matmul, io, *shape, device);
    if (failed(kernel.chooseTiles()))
      return failure();
    kernel.build();
    return success();
  }
};

} // namespace

void npu::registerMatmulKernelModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, NPUDialect *) {
    MatmulOp::attachInterface<MatmulKernelModel>(*ctx);
  });
}
