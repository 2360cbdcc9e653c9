//===- NPUOpDefs.h - what the op definition shards include ------*- C++ -*-===//
//
// Private to lib/Dialect/NPU: the declarations the generated op
// definitions use, included by each shard (NPUOpDefs<i>.cpp, written by
// CMakeLists.txt).
//
//===----------------------------------------------------------------------===//

#ifndef NPU_LIB_DIALECT_NPU_NPUOPDEFS_H
#define NPU_LIB_DIALECT_NPU_NPUOPDEFS_H

#include "npu/Dialect/NPU/NPUOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TypeUtilities.h"

#endif // NPU_LIB_DIALECT_NPU_NPUOPDEFS_H
