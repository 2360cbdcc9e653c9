//===- ElementwiseKernels.cpp - elementwise graph ops on the vector cores -===//
//
// Unary ops, cast, binary ops with numpy broadcasting (pow, equal and the
// three-operand select too), the vector-scalar family, reshape (a copy of
// the elements in order, a tile in and out) and expand (its operand's
// broadcast spread over the tile), as one kernel: the result,
// viewed as [rows, W], is cut into tiles of [R, C] elements (R whole rows when
// a row fits a tile, else one row in pieces of C) dealt to the vector tasks in
// turn. Per tile each operand is copied in, the op's vector sequence runs and
// the tile is copied out: a plain tile loop, which npu-pipeline-dma turns into
// a pipeline.
//
// W is the longest suffix of the result's shape over which every operand is
// either whole (its sizes are the result's) or broadcast (size 1). A whole
// operand is read a tile at a time; a broadcast one as one element per row,
// spread along the row (vbinary_broadcast); an operand of one element as a
// scalar. Over the leading dimensions an operand may be broadcast only
// before it is whole ([C, H, W] onto [N, C, H, W], [1, C, 1, 1] onto
// [N, C, H, W]): result row r reads its row r mod (its rows), in runs. When
// no split gives every operand that form, any leading broadcast is read row
// by row, the digits of result row r selecting the operand's row ([64, 1,
// 49, 49] onto [1, 64, 3, 49, 49], Swin's attention mask); a row repeated
// by a broadcast over the innermost leading dimensions is copied once per
// run of result rows and spread on chip.
// Work O(elements); each operand element crosses DMA once per result row
// (or run of rows) that reads it (once, but for the leading broadcasts).
//
//===----------------------------------------------------------------------===//

#include "CopyKernels.h"
#include "OperatorKernels.h"

#include "npu/Conversion/DeviceKernelOpInterface.h"
#include "npu/Device/DeviceModel.h"
#include "npu/Dialect/NPU/NPUDialect.h"
#include "npu/Dialect/NPU/NPUOps.h"
#include "npu/Dialect/NPUDev/KernelBuilder.h"

#include "mlir/Dialect/Utils/IndexingUtils.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace npu;
using namespace npu::graph;

namespace {

//===----------------------------------------------------------------------===//
// The [rows, W] view
//===----------------------------------------------------------------------===//

/// How an operand stands over a range of the result's dimensions: whether
/// its sizes are the result's, and whether they are 1 (a dimension of size
/// 1 in the result, or an empty range, is both).
struct Span {
  bool whole = true, broadcast = true;
};

Span classifySpan(ArrayRef<int64_t> shape, ArrayRef<int64_t> result,
                  int64_t from, int64_t to) {
  int64_t missing = result.size() - shape.size();
  Span span;
  for (int64_t d = from; d < to; ++d) {
    if (result[d] == 1)
      continue;
    int64_t size = d < missing ? 1 : shape[d - missing];
    span.whole &= size == result[d];
    span.broadcast &= size == 1;
  }
  return span;
}

/// How a kernel reads one operand.
struct OperandAccess {
  enum Kind {
    /// [rows, W] tiles.
    Rows,
    /// One element per row, spread along the row.
    PerRow,
    /// One element for all.
    Scalar
  } kind;
  /// The operand's own rows: result row r reads row r mod `rows`.
  int64_t rows = 1;
  /// For a broadcast among the leading dimensions that is not of that form
  /// (a dimension broadcast between kept ones): per leading dimension of
  /// the result, its size and the operand's row stride (0 where it is
  /// broadcast). Result row r, as digits over the sizes, reads the
  /// operand row sum(digit * stride). Empty otherwise.
  SmallVector<int64_t> leadSizes, leadStrides;
};

/// The result as [rows, width] and how each operand is read, or failure
/// when an operand's broadcast is not of the forms above.
struct ElementwiseShape {
  int64_t rows = 1, width = 1;
  SmallVector<OperandAccess> operands;
};

/// Whether an operand of `shape` can be read with the split at `split`;
/// fills `access`. `anyLeading` admits any leading broadcast (rows then
/// come one by one).
bool accessAtSplit(ArrayRef<int64_t> shape, ArrayRef<int64_t> result,
                   int64_t split, bool anyLeading, OperandAccess &access) {
  int64_t rank = result.size();
  if (computeProduct(shape) == 1) {
    access = {OperandAccess::Scalar, 1};
    return true;
  }
  Span inner = classifySpan(shape, result, split, rank);
  if (!inner.whole && !inner.broadcast)
    return false;
  access.kind = inner.whole ? OperandAccess::Rows : OperandAccess::PerRow;
  // Leading dimensions: broadcast in [0, whole), whole in [whole, split).
  int64_t whole = split;
  while (whole > 0 && classifySpan(shape, result, whole - 1, split).whole)
    --whole;
  if (classifySpan(shape, result, 0, whole).broadcast) {
    access.rows = computeProduct(result.slice(whole, split - whole));
    return true;
  }
  if (!anyLeading)
    return false;
  // Any other mix: each leading dimension either whole or broadcast.
  int64_t missing = result.size() - shape.size();
  access.leadSizes.assign(result.begin(), result.begin() + split);
  access.leadStrides.assign(split, 0);
  int64_t stride = 1;
  for (int64_t d = split - 1; d >= 0; --d) {
    int64_t size = d < missing ? 1 : shape[d - missing];
    if (size != 1)
      access.leadStrides[d] = stride;
    stride *= size;
  }
  access.rows = stride;
  return true;
}

/// The result as [rows, width]. With `keepRows` (an operand or the result
/// stored with padded rows, viewed in place) the width is the innermost
/// dimension, which a padded view cannot merge with others; failure when
/// an operand cannot be read so in runs of rows (copying rows one by one
/// costs more than repacking).
FailureOr<ElementwiseShape> getElementwiseShape(Operation *op,
                                                bool keepRows = false) {
  auto result = cast<ShapedType>(op->getResult(0).getType()).getShape();
  int64_t rank = result.size();
  if (keepRows && rank == 0)
    return failure();
  // A reshape copies its elements in order: one row of all of them.
  if (isa<ReshapeOp>(op)) {
    ElementwiseShape s;
    s.width = computeProduct(result);
    s.operands.push_back({OperandAccess::Rows, 1});
    return s;
  }
  // The widest rows whose leading broadcasts are copies in runs, else the
  // widest with rows copied one by one (at split = rank every operand fits).
  for (bool anyLeading : {false, true}) {
    if (anyLeading && keepRows)
      break;
    for (int64_t split = keepRows ? rank - 1 : 0;
         split <= (keepRows ? rank - 1 : rank); ++split) {
      ElementwiseShape s;
      s.rows = computeProduct(result.take_front(split));
      s.width = computeProduct(result.drop_front(split));
      bool fits = true;
      for (Value operand : op->getOperands()) {
        OperandAccess access{OperandAccess::Rows};
        fits &= accessAtSplit(cast<ShapedType>(operand.getType()).getShape(),
                              result, split, anyLeading, access);
        s.operands.push_back(access);
      }
      if (fits)
        return s;
    }
  }
  if (keepRows)
    return failure();
  llvm_unreachable("every operand fits rows of one element");
}

/// Whether reshape `op` keeps its innermost dimension.
bool keepsInnermostDimension(Operation *op) {
  auto in = cast<ShapedType>(op->getOperand(0).getType());
  auto out = cast<ShapedType>(op->getResult(0).getType());
  return in.getRank() > 0 && out.getRank() > 0 &&
         in.getShape().back() == out.getShape().back();
}

/// Whether `op` reads or writes a value stored with padded rows.
bool touchesPaddedRows(Operation *op) {
  auto padded = [](Type type) { return getPaddedRowLength(type).has_value(); };
  return llvm::any_of(op->getOperandTypes(), padded) ||
         llvm::any_of(op->getResultTypes(), padded);
}

/// Whether one of `memrefs` is a strided view (a value with padded rows).
bool anyStridedView(ArrayRef<Value> memrefs) {
  return llvm::any_of(memrefs, [](Value v) {
    auto type = dyn_cast<MemRefType>(v.getType());
    return type && !type.getLayout().isIdentity();
  });
}

//===----------------------------------------------------------------------===//
// The ops' vector sequences
//===----------------------------------------------------------------------===//

/// The vector unit's binary kind of a binary or vector-scalar op.
std::optional<dev::BinaryKind> getBinaryKind(Operation *op) {
  return TypeSwitch<Operation *, std::optional<dev::BinaryKind>>(op)
      .Case<AddOp, VSAddOp>([](auto) { return dev::BinaryKind::add; })
      .Case<SubOp, VSSubOp>([](auto) { return dev::BinaryKind::sub; })
      .Case<MulOp, VSMulOp>([](auto) { return dev::BinaryKind::mul; })
      .Case<DivOp, VSDivOp>([](auto) { return dev::BinaryKind::div; })
      .Case<MaxOp, VSMaxOp>([](auto) { return dev::BinaryKind::max; })
      .Case<MinOp, VSMinOp>([](auto) { return dev::BinaryKind::min; })
      .Case<AndOp>([](auto) { return dev::BinaryKind::And; })
      .Case<OrOp>([](auto) { return dev::BinaryKind::Or; })
      .Default([](Operation *) { return std::nullopt; });
}

bool isCommutative(dev::BinaryKind kind) {
  return llvm::is_contained({dev::BinaryKind::add, dev::BinaryKind::mul,
                             dev::BinaryKind::And, dev::BinaryKind::Or},
                            kind);
}

/// The vector unit's predicate of a comparison op.
dev::ComparePredicate getComparePredicate(Operation *op) {
  return TypeSwitch<Operation *, dev::ComparePredicate>(op)
      .Case([](EqualOp) { return dev::ComparePredicate::eq; })
      .Case([](LessOp) { return dev::ComparePredicate::lt; })
      .Case([](LessEqualOp) { return dev::ComparePredicate::le; })
      .Case([](GreaterOp) { return dev::ComparePredicate::gt; })
      .Case([](GreaterEqualOp) { return dev::ComparePredicate::ge; });
}

/// out = f(in) for a unary op, `tmp` a tile for the steps between.
void emitUnary(KernelBuilder &k, Operation *op, Value in, Value tmp,
               Value out) {
  Type element = cast<MemRefType>(out.getType()).getElementType();
  auto c = [&](double v) {
    return isa<FloatType>(element)
               ? k.floatConstant(element, v)
               : k.constant(element, static_cast<int64_t>(v));
  };
  auto scalar = [&](dev::BinaryKind kind, Value x, double v, Value y) {
    k.vbinaryScalar(kind, x, c(v), y);
  };
  using BK = dev::BinaryKind;
  auto clamp01 = [&](Value x) {
    scalar(BK::max, x, 0, x);
    scalar(BK::min, x, 1, x);
  };
  TypeSwitch<Operation *>(op)
      .Case([&](ReluOp) { k.vunary(dev::UnaryKind::relu, in, out); })
      .Case([&](NegOp) { k.vunary(dev::UnaryKind::neg, in, out); })
      .Case([&](AbsOp) { k.vunary(dev::UnaryKind::abs, in, out); })
      .Case([&](ExpOp) { k.vunary(dev::UnaryKind::exp, in, out); })
      .Case([&](LogOp) { k.vunary(dev::UnaryKind::log, in, out); })
      .Case([&](TanhOp) { k.vunary(dev::UnaryKind::tanh, in, out); })
      .Case([&](SigmoidOp) { k.vunary(dev::UnaryKind::sigmoid, in, out); })
      .Case([&](ErfOp) { k.vunary(dev::UnaryKind::erf, in, out); })
      .Case([&](SqrtOp) { k.vunary(dev::UnaryKind::sqrt, in, out); })
      .Case([&](RsqrtOp) { k.vunary(dev::UnaryKind::rsqrt, in, out); })
      .Case([&](NotOp) { k.vbinaryScalar(BK::Xor, in, c(1), out); })
      .Case([&](ClipOp clip) {
        scalar(BK::max, in, clip.getMin().convertToDouble(), out);
        scalar(BK::min, out, clip.getMax().convertToDouble(), out);
      })
      .Case([&](HardSigmoidOp hs) {
        scalar(BK::mul, in, hs.getAlpha().convertToDouble(), out);
        scalar(BK::add, out, hs.getBeta().convertToDouble(), out);
        clamp01(out);
      })
      .Case([&](HardSwishOp) {
        // x * clamp(x / 6 + 1 / 2, 0, 1).
        scalar(BK::div, in, 6, tmp);
        scalar(BK::add, tmp, 0.5, tmp);
        clamp01(tmp);
        k.vbinary(BK::mul, tmp, in, out);
      })
      .Case([&](GeluOp) {
        // x / 2 * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 x^3))).
        k.vbinary(BK::mul, in, in, tmp);
        k.vbinary(BK::mul, tmp, in, tmp);
        scalar(BK::mul, tmp, 0.044715, tmp);
        k.vbinary(BK::add, tmp, in, tmp);
        scalar(BK::mul, tmp, std::sqrt(2 / M_PI), tmp);
        k.vunary(dev::UnaryKind::tanh, tmp, tmp);
        scalar(BK::add, tmp, 1, tmp);
        k.vbinary(BK::mul, tmp, in, tmp);
        scalar(BK::mul, tmp, 0.5, out);
      });
}

/// The exponent of a pow whose exponent is a graph constant the vector unit
/// raises to by multiplication or a square root: an integer in [-8, 8] (not
/// negative for an integer base) or +-1/2.
std::optional<double> getConstantExponent(PowOp op) {
  DenseElementsAttr exponent;
  if (!matchPattern(op.getRhs(), m_Constant(&exponent)) || !exponent.isSplat())
    return std::nullopt;
  double v;
  if (isa<FloatType>(exponent.getElementType())) {
    APFloat f = exponent.getSplatValue<APFloat>();
    bool lost;
    f.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
    v = f.convertToDouble();
  } else {
    v = double(exponent.getSplatValue<APInt>().getSExtValue());
  }
  bool floatBase = isa<FloatType>(getElementTypeOrSelf(op.getLhs().getType()));
  if (floatBase && std::abs(v) == 0.5)
    return v;
  if (v == std::trunc(v) && v <= 8 && v >= (floatBase ? -8 : 0))
    return v;
  return std::nullopt;
}

/// Scratch tiles an op's vector sequence needs beyond `out` and `tmp`, by
/// element type.
SmallVector<Type> getExtraTileTypes(Operation *op) {
  Type result = getElementTypeOrSelf(op->getResult(0).getType());
  Type input = getElementTypeOrSelf(op->getOperand(0).getType());
  // A float to integer cast clears NaNs and clamps in the input's type.
  if (isa<CastOp>(op) && isa<FloatType>(input) && !isa<FloatType>(result) &&
      result.getIntOrFloatBitWidth() > 1)
    return {input};
  // The general pow's integrality and sign masks, and the truncated exponent.
  if (auto pow = dyn_cast<PowOp>(op); pow && !getConstantExponent(pow))
    return {result, result, IntegerType::get(op->getContext(), 32)};
  return {};
}

/// The largest value of float type `type` not above `v` in magnitude.
Value floatTowardZero(KernelBuilder &k, Type type, double v) {
  APFloat f(v);
  bool lost;
  f.convert(cast<FloatType>(type).getFloatSemantics(), APFloat::rmTowardZero,
            &lost);
  return k.builder().create<arith::ConstantOp>(
      k.location(), k.builder().getFloatAttr(type, f));
}

/// out = in converted to out's element type. To i1: in != 0. Float to
/// integer: truncated toward zero, a NaN as 0 and values beyond the
/// integer's range clamped to it, so that both executors give the same
/// bits (the cast itself is undefined there). `scratch` has in's type.
void emitCast(KernelBuilder &k, Value in, Value out, Value scratch) {
  Type from = cast<MemRefType>(in.getType()).getElementType();
  Type to = cast<MemRefType>(out.getType()).getElementType();
  if (to.isInteger(1)) {
    Value zero =
        isa<FloatType>(from) ? k.floatConstant(from, 0) : k.constant(from, 0);
    k.vcmpScalar(dev::ComparePredicate::ne, in, zero, out);
    return;
  }
  if (!isa<FloatType>(from) || isa<FloatType>(to)) {
    k.vcast(in, out);
    return;
  }
  unsigned bits = to.getIntOrFloatBitWidth();
  double hi = std::ldexp(1.0, bits - 1);
  k.vcmp(dev::ComparePredicate::eq, in, in, out);
  k.vfill(scratch, k.floatConstant(from, 0));
  k.vselect(out, in, scratch, scratch);
  k.vbinaryScalar(dev::BinaryKind::max, scratch, floatTowardZero(k, from, -hi),
                  scratch);
  k.vbinaryScalar(dev::BinaryKind::min, scratch,
                  floatTowardZero(k, from, hi - 1), scratch);
  k.vcast(scratch, out);
}

/// out = x ^ n for a constant exponent (getConstantExponent).
void emitPowByConstant(KernelBuilder &k, Value x, double n, Value out) {
  Type element = cast<MemRefType>(out.getType()).getElementType();
  if (std::abs(n) == 0.5) {
    k.vunary(n > 0 ? dev::UnaryKind::sqrt : dev::UnaryKind::rsqrt, x, out);
    return;
  }
  int64_t m = std::abs(int64_t(n));
  if (m == 0) {
    k.vfill(out, isa<FloatType>(element) ? k.floatConstant(element, 1)
                                         : k.constant(element, 1));
    return;
  }
  if (m == 1)
    k.vcast(x, out);
  else
    k.vbinary(dev::BinaryKind::mul, x, x, out);
  for (int64_t i = 2; i < m; ++i)
    k.vbinary(dev::BinaryKind::mul, out, x, out);
  if (n < 0)
    k.vunary(dev::UnaryKind::recip, out, out);
}

/// out = x ^ y for float tiles, as ONNX Pow (numpy's power) defines it:
/// |x| ^ y = exp(y log |x|); a negative base gives NaN unless y is an
/// integer, and then the sign of (-1) ^ y; y = 0 gives 1. `masks` are two
/// tiles of out's type and an i32 tile.
void emitPow(KernelBuilder &k, Value x, Value y, Value tmp,
             ArrayRef<Value> masks, Value out) {
  using BK = dev::BinaryKind;
  using CP = dev::ComparePredicate;
  Type element = cast<MemRefType>(out.getType()).getElementType();
  auto c = [&](double v) { return k.floatConstant(element, v); };
  Value p = masks[0], q = masks[1], t = masks[2];
  k.vunary(dev::UnaryKind::abs, x, out);
  k.vunary(dev::UnaryKind::log, out, out);
  k.vbinary(BK::mul, out, y, out);
  k.vunary(dev::UnaryKind::exp, out, out);
  // Whether y is an integer, and its parity. Every float beyond 2^24 is an
  // even integer, so clamping there keeps both and the i32 cast in range.
  k.vbinaryScalar(BK::max, y, c(-16777216.0), p);
  k.vbinaryScalar(BK::min, p, c(16777216.0), p);
  k.vcast(p, t);
  k.vcast(t, q);
  k.vcmp(CP::ne, q, p, q);          // q: y is not an integer
  k.vcmpScalar(CP::lt, x, c(0), p); // p: x < 0
  k.vbinary(BK::mul, q, p, q);      // q: NaN here
  k.vbinaryScalar(BK::And, t,
                  k.constant(cast<MemRefType>(t.getType()).getElementType(), 1),
                  t);
  k.vcast(t, tmp);                 // tmp: y is odd
  k.vbinary(BK::mul, tmp, p, tmp); // tmp: negate here
  k.vbinaryScalar(BK::mul, tmp, c(-2), tmp);
  k.vbinaryScalar(BK::add, tmp, c(1), tmp);
  k.vbinary(BK::mul, out, tmp, out);
  k.vfill(p, c(std::nan("")));
  k.vselect(q, p, out, out);
  k.vcmpScalar(CP::eq, y, c(0), q);
  k.vfill(p, c(1));
  k.vselect(q, p, out, out);
}

//===----------------------------------------------------------------------===//
// The kernel
//===----------------------------------------------------------------------===//

/// One operand of a tile on chip: a [nr, nc] tile, a vector spread along
/// the tile's rows (one element per row, [nr]) or columns (one row for
/// all, [nc]), or a scalar.
struct TileOperand {
  enum Kind { Tile, AlongRows, AlongCols, Scalar } kind;
  Value value;
};

class ElementwiseKernel {
public:
  ElementwiseKernel(KernelBuilder &k, Operation *op, const KernelOperands &io,
                    const ElementwiseShape &shape, const DeviceModel &device)
      : k(k), op(op), io(io), shape(shape), device(device) {}

  /// Fails with a diagnostic when one-element tiles do not fit the
  /// device's vector memory.
  LogicalResult chooseTiles() {
    if (auto pow = dyn_cast<PowOp>(op);
        pow && !getConstantExponent(pow) &&
        !isa<FloatType>(getElementTypeOrSelf(pow.getType())))
      return op->emitOpError("cannot be lowered to the device: an integer "
                             "pow needs a constant exponent in [0, 8]");
    extraTypes = getExtraTileTypes(op);
    int64_t bytes = elementBytes(op->getResult(0).getType());
    for (Type type : op->getOperandTypes())
      bytes = std::max(bytes, elementBytes(type));
    for (Type type : extraTypes)
      bytes = std::max(bytes, elementBytes(type));
    // The operands, the result and a scratch tile, the pipeline's second
    // copies of the operands and the result, the op's extra tiles and,
    // for ops on whole tiles, a tile per broadcast operand.
    int64_t tilesAtOnce = 2 * (op->getNumOperands() + 1) + 1 +
                          extraTypes.size() +
                          (onWholeTiles() ? op->getNumOperands() : 0);
    if (device.vectorBytes < tilesAtOnce * bytes)
      return op->emitOpError("cannot be lowered for device '")
             << device.name << "': it has " << device.vectorBytes
             << " bytes of vector memory, the kernel needs at least "
             << tilesAtOnce * bytes;
    int64_t chunk =
        int64_t(1) << llvm::Log2_64(device.vectorBytes / (tilesAtOnce * bytes));
    tileCols = std::min(shape.width, chunk);
    tileRows = std::min(shape.rows, std::max<int64_t>(1, chunk / tileCols));
    rowTiles = llvm::divideCeil(shape.rows, tileRows);
    colTiles = llvm::divideCeil(shape.width, tileCols);
    return success();
  }

  void build() {
    int64_t tiles = rowTiles * colTiles;
    int64_t tasks =
        std::min<int64_t>(device.getNumCores(dev::CoreKind::vector), tiles);
    dev::LaunchOp launch = k.launch(tasks, [&](Value task) {
      prepareOperands();
      k.forEachItem(task, tasks, tiles, [&](Value t) { buildTile(t); });
    });
    OpBuilder &b = k.builder();
    KernelBuilder::recordTiling(
        launch, {b.getNamedAttr("strategy", b.getStringAttr("elementwise")),
                 b.getNamedAttr("tile_rows", b.getI64IntegerAttr(tileRows)),
                 b.getNamedAttr("tile_cols", b.getI64IntegerAttr(tileCols))});
  }

private:
  static int64_t elementBytes(Type type) {
    return llvm::divideCeil(getElementTypeOrSelf(type).getIntOrFloatBitWidth(),
                            8);
  }

  /// Where each operand comes from, set up once per task: a [rows, W] or
  /// [rows, 1] view and a tile buffer; a row every tile reads, loaded
  /// once; a scalar.
  struct Source {
    TileOperand::Kind kind;
    Value view, buffer, once;
    /// A tile a broadcast operand is spread over, for ops on whole tiles.
    Value spread;
    int64_t rows = 1;
    SmallVector<int64_t> leadSizes, leadStrides;
  };

  void prepareOperands() {
    for (auto [operand, access] :
         llvm::zip_equal(io.operands, shape.operands)) {
      Source src = prepareOperand(operand, access);
      if (onWholeTiles() && src.kind != TileOperand::Tile)
        src.spread =
            k.alloc({tileRows, tileCols},
                    cast<MemRefType>(operand.getType()).getElementType());
      sources.push_back(src);
    }
    Type result = getElementTypeOrSelf(op->getResult(0).getType());
    // A reshape stores the tile it loads.
    if (!isa<ReshapeOp>(op)) {
      out = k.alloc({tileRows, tileCols}, result);
      tmp = k.alloc({tileRows, tileCols}, result);
    }
    for (Type type : extraTypes)
      extra.push_back(k.alloc({tileRows, tileCols}, type));
    resultView = k.reshape(io.results[0], {shape.rows, shape.width});
  }

  Source prepareOperand(Value operand, OperandAccess access) {
    Type element = cast<MemRefType>(operand.getType()).getElementType();
    Source src;
    src.rows = access.rows;
    src.leadSizes = access.leadSizes;
    src.leadStrides = access.leadStrides;
    if (access.kind == OperandAccess::Scalar) {
      src.kind = TileOperand::Scalar;
      int64_t rank = cast<MemRefType>(operand.getType()).getRank();
      SmallVector<Value> zeros(rank, k.index(0));
      src.once = k.load(operand, zeros);
      return src;
    }
    if (access.kind == OperandAccess::PerRow) {
      src.kind = TileOperand::AlongRows;
      src.view = k.reshape(operand, {access.rows});
      src.buffer = k.alloc({tileRows}, element);
      return src;
    }
    src.view = k.reshape(operand, {access.rows, shape.width});
    // One row for every result row, whole in a tile: read it once.
    if (access.rows == 1 && shape.rows > 1 && colTiles == 1) {
      src.kind = TileOperand::AlongCols;
      Value row = k.alloc({1, tileCols}, element);
      k.dma(src.view, row);
      OpFoldResult one = k.builder().getIndexAttr(1),
                   cols = k.builder().getIndexAttr(tileCols);
      src.once = k.window(row, {k.index(0), k.index(0)}, {one, cols}, {0});
      return src;
    }
    src.kind = TileOperand::Tile;
    src.buffer = k.alloc({tileRows, tileCols}, element);
    return src;
  }

  /// Whether the op's vector sequence takes every operand as a whole tile
  /// (binary ops read broadcast operands as they are; reshape and expand
  /// only copy).
  bool onWholeTiles() const {
    return !getBinaryKind(op) && !isa<ReshapeOp, ExpandOp>(op);
  }

  /// `x` as a [nr, nc] tile: a broadcast operand spread over its source's
  /// spread tile.
  Value wholeTile(const Source &src, TileOperand x, Value nr, Value nc) {
    if (x.kind == TileOperand::Tile)
      return x.value;
    Value tile = tileOf(src.spread, nr, nc);
    materialize(x, tile);
    return tile;
  }

  /// out = the op of whole tiles, for the ops binary kinds do not cover;
  /// in(i) is operand i as a tile (spread when asked for: pow by a constant
  /// never reads its exponent's).
  void emitOnWholeTiles(function_ref<Value(unsigned)> in, Value scratch,
                        Value result, Value nr, Value nc) {
    SmallVector<Value> more;
    for (Value buffer : extra)
      more.push_back(tileOf(buffer, nr, nc));
    TypeSwitch<Operation *>(op)
        .Case([&](CastOp) {
          emitCast(k, in(0), result, more.empty() ? Value() : more[0]);
        })
        .Case([&](PowOp pow) {
          if (std::optional<double> n = getConstantExponent(pow))
            emitPowByConstant(k, in(0), *n, result);
          else
            emitPow(k, in(0), in(1), scratch, more, result);
        })
        .Case<EqualOp, LessOp, LessEqualOp, GreaterOp, GreaterEqualOp>(
            [&](auto compare) {
              k.vcmp(getComparePredicate(compare), in(0), in(1), result);
            })
        .Case([&](SelectOp) { k.vselect(in(0), in(1), in(2), result); })
        .Default(
            [&](Operation *) { emitUnary(k, op, in(0), scratch, result); });
  }

  void buildTile(Value t) {
    Value r0 = k.mul(k.div(t, k.index(colTiles)), k.index(tileRows));
    Value c0 = k.mul(k.rem(t, k.index(colTiles)), k.index(tileCols));
    Value nr = k.min(k.index(tileRows), k.sub(k.index(shape.rows), r0));
    Value nc = k.min(k.index(tileCols), k.sub(k.index(shape.width), c0));
    SmallVector<TileOperand> operands;
    for (const Source &src : sources)
      operands.push_back(readTile(src, r0, nr, c0, nc));
    Value outTile = operands[0].value;
    if (isa<ExpandOp>(op) && operands[0].kind != TileOperand::Tile) {
      outTile = tileOf(out, nr, nc);
      materialize(operands[0], outTile);
    } else if (!isa<ReshapeOp, ExpandOp>(op)) {
      outTile = tileOf(out, nr, nc);
      Value scratch = tileOf(tmp, nr, nc);
      if (std::optional<dev::BinaryKind> kind = getBinaryKind(op)) {
        emitBinary(*kind, operands[0], operands[1], scratch, outTile);
      } else {
        emitOnWholeTiles(
            [&](unsigned i) {
              return wholeTile(sources[i], operands[i], nr, nc);
            },
            scratch, outTile, nr, nc);
      }
    }
    k.dma(outTile, k.window(resultView, {r0, c0}, {nr, nc}));
  }

  /// Rows [r0, r0 + nr), columns [c0, c0 + nc) of an operand, on chip.
  /// The view copied into is the one the tile's ops read, so that the
  /// pipelining pass sees the buffer written before it is read.
  TileOperand readTile(const Source &src, Value r0, Value nr, Value c0,
                       Value nc) {
    Value zero = k.index(0);
    switch (src.kind) {
    case TileOperand::Scalar:
    case TileOperand::AlongCols:
      return {src.kind, src.once};
    case TileOperand::AlongRows: {
      Value tile = k.window(src.buffer, {zero}, {nr});
      copyRows(
          src, r0, nr,
          [&](Value start, Value run) {
            return k.window(src.view, {start}, {run});
          },
          [&](Value at, Value run) {
            return k.window(src.buffer, {at}, {run});
          },
          [&](Value at, Value copies) {
            k.vfill(k.window(src.buffer, {k.add(at, k.index(1))}, {copies}),
                    k.load(src.buffer, {at}));
          },
          tile);
      return {src.kind, tile};
    }
    case TileOperand::Tile: {
      Value tile = tileOf(src.buffer, nr, nc);
      copyRows(
          src, r0, nr,
          [&](Value start, Value run) {
            return k.window(src.view, {start, c0}, {run, nc});
          },
          [&](Value at, Value run) {
            return k.window(src.buffer, {at, zero}, {run, nc});
          },
          [&](Value at, Value copies) {
            OpFoldResult one = k.builder().getIndexAttr(1);
            Value row = k.window(src.buffer, {at, zero}, {one, nc}, {0});
            spread(row, /*dimension=*/1,
                   k.window(src.buffer, {k.add(at, k.index(1)), zero},
                            {copies, nc}));
          },
          tile);
      return {src.kind, tile};
    }
    }
    llvm_unreachable("unknown tile operand");
  }

  Value tileOf(Value buffer, Value nr, Value nc) {
    return k.window(buffer, {k.index(0), k.index(0)}, {nr, nc});
  }

  /// Result rows [r0, r0 + nr) of `src` into `tile`: result row r from row
  /// r mod src.rows, one copy when the rows are the result's, else in runs
  /// that do not wrap. sourceRows(start, run) and tileRows(at, run) are
  /// the windows of a run; copyRow(at, n) copies tile row `at` into the n
  /// rows after it.
  void copyRows(const Source &src, Value r0, Value nr,
                function_ref<Value(Value, Value)> sourceRows,
                function_ref<Value(Value, Value)> tileRows,
                function_ref<void(Value, Value)> copyRow, Value tile) {
    if (src.rows == shape.rows && src.leadSizes.empty()) {
      k.dma(sourceRows(r0, nr), tile);
      return;
    }
    if (!src.leadSizes.empty()) {
      copyRowsByDigits(src, r0, nr, sourceRows, tileRows, copyRow);
      return;
    }
    k.whileLoop(
        {k.index(0)}, [&](ValueRange s) { return k.lt(s[0], nr); },
        [&](ValueRange s) -> SmallVector<Value> {
          Value row = k.add(r0, s[0]);
          Value start = k.rem(row, k.index(src.rows));
          Value left = k.sub(nr, s[0]);
          Value untilWrap = k.sub(k.index(src.rows), start);
          Value run = k.min(left, untilWrap);
          k.dma(sourceRows(start, run), tileRows(s[0], run));
          return {k.add(s[0], run)};
        });
  }

  /// Rows each from the operand row its digits select. Where the operand
  /// is broadcast over the innermost leading dimensions, consecutive result
  /// rows repeat one operand row (RAFT's [256, 1, 1, 2] window offsets
  /// onto [256, 7, 7, 2]: 49 times): it is copied in once and spread on
  /// chip over the rest of its run.
  void copyRowsByDigits(const Source &src, Value r0, Value nr,
                        function_ref<Value(Value, Value)> sourceRows,
                        function_ref<Value(Value, Value)> tileRows,
                        function_ref<void(Value, Value)> copyRow) {
    int64_t repeat = 1;
    for (size_t d = src.leadSizes.size(); d-- > 0 && !src.leadStrides[d];)
      repeat *= src.leadSizes[d];
    Value one = k.index(1);
    k.whileLoop(
        {k.index(0)}, [&](ValueRange s) { return k.lt(s[0], nr); },
        [&](ValueRange s) -> SmallVector<Value> {
          Value at = s[0], r = k.add(r0, at);
          SmallVector<Value> digits = k.delinearize(r, src.leadSizes);
          Value row = k.index(0);
          for (auto [digit, stride] : llvm::zip_equal(digits, src.leadStrides))
            if (stride)
              row = k.add(row, k.mul(digit, k.index(stride)));
          k.dma(sourceRows(row, one), tileRows(at, one));
          if (repeat == 1)
            return {k.add(at, one)};
          Value left = k.sub(k.index(repeat), k.rem(r, k.index(repeat)));
          Value run = k.min(k.sub(nr, at), left);
          k.ifThenElse(k.lt(one, run), [&] { copyRow(at, k.sub(run, one)); });
          return {k.add(at, run)};
        });
  }

  /// result = a (kind) b on a tile.
  void emitBinary(dev::BinaryKind kind, TileOperand a, TileOperand b,
                  Value scratch, Value result) {
    if (a.kind != TileOperand::Tile && b.kind == TileOperand::Tile &&
        isCommutative(kind))
      std::swap(a, b);
    if (a.kind != TileOperand::Tile) {
      materialize(a, scratch);
      a = {TileOperand::Tile, scratch};
    }
    switch (b.kind) {
    case TileOperand::Tile:
      k.vbinary(kind, a.value, b.value, result);
      return;
    case TileOperand::AlongRows:
    case TileOperand::AlongCols:
      k.vbinaryBroadcast(kind, a.value, b.value, result,
                         b.kind == TileOperand::AlongRows ? 0 : 1);
      return;
    case TileOperand::Scalar:
      k.vbinaryScalar(kind, a.value, b.value, result);
      return;
    }
  }

  /// A broadcast operand spread over a whole tile.
  void materialize(TileOperand x, Value tile) {
    if (x.kind == TileOperand::Scalar) {
      k.vfill(tile, x.value);
      return;
    }
    spread(x.value, x.kind == TileOperand::AlongRows ? 0 : 1, tile);
  }

  /// `tile` filled with `values` spread along `dimension` (one per row for
  /// 0, one per column for 1): 1 * x (float) and 0 | x (integer, i1 too)
  /// keep every x's bits.
  void spread(Value values, int64_t dimension, Value tile) {
    Type element = cast<MemRefType>(tile.getType()).getElementType();
    bool isFloat = isa<FloatType>(element);
    k.vfill(tile,
            isFloat ? k.floatConstant(element, 1) : k.constant(element, 0));
    k.vbinaryBroadcast(isFloat ? dev::BinaryKind::mul : dev::BinaryKind::Or,
                       tile, values, tile, dimension);
  }

  KernelBuilder &k;
  Operation *op;
  const KernelOperands &io;
  const ElementwiseShape &shape;
  const DeviceModel &device;
  int64_t tileRows = 1, tileCols = 1, rowTiles = 0, colTiles = 0;
  SmallVector<Source> sources;
  SmallVector<Type> extraTypes;
  SmallVector<Value> extra;
  Value out, tmp, resultView;
};

template <typename OpT>
struct ElementwiseKernelModel
    : DeviceKernelOpInterface::ExternalModel<ElementwiseKernelModel<OpT>, OpT> {
  /// Padded rows are read in place when every operand can be read a row
  /// of the innermost dimension at a time; a reshape, which moves elements
  /// across rows, only when it keeps that dimension (then both sides are
  /// the same [rows, C]).
  bool readsAlignedStorage(Operation *op, Value) const {
    if (!touchesPaddedRows(op))
      return true;
    if (isa<ReshapeOp>(op))
      return keepsInnermostDimension(op);
    return succeeded(getElementwiseShape(op, /*keepRows=*/true));
  }

  LogicalResult buildDeviceKernels(Operation *op, OpBuilder &b,
                                   const KernelOperands &io,
                                   const DeviceModel &device,
                                   const KernelOptions &) const {
    SmallVector<Value> memrefs(io.operands);
    memrefs.append(io.results.begin(), io.results.end());
    bool strided = anyStridedView(memrefs);
    KernelBuilder k(b, op->getLoc());
    // A reshape of padded rows that keeps C: a copy of [rows, C].
    if (strided && isa<ReshapeOp>(op)) {
      buildWholeCopy(k, io.operands[0], io.results[0], device, "reshape");
      return success();
    }
    FailureOr<ElementwiseShape> shape = getElementwiseShape(op, strided);
    if (failed(shape))
      return failure();
    // An empty result has nothing to compute.
    if (shape->rows * shape->width == 0)
      return success();
    ElementwiseKernel kernel(k, op, io, *shape, device);
    if (failed(kernel.chooseTiles()))
      return failure();
    kernel.build();
    return success();
  }
};

template <typename... OpTs> void attachElementwiseModels(MLIRContext *ctx) {
  (OpTs::template attachInterface<ElementwiseKernelModel<OpTs>>(*ctx), ...);
}

} // namespace

void npu::registerElementwiseKernelModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, NPUDialect *) {
    attachElementwiseModels<
        ReluOp, NegOp, AbsOp, ExpOp, LogOp, TanhOp, ErfOp, SigmoidOp, SqrtOp,
        RsqrtOp, ClipOp, HardSigmoidOp, HardSwishOp, GeluOp, NotOp, CastOp,
        AddOp, SubOp, MulOp, DivOp, MaxOp, MinOp, PowOp, EqualOp, LessOp,
        LessEqualOp, GreaterOp, GreaterEqualOp, AndOp, OrOp, SelectOp, VSAddOp,
        VSSubOp, VSMulOp, VSDivOp, VSMaxOp, VSMinOp, ReshapeOp, ExpandOp>(ctx);
  });
}
