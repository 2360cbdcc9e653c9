//===- Npy.h - NumPy .npy files ---------------------------------*- C++ -*-===//
//
// Reads and writes NumPy's .npy format (versions 1.0 to 3.0): C order,
// little-endian f16, f32, f64, i8, i32, i64 and bool. Anything else
// (Fortran order, big-endian, other types, a malformed header, a key given
// twice, a bool byte other than 0 or 1) is an error that says what was
// found.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_SUPPORT_NPY_H
#define NPU_SUPPORT_NPY_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace npu {

enum class NpyDType { F16, F32, F64, I8, I32, I64, Bool };

/// Bytes per element, and the descr string ("<f4", "|i1", ...).
unsigned getNpyElementBytes(NpyDType type);
llvm::StringRef getNpyDescr(NpyDType type);

struct NpyArray {
  NpyDType type = NpyDType::F32;
  llvm::SmallVector<int64_t, 4> shape;
  /// Little-endian elements in C order.
  std::vector<uint8_t> data;
};

/// Parses the bytes of a .npy file.
llvm::Expected<NpyArray> parseNpy(llvm::StringRef bytes);
/// Reads a .npy file.
llvm::Expected<NpyArray> readNpy(llvm::StringRef path);
/// The bytes of a version 1.0 .npy file holding `array`.
std::string serializeNpy(const NpyArray &array);
/// Writes `array` to `path`.
llvm::Error writeNpy(llvm::StringRef path, const NpyArray &array);

} // namespace npu

#endif // NPU_SUPPORT_NPY_H
