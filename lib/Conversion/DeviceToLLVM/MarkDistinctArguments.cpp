//===- MarkDistinctArguments.cpp - entry memrefs as noalias pointers ------===//
//
// npu-mark-distinct-arguments{entry}: the entry (not its `_mlir_ciface_`
// wrapper, which takes descriptors by pointer) gets `noalias` on the
// aligned pointer of each of its memref arguments. Memrefs
// arrive flattened as (allocated, aligned, offset, sizes..., strides...)
// and scalars are never pointers, so the aligned pointer is a pointer that
// follows another. LLVM's inliner carries the promise into the C wrapper as
// scoped alias metadata. O(arguments).
//
//===----------------------------------------------------------------------===//

#include "npu/Conversion/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"

namespace npu {
#define GEN_PASS_DEF_MARKDISTINCTARGUMENTS
#include "npu/Conversion/Passes.h.inc"
} // namespace npu

using namespace mlir;

namespace {

void markAlignedPointersNoAlias(LLVM::LLVMFuncOp func) {
  auto isPointer = [](Type type) { return isa<LLVM::LLVMPointerType>(type); };
  ArrayRef<Type> types = func.getFunctionType().getParams();
  for (unsigned i = 1; i < types.size(); ++i)
    if (isPointer(types[i]) && isPointer(types[i - 1]))
      func.setArgAttr(i, LLVM::LLVMDialect::getNoAliasAttrName(),
                      UnitAttr::get(func.getContext()));
}

struct MarkDistinctArguments
    : npu::impl::MarkDistinctArgumentsBase<MarkDistinctArguments> {
  using MarkDistinctArgumentsBase::MarkDistinctArgumentsBase;

  void runOnOperation() override {
    auto func = getOperation().lookupSymbol<LLVM::LLVMFuncOp>(entry);
    if (!func || func.isExternal()) {
      getOperation().emitError("npu-mark-distinct-arguments: no function '")
          << entry << "' with a body";
      return signalPassFailure();
    }
    markAlignedPointersNoAlias(func);
  }
};

} // namespace
