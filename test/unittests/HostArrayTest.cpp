//===- HostArrayTest.cpp - padded rows of host arrays ---------------------===//

#include "npu/Runtime/HostArray.h"

#include "gtest/gtest.h"

#include <cstdint>
#include <numeric>

using namespace npu;

namespace {

HostArray iota16(llvm::ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  std::vector<uint16_t> values(n);
  std::iota(values.begin(), values.end(), 1);
  return HostArray::fromValues(ElementKind::F16, values, shape);
}

TEST(HostArrayTest, PadRowsWidensEachRowWithZeros) {
  HostArray padded = padRows(iota16({2, 3, 5}), 64);
  ASSERT_EQ(padded.shape, (llvm::SmallVector<int64_t, 4>{2, 3, 64}));
  std::vector<uint16_t> values = padded.getValues<uint16_t>();
  ASSERT_EQ(values.size(), 2u * 3 * 64);
  for (int64_t row = 0; row < 6; ++row)
    for (int64_t i = 0; i < 64; ++i)
      EXPECT_EQ(values[row * 64 + i], i < 5 ? row * 5 + i + 1 : 0)
          << "row " << row << " element " << i;
}

TEST(HostArrayTest, CutRowsUndoesPadRows) {
  HostArray original = iota16({4, 7});
  HostArray back = cutRows(padRows(original, 64), 7);
  EXPECT_EQ(back.shape, original.shape);
  EXPECT_EQ(back.data, original.data);
}

TEST(HostArrayTest, EmptyArraysStayEmpty) {
  HostArray noRows = padRows(iota16({0, 3}), 64);
  EXPECT_EQ(noRows.shape, (llvm::SmallVector<int64_t, 4>{0, 64}));
  EXPECT_TRUE(noRows.data.empty());
  // Rows of no elements become rows of zeros.
  HostArray emptyRows = padRows(iota16({2, 0}), 64);
  EXPECT_EQ(emptyRows.getValues<uint16_t>(), std::vector<uint16_t>(128, 0));
  EXPECT_TRUE(cutRows(emptyRows, 0).data.empty());
}

} // namespace
