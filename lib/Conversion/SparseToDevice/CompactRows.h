//===- CompactRows.h - a row loop run at its non-empty rows only -*- C++
//-*-===//
//
// Used by npu-sparse-tile-positions: see CompactRows.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_LIB_CONVERSION_SPARSETODEVICE_COMPACTROWS_H
#define NPU_LIB_CONVERSION_SPARSETODEVICE_COMPACTROWS_H

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/DenseSet.h"

#include <optional>

namespace npu::sparse {

/// A loop of rows whose iterations do nothing for a row with an empty run.
struct IdleWhenEmptyRows {
  mlir::scf::ForOp rows;
  /// The global memrefs the loop reads and never writes (indptr).
  llvm::DenseSet<mlir::Value> readOnly;
};

/// The loop of rows around `runLoop`, a loop over a row's run, when a row
/// whose run is empty does nothing in it: the row loop is inside a launch,
/// has step 1 and carries nothing, and its body holds `runLoop` and
/// otherwise only pure ops and reads of global memory it never writes.
std::optional<IdleWhenEmptyRows>
matchIdleWhenEmptyRows(mlir::scf::ForOp runLoop);

/// Rewrites `match.rows` (whose body may since have been rewritten without
/// new writes to its read-only memory) to take, per block of `block` rows,
/// first a scalar loop that lists the rows whose `runLength` (a value of
/// its body) is positive, with the body's reads of read-only memory at
/// them, then the body at the listed rows only, reading those from the
/// lists.
void compactRows(const IdleWhenEmptyRows &match, mlir::Value runLength,
                 int64_t block);

} // namespace npu::sparse

#endif // NPU_LIB_CONVERSION_SPARSETODEVICE_COMPACTROWS_H
