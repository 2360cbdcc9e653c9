//===- SparseConvKernels.cpp - sparse_conv3d on the device ----------------===//
//
// out[o] = sum over offsets k and pairs (i, o) of k of features[i] x W[k],
// in the op's fixed order (docs/sparse-conv.md):
//  0. a pair table that is not a get_indice_pairs' of the same function is
//     input data: a vector launch checks it first (each count in [0, L],
//     each listed row inside the features or the output) and reports the
//     offset that breaks a rule, so no later launch reads past the table
//     or the features;
//  1. a launch zero-fills the num_act_out output rows (past the centre's
//     count when the centre pairs each row with itself, see 2: for a
//     submanifold table that is none of them);
//  2. one launch per offset, in order (subm: offset K / 2 first), so
//     that the additions into each output row happen in that order. Within
//     one offset every output row appears in at most one pair (an offset
//     maps sites one to one), so tasks take chunks of M pairs in any order
//     without changing a bit. These launches run on cube cores: each task
//     gathers its chunk's input rows into cube memory (dma_gather),
//     multiplies them by W[k] on the cube unit (W[k] kept in cube memory
//     for the whole launch) and scatter-adds the product rows into the
//     output (dma_scatter add). Where the geometry proves that offset
//     K / 2 pairs each row with itself (the pairs of a submanifold
//     get_indice_pairs with odd kernel extents), that first offset moves
//     its rows by plain DMA both ways: the product is written over the
//     zeros, which is the same bits as adding it (a product accumulated
//     from +0 is never -0). Otherwise it goes through its pairs too.
// f16 and bf16 features and weights accumulate in f32: products and sums
// go to an f32 copy of the output in global memory, rounded once into the
// output by a last launch (vector cores, as the zero fill). M is the
// largest chunk whose rows and products fit cube memory (vector memory for
// the fill and the rounding). Work O(sum(indice_num) * Cin * Cout); every
// feature row crosses DMA once per pair.
//
//===----------------------------------------------------------------------===//

#include "OperatorKernels.h"
#include "npu/Conversion/DeviceKernelOpInterface.h"
#include "npu/Device/DeviceModel.h"
#include "npu/Dialect/NPU/NPUOps.h"
#include "npu/Dialect/NPUDev/KernelBuilder.h"

using namespace mlir;
using namespace npu;
using namespace npu::graph;

namespace {

struct SparseConvLowering {
  KernelBuilder &k;
  SparseConv3DOp op;
  Value features, weights, pairs, pairCounts, numActOut, output;
  /// Where the sums go: the output itself (f32) or an f32 copy of it.
  Value sums;
  /// Rows per chunk and tasks of the cube launches (offsets) and of the
  /// vector launches (zero fill, rounding).
  int64_t cubeChunk, cubeTasks, vectorChunk, vectorTasks, tableChunk;
  int64_t offsets, cin, cout;
  Type element, f32, i32;

  SparseConvLowering(KernelBuilder &k, SparseConv3DOp op,
                     const KernelOperands &io, const DeviceModel &device)
      : k(k), op(op) {
    SparseConv3DOp::Adaptor in(io.operands, op);
    features = in.getFeatures();
    weights = in.getWeights();
    pairs = in.getIndicePairs();
    pairCounts = in.getIndiceNum();
    numActOut = in.getNumActOut();
    output = io.results[0];
    auto shape = [](Value v) {
      return cast<MemRefType>(v.getType()).getShape();
    };
    offsets = shape(weights)[0];
    cin = shape(weights)[1];
    cout = shape(weights)[2];
    element = cast<MemRefType>(features.getType()).getElementType();
    f32 = Float32Type::get(op.getContext());
    i32 = IntegerType::get(op.getContext(), 32);
    // Per chunk row: gathered features, f32 product, two indices beside
    // W[k] in cube memory; the rounding launch holds an f32 and an output
    // row in vector memory; the table check six i32. No chunk is larger
    // than the rows there are (a device with gigabytes of on-chip memory
    // must not allocate them for four sites).
    int64_t elementBytes = element.getIntOrFloatBitWidth() / 8;
    int64_t weightBytes = elementBytes * cin * cout;
    // A size read at run time bounds nothing here.
    auto rowsOrAny = [](int64_t rows) {
      return ShapedType::isDynamic(rows) ? std::numeric_limits<int64_t>::max()
                                         : std::max<int64_t>(1, rows);
    };
    int64_t tableRows = rowsOrAny(shape(pairs)[2]);
    int64_t outputRows = rowsOrAny(shape(output)[0]);
    cubeChunk = std::clamp<int64_t>((device.cubeBytes - weightBytes) /
                                        (elementBytes * cin + 4 * cout + 8),
                                    1, tableRows);
    vectorChunk = std::clamp<int64_t>(
        device.vectorBytes / ((4 + elementBytes) * std::max<int64_t>(1, cout)),
        1, outputRows);
    tableChunk = std::clamp<int64_t>(device.vectorBytes / 24, 1, tableRows);
    cubeTasks = device.getNumCores(dev::CoreKind::cube);
    vectorTasks = device.getNumCores(dev::CoreKind::vector);
  }

  /// for (j = tid * M; j < n; j += tasks * M) body(j, min(M, n - j)), with
  /// M and tasks those of cube or vector launches.
  void forEachChunk(Value tid, Value n, bool cube,
                    function_ref<void(Value, Value)> body) {
    forEachChunk(tid, k.index(0), n, cube, body);
  }

  /// The same over rows [first, n) (none when first >= n).
  void forEachChunk(Value tid, Value first, Value n, bool cube,
                    function_ref<void(Value, Value)> body) {
    int64_t chunk = cube ? cubeChunk : vectorChunk;
    int64_t tasks = cube ? cubeTasks : vectorTasks;
    k.forLoop(k.add(first, k.mul(tid, k.index(chunk))), n,
              k.index(tasks * chunk),
              [&](Value j) { body(j, k.min(k.index(chunk), k.sub(n, j))); });
  }

  Value rowsOf(Value memref, Value first, Value count, int64_t width) {
    return k.window(memref, {first, k.index(0)},
                    {count, k.builder().getIndexAttr(width)});
  }

  void record(dev::LaunchOp launch, StringRef step) {
    bool cube = launch.getCores() == dev::CoreKind::cube;
    KernelBuilder::recordStep(launch, "gather_matmul", step, "chunk",
                              cube ? cubeChunk : vectorChunk);
  }

  /// Zero-fills the output rows the first offset does not write: all of
  /// them, or with a centre that pairs each row with itself (whose
  /// products are written, not added) the rows past its count, none for a
  /// submanifold table.
  void buildZeroFill(bool afterCentreIdentity) {
    auto launch = k.launch(vectorTasks, [&](Value tid) {
      Value zeros = k.alloc({vectorChunk, cout}, f32);
      k.vfill(zeros, k.f32(0.0));
      Value first = afterCentreIdentity
                        ? k.toIndex(k.load(pairCounts, k.index(offsets / 2)))
                        : k.index(0);
      forEachChunk(tid, first, numActOut, /*cube=*/false,
                   [&](Value j, Value size) {
                     k.dma(rowsOf(zeros, k.index(0), size, cout),
                           rowsOf(sums, j, size, cout));
                   });
    });
    record(launch, "zero_fill");
  }

  /// output = sums rounded to the output's element type.
  void buildRounding() {
    auto launch = k.launch(vectorTasks, [&](Value tid) {
      Value wide = k.alloc({vectorChunk, cout}, f32);
      Value narrow = k.alloc({vectorChunk, cout}, element);
      forEachChunk(tid, numActOut, /*cube=*/false, [&](Value j, Value size) {
        Value from = rowsOf(wide, k.index(0), size, cout);
        Value to = rowsOf(narrow, k.index(0), size, cout);
        k.dma(rowsOf(sums, j, size, cout), from);
        k.vcast(from, to);
        k.dma(to, rowsOf(output, j, size, cout));
      });
    });
    record(launch, "round");
  }

  /// The pairs of offset `kk` (an index), gathered along `from`, added
  /// along `to`; `identity` for a subm centre proven to pair each row
  /// with itself (isCentreIdentity), which runs first.
  void buildOffset(Value kk, bool identity) {
    auto launch = k.launch(
        cubeTasks,
        [&](Value tid) {
          auto cubeBuffer = [&](ArrayRef<int64_t> shape, Type type) {
            return k.alloc(shape, type, dev::MemorySpace::cube);
          };
          Value weight = cubeBuffer({cin, cout}, element);
          Value gathered = cubeBuffer({cubeChunk, cin}, element);
          Value product = cubeBuffer({cubeChunk, cout}, f32);
          Value source = identity ? Value() : cubeBuffer({cubeChunk}, i32);
          Value target = identity ? Value() : cubeBuffer({cubeChunk}, i32);
          OpBuilder &b = k.builder();
          k.dma(k.window(weights, {kk, k.index(0), k.index(0)},
                         {b.getIndexAttr(1), b.getIndexAttr(cin),
                          b.getIndexAttr(cout)},
                         {0}),
                weight);
          Value count = k.toIndex(k.load(pairCounts, kk));
          int64_t from = op.getInverse() ? 1 : 0;
          forEachChunk(tid, count, /*cube=*/true, [&](Value j, Value size) {
            Value in = rowsOf(gathered, k.index(0), size, cin);
            Value prod = rowsOf(product, k.index(0), size, cout);
            if (identity) {
              k.dma(rowsOf(features, j, size, cin), in);
              b.create<dev::MatmulOp>(k.location(), in, weight, prod,
                                      /*accumulate=*/false);
              k.dma(prod, rowsOf(sums, j, size, cout));
              return;
            }
            Value src = k.window(source, {k.index(0)}, {size});
            Value to = k.window(target, {k.index(0)}, {size});
            k.dma(pairSpan(kk, from, j, size), src);
            k.dma(pairSpan(kk, 1 - from, j, size), to);
            k.dmaGather(features, src, in);
            b.create<dev::MatmulOp>(k.location(), in, weight, prod,
                                    /*accumulate=*/false);
            k.dmaScatter(prod, sums, to, /*add=*/true);
          });
        },
        dev::CoreKind::cube);
    record(launch, identity ? "centre" : "offset");
  }

  /// indice_pairs[kk, side, j : j + size].
  Value pairSpan(Value kk, int64_t side, Value j, Value size) {
    OpBuilder &b = k.builder();
    return k.window(pairs, {kk, k.index(side), j},
                    {b.getIndexAttr(1), b.getIndexAttr(1), size}, {0, 1});
  }

  void build(Value rowCount) {
    if (rowCount)
      k.store(k.convert(numActOut, k.builder().getI64Type()), rowCount,
              {k.index(0)});
    sums = output;
    if (element != f32) {
      auto type = cast<MemRefType>(output.getType());
      SmallVector<Value> sizes;
      for (unsigned d = 0; d < type.getRank(); ++d)
        if (type.isDynamicDim(d))
          sizes.push_back(k.dim(output, d));
      sums = k.builder().create<memref::AllocOp>(
          k.location(),
          MemRefType::get(type.getShape(), f32, MemRefLayoutAttrInterface(),
                          type.getMemorySpace()),
          sizes);
    }
    if (!getTableProducer())
      buildTableChecks();
    else if (!op.getInverse())
      checkFeatureRows();
    buildZeroFill(offsets > 0 && isCentreIdentity());
    buildOffsets();
    if (sums != output) {
      buildRounding();
      k.builder().create<memref::DeallocOp>(k.location(), sums);
    }
  }

  /// The get_indice_pairs whose results the pair table and its counts
  /// both are (valid by construction), or null.
  GetIndicePairsOp getTableProducer() {
    auto producer = op.getIndicePairs().getDefiningOp<GetIndicePairsOp>();
    if (!producer || op.getIndiceNum().getDefiningOp() != producer)
      return {};
    return producer;
  }

  /// A table from get_indice_pairs lists rows below its L: the features
  /// must have those rows, which the verifier checks unless a size is read
  /// at run time.
  void checkFeatureRows() {
    auto type = [](Value v) { return cast<MemRefType>(v.getType()); };
    if (!type(features).isDynamicDim(0) && !type(pairs).isDynamicDim(2))
      return;
    k.checkSizes({{features, 0, pairs, 2,
                   "'npu.sparse_conv3d' features has {row} rows, the pair "
                   "table's get_indice_pairs a different number of sites"}});
  }

  /// Fails the kernel, naming the offset, where indice_num[k] is outside
  /// [0, L] or one of the first indice_num[k] pairs of offset k lists a
  /// gathered row outside the features or a scattered row outside the
  /// output. One task per offset in turn; O(sum(indice_num)) work.
  void buildTableChecks() {
    int64_t staticRows = cast<MemRefType>(pairs.getType()).getShape()[2];
    std::string tableRows =
        ShapedType::isDynamic(staticRows) ? "L" : std::to_string(staticRows);
    Value featureRows = k.dim(features, 0);
    Value rowsInTable = k.dim(pairs, 2);
    int64_t from = op.getInverse() ? 1 : 0;
    auto launch = k.launch(vectorTasks, [&](Value tid) {
      int64_t chunk = tableChunk;
      Value entries = k.alloc({chunk}, i32), bad = k.alloc({chunk}, i32);
      Value scratch = k.alloc({chunk}, i32), rows = k.alloc({chunk}, i32);
      Value none = k.alloc({chunk}, i32), offsetRow = k.alloc({chunk}, i32);
      k.vfill(none, -1);
      auto report = [&](Value size, const Twine &rule) {
        Value window = k.window(rows, {k.index(0)}, {size});
        k.vselect(k.window(bad, {k.index(0)}, {size}),
                  k.window(offsetRow, {k.index(0)}, {size}),
                  k.window(none, {k.index(0)}, {size}), window);
        k.reportRows(window, ("'npu.sparse_conv3d' " + rule).str());
      };
      // bad = 1 where `in` is outside [0, bound).
      auto markOutside = [&](Value in, Value bound, Value size) {
        Value b = k.window(bad, {k.index(0)}, {size});
        Value t = k.window(scratch, {k.index(0)}, {size});
        k.vcmpScalar(dev::ComparePredicate::lt, in, k.index(0), b);
        k.vcmpScalar(dev::ComparePredicate::ge, in, bound, t);
        k.vbinary(dev::BinaryKind::Or, b, t, b);
      };
      k.forEachItem(tid, vectorTasks, offsets, [&](Value kk) {
        k.vfill(offsetRow, k.convert(kk, i32));
        Value count = k.toIndex(k.load(pairCounts, kk));
        Value one = k.index(1);
        Value first = k.window(entries, {k.index(0)}, {one});
        k.vfill(first, k.convert(count, i32));
        markOutside(first, k.add(rowsInTable, one), one);
        report(one,
               "indice_num[{row}] is outside [0, " + Twine(tableRows) + "]");
        Value listed = k.min(k.max(count, k.index(0)), rowsInTable);
        auto checkSide = [&](int64_t side, Value bound, StringRef rule) {
          k.forLoop(k.index(0), listed, k.index(chunk), [&](Value j) {
            Value size = k.min(k.index(chunk), k.sub(listed, j));
            Value in = k.window(entries, {k.index(0)}, {size});
            k.dma(pairSpan(kk, side, j, size), in);
            markOutside(in, bound, size);
            report(size, "indice_pairs offset {row} " + rule);
          });
        };
        checkSide(from, featureRows, "gathers a row outside the features");
        checkSide(1 - from, numActOut,
                  "scatters to a row outside [0, num_act_out)");
      });
    });
    record(launch, "check_table");
  }

  /// Whether offset K / 2 pairs every row with itself, in row order: the
  /// pairs are a submanifold get_indice_pairs' whose geometry maps each
  /// site to itself through that offset. An even kernel extent has no
  /// such offset, and a table from elsewhere proves nothing.
  bool isCentreIdentity() {
    GetIndicePairsOp producer = getTableProducer();
    if (!op.getSubm() || !producer || !producer.getSubm())
      return false;
    std::optional<int64_t> identity =
        producer.getGeometry().getIdentityOffset();
    return identity == offsets / 2;
  }

  /// The offsets' launches in the op's order.
  void buildOffsets() {
    if (offsets == 0)
      return;
    int64_t centre = offsets / 2;
    if (op.getSubm())
      buildOffset(k.index(centre), isCentreIdentity());
    // The other offsets in ascending order (all of them without subm).
    auto offsetRange = [&](int64_t lo, int64_t hi) {
      if (lo < hi)
        k.forLoop(k.index(lo), k.index(hi), k.index(1),
                  [&](Value kk) { buildOffset(kk, /*identity=*/false); });
    };
    if (op.getSubm()) {
      offsetRange(0, centre);
      offsetRange(centre + 1, offsets);
    } else {
      offsetRange(0, offsets);
    }
  }
};

} // namespace

namespace {

struct SparseConvKernelModel
    : DeviceKernelOpInterface::ExternalModel<SparseConvKernelModel,
                                             SparseConv3DOp> {
  /// One row per output site: as many as num_act_out says.
  bool hasDataDependentRows(Operation *, unsigned) const { return true; }

  /// num_act_out's bound.
  FailureOr<SizeBound> getResultRowBound(
      Operation *op, unsigned,
      function_ref<std::optional<SizeBound>(Value)> indexBound,
      function_ref<std::optional<SizeBound>(Value, unsigned)>) const {
    if (std::optional<SizeBound> bound =
            indexBound(cast<SparseConv3DOp>(op).getNumActOut()))
      return *bound;
    return op->emitOpError("cannot be lowered to the device: num_act_out has "
                           "no known upper bound (use tensor.dim of "
                           "get_indice_pairs' out_indices or a constant)");
  }

  /// The rows of the features, the pair table and the output may be read
  /// at run time; the weights and the table's other sizes may not.
  bool takesRunTimeSizes(Operation *) const { return true; }

  LogicalResult buildDeviceKernels(Operation *op, OpBuilder &b,
                                   const KernelOperands &io,
                                   const DeviceModel &device,
                                   const KernelOptions &) const {
    auto conv = cast<SparseConv3DOp>(op);
    for (Value value : {conv.getWeights(), conv.getIndiceNum()})
      if (!cast<ShapedType>(value.getType()).hasStaticShape())
        return op->emitOpError("cannot be lowered to the device: ")
               << value.getType()
               << " has a dynamic size; only the number of sites may be "
                  "dynamic";
    KernelBuilder k(b, op->getLoc());
    SparseConvLowering(k, conv, io, device).build(io.rowCounts[0]);
    return success();
  }
};

} // namespace

void npu::registerSparseConvKernelModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, NPUDialect *) {
    SparseConv3DOp::attachInterface<SparseConvKernelModel>(*ctx);
  });
}
