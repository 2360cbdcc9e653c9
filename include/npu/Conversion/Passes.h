//===- Passes.h - npu-mlir conversions between levels -----------*- C++ -*-===//
//
// Declarations only: including this pulls in no dialect. Each conversion
// library registers the dialects it creates through the pass's
// dependentDialects.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_CONVERSION_PASSES_H
#define NPU_CONVERSION_PASSES_H

#include "mlir/Pass/Pass.h"

namespace npu {

#define GEN_PASS_DECL
#include "npu/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "npu/Conversion/Passes.h.inc"

} // namespace npu

#endif // NPU_CONVERSION_PASSES_H
