//===- NPUOps.h - ops of the npu dialect ------------------------*- C++ -*-===//

#ifndef NPU_DIALECT_NPU_NPUOPS_H
#define NPU_DIALECT_NPU_NPUOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "npu/Dialect/NPU/AttentionGeometry.h"
#include "npu/Dialect/NPU/NPUInterfaces.h"
#include "npu/Dialect/NPU/SparseConvGeometry.h"

namespace npu::graph {

/// Verifies an op by running its shape function with the op's location, so
/// that a broken constraint is reported by the shape function's own message.
template <typename ConcreteType>
class ShapeFunctionVerified
    : public mlir::OpTrait::TraitBase<ConcreteType, ShapeFunctionVerified> {
public:
  static mlir::LogicalResult verifyTrait(mlir::Operation *op) {
    llvm::SmallVector<mlir::Type> types;
    if (mlir::failed(ConcreteType::inferReturnTypes(
            op->getContext(), op->getLoc(),
            typename ConcreteType::Adaptor(llvm::cast<ConcreteType>(op)),
            types)))
      return mlir::failure();
    if (!ConcreteType::isCompatibleReturnTypes(types, op->getResultTypes()))
      return op->emitOpError("result type ")
             << op->getResultTypes() << " differs from the inferred " << types;
    return mlir::success();
  }
};

} // namespace npu::graph

namespace npu::graph::detail {

/// Shape functions shared by op classes. Each validates its operands and
/// attributes, reports a violation as "'<opName>' op ..." at `loc`, and on
/// success appends the inferred result type (without layout encoding).
///
/// Default-valued attributes are passed as (possibly null) attributes: a
/// builder infers types before the op exists, when defaults are not yet
/// filled in, so a null attribute means the ODS default.

mlir::LogicalResult
inferConvType(std::optional<mlir::Location> loc, llvm::StringRef opName,
              unsigned spatialRank, mlir::Value input, mlir::Value filter,
              mlir::Value bias, mlir::DenseI64ArrayAttr strides,
              mlir::DenseI64ArrayAttr padding,
              mlir::DenseI64ArrayAttr dilations, mlir::IntegerAttr groups,
              llvm::SmallVectorImpl<mlir::Type> &types);

mlir::LogicalResult inferPool2DType(std::optional<mlir::Location> loc,
                                    llvm::StringRef opName, mlir::Value input,
                                    llvm::ArrayRef<int64_t> kernel,
                                    mlir::DenseI64ArrayAttr strides,
                                    mlir::DenseI64ArrayAttr padding,
                                    llvm::SmallVectorImpl<mlir::Type> &types);

mlir::LogicalResult
inferBroadcastType(std::optional<mlir::Location> loc, llvm::StringRef opName,
                   mlir::Value lhs, mlir::Value rhs,
                   llvm::SmallVectorImpl<mlir::Type> &types);

/// The broadcast shape of `lhs` and `rhs` (one element type) with i1
/// elements.
mlir::LogicalResult inferCompareType(std::optional<mlir::Location> loc,
                                     llvm::StringRef opName, mlir::Value lhs,
                                     mlir::Value rhs,
                                     llvm::SmallVectorImpl<mlir::Type> &types);

mlir::LogicalResult
inferVectorScalarType(std::optional<mlir::Location> loc, llvm::StringRef opName,
                      mlir::Value input, mlir::Value scalar,
                      llvm::SmallVectorImpl<mlir::Type> &types);

mlir::LogicalResult inferMoEType(std::optional<mlir::Location> loc,
                                 llvm::StringRef opName,
                                 const MoEOperands &operands,
                                 llvm::SmallVectorImpl<mlir::Type> &types);

} // namespace npu::graph::detail

#define GET_OP_CLASSES
#include "npu/Dialect/NPU/NPUOps.h.inc"

#endif // NPU_DIALECT_NPU_NPUOPS_H
