//===- LoopBuilders.h - builders the loop lowerings share -------*- C++ -*-===//
//
// Private to lib/Conversion/DeviceToLoops.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_LIB_CONVERSION_DEVICETOLOOPS_LOOPBUILDERS_H
#define NPU_LIB_CONVERSION_DEVICETOLOOPS_LOOPBUILDERS_H

#include "npu/Dialect/NPUDev/NPUDevOps.h"
#include "npu/Dialect/NPUDev/Semantics.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"

namespace npu::dev::loops {

//===--- Scalars ----------------------------------------------------------===//
mlir::Value indexConst(mlir::OpBuilder &b, mlir::Location loc, int64_t v);
mlir::Value floatConst(mlir::OpBuilder &b, mlir::Location loc, mlir::Type type,
                       double v);
mlir::Value intConst(mlir::OpBuilder &b, mlir::Location loc, mlir::Type type,
                     const llvm::APInt &v);
mlir::Value zeroOf(mlir::OpBuilder &b, mlir::Location loc, mlir::Type type);
mlir::Value buildUnary(mlir::OpBuilder &b, mlir::Location loc, UnaryKind kind,
                       mlir::Value x);
/// An i1: x (pred) y, ordered for floats except `ne`.
mlir::Value buildCompare(mlir::OpBuilder &b, mlir::Location loc,
                         ComparePredicate pred, mlir::Value x, mlir::Value y);
/// 1 or 0 of `type` from an i1.
mlir::Value flagAs(mlir::OpBuilder &b, mlir::Location loc, mlir::Value flag,
                   mlir::Type type);
/// Whether a value is nonzero (NaN counts as nonzero).
mlir::Value isNonZero(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v);

//===--- Loops ------------------------------------------------------------===//
mlir::Type elementTypeOf(mlir::Value memref);
/// A loop nest over dimensions [0, rank - drop) of `memref`.
void buildLoopsOver(mlir::OpBuilder &b, mlir::Location loc, mlir::Value memref,
                    llvm::function_ref<void(mlir::OpBuilder &, mlir::Location,
                                            mlir::ValueRange)>
                        body,
                    unsigned drop = 0);
/// out[i] = compute(in0[i], in1[i], ...) over the shape of `out`: one loop
/// over 1-D views when every operand's rows lie back to back, else a loop
/// nest.
void buildElementwiseLoops(
    mlir::OpBuilder &b, mlir::Location loc, mlir::ValueRange inputs,
    mlir::Value out,
    llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location,
                                   llvm::ArrayRef<mlir::Value>)>
        compute);
/// The same, replacing `op`: erases it.
void buildElementwise(
    mlir::PatternRewriter &rewriter, mlir::Operation *op,
    mlir::ValueRange inputs, mlir::Value out,
    llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location,
                                   llvm::ArrayRef<mlir::Value>)>
        compute);
/// Loops over the innermost rows of `input` with an accumulator; calls
/// `step(acc, x, outer ivs, inner iv)` per element and returns the new acc.
/// `finish(acc, outer ivs)` runs after each row.
void buildRowScan(
    mlir::OpBuilder &b, mlir::Location loc, mlir::Value input, mlir::Value init,
    llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location,
                                   mlir::Value, mlir::Value, mlir::ValueRange,
                                   mlir::Value)>
        step,
    llvm::function_ref<void(mlir::OpBuilder &, mlir::Location, mlir::Value,
                            mlir::ValueRange)>
        finish);

/// Folds each innermost row of `input` into one value: `step(acc, x)` per
/// element, in order from `init`; `finish(acc, row's ivs)` after each row.
/// Rows are folded kInterleavedRows at a time, their accumulators side by
/// side in one loop: every row folds its elements in the same order (the
/// same bits as buildRowScan), but the rows' chains of dependent steps
/// overlap instead of running one after another.
void buildRowReduce(
    mlir::OpBuilder &b, mlir::Location loc, mlir::Value input, mlir::Value init,
    llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location,
                                   mlir::Value, mlir::Value)>
        step,
    llvm::function_ref<void(mlir::OpBuilder &, mlir::Location, mlir::Value,
                            mlir::ValueRange)>
        finish);

/// How buildIndexedCopy moves a row.
enum class IndexedCopy { Gather, Scatter, ScatterAdd };
/// Row-indexed copy between `rows`, row indices[i], and `dense`, row i,
/// element by element in the simulator's order (i, then the row). With
/// `negativeSkips`, a negative index skips its row (a gather writes zeros).
void buildIndexedCopy(mlir::OpBuilder &b, mlir::Location loc, mlir::Value rows,
                      mlir::Value indices, mlir::Value dense, IndexedCopy kind,
                      bool negativeSkips = false);

//===--- Tokens -----------------------------------------------------------===//
/// Fails the match, naming the user, while `op`'s token is still used: the
/// JIT runs `op` synchronously once the waits and the scf ops carrying the
/// token have let it go.
mlir::LogicalResult requireUnusedToken(mlir::Operation *op,
                                       mlir::PatternRewriter &rewriter);

//===--- Runtime calls ----------------------------------------------------===//
/// A memref of `rank` and `element` with a fully dynamic strided layout:
/// what the runtime's functions take.
mlir::MemRefType getRuntimeMemRefType(mlir::MLIRContext *ctx, unsigned rank,
                                      mlir::Type element);
/// The runtime function `name` with a C interface, declared on first use.
mlir::func::FuncOp getRuntimeFunction(mlir::OpBuilder &builder,
                                      mlir::Operation *op, llvm::StringRef name,
                                      mlir::TypeRange arguments,
                                      mlir::TypeRange results);

//===--- Matmul -----------------------------------------------------------===//
/// Whether the runtime has a kernel for `op`'s inputs (f32, f16 or bf16).
bool hasMatmulKernel(MatmulOp op);
/// Calls the runtime's kernel for `op` (f32, f16 or bf16 inputs) on `a` and
/// `b`: its operands, or views holding what they would hold (any strides,
/// any memory space). Fails for inputs without a kernel (MatmulPatterns.cpp).
mlir::LogicalResult buildMatmulKernelCall(mlir::OpBuilder &builder, MatmulOp op,
                                          mlir::Value a, mlir::Value b);

} // namespace npu::dev::loops

#endif // NPU_LIB_CONVERSION_DEVICETOLOOPS_LOOPBUILDERS_H
