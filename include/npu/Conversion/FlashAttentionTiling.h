//===- FlashAttentionTiling.h - templates and tiling keys -------*- C++ -*-===//
//
// How FlashAttention forward (FA) and backward (FAG) are cut into work, as
// CANN's FA/FAG design specifies for Ascend: the template chosen from the
// shape, with limits taken from the device model, and the tiling key that names
// the template: one decimal digit per field, the first field least significant,
// plus 10^19. The field values are those of the public tiling_type.h of CANN's
// FlashAttentionScore.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_CONVERSION_FLASHATTENTIONTILING_H
#define NPU_CONVERSION_FLASHATTENTIONTILING_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace npu {

struct DeviceModel;

namespace attention {

/// A tiling key field's digits (tiling_type.h's values).
enum class Axis : unsigned {
  B = 0,
  N2 = 1,
  G = 2,
  S1 = 3,
  S2 = 4,
  D = 5,
  None = 9
};
enum class Dtype : unsigned { Float16 = 0, Float32 = 1, BFloat16 = 2 };
enum class Layout : unsigned { BSND = 0, SBND = 1, BNSD = 2, TND = 3 };
enum class Sparse : unsigned {
  All = 0,
  None = 1,
  Any = 2,
  Causal = 3,
  Band = 4,
  Prefix = 5
};
enum class Buffering : unsigned { BigBuffer = 1, BigDoubleBuffer = 2 };
enum class CubeFormat : unsigned { ND = 0, NZ = 1 };

/// The fields of a tiling key, least significant digit first, in the order
/// of the rule in CANN's FA/FAG design: UB0, UB1, Block, ImplMode,
/// DataType, Format, Sparse, BIG_DOUBLE_BUFFER, Bmm1Format, hasDropOut,
/// hasAttenMask, hasPse, enableL1Reuse. (The design's code example passes
/// Bmm1Format before Sparse; its prose, followed here, after the buffering
/// field.)
struct TilingKeyFields {
  Axis ub0 = Axis::None, ub1 = Axis::None, block = Axis::None;
  /// inner_precise: 0 high precision, 1 high performance, 2 high precision
  /// with fully masked rows computed exactly.
  unsigned implMode = 0;
  Dtype dtype = Dtype::Float16;
  Layout layout = Layout::BSND;
  Sparse sparse = Sparse::All;
  Buffering buffering = Buffering::BigDoubleBuffer;
  CubeFormat bmm1Format = CubeFormat::ND;
  bool hasDropout = false, hasAttenMask = false, hasPse = false;
  bool enableL1Reuse = false;

  /// The digits, least significant first.
  llvm::SmallVector<unsigned, 13> getDigits() const;
};

/// 10^19 plus the digits (each 0..9, least significant first, at most 19)
/// as a decimal number. It does not fit 64 bits when the digits reach
/// 2^64 - 1 - 10^19 = 8446744073709551615: that is an error here, where
/// CANN's uint64_t arithmetic would wrap silently. Keys are recorded
/// as decimal strings: they never fit a signed 64-bit attribute.
llvm::Expected<uint64_t> composeTilingKey(llvm::ArrayRef<unsigned> digits);
/// The key of `fields` (always fits: 13 digits).
uint64_t getTilingKey(const TilingKeyFields &fields);

/// The sizes the templates are chosen from: batch, KV heads N2, query
/// heads per KV head G, query and key lengths, head dim.
struct AttentionShape {
  int64_t b, n2, g, s1, s2, d;
};

/// Device-derived limits, in f32 elements (CANN's FA design on ascend910b:
/// vector blocks of 8 x 1024, cube blocks of 128 x 128 and a 1:16
/// vector:cube ratio, hence 128 x 1024 per round).
struct AttentionLimits {
  /// Elements of the largest of the six vector buffers (32 KiB of f32).
  int64_t vectorBlock;
  /// Key length of one block row (1024): vectorBlock / 8.
  int64_t s2Inner;
  /// Elements of one cube/vector round (131072): vectorBlock * 16.
  int64_t roundElements;
  /// Vector cores (AIV on ascend910b: all the device model's cores).
  int64_t vectorCores;
  /// AI cores, each a cube core with its vector cores (the device model's
  /// clusters: 24 on ascend910b).
  int64_t aiCores;
};
AttentionLimits getAttentionLimits(const DeviceModel &device);

/// Query rows per S1S2 tile, and the larger choice when the cores are
/// otherwise oversubscribed (the outer axis B*N2*G*ceil(S1/kS1Inner)
/// exceeds the vector cores).
constexpr int64_t kS1Inner = 64, kS1InnerLarge = 128;
/// Keys beyond which the S1 template applies (one 128-wide cube block).
constexpr int64_t kTemplateCubeBlock = 128;
/// Elements' alignment of the cube's fractal tiles.
constexpr int64_t kFractalAlign = 16;

/// The forward templates, in priority order.
enum class ForwardTemplate { SplitS1S2, SplitS1, SplitB };
llvm::StringRef stringifyForwardTemplate(ForwardTemplate t);

/// A forward template and its in-core split.
struct ForwardTiling {
  ForwardTemplate kind;
  /// Rows of query, keys, and batch entries per in-core tile.
  int64_t s1Inner, s2Inner, bInner;
  TilingKeyFields key;
};

/// CANN's FA rules: S1S2 when S2 > s2Inner (s1 inner 64, or 128 when the
/// outer B*N2*G*ceil(S1/64) exceeds the vector cores); S1 when S2 > 128 or
/// align16(S1) * align16(S2) > roundElements / 2 (s1 inner the largest
/// multiple of 8 with s1 inner * align16(S2) <= roundElements); else B
/// (the most batch entries with B.i * N2 * G * align16(S1) * align16(S2)
/// <= roundElements).
ForwardTiling selectAttentionTemplate(const AttentionShape &shape,
                                      const AttentionLimits &limits);

/// The backward templates with their priorities (lower is preferred).
enum class BackwardTemplate {
  BN2GS1S2_B = 10000,
  N2GS1S2_BN1 = 11000,
  S1S2_BN2 = 15000,
  S1S2_BN2GS1S2 = 16000,
};
llvm::StringRef stringifyBackwardTemplate(BackwardTemplate t);

/// A backward template and the key fields it decides: UB0 / UB1 the axes
/// its name splits within a core (B; N2; S1 and S2), Block the innermost
/// axis it splits across cores (B; G, of B N1 = B N2 G; N2; S2).
struct BackwardTiling {
  BackwardTemplate kind;
  TilingKeyFields key;
};

/// The preferred backward template whose condition holds: UB on B, cores
/// on B when N2*G*S1*S2 < vectorBlock; UB on N2, cores on B N1 when
/// G*S1*S2 < vectorBlock; UB on S1 S2, cores on B N2 when B*N2 > the AI
/// cores; else the fallback, cores on B N2 G S1 S2.
BackwardTiling selectAttentionGradTemplate(const AttentionShape &shape,
                                           const AttentionLimits &limits);

} // namespace attention
} // namespace npu

#endif // NPU_CONVERSION_FLASHATTENTIONTILING_H
