//===- Semantics.h - facts both executors share -----------------*- C++ -*-===//
//
// What the verifier, the simulator, the JIT's lowering and the kernel
// builders must agree on, computed in one place: how a reduction starts and
// combines, what a binary kind and an element conversion compute, how much
// on-chip memory a kernel holds at once, and what a failed input check says.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_DIALECT_NPUDEV_SEMANTICS_H
#define NPU_DIALECT_NPUDEV_SEMANTICS_H

#include "npu/Dialect/NPUDev/NPUDevDialect.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/SmallVector.h"

#include <array>

namespace mlir {
class Block;
class OpBuilder;
} // namespace mlir

namespace npu::dev {

/// The identity a `kind` reduction over `element` starts from: 0 for sum,
/// -inf / +inf for float max / min, the smallest / largest signed value of
/// the width for integer max / min.
mlir::TypedAttr getReductionIdentity(ReduceKind kind, mlir::Type element);

/// The binary op a `kind` reduction combines with.
BinaryKind getReductionCombiner(ReduceKind kind);

/// The type reductions and prefix sums over `element` accumulate in: f32
/// for f16 and bf16 (the result rounded once, as on the vector units of
/// the devices modelled), else `element` itself.
mlir::Type getAccumulatorType(mlir::Type element);

/// x (kind) y in the type of x as one arith op: what every npudev op with
/// a BinaryKind computes per element. Floats: addf, subf, mulf, divf,
/// maximumf, minimumf (integer-only kinds are refused by the verifiers);
/// integers: signed div, rem, max and min, the bitwise ops and shifts.
mlir::Value buildBinary(mlir::OpBuilder &b, mlir::Location loc, BinaryKind kind,
                        mlir::Value x, mlir::Value y);

/// The kind an arith op computes, the inverse of buildBinary.
std::optional<BinaryKind> getBinaryKind(mlir::Operation *op);

/// Whether x (kind) y == y (kind) x for all x and y.
bool isCommutative(BinaryKind kind);

/// `v` as a `to`, as npudev converts elements (npudev.vcast, accumulators,
/// scalar operands): index casts; float extension or rounding; float to
/// signed integer; integer to float and integer widening signed, unsigned
/// for i1; integer narrowing by truncation.
mlir::Value convertElement(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value v, mlir::Type to);

/// The most tasks an npudev.launch may have (its verifier's bound on the
/// work one input can ask of the executors).
inline constexpr int64_t kMaxLaunchTasks = int64_t(1) << 20;

/// The memref `view` is a view of, through subviews, casts and any other
/// ViewLikeOpInterface op: where two accesses may meet.
mlir::Value getViewRoot(mlir::Value view);

/// Bytes of a statically shaped memref type, or std::nullopt when they do
/// not fit in int64_t (a shape from input may announce that many).
std::optional<int64_t> getStaticByteSize(mlir::MemRefType type);

/// Peak bytes of on-chip buffers live at once, per memory space (indexed by
/// MemorySpace; global stays 0).
using OnChipPeaks = std::array<int64_t, 4>;

/// The on-chip buffers a block holds at once, per space: every statically
/// shaped npudev.alloc, memref.alloc or memref.alloca in an on-chip space
/// lives from its op to the end of its block; nested blocks are walked
/// with what their parents hold. Counts saturate at INT64_MAX, which
/// exceeds every device. O(ops).
OnChipPeaks getOnChipPeaks(mlir::Block &block);

/// Where npudev.report_rows puts the row in its message.
inline constexpr llvm::StringLiteral kReportedRowPlaceholder = "{row}";

/// The error a fired npudev.report_rows with `message` gives for `row`.
std::string formatReportedRow(llvm::StringRef message, int64_t row);

/// The npudev.report_rows ops of `root` in program order (a preorder
/// walk): the JIT keeps one status slot per op in this order, and the
/// first that fired gives the error.
llvm::SmallVector<mlir::Operation *> getRowReports(mlir::Operation *root);

/// Fails, naming the first op found, unless every op of `root` is kernel
/// IR: npudev, arith, math, scf, memref and func (and builtin.module). Both
/// executors check the whole module before running any of it, so that
/// each refuses what neither can run (the sparse or graph dialect before
/// its lowering) with the same message.
mlir::LogicalResult checkKernelIR(mlir::Operation *root);

} // namespace npu::dev

#endif // NPU_DIALECT_NPUDEV_SEMANTICS_H
