//===- Npz.cpp - NumPy .npz archives --------------------------------------===//
//
// A zip archive (PKWARE APPNOTE 6.3): per entry a local header and the
// stored bytes, then a central directory and its end record. Writing lays
// them out in order; reading finds the end record (searching back over a
// comment), walks the central directory and takes each entry's bytes from
// behind its local header, checking the CRC-32. O(archive bytes).
//
//===----------------------------------------------------------------------===//

#include "npu/Support/Npz.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/CRC.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace npu;

namespace {

constexpr uint32_t kLocalHeader = 0x04034b50;
constexpr uint32_t kCentralHeader = 0x02014b50;
constexpr uint32_t kEndRecord = 0x06054b50;
constexpr size_t kLocalHeaderBytes = 30, kCentralHeaderBytes = 46,
                 kEndRecordBytes = 22;
/// 1980-01-01, the earliest date zip can say: the archive's bytes do not
/// depend on when it was written.
constexpr uint16_t kDosDate = 0x21;

llvm::Error error(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "npz: " + message);
}

void put16(std::string &out, uint16_t v) {
  out.push_back(char(v & 0xff));
  out.push_back(char(v >> 8));
}
void put32(std::string &out, uint32_t v) {
  put16(out, uint16_t(v & 0xffff));
  put16(out, uint16_t(v >> 16));
}
uint16_t get16(llvm::StringRef b, size_t at) {
  return uint16_t(uint8_t(b[at])) | uint16_t(uint8_t(b[at + 1])) << 8;
}
uint32_t get32(llvm::StringRef b, size_t at) {
  return uint32_t(get16(b, at)) | uint32_t(get16(b, at + 2)) << 16;
}

uint32_t crcOf(llvm::StringRef bytes) {
  return llvm::crc32(llvm::ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size()));
}

/// The fields local and central headers share, from "version needed".
void putEntryFields(std::string &out, uint32_t crc, uint32_t size,
                    size_t nameSize) {
  put16(out, 20); // version needed: 2.0
  put16(out, 0);  // flags
  put16(out, 0);  // method: stored
  put16(out, 0);  // time
  put16(out, kDosDate);
  put32(out, crc);
  put32(out, size); // compressed
  put32(out, size); // uncompressed
  put16(out, uint16_t(nameSize));
  put16(out, 0); // extra field
}

/// One entry of the central directory, parsed.
struct Entry {
  std::string name;
  uint32_t crc, size, localOffset;
};

llvm::Expected<Entry> parseCentralEntry(llvm::StringRef b, size_t &at) {
  if (at + kCentralHeaderBytes > b.size() || get32(b, at) != kCentralHeader)
    return error("central directory entry at byte " + llvm::Twine(at) +
                 " is truncated or malformed");
  uint16_t method = get16(b, at + 10);
  Entry e;
  e.crc = get32(b, at + 16);
  uint32_t compressed = get32(b, at + 20);
  e.size = get32(b, at + 24);
  uint16_t nameSize = get16(b, at + 28), extraSize = get16(b, at + 30),
           commentSize = get16(b, at + 32);
  e.localOffset = get32(b, at + 42);
  size_t next = at + kCentralHeaderBytes + nameSize + extraSize + commentSize;
  if (next > b.size())
    return error("central directory entry at byte " + llvm::Twine(at) +
                 " runs past the end of the archive");
  e.name = b.substr(at + kCentralHeaderBytes, nameSize).str();
  if (method != 0 || compressed != e.size)
    return error("entry '" + e.name + "' is compressed (method " +
                 llvm::Twine(method) +
                 "); only stored entries are read (numpy.savez, not "
                 "numpy.savez_compressed)");
  at = next;
  return e;
}

/// The bytes of entry `e`, from behind its local header, checked.
llvm::Expected<llvm::StringRef> entryBytes(llvm::StringRef b, const Entry &e) {
  size_t at = e.localOffset;
  if (at + kLocalHeaderBytes > b.size() || get32(b, at) != kLocalHeader)
    return error("entry '" + e.name + "' has no local header at byte " +
                 llvm::Twine(at));
  size_t data = at + kLocalHeaderBytes + get16(b, at + 26) + get16(b, at + 28);
  if (data + e.size > b.size())
    return error("entry '" + e.name + "' runs past the end of the archive");
  llvm::StringRef bytes = b.substr(data, e.size);
  if (crcOf(bytes) != e.crc)
    return error("entry '" + e.name + "' fails its CRC-32 check");
  return bytes;
}

} // namespace

llvm::Expected<NpzArrays> npu::parseNpz(llvm::StringRef b) {
  if (b.size() < kEndRecordBytes)
    return error("archive of " + llvm::Twine(b.size()) +
                 " bytes is too short to be a zip file");
  // The end record, behind at most 64 KiB of comment.
  size_t end = b.size() - kEndRecordBytes;
  size_t lowest = end > 0xffff ? end - 0xffff : 0;
  while (get32(b, end) != kEndRecord) {
    if (end == lowest)
      return error("no zip end record: not an .npz archive");
    --end;
  }
  uint16_t count = get16(b, end + 10);
  size_t at = get32(b, end + 16);
  NpzArrays arrays;
  llvm::StringSet<> seen;
  for (uint16_t i = 0; i < count; ++i) {
    llvm::Expected<Entry> e = parseCentralEntry(b, at);
    if (!e)
      return e.takeError();
    llvm::Expected<llvm::StringRef> bytes = entryBytes(b, *e);
    if (!bytes)
      return bytes.takeError();
    llvm::StringRef name = e->name;
    if (!name.consume_back(".npy"))
      return error("entry '" + e->name + "' is not an .npy file");
    if (!seen.insert(name).second)
      return error("array '" + name + "' is stored twice");
    llvm::Expected<NpyArray> array = parseNpy(*bytes);
    if (!array)
      return error("array '" + name + "': " + toString(array.takeError()));
    arrays.emplace_back(name.str(), std::move(*array));
  }
  return arrays;
}

llvm::Expected<NpzArrays> npu::readNpz(llvm::StringRef path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  if (!file)
    return error("cannot read '" + path + "': " + file.getError().message());
  llvm::Expected<NpzArrays> arrays = parseNpz((*file)->getBuffer());
  if (!arrays)
    return error("'" + path + "': " + toString(arrays.takeError()));
  return arrays;
}

llvm::Expected<std::string> npu::serializeNpz(const NpzArrays &arrays) {
  std::string out, central;
  llvm::StringSet<> seen;
  for (const auto &[name, array] : arrays) {
    if (!seen.insert(name).second)
      return error("array '" + name + "' is given twice");
    std::string file = name + ".npy";
    std::string bytes = serializeNpy(array);
    if (bytes.size() > 0xffffffffu || out.size() > 0xffffffffu ||
        file.size() > 0xffff)
      return error("array '" + name +
                   "' does not fit a zip archive without zip64");
    uint32_t crc = crcOf(bytes);
    put32(central, kCentralHeader);
    put16(central, 20); // made by: 2.0
    putEntryFields(central, crc, uint32_t(bytes.size()), file.size());
    put16(central, 0); // comment
    put16(central, 0); // disk
    put16(central, 0); // internal attributes
    put32(central, 0); // external attributes
    put32(central, uint32_t(out.size()));
    central += file;
    put32(out, kLocalHeader);
    putEntryFields(out, crc, uint32_t(bytes.size()), file.size());
    out += file;
    out += bytes;
  }
  if (arrays.size() > 0xffff || out.size() > 0xffffffffu)
    return error("too many or too large arrays for a zip archive without "
                 "zip64");
  uint32_t centralOffset = uint32_t(out.size());
  out += central;
  put32(out, kEndRecord);
  put16(out, 0); // this disk
  put16(out, 0); // the directory's disk
  put16(out, uint16_t(arrays.size()));
  put16(out, uint16_t(arrays.size()));
  put32(out, uint32_t(central.size()));
  put32(out, centralOffset);
  put16(out, 0); // comment
  return out;
}

llvm::Error npu::writeNpz(llvm::StringRef path, const NpzArrays &arrays) {
  llvm::Expected<std::string> bytes = serializeNpz(arrays);
  if (!bytes)
    return bytes.takeError();
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return error("cannot write '" + path + "': " + ec.message());
  os << *bytes;
  return llvm::Error::success();
}
