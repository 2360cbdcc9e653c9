//===- LoweredSignature.h - a lowered function's arguments -----*- C++ -*-===//
//-*-===//
//
// npu-lower-to-device turns a graph function's results into arguments and
// annotates them; npu-run, the benches and the tests read the annotations to
// allocate those arguments and to cut data-dependent rows. The names and
// the decoding live here, beside the pass that writes them, so that every
// runner reads them one way.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_CONVERSION_LOWEREDSIGNATURE_H
#define NPU_CONVERSION_LOWEREDSIGNATURE_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace mlir::func {
class FuncOp;
} // namespace mlir::func

namespace npu::signature {

/// Unit: the argument holds one of the graph function's results.
constexpr llvm::StringLiteral kOutput = "npudev.output";
/// array<i64>: per dynamic dimension of an output, a triple (argument,
/// dimension, factor) whose product is its size.
constexpr llvm::StringLiteral kSizes = "npudev.sizes";
/// i64: the argument holding an output's data-dependent row count.
constexpr llvm::StringLiteral kRows = "npudev.rows";
/// Unit: the argument is some output's row count.
constexpr llvm::StringLiteral kRowCount = "npudev.row_count";
/// i64: the logical channel count of an argument stored with padded rows.
constexpr llvm::StringLiteral kChannels = "npudev.channels";

/// The shape argument `index` of `func` takes when it runs: `staticShape`
/// with each dynamic size bound as the argument's `npudev.sizes` names it,
/// from `argShape(a)` of an argument a < `numKnownArgs`. An error names the
/// argument when the attribute does not give a known argument's dimension
/// and a non-negative factor for every dynamic size, or a product
/// overflows.
llvm::Expected<llvm::SmallVector<int64_t>>
bindOutputShape(mlir::func::FuncOp func, unsigned index,
                llvm::ArrayRef<int64_t> staticShape, unsigned numKnownArgs,
                llvm::function_ref<llvm::ArrayRef<int64_t>(unsigned)> argShape);

} // namespace npu::signature

#endif // NPU_CONVERSION_LOWEREDSIGNATURE_H
