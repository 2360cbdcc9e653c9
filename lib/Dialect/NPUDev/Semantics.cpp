//===- Semantics.cpp - facts about npudev ops both executors share --------===//

#include "npu/Dialect/NPUDev/Semantics.h"
#include "npu/Dialect/NPUDev/NPUDevOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace npu::dev;

TypedAttr npu::dev::getReductionIdentity(ReduceKind kind, Type element) {
  Builder b(element.getContext());
  if (kind == ReduceKind::sum)
    return cast<TypedAttr>(b.getZeroAttr(element));
  bool isMax = kind == ReduceKind::max;
  if (auto f = dyn_cast<FloatType>(element))
    return b.getFloatAttr(f, APFloat::getInf(f.getFloatSemantics(), isMax));
  unsigned width = element.getIntOrFloatBitWidth();
  return b.getIntegerAttr(element, isMax ? APInt::getSignedMinValue(width)
                                         : APInt::getSignedMaxValue(width));
}

BinaryKind npu::dev::getReductionCombiner(ReduceKind kind) {
  switch (kind) {
  case ReduceKind::sum:
    return BinaryKind::add;
  case ReduceKind::max:
    return BinaryKind::max;
  case ReduceKind::min:
    return BinaryKind::min;
  }
  llvm_unreachable("unknown reduction");
}

Type npu::dev::getAccumulatorType(Type element) {
  if (element.isF16() || element.isBF16())
    return Float32Type::get(element.getContext());
  return element;
}

Value npu::dev::getViewRoot(Value view) {
  while (auto viewLike = view.getDefiningOp<ViewLikeOpInterface>())
    view = viewLike.getViewSource();
  return view;
}

std::optional<int64_t> npu::dev::getStaticByteSize(MemRefType type) {
  int64_t bytes = getElementBytes(type.getElementType());
  for (int64_t d : type.getShape())
    if (ShapedType::isDynamic(d) || d < 0 || llvm::MulOverflow(bytes, d, bytes))
      return std::nullopt;
  return bytes;
}

/// The on-chip space and static size of a buffer `op` allocates, if any.
static std::optional<std::pair<MemorySpace, int64_t>>
getOnChipAllocation(Operation &op) {
  if (!isa<AllocOp, memref::AllocOp, memref::AllocaOp>(op))
    return std::nullopt;
  auto type = dyn_cast<MemRefType>(op.getResult(0).getType());
  if (!type || !type.hasStaticShape())
    return std::nullopt;
  std::optional<MemorySpace> space = getMemorySpace(type);
  if (!space || *space == MemorySpace::global)
    return std::nullopt;
  return std::make_pair(*space, getStaticByteSize(type).value_or(INT64_MAX));
}

static void accumulatePeaks(Block &block, OnChipPeaks &live,
                            OnChipPeaks &peak) {
  OnChipPeaks saved = live;
  for (Operation &op : block) {
    if (auto allocation = getOnChipAllocation(op)) {
      unsigned s = static_cast<unsigned>(allocation->first);
      if (llvm::AddOverflow(live[s], allocation->second, live[s]))
        live[s] = INT64_MAX;
      peak[s] = std::max(peak[s], live[s]);
    }
    for (Region &region : op.getRegions())
      for (Block &nested : region)
        accumulatePeaks(nested, live, peak);
  }
  live = saved;
}

OnChipPeaks npu::dev::getOnChipPeaks(Block &block) {
  OnChipPeaks live = {}, peak = {};
  accumulatePeaks(block, live, peak);
  return peak;
}

std::string npu::dev::formatReportedRow(StringRef message, int64_t row) {
  size_t at = message.find(kReportedRowPlaceholder);
  return (message.take_front(at) + std::to_string(row) +
          message.drop_front(at + kReportedRowPlaceholder.size()))
      .str();
}

SmallVector<Operation *> npu::dev::getRowReports(Operation *root) {
  SmallVector<Operation *> reports;
  root->walk<WalkOrder::PreOrder>(
      [&](ReportRowsOp op) { reports.push_back(op); });
  return reports;
}

LogicalResult npu::dev::checkKernelIR(Operation *root) {
  static constexpr llvm::StringLiteral kKernelDialects[] = {
      "npudev", "arith", "math", "scf", "memref", "func", "builtin"};
  WalkResult walk = root->walk([](Operation *op) {
    StringRef dialect = op->getName().getDialectNamespace();
    if (llvm::is_contained(kKernelDialects, dialect))
      return WalkResult::advance();
    op->emitOpError("is not kernel IR: both executors run npudev, arith, "
                    "math, scf, memref and func ops; lower the ")
        << (dialect.empty() ? "op" : dialect) << " dialect first";
    return WalkResult::interrupt();
  });
  return failure(walk.wasInterrupted());
}

//===----------------------------------------------------------------------===//
// Scalar meaning of the element ops
//===----------------------------------------------------------------------===//

Value npu::dev::buildBinary(OpBuilder &b, Location loc, BinaryKind kind,
                            Value x, Value y) {
  if (isa<FloatType>(x.getType())) {
    switch (kind) {
    case BinaryKind::add:
      return b.create<arith::AddFOp>(loc, x, y);
    case BinaryKind::sub:
      return b.create<arith::SubFOp>(loc, x, y);
    case BinaryKind::mul:
      return b.create<arith::MulFOp>(loc, x, y);
    case BinaryKind::div:
      return b.create<arith::DivFOp>(loc, x, y);
    case BinaryKind::max:
      return b.create<arith::MaximumFOp>(loc, x, y);
    case BinaryKind::min:
      return b.create<arith::MinimumFOp>(loc, x, y);
    default:
      llvm_unreachable("integer-only op on floats (rejected by the verifier)");
    }
  }
  switch (kind) {
  case BinaryKind::add:
    return b.create<arith::AddIOp>(loc, x, y);
  case BinaryKind::sub:
    return b.create<arith::SubIOp>(loc, x, y);
  case BinaryKind::mul:
    return b.create<arith::MulIOp>(loc, x, y);
  case BinaryKind::div:
    return b.create<arith::DivSIOp>(loc, x, y);
  case BinaryKind::max:
    return b.create<arith::MaxSIOp>(loc, x, y);
  case BinaryKind::min:
    return b.create<arith::MinSIOp>(loc, x, y);
  case BinaryKind::And:
    return b.create<arith::AndIOp>(loc, x, y);
  case BinaryKind::Or:
    return b.create<arith::OrIOp>(loc, x, y);
  case BinaryKind::Xor:
    return b.create<arith::XOrIOp>(loc, x, y);
  case BinaryKind::rem:
    return b.create<arith::RemSIOp>(loc, x, y);
  case BinaryKind::shl:
    return b.create<arith::ShLIOp>(loc, x, y);
  case BinaryKind::shrs:
    return b.create<arith::ShRSIOp>(loc, x, y);
  case BinaryKind::shru:
    return b.create<arith::ShRUIOp>(loc, x, y);
  }
  llvm_unreachable("unknown binary op");
}

std::optional<BinaryKind> npu::dev::getBinaryKind(Operation *op) {
  if (isa<arith::AddFOp, arith::AddIOp>(op))
    return BinaryKind::add;
  if (isa<arith::SubFOp, arith::SubIOp>(op))
    return BinaryKind::sub;
  if (isa<arith::MulFOp, arith::MulIOp>(op))
    return BinaryKind::mul;
  if (isa<arith::DivFOp, arith::DivSIOp>(op))
    return BinaryKind::div;
  if (isa<arith::MaximumFOp, arith::MaxSIOp>(op))
    return BinaryKind::max;
  if (isa<arith::MinimumFOp, arith::MinSIOp>(op))
    return BinaryKind::min;
  if (isa<arith::AndIOp>(op))
    return BinaryKind::And;
  if (isa<arith::OrIOp>(op))
    return BinaryKind::Or;
  if (isa<arith::XOrIOp>(op))
    return BinaryKind::Xor;
  if (isa<arith::RemSIOp>(op))
    return BinaryKind::rem;
  if (isa<arith::ShLIOp>(op))
    return BinaryKind::shl;
  if (isa<arith::ShRSIOp>(op))
    return BinaryKind::shrs;
  if (isa<arith::ShRUIOp>(op))
    return BinaryKind::shru;
  return std::nullopt;
}

bool npu::dev::isCommutative(BinaryKind kind) {
  switch (kind) {
  case BinaryKind::add:
  case BinaryKind::mul:
  case BinaryKind::max:
  case BinaryKind::min:
  case BinaryKind::And:
  case BinaryKind::Or:
  case BinaryKind::Xor:
    return true;
  default:
    return false;
  }
}

Value npu::dev::convertElement(OpBuilder &b, Location loc, Value v, Type to) {
  Type from = v.getType();
  if (from == to)
    return v;
  if (from.isIndex() || to.isIndex())
    return b.create<arith::IndexCastOp>(loc, to, v);
  bool fromFloat = isa<FloatType>(from), toFloat = isa<FloatType>(to);
  if (fromFloat && toFloat)
    return from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth()
               ? b.create<arith::ExtFOp>(loc, to, v).getResult()
               : b.create<arith::TruncFOp>(loc, to, v).getResult();
  if (fromFloat)
    return b.create<arith::FPToSIOp>(loc, to, v);
  bool isBool = from.getIntOrFloatBitWidth() == 1;
  if (toFloat)
    return isBool ? b.create<arith::UIToFPOp>(loc, to, v).getResult()
                  : b.create<arith::SIToFPOp>(loc, to, v).getResult();
  if (from.getIntOrFloatBitWidth() > to.getIntOrFloatBitWidth())
    return b.create<arith::TruncIOp>(loc, to, v);
  return isBool ? b.create<arith::ExtUIOp>(loc, to, v).getResult()
                : b.create<arith::ExtSIOp>(loc, to, v).getResult();
}
