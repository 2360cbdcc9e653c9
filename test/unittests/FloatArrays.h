//===- FloatArrays.h - float data in f32, f16 or bf16 -----------*- C++ -*-===//
//
// References compute in float; these store their values as a kernel's
// element kind (rounding to nearest even, as ElementKindTest checks against
// APFloat) and compare a kernel's output with them byte for byte.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_TEST_UNITTESTS_FLOATARRAYS_H
#define NPU_TEST_UNITTESTS_FLOATARRAYS_H

#include "npu/Runtime/HostArray.h"

#include <vector>

namespace npu::testing {

/// `values` (float or double) stored as `kind` with `shape`.
template <typename T>
HostArray floatArray(ElementKind kind, const std::vector<T> &values,
                     llvm::ArrayRef<int64_t> shape);

/// The elements of a float array, widened to double.
std::vector<double> floatValues(const HostArray &array);

/// `values` rounded to `kind` and widened back to float.
std::vector<float> roundTo(ElementKind kind, const std::vector<float> &values);

/// Expects `actual` to hold the bytes of `expected` stored as its kind,
/// naming `what` and the first element that differs.
void expectSameBits(const HostArray &actual, const std::vector<float> &expected,
                    const std::string &what);

} // namespace npu::testing

#endif // NPU_TEST_UNITTESTS_FLOATARRAYS_H
