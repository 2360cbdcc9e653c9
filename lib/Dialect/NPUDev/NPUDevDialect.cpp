//===- NPUDevDialect.cpp - npudev dialect, spaces, types ------------------===//

#include "npu/Dialect/NPUDev/NPUDevDialect.h"
#include "npu/Dialect/NPUDev/NPUDevOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace npu::dev;

#include "npu/Dialect/NPUDev/NPUDevDialect.cpp.inc"
#include "npu/Dialect/NPUDev/NPUDevEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "npu/Dialect/NPUDev/NPUDevAttrs.cpp.inc"
#define GET_TYPEDEF_CLASSES
#include "npu/Dialect/NPUDev/NPUDevTypes.cpp.inc"

void NPUDevDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "npu/Dialect/NPUDev/NPUDevAttrs.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "npu/Dialect/NPUDev/NPUDevTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "npu/Dialect/NPUDev/NPUDevOps.cpp.inc"
      >();
}

std::optional<MemorySpace> npu::dev::getMemorySpace(MemRefType type) {
  if (auto space = dyn_cast_or_null<MemorySpaceAttr>(type.getMemorySpace()))
    return space.getValue();
  return std::nullopt;
}

bool npu::dev::isInSpace(MemRefType type,
                         std::initializer_list<MemorySpace> spaces) {
  std::optional<MemorySpace> space = getMemorySpace(type);
  return space && llvm::is_contained(spaces, *space);
}

int64_t npu::dev::getElementBytes(Type type) {
  if (type.isIndex())
    return 8;
  return llvm::divideCeil(type.getIntOrFloatBitWidth(), 8);
}
