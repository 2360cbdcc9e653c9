//===- NPUDialect.h - the npu graph dialect ---------------------*- C++ -*-===//
//
// The dialect, its enums (AlignMode, ChannelNormDirection, ReduceKind) and
// the `#npu.layout` tensor encoding with the byte-size computation it
// implies.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_DIALECT_NPU_NPUDIALECT_H
#define NPU_DIALECT_NPU_NPUDIALECT_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/TensorEncoding.h"
#include "mlir/IR/TypeRange.h"

#include "npu/Dialect/NPU/NPUDialect.h.inc"
#include "npu/Dialect/NPU/NPUEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "npu/Dialect/NPU/NPUAttrs.h.inc"

namespace npu::graph {

/// Returns the storage mode recorded in `type`'s `#npu.layout` encoding, or
/// std::nullopt when the type carries no layout.
std::optional<AlignMode> getLayoutMode(mlir::Type type);

/// Returns `type` with its encoding set to `#npu.layout<mode>`.
mlir::RankedTensorType withLayout(mlir::RankedTensorType type, AlignMode mode);

/// Returns `type` without a `#npu.layout` encoding (other types unchanged).
mlir::Type stripLayout(mlir::Type type);

/// True when both ranges have the same length and pairwise the same shape
/// and element type; `#npu.layout` encodings are ignored.
bool areCompatibleIgnoringLayout(mlir::TypeRange lhs, mlir::TypeRange rhs);

/// True when a tensor of rank `rank` can be stored channel-aligned (the
/// device's Cx form needs rank 2 or 4; rank 0, 1 and 3 cannot).
bool canBeStoredAligned(int64_t rank);

/// Returns the number of bytes `type` occupies in device memory: with
/// `#npu.layout<align>` the innermost dimension is padded up to
/// NPUDialect::kChannelAlignment elements. Each element takes
/// ceil(bitwidth / 8) bytes. Returns std::nullopt for dynamic shapes and
/// element types without a fixed width.
std::optional<int64_t> getStorageSizeInBytes(mlir::RankedTensorType type);

/// The row length a value of `type` is stored with when its layout pads
/// rows: C rounded up to NPUDialect::kChannelAlignment. std::nullopt when
/// it is stored dense: no aligned layout, rank 0, a dynamic C, or C already
/// a multiple of the unit (both forms are then the same bytes).
std::optional<int64_t> getPaddedRowLength(mlir::Type type);

/// The largest size the layout pass prices a tensor at (256 TiB): no device
/// holds more, and sums over a graph's values stay far from overflow.
inline constexpr int64_t kMaxPricedBytes = int64_t(1) << 48;

/// Returns the bytes a channel_norm of `type` moves: the value read in one
/// layout plus the value written in the other. A price, never unknown: each
/// dynamic dimension counts as 1 (the cost per unit of it), an element
/// without a fixed width as 8 bytes, and the size is capped at
/// kMaxPricedBytes.
int64_t getConversionBytes(mlir::RankedTensorType type);

/// Returns the bytes the aligned form of `type` occupies beyond the dense
/// form, priced as getConversionBytes prices.
int64_t getAlignedPaddingBytes(mlir::RankedTensorType type);

} // namespace npu::graph

#endif // NPU_DIALECT_NPU_NPUDIALECT_H
