//===- SparseDialect.h - the sparse iteration dialect -----------*- C++ -*-===//

#ifndef NPU_DIALECT_SPARSE_SPARSEDIALECT_H
#define NPU_DIALECT_SPARSE_SPARSEDIALECT_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"

#include "npu/Dialect/Sparse/SparseDialect.h.inc"
#include "npu/Dialect/Sparse/SparseEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "npu/Dialect/Sparse/SparseAttrs.h.inc"
#define GET_TYPEDEF_CLASSES
#include "npu/Dialect/Sparse/SparseTypes.h.inc"

#endif // NPU_DIALECT_SPARSE_SPARSEDIALECT_H
