//===- KernelBuilder.h - building npudev kernels ----------------*- C++ -*-===//
//
// A thin layer over OpBuilder for the operator lowerings: index arithmetic,
// windows into memrefs, on-chip buffers, DMA and loops, so that a kernel
// reads like the seeds' pseudo-code.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_LIB_CONVERSION_KERNELBUILDER_H
#define NPU_LIB_CONVERSION_KERNELBUILDER_H

#include "npu/Dialect/NPUDev/NPUDevOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace npu {

class KernelBuilder {
public:
  KernelBuilder(mlir::OpBuilder &b, mlir::Location loc) : b(b), loc(loc) {}

  mlir::OpBuilder &builder() { return b; }
  mlir::Location location() const { return loc; }

  //===--- Constants and index arithmetic ---------------------------------===//
  mlir::Value index(int64_t v);
  mlir::Value i32(int64_t v);
  mlir::Value f32(double v);
  mlir::Value add(mlir::Value x, mlir::Value y);
  mlir::Value sub(mlir::Value x, mlir::Value y);
  mlir::Value mul(mlir::Value x, mlir::Value y);
  mlir::Value div(mlir::Value x, mlir::Value y);
  mlir::Value rem(mlir::Value x, mlir::Value y);
  mlir::Value min(mlir::Value x, mlir::Value y);
  mlir::Value lt(mlir::Value x, mlir::Value y);
  mlir::Value ge(mlir::Value x, mlir::Value y);
  mlir::Value andI(mlir::Value x, mlir::Value y);
  mlir::Value select(mlir::Value cond, mlir::Value x, mlir::Value y);
  mlir::Value toIndex(mlir::Value v);

  //===--- Memory ---------------------------------------------------------===//
  /// A static on-chip buffer.
  mlir::Value alloc(llvm::ArrayRef<int64_t> shape, mlir::Type element,
                    dev::MemorySpace space = dev::MemorySpace::vector);
  /// The window of `memref` at `offsets` with `sizes` (unit strides),
  /// dropping the dimensions listed in `drop` (which must have size 1).
  mlir::Value window(mlir::Value memref, llvm::ArrayRef<mlir::Value> offsets,
                     llvm::ArrayRef<mlir::OpFoldResult> sizes,
                     llvm::ArrayRef<unsigned> drop = {});
  /// memref[index] and memref[index] = value.
  mlir::Value load(mlir::Value memref, mlir::ValueRange indices);
  void store(mlir::Value value, mlir::Value memref, mlir::ValueRange indices);
  void dma(mlir::Value source, mlir::Value target);
  void dmaStart(mlir::Value source, mlir::Value target);

  //===--- Control flow ---------------------------------------------------===//
  /// for (iv = lb; iv < ub; iv += step) body(iv).
  void forLoop(mlir::Value lb, mlir::Value ub, mlir::Value step,
               llvm::function_ref<void(mlir::Value)> body);
  /// for with one loop-carried value; returns its final value.
  mlir::Value
  forLoop(mlir::Value lb, mlir::Value ub, mlir::Value step, mlir::Value init,
          llvm::function_ref<mlir::Value(mlir::Value, mlir::Value)> body);
  void ifThenElse(mlir::Value cond, llvm::function_ref<void()> thenBody,
                  llvm::function_ref<void()> elseBody = nullptr);
  /// An npudev.launch of `tasks` tasks; `body(taskId)` fills it. Returns
  /// the launch.
  dev::LaunchOp launch(int64_t tasks,
                       llvm::function_ref<void(mlir::Value)> body);

private:
  mlir::OpBuilder &b;
  mlir::Location loc;
};

} // namespace npu

#endif // NPU_LIB_CONVERSION_KERNELBUILDER_H
