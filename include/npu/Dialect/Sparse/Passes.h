//===- Passes.h - sparse iteration lowering stages --------------*- C++ -*-===//

#ifndef NPU_DIALECT_SPARSE_PASSES_H
#define NPU_DIALECT_SPARSE_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace npu::sparse {

#define GEN_PASS_DECL
#include "npu/Dialect/Sparse/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "npu/Dialect/Sparse/Passes.h.inc"

} // namespace npu::sparse

#endif // NPU_DIALECT_SPARSE_PASSES_H
