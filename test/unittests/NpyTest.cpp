//===- NpyTest.cpp - .npy reading and writing -----------------------------===//

#include "npu/Support/Npy.h"

#include "gtest/gtest.h"

using namespace npu;

namespace {

std::string errorOf(llvm::StringRef bytes) {
  llvm::Expected<NpyArray> array = parseNpy(bytes);
  return array ? std::string("ok") : llvm::toString(array.takeError());
}

/// A version-1.0 file with `header` (padded) and `data`.
std::string makeFile(std::string header, const std::string &data) {
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  return out + header + data;
}

TEST(NpyTest, RoundTripsEveryTypeAndRank) {
  for (NpyDType type :
       {NpyDType::F16, NpyDType::F32, NpyDType::F64, NpyDType::I8,
        NpyDType::I32, NpyDType::I64, NpyDType::Bool}) {
    for (llvm::SmallVector<int64_t, 4> shape :
         {llvm::SmallVector<int64_t, 4>{}, {5}, {2, 3}, {2, 0, 4}}) {
      NpyArray array;
      array.type = type;
      array.shape = shape;
      int64_t n = 1;
      for (int64_t d : shape)
        n *= d;
      for (int64_t i = 0; i < n * getNpyElementBytes(type); ++i)
        array.data.push_back(type == NpyDType::Bool
                                 ? i % 3 == 0
                                 : static_cast<uint8_t>(i * 7 + 1));
      std::string bytes = serializeNpy(array);
      // The data starts on a 64-byte boundary, as NumPy writes it.
      EXPECT_EQ((bytes.size() - array.data.size()) % 64, 0u);
      llvm::Expected<NpyArray> back = parseNpy(bytes);
      ASSERT_TRUE(!!back) << llvm::toString(back.takeError());
      EXPECT_EQ(back->type, type);
      EXPECT_EQ(back->shape, shape);
      EXPECT_EQ(back->data, array.data);
    }
  }
}

TEST(NpyTest, ReadsWhatNumPyWrites) {
  // numpy.save of numpy.arange(3, dtype=numpy.int32): header text verbatim.
  std::string data("\x00\x00\x00\x00\x01\x00\x00\x00\x02\x00\x00\x00", 12);
  llvm::Expected<NpyArray> a = parseNpy(makeFile(
      "{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }", data));
  ASSERT_TRUE(!!a) << llvm::toString(a.takeError());
  EXPECT_EQ(a->type, NpyDType::I32);
  EXPECT_EQ(a->shape, (llvm::SmallVector<int64_t, 4>{3}));
  // Version 2.0 has a 4-byte header length.
  std::string v1 = makeFile(
      "{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }", data);
  std::string v2("\x93NUMPY\x02\x00", 8);
  v2 += v1.substr(8, 2) + std::string("\x00\x00", 2) + v1.substr(10);
  llvm::Expected<NpyArray> b = parseNpy(v2);
  ASSERT_TRUE(!!b) << llvm::toString(b.takeError());
  EXPECT_EQ(b->data, a->data);
}

TEST(NpyTest, RejectsWhatItCannotRead) {
  std::string four(4, '\0');
  EXPECT_EQ(errorOf("not a numpy file"), "npy: not a .npy file (bad magic)");
  EXPECT_EQ(
      errorOf(makeFile(
          "{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }", four)),
      "npy: Fortran-order arrays are not supported; save it in C order "
      "(numpy.ascontiguousarray)");
  EXPECT_EQ(
      errorOf(makeFile(
          "{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }", four)),
      "npy: big-endian data ('>f4') is not supported; save it "
      "little-endian");
  EXPECT_EQ(
      errorOf(makeFile(
          "{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", four)),
      "npy: element type '<c8' is not supported (f2, f4, f8, i1, i4, "
      "i8, b1 are)");
  EXPECT_EQ(
      errorOf(makeFile(
          "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", four)),
      "npy: data holds 4 bytes, the header announces 8");
  EXPECT_NE(errorOf(makeFile("{'descr': '<f4'}", four))
                .find("header lacks descr, fortran_order or shape"),
            std::string::npos);
  EXPECT_EQ(
      errorOf(makeFile(
          "{'descr': '<f4', 'fortran_order': False, 'shape': (x,), }", four)),
      "npy: malformed shape dimension 'x'");
  // NumPy keeps the last of a repeated key; rather than read another
  // array than NumPy does, the reader refuses it.
  EXPECT_EQ(errorOf(makeFile("{'descr': '<f4', 'fortran_order': False, "
                             "'shape': (1,), 'shape': (2,), }",
                             four)),
            "npy: header gives 'shape' twice: {'descr': '<f4', "
            "'fortran_order': False, 'shape': (1,), 'shape': (2,), }");
  // numpy writes bools as bytes 0 and 1.
  EXPECT_EQ(errorOf(makeFile(
                "{'descr': '|b1', 'fortran_order': False, 'shape': (2,), }",
                std::string("\x01\x02", 2))),
            "npy: bool element 1 is byte 2, not 0 or 1");
  EXPECT_EQ(errorOf(std::string("\x93NUMPY\x01\x00\xff\x00", 10)),
            "npy: truncated header");
  // The magic alone is a truncated file, not a bad magic; a version is
  // printed as numbers, not as its raw bytes (issue #13).
  EXPECT_EQ(errorOf(std::string("\x93NUMPY\x01", 7)), "npy: truncated header");
  EXPECT_EQ(errorOf(std::string("\x93NUMPY\x07\x00\x00\x00", 10)),
            "npy: unsupported format version 7.0 (versions 1.0 to 3.0 are "
            "read)");
  // 2^62 f4 elements are 2^64 bytes, which wrapped to 0 (issue #13).
  EXPECT_EQ(errorOf(makeFile("{'descr': '<f4', 'fortran_order': False, "
                             "'shape': (4611686018427387904,), }",
                             "")),
            "npy: shape (4611686018427387904,) announces more bytes than fit "
            "in 64 bits");
}

TEST(NpyTest, NamesTheSystemsReasonForAnUnreadableFile) {
  llvm::Expected<NpyArray> missing = readNpy("/nonexistent/dir/x.npy");
  ASSERT_FALSE(!!missing);
  EXPECT_EQ(
      llvm::toString(missing.takeError()),
      "cannot read '/nonexistent/dir/x.npy': " +
          std::make_error_code(std::errc::no_such_file_or_directory).message());
}

} // namespace
