//===- FloatArrays.cpp - float test data stored as f32, f16 or bf16 -------===//

#include "FloatArrays.h"

#include "gtest/gtest.h"

#include <cstring>

using namespace npu;

HostArray npu::testing::floatArray(ElementKind kind,
                                   const std::vector<float> &values,
                                   llvm::ArrayRef<int64_t> shape) {
  HostArray a;
  a.kind = kind;
  a.shape.assign(shape.begin(), shape.end());
  a.data.resize(values.size() * getElementBytes(kind));
  for (size_t i = 0; i < values.size(); ++i)
    storeFloat(a.data.data() + i * getElementBytes(kind), kind, values[i]);
  return a;
}

std::vector<float> npu::testing::roundTo(ElementKind kind,
                                         std::vector<float> values) {
  HostArray a = floatArray(kind, values, {int64_t(values.size())});
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = loadFloat(a.data.data() + i * getElementBytes(kind), kind);
  return values;
}

void npu::testing::expectSameBits(const HostArray &actual,
                                  const std::vector<float> &expected,
                                  const std::string &what) {
  HostArray want = floatArray(actual.kind, expected, actual.shape);
  ASSERT_EQ(actual.data.size(), want.data.size()) << what;
  unsigned bytes = getElementBytes(actual.kind);
  for (size_t i = 0; i < expected.size(); ++i)
    ASSERT_EQ(0, std::memcmp(actual.data.data() + i * bytes,
                             want.data.data() + i * bytes, bytes))
        << what << "[" << i
        << "]: " << loadFloat(actual.data.data() + i * bytes, actual.kind)
        << " vs " << expected[i];
}
