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

#include "CopyKernels.h"
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

/// The most elements a constant that is not a splat may have: each is a
/// scalar store in the IR.
constexpr int64_t kMaxStoredElements = 256;

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
    Value buffer = k.reshape(result, {n});
    if (value.isSplat()) {
      buildFill(k, buffer, n, splatConstant(k, value), device, "fill");
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
