//===- Semantics.cpp - facts about npudev ops both executors share --------===//

#include "npu/Dialect/NPUDev/Semantics.h"
#include "npu/Dialect/NPUDev/NPUDevOps.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
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
