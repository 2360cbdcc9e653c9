//===- SparseOps.h - ops of the sparse iteration dialect --------*- C++ -*-===//

#ifndef NPU_DIALECT_SPARSE_SPARSEOPS_H
#define NPU_DIALECT_SPARSE_SPARSEOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "npu/Dialect/Sparse/SparseDialect.h"

#define GET_OP_CLASSES
#include "npu/Dialect/Sparse/SparseOps.h.inc"

#endif // NPU_DIALECT_SPARSE_SPARSEOPS_H
