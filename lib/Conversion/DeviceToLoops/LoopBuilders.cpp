//===- LoopBuilders.cpp - IR builders shared by the loop lowerings --------===//
//
// Scalar semantics of the vector ops' element kinds (binary, unary,
// compare, conversion) and the loop nests the patterns are built from.
//
//===----------------------------------------------------------------------===//

#include "LoopBuilders.h"

#include "npu/Support/DeviceExp.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace npu::dev;

namespace npu::dev::loops {

Value indexConst(OpBuilder &b, Location loc, int64_t v) {
  return b.create<arith::ConstantIndexOp>(loc, v);
}

Value floatConst(OpBuilder &b, Location loc, Type type, double v) {
  return b.create<arith::ConstantOp>(loc, b.getFloatAttr(type, v));
}

Value intConst(OpBuilder &b, Location loc, Type type, const APInt &v) {
  return b.create<arith::ConstantOp>(loc, b.getIntegerAttr(type, v));
}

Value zeroOf(OpBuilder &b, Location loc, Type type) {
  return b.create<arith::ConstantOp>(loc, b.getZeroAttr(type));
}

/// The device's f32 exp: the operations of npu::deviceExp, one for one, so
/// the JIT gives the simulator's bits (include/npu/Support/DeviceExp.h).
static Value buildDeviceExp(OpBuilder &b, Location loc, Value x) {
  using namespace device_exp;
  Type f32 = b.getF32Type(), i32 = b.getI32Type();
  auto constant = [&](float v) { return floatConst(b, loc, f32, v); };
  auto intConstant = [&](int32_t v) {
    return b.create<arith::ConstantOp>(loc, b.getI32IntegerAttr(v));
  };
  auto fma = [&](Value a, Value m, Value c) {
    return b.create<math::FmaOp>(loc, a, m, c);
  };
  // Compare-and-select keeps a NaN, as the C++ conditional does.
  auto clamp = [&](Value v, arith::CmpFPredicate beyond, float bound) {
    Value out = b.create<arith::CmpFOp>(loc, beyond, v, constant(bound));
    return b.create<arith::SelectOp>(loc, out, constant(bound), v);
  };
  Value clamped = clamp(clamp(x, arith::CmpFPredicate::OGT, kHighest),
                        arith::CmpFPredicate::OLT, kLowest);
  Value shift = constant(kRoundingShift);
  Value shifted = fma(clamped, constant(kLog2E), shift);
  Value n = b.create<arith::SubFOp>(loc, shifted, shift);
  Value r = fma(n, constant(-kLn2High), clamped);
  r = fma(n, constant(-kLn2Low), r);
  Value p = constant(kTaylor[7]);
  for (int k = 6; k >= 0; --k)
    p = fma(p, r, constant(kTaylor[k]));
  Value e = b.create<arith::SubIOp>(
      loc, b.create<arith::BitcastOp>(loc, i32, shifted),
      intConstant(static_cast<int32_t>(bitsOf(kRoundingShift))));
  Value half = b.create<arith::ShRSIOp>(loc, e, intConstant(1));
  auto powerOfTwo = [&](Value k) -> Value {
    Value biased = b.create<arith::AddIOp>(loc, k, intConstant(kExponentBias));
    return b.create<arith::BitcastOp>(
        loc, f32,
        b.create<arith::ShLIOp>(loc, biased, intConstant(kMantissaBits)));
  };
  Value scaled = b.create<arith::MulFOp>(loc, p, powerOfTwo(half));
  scaled = b.create<arith::MulFOp>(
      loc, scaled, powerOfTwo(b.create<arith::SubIOp>(loc, e, half)));
  Value isNaN = b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::UNO, x, x);
  return b.create<arith::SelectOp>(loc, isNaN,
                                   b.create<arith::AddFOp>(loc, x, x), scaled);
}

Value buildUnary(OpBuilder &b, Location loc, UnaryKind kind, Value x) {
  Type type = x.getType();
  if (!isa<FloatType>(type)) {
    Value zero = zeroOf(b, loc, type);
    Value negated = b.create<arith::SubIOp>(loc, zero, x);
    switch (kind) {
    case UnaryKind::abs: {
      Value isNegative =
          b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, x, zero);
      return b.create<arith::SelectOp>(loc, isNegative, negated, x);
    }
    case UnaryKind::neg:
      return negated;
    case UnaryKind::relu:
      return b.create<arith::MaxSIOp>(loc, x, zero);
    default:
      llvm_unreachable("float-only op on integers (rejected by the verifier)");
    }
  }
  // Narrower floats are computed in f32 and rounded once, as the simulator
  // does (VectorOps.cpp): rounding after each step of rsqrt or sigmoid
  // would give other bits.
  if (type.getIntOrFloatBitWidth() < 32) {
    Value wide = b.create<arith::ExtFOp>(loc, b.getF32Type(), x);
    return b.create<arith::TruncFOp>(loc, type, buildUnary(b, loc, kind, wide));
  }
  Value one = floatConst(b, loc, type, 1.0);
  switch (kind) {
  case UnaryKind::abs:
    return b.create<math::AbsFOp>(loc, x);
  case UnaryKind::neg:
    return b.create<arith::NegFOp>(loc, x);
  case UnaryKind::relu:
    return b.create<arith::MaximumFOp>(loc, x, zeroOf(b, loc, type));
  case UnaryKind::exp:
    return type.isF32() ? buildDeviceExp(b, loc, x)
                        : b.create<math::ExpOp>(loc, x).getResult();
  case UnaryKind::log:
    return b.create<math::LogOp>(loc, x);
  case UnaryKind::sqrt:
    return b.create<math::SqrtOp>(loc, x);
  case UnaryKind::rsqrt:
    return b.create<arith::DivFOp>(loc, one, b.create<math::SqrtOp>(loc, x));
  case UnaryKind::recip:
    return b.create<arith::DivFOp>(loc, one, x);
  case UnaryKind::tanh:
    return b.create<math::TanhOp>(loc, x);
  case UnaryKind::erf:
    return b.create<math::ErfOp>(loc, x);
  case UnaryKind::sigmoid: {
    Value e =
        buildUnary(b, loc, UnaryKind::exp, b.create<arith::NegFOp>(loc, x));
    return b.create<arith::DivFOp>(loc, one,
                                   b.create<arith::AddFOp>(loc, one, e));
  }
  }
  llvm_unreachable("unknown unary op");
}

Value buildCompare(OpBuilder &b, Location loc, ComparePredicate pred, Value x,
                   Value y) {
  if (isa<FloatType>(x.getType())) {
    static const arith::CmpFPredicate preds[] = {
        arith::CmpFPredicate::OEQ, arith::CmpFPredicate::UNE,
        arith::CmpFPredicate::OLT, arith::CmpFPredicate::OLE,
        arith::CmpFPredicate::OGT, arith::CmpFPredicate::OGE};
    return b.create<arith::CmpFOp>(loc, preds[static_cast<unsigned>(pred)], x,
                                   y);
  }
  static const arith::CmpIPredicate preds[] = {
      arith::CmpIPredicate::eq,  arith::CmpIPredicate::ne,
      arith::CmpIPredicate::slt, arith::CmpIPredicate::sle,
      arith::CmpIPredicate::sgt, arith::CmpIPredicate::sge};
  return b.create<arith::CmpIOp>(loc, preds[static_cast<unsigned>(pred)], x, y);
}

Value flagAs(OpBuilder &b, Location loc, Value flag, Type type) {
  if (isa<FloatType>(type))
    return b.create<arith::UIToFPOp>(loc, type, flag);
  if (type.getIntOrFloatBitWidth() == 1)
    return flag;
  return b.create<arith::ExtUIOp>(loc, type, flag);
}

Value isNonZero(OpBuilder &b, Location loc, Value v) {
  Value zero = zeroOf(b, loc, v.getType());
  if (isa<FloatType>(v.getType()))
    return b.create<arith::CmpFOp>(loc, arith::CmpFPredicate::UNE, v, zero);
  return b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, v, zero);
}

//===----------------------------------------------------------------------===//
// Loop builders
//===----------------------------------------------------------------------===//

Type elementTypeOf(Value memref) {
  return cast<MemRefType>(memref.getType()).getElementType();
}

void buildLoopsOver(OpBuilder &b, Location loc, Value memref,
                    function_ref<void(OpBuilder &, Location, ValueRange)> body,
                    unsigned drop) {
  int64_t rank = cast<MemRefType>(memref.getType()).getRank() - drop;
  SmallVector<Value> lbs, ubs, steps;
  for (int64_t d = 0; d < rank; ++d) {
    lbs.push_back(indexConst(b, loc, 0));
    ubs.push_back(b.create<memref::DimOp>(loc, memref, d));
    steps.push_back(indexConst(b, loc, 1));
  }
  scf::buildLoopNest(b, loc, lbs, ubs, steps, body);
}

/// The 1-D views of `memrefs` (all of one static shape) when each one's
/// rows lie back to back, else none. One loop over them vectorizes across
/// rows, and LLVM does not unroll it whole: a 17 x 1024 fill as two nested
/// loops of static bounds became one block of 2,176 vector stores, on which
/// the post-RA scheduler (quadratic in a block) spent 2.5 s. Static shapes
/// only: dynamic ones may disagree at run time with equal element counts,
/// which the loop nest's checked mode reports and one flat loop would not.
static SmallVector<Value> collapseToRows(OpBuilder &b, Location loc,
                                         ArrayRef<Value> memrefs) {
  auto type = [](Value m) { return cast<MemRefType>(m.getType()); };
  int64_t rank = type(memrefs.front()).getRank();
  SmallVector<ReassociationIndices> all = {
      llvm::to_vector(llvm::seq<int64_t>(0, rank))};
  auto collapsible = [&](Value m) {
    return type(m).hasStaticShape() &&
           memref::CollapseShapeOp::isGuaranteedCollapsible(type(m), all);
  };
  if (rank < 2 || !llvm::all_of(memrefs, collapsible))
    return {};
  return llvm::map_to_vector(memrefs, [&](Value m) -> Value {
    return b.create<memref::CollapseShapeOp>(loc, m, all);
  });
}

void buildElementwiseLoops(
    OpBuilder &b, Location loc, ValueRange inputs, Value out,
    function_ref<Value(OpBuilder &, Location, ArrayRef<Value>)> compute) {
  SmallVector<Value> operands(inputs);
  operands.push_back(out);
  if (SmallVector<Value> rows = collapseToRows(b, loc, operands); !rows.empty())
    operands = rows;
  buildLoopsOver(b, loc, operands.back(),
                 [&](OpBuilder &lb, Location l, ValueRange ivs) {
                   SmallVector<Value> loaded;
                   for (Value in : ArrayRef(operands).drop_back())
                     loaded.push_back(lb.create<memref::LoadOp>(l, in, ivs));
                   lb.create<memref::StoreOp>(l, compute(lb, l, loaded),
                                              operands.back(), ivs);
                 });
}

void buildElementwise(
    PatternRewriter &rewriter, Operation *op, ValueRange inputs, Value out,
    function_ref<Value(OpBuilder &, Location, ArrayRef<Value>)> compute) {
  buildElementwiseLoops(rewriter, op->getLoc(), inputs, out, compute);
  rewriter.eraseOp(op);
}

void buildRowScan(
    OpBuilder &b, Location loc, Value input, Value init,
    function_ref<Value(OpBuilder &, Location, Value, Value, ValueRange, Value)>
        step,
    function_ref<void(OpBuilder &, Location, Value, ValueRange)> finish) {
  auto type = cast<MemRefType>(input.getType());
  buildLoopsOver(
      b, loc, input,
      [&](OpBuilder &ob, Location l, ValueRange outer) {
        Value length = ob.create<memref::DimOp>(l, input, type.getRank() - 1);
        auto loop = ob.create<scf::ForOp>(
            l, indexConst(ob, l, 0), length, indexConst(ob, l, 1),
            ValueRange{init},
            [&](OpBuilder &ib, Location il, Value k, ValueRange acc) {
              SmallVector<Value> idx(outer.begin(), outer.end());
              idx.push_back(k);
              Value x = ib.create<memref::LoadOp>(il, input, idx);
              ib.create<scf::YieldOp>(il,
                                      step(ib, il, acc.front(), x, outer, k));
            });
        finish(ob, l, loop.getResult(0), outer);
      },
      /*drop=*/1);
}

/// Rows a reduction folds at once (the last rows of a tile go in blocks of
/// half as many, down to one): enough independent chains to cover an
/// addition's latency on the host's two vector pipes, few enough that their
/// accumulators stay in registers.
constexpr int64_t kInterleavedRows = 8;

/// Folds the `count` rows from `first` of `input` (whose leading indices
/// are `outer`) together, one loop over their elements.
static void
foldRows(OpBuilder &b, Location loc, Value input, Value init, ValueRange outer,
         Value first, int64_t count,
         function_ref<Value(OpBuilder &, Location, Value, Value)> step,
         function_ref<void(OpBuilder &, Location, Value, ValueRange)> finish) {
  auto type = cast<MemRefType>(input.getType());
  SmallVector<Value> rows;
  for (int64_t r = 0; r < count; ++r)
    rows.push_back(b.create<arith::AddIOp>(loc, first, indexConst(b, loc, r)));
  auto at = [&](Value row) {
    SmallVector<Value> idx(outer.begin(), outer.end());
    idx.push_back(row);
    return idx;
  };
  Value length = b.create<memref::DimOp>(loc, input, type.getRank() - 1);
  auto loop = b.create<scf::ForOp>(
      loc, indexConst(b, loc, 0), length, indexConst(b, loc, 1),
      SmallVector<Value>(count, init),
      [&](OpBuilder &ib, Location il, Value k, ValueRange accs) {
        SmallVector<Value> next;
        for (int64_t r = 0; r < count; ++r) {
          SmallVector<Value> idx = at(rows[r]);
          idx.push_back(k);
          Value x = ib.create<memref::LoadOp>(il, input, idx);
          next.push_back(step(ib, il, accs[r], x));
        }
        ib.create<scf::YieldOp>(il, next);
      });
  for (int64_t r = 0; r < count; ++r)
    finish(b, loc, loop.getResult(r), at(rows[r]));
}

void buildRowReduce(
    OpBuilder &b, Location loc, Value input, Value init,
    function_ref<Value(OpBuilder &, Location, Value, Value)> step,
    function_ref<void(OpBuilder &, Location, Value, ValueRange)> finish) {
  auto type = cast<MemRefType>(input.getType());
  if (type.getRank() < 2)
    return buildRowScan(
        b, loc, input, init,
        [&](OpBuilder &ib, Location il, Value acc, Value x, ValueRange, Value) {
          return step(ib, il, acc, x);
        },
        finish);
  buildLoopsOver(
      b, loc, input,
      [&](OpBuilder &ob, Location l, ValueRange outer) {
        // Blocks of kInterleavedRows rows, then at most one block each of
        // half as many, down to one row: rows [rows - rows % 2w, rows -
        // rows % w) in blocks of w.
        Value rows = ob.create<memref::DimOp>(l, input, type.getRank() - 2);
        auto wholeBlocks = [&](int64_t width) -> Value {
          return ob.create<arith::SubIOp>(
              l, rows,
              ob.create<arith::RemUIOp>(l, rows, indexConst(ob, l, width)));
        };
        Value begin = indexConst(ob, l, 0);
        for (int64_t width = kInterleavedRows; width >= 1; width /= 2) {
          Value end = wholeBlocks(width);
          ob.create<scf::ForOp>(
              l, begin, end, indexConst(ob, l, width), ValueRange{},
              [&](OpBuilder &ib, Location il, Value first, ValueRange) {
                foldRows(ib, il, input, init, outer, first, width, step,
                         finish);
                ib.create<scf::YieldOp>(il);
              });
          begin = end;
        }
      },
      /*drop=*/2);
}

LogicalResult requireUnusedToken(Operation *op, PatternRewriter &rewriter) {
  if (op->use_empty())
    return success();
  Operation *user = *op->getUsers().begin();
  return rewriter.notifyMatchFailure(op, [&](Diagnostic &diag) {
    diag << "its token is still used by '" << user->getName()
         << "', which the JIT cannot drop";
  });
}

MemRefType getRuntimeMemRefType(MLIRContext *ctx, unsigned rank, Type element) {
  SmallVector<int64_t> dynamic(rank, ShapedType::kDynamic);
  return MemRefType::get(
      dynamic, element,
      StridedLayoutAttr::get(ctx, ShapedType::kDynamic, dynamic));
}

func::FuncOp getRuntimeFunction(OpBuilder &rewriter, Operation *op,
                                StringRef name, TypeRange arguments,
                                TypeRange results) {
  auto module = op->getParentOfType<ModuleOp>();
  if (auto existing = module.lookupSymbol<func::FuncOp>(name))
    return existing;
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(module.getBody());
  auto func = rewriter.create<func::FuncOp>(
      op->getLoc(), name, rewriter.getFunctionType(arguments, results));
  func.setPrivate();
  func->setAttr("llvm.emit_c_interface", rewriter.getUnitAttr());
  return func;
}

} // namespace npu::dev::loops

void npu::dev::loops::buildIndexedCopy(OpBuilder &b, Location loc, Value rows,
                                       Value indices, Value dense,
                                       IndexedCopy kind, bool negativeSkips) {
  buildLoopsOver(b, loc, dense, [&](OpBuilder &lb, Location l, ValueRange ivs) {
    Value raw = lb.create<memref::LoadOp>(l, indices, ivs[0]);
    Value index = lb.create<arith::IndexCastOp>(l, lb.getIndexType(), raw);
    SmallVector<Value> rowIdx = {index};
    rowIdx.append(ivs.begin() + 1, ivs.end());
    auto move = [&](OpBuilder &mb, Location ml) {
      if (kind == IndexedCopy::Gather) {
        Value v = mb.create<memref::LoadOp>(ml, rows, rowIdx);
        mb.create<memref::StoreOp>(ml, v, dense, ivs);
        return;
      }
      Value v = mb.create<memref::LoadOp>(ml, dense, ivs);
      if (kind == IndexedCopy::ScatterAdd)
        v = buildBinary(mb, ml, BinaryKind::add,
                        mb.create<memref::LoadOp>(ml, rows, rowIdx), v);
      mb.create<memref::StoreOp>(ml, v, rows, rowIdx);
    };
    if (!negativeSkips)
      return move(lb, l);
    Value kept = lb.create<arith::CmpIOp>(l, arith::CmpIPredicate::sge, raw,
                                          zeroOf(lb, l, raw.getType()));
    lb.create<scf::IfOp>(
        l, kept,
        [&](OpBuilder &tb, Location tl) {
          move(tb, tl);
          tb.create<scf::YieldOp>(tl);
        },
        [&](OpBuilder &eb, Location el) {
          if (kind == IndexedCopy::Gather)
            eb.create<memref::StoreOp>(el, zeroOf(eb, el, elementTypeOf(dense)),
                                       dense, ivs);
          eb.create<scf::YieldOp>(el);
        });
  });
}
