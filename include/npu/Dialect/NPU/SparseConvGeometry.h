//===- SparseConvGeometry.h - sizes of a sparse convolution -----*- C++ -*-===//
//
// The formulas of get_indice_pairs (docs/sparse-conv.md) in one place: the
// verifier checks them, the device lowering and the tests' reference
// evaluate them.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_DIALECT_NPU_SPARSECONVGEOMETRY_H
#define NPU_DIALECT_NPU_SPARSECONVGEOMETRY_H

#include "mlir/IR/Location.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/ArrayRef.h"

#include <array>
#include <cstdint>
#include <optional>

namespace npu::graph {

/// The attributes of a get_indice_pairs op, per spatial dimension (z, y, x),
/// and the output spatial shape they give.
struct SparseConvGeometry {
  using Dims = std::array<int64_t, 3>;
  int64_t batch = 1;
  Dims in{}, out{}, kernel{}, stride{1, 1, 1}, padding{}, dilation{1, 1, 1},
      outPadding{};
  bool subm = false, transpose = false;

  /// K = kd * kh * kw.
  int64_t getKernelVolume() const { return kernel[0] * kernel[1] * kernel[2]; }
  /// Number of sites of one batch entry of the output (D * H * W).
  int64_t getOutVolume() const { return out[0] * out[1] * out[2]; }
  /// Number of sites of one batch entry of the input.
  int64_t getInVolume() const { return in[0] * in[1] * in[2]; }
  /// Whether linear indices b * V + (z * H + y) * W + x over the input or
  /// the output shape need 64 bits.
  bool needsWideKeys() const;
  /// The kernel offsets (rz, ry, rx) of offset number k.
  Dims getOffset(int64_t k) const;
  /// The output site input coordinate `x` reaches along dimension `dim`
  /// through kernel offset `r`, or nullopt when it reaches none.
  std::optional<int64_t> reach(unsigned dim, int64_t x, int64_t r) const;
  /// The offset that maps every site to the same coordinates, if one does:
  /// stride 1, no transpose, and padding a multiple of the dilation within
  /// the kernel in each dimension. With subm that is the centre K / 2 when
  /// every kernel extent is odd, and none when one is even (its dilation is
  /// then even, and the padding d (k - 1) / 2 no multiple of it).
  std::optional<int64_t> getIdentityOffset() const;

  /// Checks the attributes and fills `out`. Reports a broken rule as
  /// "'<opName>' op ..." at `loc` (silently without one).
  mlir::LogicalResult complete(std::optional<mlir::Location> loc,
                               llvm::StringRef opName);
};

/// Largest kernel volume K the ops accept.
constexpr int64_t kMaxKernelVolume = 4096;

} // namespace npu::graph

#endif // NPU_DIALECT_NPU_SPARSECONVGEOMETRY_H
