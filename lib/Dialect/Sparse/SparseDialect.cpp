//===- SparseDialect.cpp - sparse dialect, enums, types -------------------===//

#include "npu/Dialect/Sparse/SparseDialect.h"
#include "npu/Dialect/Sparse/SparseOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace npu::sparse;

#include "npu/Dialect/Sparse/SparseDialect.cpp.inc"
#include "npu/Dialect/Sparse/SparseEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "npu/Dialect/Sparse/SparseAttrs.cpp.inc"
#define GET_TYPEDEF_CLASSES
#include "npu/Dialect/Sparse/SparseTypes.cpp.inc"

void SparseDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "npu/Dialect/Sparse/SparseAttrs.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "npu/Dialect/Sparse/SparseTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "npu/Dialect/Sparse/SparseOps.cpp.inc"
      >();
}
