//===- Memory.cpp - element access of simulated buffers -------------------===//

#include "npu/Simulator/Memory.h"

#include "llvm/ADT/APFloat.h"

#include <cstring>

using namespace mlir;
using namespace npu::sim;

std::optional<ElementKind> npu::sim::getElementKind(Type type) {
  if (type.isIndex())
    return ElementKind::Index;
  if (type.isF16())
    return ElementKind::F16;
  if (type.isBF16())
    return ElementKind::BF16;
  if (type.isF32())
    return ElementKind::F32;
  if (type.isF64())
    return ElementKind::F64;
  if (!type.isSignlessInteger())
    return std::nullopt;
  switch (type.getIntOrFloatBitWidth()) {
  case 1:
    return ElementKind::I1;
  case 8:
    return ElementKind::I8;
  case 16:
    return ElementKind::I16;
  case 32:
    return ElementKind::I32;
  case 64:
    return ElementKind::I64;
  default:
    return std::nullopt;
  }
}

unsigned npu::sim::getElementBytes(ElementKind kind) {
  switch (kind) {
  case ElementKind::I1:
  case ElementKind::I8:
    return 1;
  case ElementKind::I16:
  case ElementKind::F16:
  case ElementKind::BF16:
    return 2;
  case ElementKind::I32:
  case ElementKind::F32:
    return 4;
  case ElementKind::I64:
  case ElementKind::Index:
  case ElementKind::F64:
    return 8;
  }
  llvm_unreachable("unknown element kind");
}

template <typename T> static T readAs(const uint8_t *p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}
template <typename T> static void writeAs(uint8_t *p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

static const llvm::fltSemantics &semanticsOf(ElementKind kind) {
  return kind == ElementKind::F16 ? llvm::APFloat::IEEEhalf()
                                  : llvm::APFloat::BFloat();
}

int64_t npu::sim::loadInt(const uint8_t *p, ElementKind kind) {
  switch (kind) {
  case ElementKind::I1:
    return readAs<uint8_t>(p) & 1;
  case ElementKind::I8:
    return readAs<int8_t>(p);
  case ElementKind::I16:
    return readAs<int16_t>(p);
  case ElementKind::I32:
    return readAs<int32_t>(p);
  case ElementKind::I64:
  case ElementKind::Index:
    return readAs<int64_t>(p);
  default:
    llvm_unreachable("not an integer element");
  }
}

double npu::sim::loadFloat(const uint8_t *p, ElementKind kind) {
  switch (kind) {
  case ElementKind::F32:
    return readAs<float>(p);
  case ElementKind::F64:
    return readAs<double>(p);
  case ElementKind::F16:
  case ElementKind::BF16: {
    llvm::APFloat value(semanticsOf(kind),
                        llvm::APInt(16, readAs<uint16_t>(p)));
    return value.convertToFloat();
  }
  default:
    llvm_unreachable("not a float element");
  }
}

int64_t npu::sim::wrapInt(ElementKind kind, int64_t value) {
  switch (kind) {
  case ElementKind::I1:
    return value & 1;
  case ElementKind::I8:
    return static_cast<int8_t>(value);
  case ElementKind::I16:
    return static_cast<int16_t>(value);
  case ElementKind::I32:
    return static_cast<int32_t>(value);
  default:
    return value;
  }
}

double npu::sim::roundFloat(ElementKind kind, double value) {
  switch (kind) {
  case ElementKind::F32:
    return static_cast<float>(value);
  case ElementKind::F16:
  case ElementKind::BF16: {
    llvm::APFloat f(static_cast<float>(value));
    bool lost;
    f.convert(semanticsOf(kind), llvm::APFloat::rmNearestTiesToEven, &lost);
    return f.convertToDouble();
  }
  default:
    return value;
  }
}

void npu::sim::storeInt(uint8_t *p, ElementKind kind, int64_t value) {
  switch (kind) {
  case ElementKind::I1:
    return writeAs<uint8_t>(p, value & 1);
  case ElementKind::I8:
    return writeAs<int8_t>(p, static_cast<int8_t>(value));
  case ElementKind::I16:
    return writeAs<int16_t>(p, static_cast<int16_t>(value));
  case ElementKind::I32:
    return writeAs<int32_t>(p, static_cast<int32_t>(value));
  case ElementKind::I64:
  case ElementKind::Index:
    return writeAs<int64_t>(p, value);
  default:
    llvm_unreachable("not an integer element");
  }
}

void npu::sim::storeFloat(uint8_t *p, ElementKind kind, double value) {
  switch (kind) {
  case ElementKind::F32:
    return writeAs<float>(p, static_cast<float>(value));
  case ElementKind::F64:
    return writeAs<double>(p, value);
  case ElementKind::F16:
  case ElementKind::BF16: {
    llvm::APFloat f(static_cast<float>(value));
    bool lost;
    f.convert(semanticsOf(kind), llvm::APFloat::rmNearestTiesToEven, &lost);
    return writeAs<uint16_t>(
        p, static_cast<uint16_t>(f.bitcastToAPInt().getZExtValue()));
  }
  default:
    llvm_unreachable("not a float element");
  }
}

int64_t MemRefView::getNumElements() const {
  int64_t n = 1;
  for (int64_t s : sizes)
    n *= s;
  return n;
}

bool MemRefView::isContiguous() const {
  int64_t expected = 1;
  for (int d = static_cast<int>(sizes.size()) - 1; d >= 0; --d) {
    if (sizes[d] != 1 && strides[d] != expected)
      return false;
    expected *= sizes[d];
  }
  return true;
}

int64_t MemRefView::linearize(llvm::ArrayRef<int64_t> indices) const {
  int64_t linear = offset;
  for (auto [i, s] : llvm::zip(indices, strides))
    linear += i * s;
  return linear;
}
