//===- ConvKernels.cpp - npu.conv2d as implicit GEMM on the cube ----------===//
//
// conv2d ([N, H, W, C] input, [O, KH, KW, I] filter, I = C / groups) as an
// implicit GEMM: output pixels x output channels, summed over the filter's
// taps and input channels, never materialising the im2col matrix.
//  1. With padding, a vector launch writes the input into a zero-bordered
//     copy [N, H + top + bottom, W + left + right, C] (row by row: zeros,
//     the input row, zeros), so that every tap reads inside it.
//  2. A cube launch over output tiles of up to 128 pixels (whole output
//     rows when a row is shorter, else up to 128 columns of one row) and up
//     to 128 output channels of a group, dealt in turn. Per tile a loop
//     over (kh, kw, block of up to 128 input channels) copies A, the tile's
//     pixels' input rows at that tap ([rows, columns, channels], a window
//     whose rows and columns step by the strides, taken as one matrix of
//     pixels), and B, the filter's [channels of the block, output channels]
//     at that tap (read transposed as stored), and sums A B into an f32
//     tile: a plain tile loop, which npu-pipeline-dma-loops pipelines.
//     Several rows per tile matter in the late layers (7 x 7 pixels): one
//     row would fill 7 of the cube's 128 rows and read the filter once per
//     row.
//  3. The sums go straight to an f32 result without bias; otherwise through
//     an f32 workspace and the gemm epilogue (bias, rounding).
// Work O(N OH OW O KH KW I); the input crosses DMA once per (tap, output
// channel tile). A depthwise conv2d goes to the vector unit instead
// (DepthwiseConvKernels.cpp).
//
//===----------------------------------------------------------------------===//

#include "ConvCommon.h"
#include "GemmCommon.h"
#include "OperatorKernels.h"

#include "npu/Conversion/DeviceKernelOpInterface.h"
#include "npu/Device/DeviceModel.h"
#include "npu/Dialect/NPU/NPUDialect.h"
#include "npu/Dialect/NPU/NPUOps.h"
#include "npu/Dialect/NPUDev/KernelBuilder.h"

using namespace mlir;
using namespace npu;
using namespace npu::graph;

ConvShape npu::getConvShape(Conv2DOp op) {
  ArrayRef<int64_t> in = op.getInput().getType().getShape();
  ArrayRef<int64_t> fil = op.getFilter().getType().getShape();
  ArrayRef<int64_t> out = op.getOutput().getType().getShape();
  ArrayRef<int64_t> strides = op.getStrides(), padding = op.getPadding(),
                    dilations = op.getDilations();
  ConvShape s;
  s.n = in[0];
  s.h = in[1];
  s.w = in[2];
  s.c = in[3];
  s.o = fil[0];
  s.kh = fil[1];
  s.kw = fil[2];
  s.i = fil[3];
  s.oh = out[1];
  s.ow = out[2];
  s.strideH = strides[0];
  s.strideW = strides[1];
  s.dilationH = dilations[0];
  s.dilationW = dilations[1];
  s.top = padding[0];
  s.bottom = padding[1];
  s.left = padding[2];
  s.right = padding[3];
  s.groups = op.getGroups();
  s.og = s.o / s.groups;
  return s;
}

namespace {

class ConvKernel {
public:
  ConvKernel(KernelBuilder &k, Conv2DOp op, const KernelOperands &io,
             const ConvShape &shape, const DeviceModel &device)
      : k(k), op(op), io(io), s(shape), device(device) {
    element = op.getInput().getType().getElementType();
    f32 = k.builder().getF32Type();
  }

  /// Tiles as for matmul: A and B (two copies each) and the f32 sums in
  /// cube memory; the epilogue's and the padding's tiles in vector memory.
  LogicalResult chooseTiles() {
    if (failed(checkCubeElement(op, element)))
      return failure();
    FailureOr<CubeTiles> tiles =
        chooseCubeTiles(op, s.oh * s.ow, s.og, s.i, element, device);
    if (failed(tiles))
      return failure();
    tn = tiles->n;
    tk = tiles->k;
    tileCols = std::min(tiles->m, s.ow);
    tileRows = chooseTileRows(std::clamp<int64_t>(tiles->m / s.ow, 1, s.oh));
    splits = chooseSplits();
    int64_t eb = element.getIntOrFloatBitWidth() / 8;
    return checkVectorBytes(
        op,
        std::max<int64_t>(
            needsEpilogue()
                ? getGemmEpilogueBytes(element, bool(op.getBias()), splits)
                : 0,
            s.isPadded() ? 2 * eb : 0),
        device);
  }

  void build() {
    Value input = io.operands[0];
    if (s.isPadded() && s.i > 0)
      input = buildPadded();
    bool direct = !needsEpilogue();
    Value sums =
        direct ? io.results[0] : globalBuffer({splits, s.n * s.oh * s.ow, s.o});
    if (s.i > 0)
      buildProducts(input, sums);
    if (input != io.operands[0])
      k.builder().create<memref::DeallocOp>(k.location(), input);
    if (direct)
      return;
    GemmEpilogue epilogue;
    epilogue.sums = s.i > 0 ? sums : Value();
    epilogue.bias = op.getBias() ? io.operands[2] : Value();
    epilogue.result = io.results[0];
    epilogue.rows = s.n * s.oh * s.ow;
    epilogue.width = s.o;
    epilogue.splits = splits;
    epilogue.strategy = "conv2d";
    buildGemmEpilogue(k, epilogue, device);
    k.builder().create<memref::DeallocOp>(k.location(), sums);
  }

private:
  /// The output rows per tile, up to `most`, that finish soonest by a
  /// model of the launch: waves of tiles over the cube cores, each step of
  /// a tile loading its pixels' A from HBM, B from the L2 (every tile reads
  /// the filter), and multiplying. Taller tiles read the filter fewer
  /// times but leave cores idle when the tiles are few (the late layers'
  /// 7 x 7 pixels); the smallest of equal estimates wins.
  int64_t chooseTileRows(int64_t most) {
    int64_t cores = device.getNumCores(dev::CoreKind::cube);
    int64_t best = 1;
    double bestTime = 0;
    for (int64_t rows = 1; rows <= most; ++rows) {
      double time = double(llvm::divideCeil(countTiles(rows), cores)) *
                    estimateStep(rows);
      if (rows == 1 || time < bestTime) {
        best = rows;
        bestTime = time;
      }
    }
    return best;
  }

  /// The time of one step of a tile of `rows` output rows by the model of
  /// chooseTileRows, in ns.
  double estimateStep(int64_t rows) {
    int64_t eb = element.getIntOrFloatBitWidth() / 8;
    int64_t m = rows * tileCols;
    double macsPerNs = device.cubeMacsPerCycle * device.clockGHz;
    return double(m * tk * eb) / device.getDmaGBps(false, false) +
           double(tn * tk * eb) / device.getDmaGBps(true, false) +
           double(m * tn * tk) / macsPerNs;
  }

  int64_t countTiles(int64_t rows) {
    return s.n * llvm::divideCeil(s.oh, rows) *
           llvm::divideCeil(s.ow, tileCols) * s.groups *
           llvm::divideCeil(s.og, tn);
  }

  int64_t countSteps() { return s.kh * s.kw * llvm::divideCeil(s.i, tk); }

  /// How many parts the contraction (the steps of a tile) is split into
  /// when the tiles are fewer than the cube cores (ResNet-50's last stage:
  /// 4 tiles of 7 x 7 pixels and 128 output channels for 24 cores, each
  /// summing 4608 products): each part sums its share of the steps on a
  /// core of its own into a partial sum, which the epilogue adds up. By the
  /// same model, with the partial sums' round trip through global memory;
  /// at least two steps per part, so that its loads still overlap.
  int64_t chooseSplits() {
    int64_t cores = device.getNumCores(dev::CoreKind::cube);
    int64_t tiles = countTiles(tileRows), steps = countSteps();
    if (s.i == 0 || tiles >= cores)
      return 1;
    double step = estimateStep(tileRows);
    // One partial tile written and read back, in ns.
    double partial =
        double(tileRows * tileCols * tn * 4) / device.getDmaGBps(true, true);
    int64_t best = 1;
    double bestTime = 0;
    for (int64_t parts = 1; parts <= std::min<int64_t>(steps / 2, cores);
         ++parts) {
      double time =
          double(llvm::divideCeil(tiles * parts, cores)) *
              (double(llvm::divideCeil(steps, parts)) * step + partial) +
          (parts > 1 ? double(parts) * partial : 0.0);
      if (parts == 1 || time < bestTime) {
        best = parts;
        bestTime = time;
      }
    }
    return best;
  }

  bool needsEpilogue() {
    return splits > 1 ||
           needsGemmEpilogue(element, bool(op.getBias()), s.i == 0);
  }

  Value globalBuffer(ArrayRef<int64_t> shape, Type type = {}) {
    OpBuilder &b = k.builder();
    return b.create<memref::AllocOp>(
        k.location(),
        MemRefType::get(shape, type ? type : f32, MemRefLayoutAttrInterface(),
                        dev::MemorySpaceAttr::get(b.getContext(),
                                                  dev::MemorySpace::global)));
  }

  /// The input with its zero border, row by row: a row of the border is
  /// zeros; an inner row is zeros, the input row, zeros. The input row is
  /// read as pixels of C channels, so that an input stored with padded
  /// rows is read in place.
  Value buildPadded() {
    int64_t rowLength = s.paddedW() * s.c, rows = s.n * s.paddedH();
    Value padded = globalBuffer({s.n, s.paddedH(), s.paddedW(), s.c}, element);
    int64_t eb = element.getIntOrFloatBitWidth() / 8;
    int64_t chunk = std::min<int64_t>(
        rowLength, int64_t(1) << llvm::Log2_64(
                       std::max<int64_t>(device.vectorBytes / (2 * eb), 1)));
    // The input part of a row moves in pieces of whole pixels (channels
    // in pieces when a pixel is longer than the chunk).
    int64_t depth = std::min(s.c, chunk),
            pixels = std::max<int64_t>(1, std::min(s.w, chunk / depth));
    int64_t tasks =
        std::min<int64_t>(device.getNumCores(dev::CoreKind::vector), rows);
    dev::LaunchOp launch = k.launch(tasks, [&](Value task) {
      Value zeros = k.alloc({chunk}, element);
      Value data = k.alloc({pixels, depth}, element);
      k.vfill(zeros, k.floatConstant(element, 0));
      Value to = k.reshape(padded, {rows, rowLength});
      Value toPixels = k.reshape(padded, {rows, s.paddedW(), s.c});
      Value from = k.reshape(io.operands[0], {s.n * s.h, s.w, s.c});
      k.forEachItem(task, tasks, rows, [&](Value row) {
        Value hp = k.rem(row, k.index(s.paddedH()));
        Value ih = k.sub(hp, k.index(s.top));
        Value inside = k.andI(k.ge(ih, k.index(0)), k.lt(ih, k.index(s.h)));
        auto zeroRange = [&](int64_t begin, int64_t end) {
          forEachChunk(begin, end, chunk, [&](Value at, Value size) {
            k.dma(k.window(zeros, {k.index(0)}, {size}),
                  k.window(to, {row, at}, {k.builder().getIndexAttr(1), size},
                           {0}));
          });
        };
        k.ifThenElse(
            inside,
            [&] {
              zeroRange(0, s.left * s.c);
              Value inRow = k.add(
                  k.mul(k.div(row, k.index(s.paddedH())), k.index(s.h)), ih);
              copyPixels(from, inRow, toPixels, row, data, pixels, depth);
              zeroRange((s.left + s.w) * s.c, rowLength);
            },
            [&] { zeroRange(0, rowLength); });
      });
    });
    OpBuilder &b = k.builder();
    KernelBuilder::recordTiling(
        launch, {b.getNamedAttr("strategy", b.getStringAttr("conv2d")),
                 b.getNamedAttr("step", b.getStringAttr("pad")),
                 b.getNamedAttr("chunk", b.getI64IntegerAttr(chunk))});
    return padded;
  }

  /// Input row `inRow` of `from` ([rows, W, C]) into row `row` of `to`
  /// ([rows, paddedW, C]) after the left border, through `data` in pieces
  /// of `pixels` x `depth`.
  void copyPixels(Value from, Value inRow, Value to, Value row, Value data,
                  int64_t pixels, int64_t depth) {
    OpFoldResult one = k.builder().getIndexAttr(1);
    forEachChunk(0, s.w, pixels, [&](Value w0, Value width) {
      forEachChunk(0, s.c, depth, [&](Value c0, Value channels) {
        Value zero = k.index(0);
        Value staged = k.window(data, {zero, zero}, {width, channels});
        k.dma(k.window(from, {inRow, w0, c0}, {one, width, channels}, {0}),
              staged);
        Value target = k.add(w0, k.index(s.left));
        k.dma(staged,
              k.window(to, {row, target, c0}, {one, width, channels}, {0}));
      });
    });
  }

  /// for (at = begin; at < end; at += chunk) body(at, min(chunk, end - at)).
  void forEachChunk(int64_t begin, int64_t end, int64_t chunk,
                    function_ref<void(Value, Value)> body) {
    if (end <= begin)
      return;
    k.forLoop(k.index(begin), k.index(end), k.index(chunk), [&](Value at) {
      body(at, k.min(k.index(chunk), k.sub(k.index(end), at)));
    });
  }

  /// The output tile of a loop index: `ohRows` output rows from oh0 and
  /// `owCols` columns from ow0 (all of them when the tile has several
  /// rows), `pixels` = ohRows owCols; `cols` output channels from o0.
  struct Tile {
    Value n, oh0, ow0, group, o0, ohRows, pixels, cols;
    OpFoldResult owCols;
  };

  Tile decodeTile(Value t, int64_t ohTiles, int64_t owTiles, int64_t oTiles) {
    Tile tile;
    SmallVector<Value> at =
        k.delinearize(t, {s.n, ohTiles, owTiles, s.groups, oTiles});
    tile.n = at[0];
    tile.oh0 = k.mul(at[1], k.index(tileRows));
    tile.ow0 = k.mul(at[2], k.index(tileCols));
    tile.group = at[3];
    tile.o0 = k.mul(at[4], k.index(tn));
    tile.ohRows = tileRows == 1 ? k.index(1)
                                : k.min(k.index(tileRows),
                                        k.sub(k.index(s.oh), tile.oh0));
    Value owCols = k.min(k.index(tileCols), k.sub(k.index(s.ow), tile.ow0));
    tile.owCols = tileRows > 1 ? OpFoldResult(k.builder().getIndexAttr(s.ow))
                               : OpFoldResult(owCols);
    tile.pixels = k.mul(tile.ohRows, owCols);
    tile.cols = k.min(k.index(tn), k.sub(k.index(s.og), tile.o0));
    return tile;
  }

  /// The cube launch: every output tile's sums into `sums` ([N, OH, OW,
  /// O], f32).
  void buildProducts(Value input, Value sums) {
    int64_t ohTiles = llvm::divideCeil(s.oh, tileRows);
    int64_t owTiles = llvm::divideCeil(s.ow, tileCols);
    int64_t oTiles = llvm::divideCeil(s.og, tn);
    int64_t tiles = s.n * ohTiles * owTiles * s.groups * oTiles;
    int64_t cBlocks = llvm::divideCeil(s.i, tk);
    int64_t steps = s.kh * s.kw * cBlocks;
    int64_t items = tiles * splits;
    int64_t tasks =
        std::min<int64_t>(device.getNumCores(dev::CoreKind::cube), items);
    int64_t pixelCount = s.n * s.oh * s.ow;
    dev::LaunchOp launch = k.launch(
        tasks,
        [&](Value task) {
          Value a = k.alloc({tileRows, tileCols, tk}, element,
                            dev::MemorySpace::cube);
          Value b = k.alloc({tn, tk}, element, dev::MemorySpace::cube);
          Value c =
              k.alloc({tileRows * tileCols, tn}, f32, dev::MemorySpace::cube);
          // The sums as [pixels, channels] (per split): a tile's pixels are
          // consecutive rows.
          Value pixels = k.reshape(sums, {splits * pixelCount, s.o});
          k.forEachItem(task, tasks, items, [&](Value item) {
            // Split `part` of the tile sums steps [first, last), a balanced
            // share that is never empty.
            Value t = k.div(item, k.index(splits));
            Value part = k.rem(item, k.index(splits));
            Value first = k.div(k.mul(part, k.index(steps)), k.index(splits));
            Value last = k.div(k.mul(k.add(part, k.index(1)), k.index(steps)),
                               k.index(splits));
            Tile tile = decodeTile(t, ohTiles, owTiles, oTiles);
            Value zero = k.index(0);
            Value sum = k.window(c, {zero, zero}, {tile.pixels, tile.cols});
            k.forLoop(first, last, k.index(1), [&](Value j) {
              step(input, tile, a, b, sum, j, first, cBlocks);
            });
            Value row = k.add(
                k.mul(k.add(k.mul(k.add(k.mul(part, k.index(s.n)), tile.n),
                                  k.index(s.oh)),
                            tile.oh0),
                      k.index(s.ow)),
                tile.ow0);
            Value channel = k.add(k.mul(tile.group, k.index(s.og)), tile.o0);
            k.dma(sum,
                  k.window(pixels, {row, channel}, {tile.pixels, tile.cols}));
          });
        },
        dev::CoreKind::cube);
    OpBuilder &b = k.builder();
    KernelBuilder::recordTiling(
        launch, {b.getNamedAttr("strategy", b.getStringAttr("conv2d")),
                 b.getNamedAttr("step", b.getStringAttr("implicit_gemm")),
                 b.getNamedAttr("tile_rows", b.getI64IntegerAttr(tileRows)),
                 b.getNamedAttr("tile_cols", b.getI64IntegerAttr(tileCols)),
                 b.getNamedAttr("tile_n", b.getI64IntegerAttr(tn)),
                 b.getNamedAttr("tile_k", b.getI64IntegerAttr(tk)),
                 b.getNamedAttr("splits", b.getI64IntegerAttr(splits))});
  }

  /// Step j of a tile: tap (kh, kw) and block cb of its input channels;
  /// step `first` (of the tile's split) starts the sum.
  void step(Value input, const Tile &tile, Value a, Value b, Value sum, Value j,
            Value first, int64_t cBlocks) {
    Value zero = k.index(0);
    Value tap = k.div(j, k.index(cBlocks));
    Value cb = k.rem(j, k.index(cBlocks));
    Value kh = k.div(tap, k.index(s.kw));
    Value kw = k.rem(tap, k.index(s.kw));
    Value c0 = k.mul(cb, k.index(tk));
    Value depth = k.min(k.index(tk), k.sub(k.index(s.i), c0));
    OpFoldResult one = k.builder().getIndexAttr(1);
    // A: rows ih = (oh0 + r) sh + kh dh, columns iw = (ow0 + q) sw + kw dw.
    Value ih = k.add(k.mul(tile.oh0, k.index(s.strideH)),
                     k.mul(kh, k.index(s.dilationH)));
    Value iw = k.add(k.mul(tile.ow0, k.index(s.strideW)),
                     k.mul(kw, k.index(s.dilationW)));
    Value inChannel = k.add(k.mul(tile.group, k.index(s.i)), c0);
    Value aRows =
        k.window(a, {zero, zero, zero}, {tile.ohRows, tile.owCols, depth});
    k.dma(k.window(input, {tile.n, ih, iw, inChannel},
                   {one, tile.ohRows, tile.owCols, depth},
                   {1, s.strideH, s.strideW, 1}, {0}),
          aRows);
    // The rows are whole (or one), so the pixels are one matrix.
    Value aTile = k.builder().create<memref::CollapseShapeOp>(
        k.location(), aRows, ArrayRef<ReassociationIndices>{{0, 1}, {2}});
    // B: filter[group og + o0 .., kh, kw, c0 ..] as [cols, depth].
    Value outChannel = k.add(k.mul(tile.group, k.index(s.og)), tile.o0);
    Value bTile = k.window(b, {zero, zero}, {tile.cols, depth});
    k.dma(k.window(io.operands[1], {outChannel, kh, kw, c0},
                   {tile.cols, one, one, depth}, {1, 2}),
          bTile);
    k.matmulSum(aTile, bTile, sum, k.eq(j, first), /*transposeA=*/false,
                /*transposeB=*/true);
  }

  KernelBuilder &k;
  Conv2DOp op;
  const KernelOperands &io;
  ConvShape s;
  const DeviceModel &device;
  Type element, f32;
  int64_t tileRows = 1, tileCols = 1, tn = 1, tk = 1, splits = 1;
};

struct Conv2DKernelModel
    : DeviceKernelOpInterface::ExternalModel<Conv2DKernelModel, Conv2DOp> {
  /// Input, bias and result are read and written in place. A depthwise
  /// filter ([C, KH, KW, 1]) stored aligned holds one value per 64-element
  /// row: the vector kernel reads it as a [C, taps] matrix, so it takes a
  /// dense copy (one small repack) rather than a line per value per tile.
  bool readsAlignedStorage(Operation *op, Value value) const {
    auto conv = cast<Conv2DOp>(op);
    return value != conv.getFilter() || !isDepthwiseFilter(conv);
  }

  LogicalResult buildDeviceKernels(Operation *op, OpBuilder &b,
                                   const KernelOperands &io,
                                   const DeviceModel &device,
                                   const KernelOptions &) const {
    auto conv = cast<Conv2DOp>(op);
    ConvShape shape = getConvShape(conv);
    // An empty result has nothing to compute.
    if (shape.n * shape.oh * shape.ow * shape.o == 0)
      return success();
    KernelBuilder k(b, op->getLoc());
    if (shape.isDepthwise())
      return buildDepthwiseConv2D(k, conv, shape, io, device);
    ConvKernel kernel(k, conv, io, shape, device);
    if (failed(kernel.chooseTiles()))
      return failure();
    kernel.build();
    return success();
  }
};

} // namespace

void npu::registerConvKernelModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, NPUDialect *) {
    Conv2DOp::attachInterface<Conv2DKernelModel>(*ctx);
  });
}
