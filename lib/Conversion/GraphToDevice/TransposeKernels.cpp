//===- TransposeKernels.cpp - npu.transpose on the vector cores -----------===//
//
// A transpose moves 2-D planes. The plane is the input's last dimension (its
// contiguous rows) and one other, R: the input dimension that becomes the
// output's last when the last moves, else the one that becomes the output's
// second-to-last (a rank-1 transpose, the identity, is one of [1, L]). Every
// other dimension is fixed per plane. A plane is cut into [rows of R, columns
// of the last] tiles; each is copied in as a strided window, transposed on chip
// (vtranspose) when the last dimension moves, and copied out as a window of the
// output whose rows are again contiguous. Tiles are dealt to the vector tasks
// in turn, a plain tile loop that npu-pipeline-dma-loops pipelines. Work
// O(elements), each crossing DMA twice.
//
//===----------------------------------------------------------------------===//

#include "OperatorKernels.h"

#include "npu/Conversion/DeviceKernelOpInterface.h"
#include "npu/Device/DeviceModel.h"
#include "npu/Dialect/NPU/NPUDialect.h"
#include "npu/Dialect/NPU/NPUOps.h"
#include "npu/Dialect/NPUDev/KernelBuilder.h"

using namespace mlir;
using namespace npu;
using namespace npu::graph;

namespace {

class TransposeKernel {
public:
  TransposeKernel(KernelBuilder &k, TransposeOp op, const KernelOperands &io,
                  const DeviceModel &device)
      : k(k), op(op), device(device), in(op.getInput().getType().getShape()),
        perm(op.getPerms()) {
    element = op.getInput().getType().getElementType();
    input = io.operands[0];
    output = io.results[0];
    // A rank-1 transpose (the identity) as one of [1, L].
    if (in.size() == 1) {
      in.insert(in.begin(), 1);
      perm = {0, 1};
      input = asMatrix(input);
      output = asMatrix(output);
    }
    int64_t rank = in.size();
    last = rank - 1;
    // The output dimension of each input dimension.
    outDim.assign(rank, 0);
    for (int64_t j = 0; j < rank; ++j)
      outDim[perm[j]] = j;
    moves = perm[last] != last;
    rowDim = moves ? perm[last] : perm[rank - 2];
    for (int64_t d = 0; d < rank; ++d)
      if (d != rowDim && d != last)
        others.push_back(d);
  }

  /// Tiles of up to 128 x 128 (whole rows when the last dimension stays)
  /// whose copies in and out, two of each for the pipeline, fit vector
  /// memory; fails with a diagnostic when one element does not.
  LogicalResult chooseTiles() {
    int64_t eb = llvm::divideCeil(element.getIntOrFloatBitWidth(), 8);
    int64_t copies = moves ? 4 : 2;
    if (device.vectorBytes < copies * eb)
      return op.emitOpError("cannot be lowered for device '")
             << device.name << "': it has " << device.vectorBytes
             << " bytes of vector memory, the kernel needs at least "
             << copies * eb;
    tileRows = std::min<int64_t>(in[rowDim], 128);
    tileCols = std::min<int64_t>(in[last], moves ? 128 : 1 << 14);
    while (tileRows * tileCols * eb * copies > device.vectorBytes) {
      int64_t &larger = tileRows >= tileCols ? tileRows : tileCols;
      larger = llvm::divideCeil(larger, 2);
    }
    return success();
  }

  void build() {
    int64_t planes = 1;
    for (int64_t d : others)
      planes *= in[d];
    rowTiles = llvm::divideCeil(in[rowDim], tileRows);
    colTiles = llvm::divideCeil(in[last], tileCols);
    int64_t tiles = planes * rowTiles * colTiles;
    int64_t tasks =
        std::min<int64_t>(device.getNumCores(dev::CoreKind::vector), tiles);
    dev::LaunchOp launch = k.launch(tasks, [&](Value task) {
      Value tile = k.alloc({tileRows, tileCols}, element);
      Value flipped = moves ? k.alloc({tileCols, tileRows}, element) : Value();
      k.forEachItem(task, tasks, tiles,
                    [&](Value t) { buildTile(t, tile, flipped); });
    });
    OpBuilder &b = k.builder();
    KernelBuilder::recordTiling(
        launch, {b.getNamedAttr("strategy", b.getStringAttr("transpose")),
                 b.getNamedAttr("tile_rows", b.getI64IntegerAttr(tileRows)),
                 b.getNamedAttr("tile_cols", b.getI64IntegerAttr(tileCols))});
  }

private:
  void buildTile(Value t, Value tile, Value flipped) {
    int64_t rank = in.size();
    Value zero = k.index(0);
    // Tile t: plane, then row tile, then column tile.
    Value perPlane = k.index(rowTiles * colTiles);
    Value plane = k.div(t, perPlane);
    Value inPlane = k.rem(t, perPlane);
    Value r0 = k.mul(k.div(inPlane, k.index(colTiles)), k.index(tileRows));
    Value c0 = k.mul(k.rem(inPlane, k.index(colTiles)), k.index(tileCols));
    Value nr = k.min(k.index(tileRows), k.sub(k.index(in[rowDim]), r0));
    Value nc = k.min(k.index(tileCols), k.sub(k.index(in[last]), c0));
    // Offsets and sizes per input dimension.
    SmallVector<Value> offsets(rank, zero);
    SmallVector<OpFoldResult> sizes(rank, k.builder().getIndexAttr(1));
    Value rest = plane;
    for (int64_t d : llvm::reverse(others)) {
      offsets[d] = k.rem(rest, k.index(in[d]));
      rest = k.div(rest, k.index(in[d]));
    }
    offsets[last] = c0;
    sizes[last] = nc;
    offsets[rowDim] = r0;
    sizes[rowDim] = nr;
    Value loaded = k.window(tile, {zero, zero}, {nr, nc});
    SmallVector<unsigned> inOthers(others.begin(), others.end());
    k.dma(k.window(input, offsets, sizes, inOthers), loaded);
    Value stored = loaded;
    if (moves) {
      stored = k.window(flipped, {zero, zero}, {nc, nr});
      k.builder().create<dev::VTransposeOp>(k.location(), loaded, stored);
    }
    // The same window of the output, in its dimension order.
    SmallVector<Value> outOffsets(rank, zero);
    SmallVector<OpFoldResult> outSizes(rank, k.builder().getIndexAttr(1));
    SmallVector<unsigned> outOthers;
    for (int64_t d = 0; d < rank; ++d) {
      outOffsets[outDim[d]] = offsets[d];
      outSizes[outDim[d]] = sizes[d];
    }
    for (int64_t d : others)
      outOthers.push_back(outDim[d]);
    llvm::sort(outOthers);
    k.dma(stored, k.window(output, outOffsets, outSizes, outOthers));
  }

  /// A rank-1 memref as [1, L].
  Value asMatrix(Value memref) {
    auto type = cast<MemRefType>(memref.getType());
    auto matrix =
        MemRefType::get({1, type.getDimSize(0)}, type.getElementType(),
                        MemRefLayoutAttrInterface(), type.getMemorySpace());
    return k.builder().create<memref::ExpandShapeOp>(
        k.location(), matrix, memref, ArrayRef<ReassociationIndices>{{0, 1}});
  }

  KernelBuilder &k;
  TransposeOp op;
  const DeviceModel &device;
  Value input, output;
  SmallVector<int64_t> in, perm;
  Type element;
  int64_t last = 0, rowDim = 0;
  bool moves = false;
  SmallVector<int64_t> outDim, others;
  int64_t tileRows = 1, tileCols = 1, rowTiles = 1, colTiles = 1;
};

struct TransposeKernelModel
    : DeviceKernelOpInterface::ExternalModel<TransposeKernelModel,
                                             TransposeOp> {
  bool readsAlignedStorage(Operation *, Value) const { return true; }

  LogicalResult buildDeviceKernels(Operation *op, OpBuilder &b,
                                   const KernelOperands &io,
                                   const DeviceModel &device,
                                   const KernelOptions &) const {
    auto transpose = cast<TransposeOp>(op);
    if (transpose.getInput().getType().getNumElements() == 0)
      return success();
    // A rank-0 transpose is its one element.
    if (transpose.getInput().getType().getRank() == 0) {
      KernelBuilder k(b, op->getLoc());
      k.store(k.load(io.operands[0], {}), io.results[0], {});
      return success();
    }
    KernelBuilder k(b, op->getLoc());
    TransposeKernel kernel(k, transpose, io, device);
    if (failed(kernel.chooseTiles()))
      return failure();
    kernel.build();
    return success();
  }
};

} // namespace

void npu::registerTransposeKernelModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, NPUDialect *) {
    TransposeOp::attachInterface<TransposeKernelModel>(*ctx);
  });
}
