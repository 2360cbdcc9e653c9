//===- OpDiagnostics.h - diagnostics of shape functions ---------*- C++ -*-===//
//
// Shape functions run before an op exists (builders, the InferTypeOp
// verifier), so they report through an optional location; these helpers
// make their messages read like Operation::emitOpError's.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_LIB_DIALECT_NPU_OPDIAGNOSTICS_H
#define NPU_LIB_DIALECT_NPU_OPDIAGNOSTICS_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"

#include <string>

namespace npu::graph::detail {

/// Emits "'<opName>' op <args...>" at `loc`; silent without a location.
template <typename... Args>
mlir::LogicalResult emitShapeError(std::optional<mlir::Location> loc,
                                   llvm::StringRef opName, Args &&...args) {
  return mlir::emitOptionalError(loc, "'", opName, "' op ",
                                 std::forward<Args>(args)...);
}

/// The values of a default-valued array attribute, `defaults` when absent.
inline llvm::ArrayRef<int64_t> valuesOr(mlir::DenseI64ArrayAttr attr,
                                        llvm::ArrayRef<int64_t> defaults) {
  return attr ? attr.asArrayRef() : defaults;
}

/// The value of a default-valued integer attribute, `dflt` when absent.
inline int64_t valueOr(mlir::IntegerAttr attr, int64_t dflt) {
  return attr ? attr.getInt() : dflt;
}

/// Formats a shape or attribute array as "[2, ?, 4]" ('?' for dynamic).
std::string formatShape(llvm::ArrayRef<int64_t> values);

/// Checks that the array attribute `name` has `size` elements, each at least
/// `minValue`.
mlir::LogicalResult checkArrayAttr(std::optional<mlir::Location> loc,
                                   llvm::StringRef opName, llvm::StringRef name,
                                   llvm::ArrayRef<int64_t> values, size_t size,
                                   int64_t minValue);

/// Checks that `axis` indexes a dimension of a rank-`rank` tensor, in
/// [0, rank) or, when `allowNegative`, in [-rank, rank). Returns the
/// non-negative axis.
mlir::FailureOr<int64_t> checkAxis(std::optional<mlir::Location> loc,
                                   llvm::StringRef opName, llvm::StringRef name,
                                   int64_t axis, int64_t rank,
                                   bool allowNegative);

/// Checks that all `types` share one element type.
mlir::LogicalResult checkSameElementType(std::optional<mlir::Location> loc,
                                         llvm::StringRef opName,
                                         llvm::ArrayRef<mlir::Type> types);

} // namespace npu::graph::detail

#endif // NPU_LIB_DIALECT_NPU_OPDIAGNOSTICS_H
