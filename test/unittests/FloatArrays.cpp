//===- FloatArrays.cpp - float test data stored as f32, f16 or bf16 -------===//

#include "FloatArrays.h"

#include "gtest/gtest.h"

#include <cstring>

using namespace npu;

template <typename T>
HostArray npu::testing::floatArray(ElementKind kind,
                                   const std::vector<T> &values,
                                   llvm::ArrayRef<int64_t> shape) {
  HostArray a;
  a.kind = kind;
  a.shape.assign(shape.begin(), shape.end());
  a.data.resize(values.size() * getElementBytes(kind));
  for (size_t i = 0; i < values.size(); ++i)
    storeFloat(a.data.data() + i * getElementBytes(kind), kind, values[i]);
  return a;
}

template HostArray npu::testing::floatArray(ElementKind,
                                            const std::vector<float> &,
                                            llvm::ArrayRef<int64_t>);
template HostArray npu::testing::floatArray(ElementKind,
                                            const std::vector<double> &,
                                            llvm::ArrayRef<int64_t>);

std::vector<double> npu::testing::floatValues(const HostArray &array) {
  std::vector<double> values(array.getNumElements());
  unsigned bytes = getElementBytes(array.kind);
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = loadFloat(array.data.data() + i * bytes, array.kind);
  return values;
}

std::vector<float> npu::testing::roundTo(ElementKind kind,
                                         const std::vector<float> &values) {
  std::vector<double> rounded =
      floatValues(floatArray(kind, values, {int64_t(values.size())}));
  return std::vector<float>(rounded.begin(), rounded.end());
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
