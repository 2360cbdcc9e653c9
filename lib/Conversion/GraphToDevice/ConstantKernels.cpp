//===- ConstantKernels.cpp - npu.constant in global memory ----------------===//
//
// A constant is written into its buffer before it is read. A splat is one
// vector launch: each task fills one tile with the value and copies it over
// its tiles of the buffer, O(elements) over the tasks. A small constant
// (the scalars an imported network computes with) is stored element by
// element by the host-side program, O(elements) scalar stores in the IR. A
// larger one (an index table: weights belong in arguments, which is how
// npu-import-onnx passes them unless told otherwise) is program data, a
// constant memref.global copied into the buffer by one vector launch.
//
//===----------------------------------------------------------------------===//

#include "CopyKernels.h"
#include "OperatorKernels.h"

#include "npu/Conversion/DeviceKernelOpInterface.h"
#include "npu/Device/DeviceModel.h"
#include "npu/Dialect/NPU/NPUDialect.h"
#include "npu/Dialect/NPU/NPUOps.h"
#include "npu/Dialect/NPUDev/KernelBuilder.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"

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
    if (n > kMaxStoredElements) {
      copyFromProgramData(k, op, value, buffer, device);
      return success();
    }
    for (auto [i, element] : llvm::enumerate(elementConstants(k, value)))
      k.store(element, buffer, {k.index(i)});
    return success();
  }

  /// A larger constant (an index table such as Swin's relative positions)
  /// is program data: a constant memref.global in global memory, copied
  /// into the value's buffer by one vector launch.
  static void copyFromProgramData(KernelBuilder &k, Operation *op,
                                  ElementsAttr value, Value buffer,
                                  const DeviceModel &device) {
    auto module = op->getParentOfType<ModuleOp>();
    auto type = cast<MemRefType>(buffer.getType());
    auto flatType =
        MemRefType::get({value.getNumElements()}, value.getElementType(),
                        MemRefLayoutAttrInterface(), type.getMemorySpace());
    OpBuilder &b = k.builder();
    // Built detached, so that the symbol table names it uniquely.
    OpBuilder detached(op->getContext());
    auto global = detached.create<memref::GlobalOp>(
        op->getLoc(), "npu_constant", b.getStringAttr("private"), flatType,
        cast<DenseElementsAttr>(value).reshape(RankedTensorType::get(
            flatType.getShape(), flatType.getElementType())),
        /*constant=*/true, /*alignment=*/IntegerAttr());
    SymbolTable(module).insert(global, module.getBody()->begin());
    Value data = b.create<memref::GetGlobalOp>(op->getLoc(), flatType,
                                               global.getSymName());
    buildCopy(k, data, buffer, value.getNumElements(), device, "constant");
  }
};

} // namespace

void npu::registerConstantKernelModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, NPUDialect *) {
    ConstantOp::attachInterface<ConstantKernelModel>(*ctx);
  });
}
