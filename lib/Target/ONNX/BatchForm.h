//===- BatchForm.h - how a folded value depends on the batch ----*- C++ -*-===//
//
// Part of the ONNX importer's internal interface (BatchForms.cpp), apart so
// that its algebra can be tested without a model.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_LIB_TARGET_ONNX_BATCHFORM_H
#define NPU_LIB_TARGET_ONNX_BATCHFORM_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace npu::onnx_import {

/// How a value known at import time depends on the batch size N, in the
/// imports importONNX makes to keep the batch dynamic (BatchForms.cpp).
struct BatchForm {
  enum Kind : uint8_t {
    /// Not at all.
    None,
    /// As slope * N + offset, followed exactly through the arithmetic.
    Affine,
    /// In a way the importer does not follow (N / 8, min(N, 7)).
    Opaque,
  };
  Kind kind = None;
  double slope = 0, offset = 0;

  static BatchForm affine(double slope, double offset) {
    return {Affine, slope, offset};
  }
  static BatchForm opaque() { return {Opaque, 0, 0}; }
  bool operator==(const BatchForm &other) const {
    return kind == other.kind && slope == other.slope && offset == other.offset;
  }
};

/// The form of `op` (an ONNX binary op's type) applied elementwise to `x`
/// and `y`, whose values are `xValue` and `yValue` (`integer`: both
/// integers, so Div truncates). A comparison whose result is the same at
/// every batch N >= 1 has none (a batch of 0 runs no sample).
BatchForm combineForms(llvm::StringRef op, BatchForm x, double xValue,
                       BatchForm y, double yValue, bool integer);
/// The form of unary `op` (Neg, Floor, Abs, a Cast to an integer or float
/// type, ...) of `x`.
BatchForm applyUnaryForm(llvm::StringRef op, BatchForm x);

} // namespace npu::onnx_import

#endif // NPU_LIB_TARGET_ONNX_BATCHFORM_H
