//===- Npy.cpp - NumPy .npy files -----------------------------------------===//
//
// The format: "\x93NUMPY", a version (major, minor), a little-endian header
// length (2 bytes in 1.0, 4 in 2.0 and 3.0), then a Python dict literal
// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } padded with
// spaces to a multiple of 64 bytes and ended by '\n', then the data.
//
//===----------------------------------------------------------------------===//

#include "npu/Support/Npy.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace npu;
using llvm::StringRef;

static const char kMagic[] = "\x93NUMPY";

unsigned npu::getNpyElementBytes(NpyDType type) {
  switch (type) {
  case NpyDType::I8:
  case NpyDType::Bool:
    return 1;
  case NpyDType::F16:
    return 2;
  case NpyDType::F32:
  case NpyDType::I32:
    return 4;
  case NpyDType::F64:
  case NpyDType::I64:
    return 8;
  }
  llvm_unreachable("unknown dtype");
}

StringRef npu::getNpyDescr(NpyDType type) {
  switch (type) {
  case NpyDType::F16:
    return "<f2";
  case NpyDType::F32:
    return "<f4";
  case NpyDType::F64:
    return "<f8";
  case NpyDType::I8:
    return "|i1";
  case NpyDType::I32:
    return "<i4";
  case NpyDType::I64:
    return "<i8";
  case NpyDType::Bool:
    return "|b1";
  }
  llvm_unreachable("unknown dtype");
}

static llvm::Error npyError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "npy: " + message);
}

/// The value of `key` in the header dict: the text after "'key':" up to the
/// next top-level comma (a tuple counts as one value).
static std::optional<StringRef> findValue(StringRef header, StringRef key) {
  size_t at = header.find(("'" + key + "'").str());
  if (at == StringRef::npos)
    return std::nullopt;
  StringRef rest = header.drop_front(at + key.size() + 2).ltrim();
  if (!rest.consume_front(":"))
    return std::nullopt;
  rest = rest.ltrim();
  size_t end =
      rest.starts_with("(") ? rest.find(')') + 1 : rest.find_first_of(",}");
  if (end == StringRef::npos || end == 0)
    return std::nullopt;
  return rest.take_front(end).trim();
}

static llvm::Expected<NpyDType> parseDescr(StringRef descr) {
  if (!descr.consume_front("'") || !descr.consume_back("'"))
    return npyError("malformed descr " + descr);
  if (descr.starts_with(">"))
    return npyError("big-endian data ('" + descr +
                    "') is not supported; save it little-endian");
  static const std::pair<StringRef, NpyDType> known[] = {
      {"<f2", NpyDType::F16}, {"<f4", NpyDType::F32}, {"<f8", NpyDType::F64},
      {"|i1", NpyDType::I8},  {"<i1", NpyDType::I8},  {"|b1", NpyDType::Bool},
      {"<i4", NpyDType::I32}, {"<i8", NpyDType::I64}};
  for (auto [name, type] : known)
    if (descr == name)
      return type;
  return npyError("element type '" + descr +
                  "' is not supported (f2, f4, f8, i1, i4, i8, b1 are)");
}

static llvm::Expected<llvm::SmallVector<int64_t, 4>>
parseShape(StringRef text) {
  if (!text.consume_front("(") || !text.consume_back(")"))
    return npyError("malformed shape " + text);
  llvm::SmallVector<int64_t, 4> shape;
  llvm::SmallVector<StringRef> parts;
  text.split(parts, ',', -1, /*KeepEmpty=*/false);
  for (StringRef part : parts) {
    part = part.trim();
    if (part.empty())
      continue;
    int64_t dim;
    if (part.getAsInteger(10, dim) || dim < 0)
      return npyError("malformed shape dimension '" + part + "'");
    shape.push_back(dim);
  }
  return shape;
}

llvm::Expected<NpyArray> npu::parseNpy(StringRef bytes) {
  if (!bytes.starts_with(StringRef(kMagic, 6)))
    return npyError("not a .npy file (bad magic)");
  if (bytes.size() < 10)
    return npyError("truncated header");
  uint8_t major = bytes[6];
  size_t headerLength, headerStart;
  if (major == 1) {
    headerLength = uint8_t(bytes[8]) | (uint8_t(bytes[9]) << 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12)
      return npyError("truncated header");
    headerLength = uint8_t(bytes[8]) | (uint8_t(bytes[9]) << 8) |
                   (uint8_t(bytes[10]) << 16) |
                   (size_t(uint8_t(bytes[11])) << 24);
    headerStart = 12;
  } else {
    return npyError("unsupported format version " +
                    llvm::Twine(unsigned(major)) + "." +
                    llvm::Twine(unsigned(uint8_t(bytes[7]))) +
                    " (versions 1.0 to 3.0 are read)");
  }
  if (headerStart + headerLength > bytes.size())
    return npyError("truncated header");
  StringRef header = bytes.substr(headerStart, headerLength);

  // A Python dict keeps the last of a repeated key, findValue the first:
  // a header that repeats one is read by neither rule.
  for (StringRef key : {"descr", "fortran_order", "shape"}) {
    std::string quoted = ("'" + key + "'").str();
    size_t first = header.find(quoted);
    if (first != StringRef::npos &&
        header.find(quoted, first + 1) != StringRef::npos)
      return npyError("header gives '" + key + "' twice: " + header.rtrim());
  }
  std::optional<StringRef> descr = findValue(header, "descr");
  std::optional<StringRef> order = findValue(header, "fortran_order");
  std::optional<StringRef> shapeText = findValue(header, "shape");
  if (!descr || !order || !shapeText)
    return npyError("header lacks descr, fortran_order or shape: " + header);
  if (*order == "True")
    return npyError("Fortran-order arrays are not supported; save it in C "
                    "order (numpy.ascontiguousarray)");
  if (*order != "False")
    return npyError("malformed fortran_order " + *order);

  NpyArray array;
  llvm::Expected<NpyDType> type = parseDescr(*descr);
  if (!type)
    return type.takeError();
  array.type = *type;
  llvm::Expected<llvm::SmallVector<int64_t, 4>> shape = parseShape(*shapeText);
  if (!shape)
    return shape.takeError();
  array.shape = *shape;

  // Checked: a header's shape may announce more than 2^64 bytes, which
  // would wrap to a small count and let a short file through.
  uint64_t expected = getNpyElementBytes(array.type);
  for (int64_t d : array.shape) {
    bool overflow = false;
    expected =
        llvm::SaturatingMultiply(expected, static_cast<uint64_t>(d), &overflow);
    if (overflow)
      return npyError("shape " + *shapeText +
                      " announces more bytes than fit in 64 bits");
  }
  StringRef data = bytes.drop_front(headerStart + headerLength);
  if (data.size() != expected)
    return npyError("data holds " + llvm::Twine(data.size()) +
                    " bytes, the header announces " + llvm::Twine(expected));
  if (array.type == NpyDType::Bool)
    for (auto [i, byte] : llvm::enumerate(data))
      if (uint8_t(byte) > 1)
        return npyError("bool element " + llvm::Twine(i) + " is byte " +
                        llvm::Twine(unsigned(uint8_t(byte))) + ", not 0 or 1");
  array.data.assign(data.begin(), data.end());
  return array;
}

llvm::Expected<NpyArray> npu::readNpy(StringRef path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!file)
    return llvm::createStringError(file.getError(),
                                   "cannot read '" + path +
                                       "': " + file.getError().message());
  llvm::Expected<NpyArray> array = parseNpy((*file)->getBuffer());
  if (!array)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   path + ": " +
                                       llvm::toString(array.takeError()));
  return array;
}

std::string npu::serializeNpy(const NpyArray &array) {
  // Python tuple syntax: "()", "(3,)", "(2, 3)".
  std::string shape = "(";
  for (auto [i, d] : llvm::enumerate(array.shape))
    shape += (i ? ", " : "") + std::to_string(d);
  if (array.shape.size() == 1)
    shape += ",";
  shape += ")";
  std::string dict = "{'descr': '" + getNpyDescr(array.type).str() +
                     "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad so that magic + version + length + header is a multiple of 64.
  size_t total = 10 + dict.size() + 1;
  dict.append((64 - total % 64) % 64, ' ');
  dict += '\n';
  std::string out(kMagic, 6);
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(dict.size() & 0xff);
  out += static_cast<char>(dict.size() >> 8);
  out += dict;
  out.append(array.data.begin(), array.data.end());
  return out;
}

llvm::Error npu::writeNpy(StringRef path, const NpyArray &array) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return llvm::createStringError(ec, "cannot write '" + path + "'");
  os << serializeNpy(array);
  return llvm::Error::success();
}
