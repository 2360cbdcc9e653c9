//===- ConstantKernels.cpp - npu.constant in global memory ----------------===//
//
// A constant is written into its buffer before it is read. A splat is one
// vector launch: each task fills one tile with the value and copies it over
// its tiles of the buffer, O(elements) over the tasks. A small constant
// (the scalars an imported network computes with) is stored element by
// element by the host-side program, O(elements) scalar stores in the IR; a
// larger one is a diagnostic: weights belong in arguments, which is how
// npu-import-onnx passes them unless told otherwise.
//
//===----------------------------------------------------------------------===//

#include "OperatorKernels.h"

#include "npu/Conversion/DeviceKernelOpInterface.h"
#include "npu/Device/DeviceModel.h"
#include "npu/Dialect/NPU/NPUDialect.h"
#include "npu/Dialect/NPU/NPUOps.h"
#include "npu/Dialect/NPUDev/KernelBuilder.h"

#include <numeric>

using namespace mlir;
using namespace npu;
using namespace npu::graph;

namespace {

/// The most elements a constant that is not a splat may have: each is a
/// scalar store in the IR.
constexpr int64_t kMaxStoredElements = 256;

/// `memref` (contiguous, rank 1 or more) as one dimension.
Value flatView(KernelBuilder &k, Value memref) {
  auto type = cast<MemRefType>(memref.getType());
  if (type.getRank() == 1)
    return memref;
  ReassociationIndices all(type.getRank());
  std::iota(all.begin(), all.end(), 0);
  return k.builder().create<memref::CollapseShapeOp>(
      k.location(), memref, ArrayRef<ReassociationIndices>{all});
}

/// The elements of `value` as constants of their type, in order.
SmallVector<Value> elementConstants(KernelBuilder &k, ElementsAttr value) {
  Type element = value.getElementType();
  SmallVector<Value> constants;
  if (isa<FloatType>(element)) {
    for (const APFloat &v : value.getValues<APFloat>())
      constants.push_back(k.floatConstant(element, v.convertToDouble()));
    return constants;
  }
  for (const APInt &v : value.getValues<APInt>())
    constants.push_back(k.constant(element, v.getSExtValue()));
  return constants;
}

/// The splat value of `value` as a constant of its type.
Value splatConstant(KernelBuilder &k, ElementsAttr value) {
  Type element = value.getElementType();
  if (isa<FloatType>(element))
    return k.floatConstant(element,
                           value.getSplatValue<APFloat>().convertToDouble());
  return k.constant(element, value.getSplatValue<APInt>().getSExtValue());
}

/// One launch filling `buffer` (flat, `n` elements) with `value`.
void fillSplat(KernelBuilder &k, Value buffer, int64_t n, Value value,
               const DeviceModel &device) {
  Type element = value.getType();
  int64_t bytes = llvm::divideCeil(element.getIntOrFloatBitWidth(), 8);
  // The largest power of two that fits, but no more than a task's share.
  int64_t cores = device.getNumCores(dev::CoreKind::vector);
  int64_t fits = int64_t(1) << llvm::Log2_64(
                     std::max<int64_t>(device.vectorBytes / bytes, 1));
  int64_t tile = std::min<int64_t>(llvm::divideCeil(n, cores), fits);
  int64_t tiles = llvm::divideCeil(n, tile);
  int64_t tasks = std::min(cores, tiles);
  dev::LaunchOp launch = k.launch(tasks, [&](Value task) {
    Value filled = k.alloc({tile}, element);
    k.vfill(filled, value);
    k.forEachItem(task, tasks, tiles, [&](Value t) {
      Value start = k.mul(t, k.index(tile));
      Value size = k.min(k.index(tile), k.sub(k.index(n), start));
      k.dma(k.window(filled, {k.index(0)}, {size}),
            k.window(buffer, {start}, {size}));
    });
  });
  OpBuilder &b = k.builder();
  KernelBuilder::recordTiling(
      launch, {b.getNamedAttr("strategy", b.getStringAttr("fill")),
               b.getNamedAttr("tile", b.getI64IntegerAttr(tile))});
}

struct ConstantKernelModel
    : DeviceKernelOpInterface::ExternalModel<ConstantKernelModel, ConstantOp> {
  LogicalResult buildDeviceKernels(Operation *op, OpBuilder &b,
                                   const KernelOperands &io,
                                   const DeviceModel &device,
                                   const KernelOptions &) const {
    ElementsAttr value = cast<ConstantOp>(op).getValue();
    int64_t n = value.getNumElements();
    Type element = value.getElementType();
    if (!element.isIntOrFloat())
      return op->emitOpError("cannot be lowered to the device: elements of ")
             << element;
    if (n == 0)
      return success();
    KernelBuilder k(b, op->getLoc());
    Value result = io.results[0];
    int64_t rank = cast<MemRefType>(result.getType()).getRank();
    if (n == 1) {
      SmallVector<Value> zeros(rank, k.index(0));
      k.store(splatConstant(k, value), result, zeros);
      return success();
    }
    Value buffer = flatView(k, result);
    if (value.isSplat()) {
      fillSplat(k, buffer, n, splatConstant(k, value), device);
      return success();
    }
    if (n > kMaxStoredElements)
      return op->emitOpError("cannot be lowered to the device: a constant of ")
             << n << " elements (more than " << kMaxStoredElements
             << " that are not all equal); pass weights as arguments, as "
                "npu-import-onnx does by default";
    for (auto [i, element] : llvm::enumerate(elementConstants(k, value)))
      k.store(element, buffer, {k.index(i)});
    return success();
  }
};

} // namespace

void npu::registerConstantKernelModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, NPUDialect *) {
    ConstantOp::attachInterface<ConstantKernelModel>(*ctx);
  });
}
