//===- Npz.h - NumPy .npz archives ------------------------------*- C++ -*-===//
//
// An .npz is a zip archive of .npy files, one per named array (numpy.savez
// writes them stored, uncompressed). This reads and writes such archives:
// stored entries only, without zip64 (entries and archive under 4 GiB).
// A compressed entry (numpy.savez_compressed), a bad checksum, a name given
// twice or a truncated archive is an error that says what was found.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_SUPPORT_NPZ_H
#define NPU_SUPPORT_NPZ_H

#include "npu/Support/Npy.h"

#include <string>
#include <utility>

namespace npu {

/// An archive's arrays in the order they are stored, by name (the entry's
/// file name without ".npy").
using NpzArrays = std::vector<std::pair<std::string, NpyArray>>;

/// Parses the bytes of an .npz archive.
llvm::Expected<NpzArrays> parseNpz(llvm::StringRef bytes);
/// Reads an .npz file.
llvm::Expected<NpzArrays> readNpz(llvm::StringRef path);
/// The bytes of an .npz archive holding `arrays`, each as NAME.npy, stored.
llvm::Expected<std::string> serializeNpz(const NpzArrays &arrays);
/// Writes `arrays` to `path`.
llvm::Error writeNpz(llvm::StringRef path, const NpzArrays &arrays);

} // namespace npu

#endif // NPU_SUPPORT_NPZ_H
