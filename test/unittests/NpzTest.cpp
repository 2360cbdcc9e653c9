//===- NpzTest.cpp - .npz archives ----------------------------------------===//

#include "npu/Support/Npz.h"

#include "gtest/gtest.h"

using namespace npu;

namespace {

NpyArray makeArray(NpyDType type, llvm::SmallVector<int64_t, 4> shape) {
  NpyArray array;
  array.type = type;
  array.shape = shape;
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  for (int64_t i = 0; i < n * getNpyElementBytes(type); ++i)
    array.data.push_back(static_cast<uint8_t>(i * 7 + 1));
  return array;
}

std::string errorOf(llvm::StringRef bytes) {
  llvm::Expected<NpzArrays> arrays = parseNpz(bytes);
  return arrays ? std::string("ok") : llvm::toString(arrays.takeError());
}

NpzArrays twoArrays() {
  NpzArrays arrays;
  arrays.emplace_back("conv.weight", makeArray(NpyDType::F32, {4, 3, 3, 2}));
  arrays.emplace_back("empty", makeArray(NpyDType::I64, {0, 5}));
  return arrays;
}

TEST(NpzTest, RoundTripsInOrderAndIsDeterministic) {
  NpzArrays arrays = twoArrays();
  llvm::Expected<std::string> bytes = serializeNpz(arrays);
  ASSERT_TRUE(bool(bytes)) << llvm::toString(bytes.takeError());
  llvm::Expected<std::string> again = serializeNpz(arrays);
  ASSERT_TRUE(bool(again));
  EXPECT_EQ(*bytes, *again);
  llvm::Expected<NpzArrays> parsed = parseNpz(*bytes);
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  ASSERT_EQ(parsed->size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ((*parsed)[i].first, arrays[i].first);
    EXPECT_EQ((*parsed)[i].second.type, arrays[i].second.type);
    EXPECT_EQ((*parsed)[i].second.shape, arrays[i].second.shape);
    EXPECT_EQ((*parsed)[i].second.data, arrays[i].second.data);
  }
}

TEST(NpzTest, ReportsWhatIsWrong) {
  std::string bytes = *serializeNpz(twoArrays());
  // A flipped data byte of the first entry (behind its 30-byte header and
  // the name "conv.weight.npy", past the .npy header).
  std::string corrupt = bytes;
  corrupt[30 + 15 + 128 + 3] ^= 1;
  EXPECT_NE(errorOf(corrupt).find("entry 'conv.weight.npy' fails its CRC-32"),
            std::string::npos)
      << errorOf(corrupt);
  EXPECT_NE(errorOf(bytes.substr(0, bytes.size() - 30)).find("no zip end"),
            std::string::npos);
  EXPECT_NE(errorOf("PK").find("too short"), std::string::npos);
  NpzArrays twice = twoArrays();
  twice.push_back(twice.front());
  llvm::Expected<std::string> duplicate = serializeNpz(twice);
  ASSERT_FALSE(bool(duplicate));
  EXPECT_NE(llvm::toString(duplicate.takeError())
                .find("array 'conv.weight' is given twice"),
            std::string::npos);
}

} // namespace
