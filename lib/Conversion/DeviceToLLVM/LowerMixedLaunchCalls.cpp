//===- LowerMixedLaunchCalls.cpp - hand mixed launches to the runtime -----===//
//
// npu-lower-device-to-loops outlines each region of a mixed launch into
// `@__npu_mixed_launch_<n>_cube` / `_vector` (task, captures...) and leaves
// a call of the declaration `@__npu_mixed_launch_<n>` (cube tasks, vector
// tasks, captures...). In the LLVM dialect both sides have the same
// flattened argument lists, so completing the call needs no knowledge of
// memref descriptors: the captures are stored into one stack struct, an
// entry `(i64 task, ptr struct)` per region loads them and calls the
// region's function, and the call becomes
// npu_rt_run_mixed(cube entry, vector entry, struct, cube tasks,
// vector tasks, threads). O(captures) per launch.
//
//===----------------------------------------------------------------------===//

#include "npu/Conversion/Passes.h"
#include "npu/Runtime/RuntimeABI.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringExtras.h"

namespace npu {
#define GEN_PASS_DEF_LOWERMIXEDLAUNCHCALLS
#include "npu/Conversion/Passes.h.inc"
} // namespace npu

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kMarkerPrefix = "__npu_mixed_launch_";

/// `name_entry`: loads the captures from the struct and calls `name`.
LLVM::LLVMFuncOp buildEntry(ModuleOp module, LLVM::LLVMFuncOp region,
                            LLVM::LLVMStructType captures) {
  MLIRContext *ctx = module.getContext();
  Location loc = region.getLoc();
  OpBuilder b(module.getBodyRegion());
  b.setInsertionPointToEnd(module.getBody());
  Type i64 = IntegerType::get(ctx, 64);
  auto ptr = LLVM::LLVMPointerType::get(ctx);
  auto entry = b.create<LLVM::LLVMFuncOp>(
      loc, (region.getName() + "_entry").str(),
      LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), {i64, ptr}));
  Block *block = entry.addEntryBlock(b);
  b.setInsertionPointToStart(block);
  SmallVector<Value> args{block->getArgument(0)};
  for (auto [i, type] : llvm::enumerate(captures.getBody())) {
    Value field = b.create<LLVM::GEPOp>(
        loc, ptr, captures, block->getArgument(1),
        ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(i)});
    args.push_back(b.create<LLVM::LoadOp>(loc, type, field));
  }
  b.create<LLVM::CallOp>(loc, region, args);
  b.create<LLVM::ReturnOp>(loc, ValueRange{});
  return entry;
}

LLVM::LLVMFuncOp getRunMixed(ModuleOp module) {
  if (auto existing =
          module.lookupSymbol<LLVM::LLVMFuncOp>(npu::abi::kRunMixed))
    return existing;
  MLIRContext *ctx = module.getContext();
  OpBuilder b(module.getBodyRegion());
  Type i64 = IntegerType::get(ctx, 64);
  auto ptr = LLVM::LLVMPointerType::get(ctx);
  return b.create<LLVM::LLVMFuncOp>(
      module.getLoc(), npu::abi::kRunMixed,
      LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx),
                                  {ptr, ptr, ptr, i64, i64, i64}));
}

LogicalResult completeCall(ModuleOp module, LLVM::CallOp call,
                           LLVM::LLVMFuncOp marker, int64_t threads) {
  StringRef name = marker.getName();
  auto cube = module.lookupSymbol<LLVM::LLVMFuncOp>((name + "_cube").str());
  auto vector = module.lookupSymbol<LLVM::LLVMFuncOp>((name + "_vector").str());
  if (!cube || !vector)
    return call.emitError("mixed launch '") << name << "' lost its regions";
  MLIRContext *ctx = module.getContext();
  Location loc = call.getLoc();
  ValueRange operands = call.getArgOperands();
  SmallVector<Type> types(operands.drop_front(2).getTypes());
  auto captures = LLVM::LLVMStructType::getLiteral(ctx, types);
  auto ptr = LLVM::LLVMPointerType::get(ctx);
  Type i64 = IntegerType::get(ctx, 64);

  OpBuilder b(call);
  Value one = b.create<LLVM::ConstantOp>(loc, i64, b.getI64IntegerAttr(1));
  Value storage = b.create<LLVM::AllocaOp>(loc, ptr, captures, one);
  for (auto [i, value] : llvm::enumerate(operands.drop_front(2))) {
    Value field = b.create<LLVM::GEPOp>(
        loc, ptr, captures, storage,
        ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(i)});
    b.create<LLVM::StoreOp>(loc, value, field);
  }
  LLVM::LLVMFuncOp cubeEntry = buildEntry(module, cube, captures);
  LLVM::LLVMFuncOp vectorEntry = buildEntry(module, vector, captures);
  b.setInsertionPoint(call);
  Value threadCount =
      b.create<LLVM::ConstantOp>(loc, i64, b.getI64IntegerAttr(threads));
  b.create<LLVM::CallOp>(
      loc, getRunMixed(module),
      ValueRange{b.create<LLVM::AddressOfOp>(loc, cubeEntry),
                 b.create<LLVM::AddressOfOp>(loc, vectorEntry), storage,
                 operands[0], operands[1], threadCount});
  call.erase();
  return success();
}

struct LowerMixedLaunchCallsPass
    : npu::impl::LowerMixedLaunchCallsBase<LowerMixedLaunchCallsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<LLVM::LLVMFuncOp> markers;
    for (auto func : module.getOps<LLVM::LLVMFuncOp>()) {
      StringRef suffix = func.getName();
      if (func.isExternal() && suffix.consume_front(kMarkerPrefix) &&
          !suffix.empty() &&
          llvm::all_of(suffix, [](char c) { return llvm::isDigit(c); }))
        markers.push_back(func);
    }
    for (LLVM::LLVMFuncOp marker : markers) {
      SmallVector<LLVM::CallOp> calls;
      module.walk([&](LLVM::CallOp call) {
        if (call.getCallee() == marker.getName())
          calls.push_back(call);
      });
      for (LLVM::CallOp call : calls)
        if (failed(completeCall(module, call, marker, threads)))
          return signalPassFailure();
      marker.erase();
    }
  }
};

} // namespace
