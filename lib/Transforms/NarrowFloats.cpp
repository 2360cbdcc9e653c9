//===- NarrowFloats.cpp - compute a graph's f32 tensors in half precision -===//
//
// One walk over the function: every ranked tensor type with an f32 element
// becomes the same tensor of `to` (shape and encoding kept), on the entry
// block's arguments, every op result, nested blocks' arguments (an
// npu.map_batch's sample) and the function type; npu.constant's
// f32 data is rounded to `to` element by element. Types are rewritten in
// place, so the ops' own verifiers check what they accept. O(ops + constant
// elements).
//
//===----------------------------------------------------------------------===//

#include "npu/Dialect/NPU/NPUOps.h"
#include "npu/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace npu {
#define GEN_PASS_DEF_NARROWFLOATS
#include "npu/Transforms/Passes.h.inc"
} // namespace npu

using namespace mlir;
using namespace npu;
using namespace npu::graph;

namespace {

/// `type` with `to` for its f32 elements, when it is such a tensor.
Type narrowType(Type type, FloatType to) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.getElementType().isF32())
    return type;
  return RankedTensorType::get(tensor.getShape(), to, tensor.getEncoding());
}

/// `value` (f32 data) rounded to `type`'s element type, to nearest.
FailureOr<DenseElementsAttr> narrowData(ConstantOp op, ShapedType type) {
  auto dense = dyn_cast<DenseFPElementsAttr>(op.getValue());
  if (!dense)
    return op.emitOpError("cannot be narrowed: its data is not a dense "
                          "elements attribute");
  auto to = cast<FloatType>(type.getElementType());
  return dense.mapValues(to, [&](const APFloat &value) {
    APFloat rounded = value;
    bool losesInfo = false;
    rounded.convert(to.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                    &losesInfo);
    return rounded.bitcastToAPInt();
  });
}

struct NarrowFloatsPass : public npu::impl::NarrowFloatsBase<NarrowFloatsPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    Builder b(&getContext());
    FloatType to;
    if (elementType == "f16")
      to = b.getF16Type();
    else if (elementType == "bf16")
      to = b.getBF16Type();
    if (!to) {
      func.emitError("npu-narrow-floats: 'to' must be f16 or bf16, got '")
          << elementType << "'";
      return signalPassFailure();
    }
    if (func.isExternal())
      return;
    for (BlockArgument arg : func.getArguments())
      arg.setType(narrowType(arg.getType(), to));
    WalkResult result = func.getBody().walk([&](Operation *op) {
      for (OpResult value : op->getResults())
        value.setType(narrowType(value.getType(), to));
      // Nested bodies (npu.map_batch's samples) take narrowed values too.
      for (Region &region : op->getRegions())
        for (BlockArgument arg : region.getArguments())
          arg.setType(narrowType(arg.getType(), to));
      auto constant = dyn_cast<ConstantOp>(op);
      if (!constant || constant.getValue().getElementType() == to ||
          !constant.getValue().getElementType().isF32())
        return WalkResult::advance();
      FailureOr<DenseElementsAttr> data =
          narrowData(constant, cast<ShapedType>(constant.getType()));
      if (failed(data))
        return WalkResult::interrupt();
      constant.setValueAttr(*data);
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return signalPassFailure();
    SmallVector<Type> inputs, results;
    for (Type t : func.getArgumentTypes())
      inputs.push_back(narrowType(t, to));
    for (Type t : func.getResultTypes())
      results.push_back(narrowType(t, to));
    func.setType(b.getFunctionType(inputs, results));
  }
};

} // namespace
