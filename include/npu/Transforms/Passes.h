//===- Passes.h - npu-mlir graph transforms ---------------------*- C++ -*-===//
//
// The passes over the npu graph dialect (layouts, AlignMode). Conversions
// between levels are declared in npu/Conversion/Passes.h.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_TRANSFORMS_PASSES_H
#define NPU_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"
#include "npu/Dialect/NPU/NPUDialect.h"
#include "npu/Transforms/LayoutAssignment.h"

namespace npu {

#define GEN_PASS_DECL
#include "npu/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "npu/Transforms/Passes.h.inc"

} // namespace npu

#endif // NPU_TRANSFORMS_PASSES_H
