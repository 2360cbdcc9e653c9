//===- HostArray.cpp - arrays exchanged with the executors ----------------===//

#include "npu/Runtime/HostArray.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cassert>

using namespace npu;

/// "[2, 3]", "?" for a dynamic dimension.
static std::string formatDims(llvm::ArrayRef<int64_t> shape) {
  std::string text = "[";
  for (auto [i, d] : llvm::enumerate(shape))
    text +=
        (i ? ", " : "") +
        (mlir::ShapedType::isDynamic(d) ? std::string("?") : std::to_string(d));
  return text + "]";
}

std::optional<ArgumentSpec> ArgumentSpec::get(mlir::Type type) {
  auto array = llvm::dyn_cast<mlir::ShapedType>(type);
  if (array && !array.hasRank())
    return std::nullopt;
  std::optional<ElementKind> kind =
      getElementKind(array ? array.getElementType() : type);
  if (!kind)
    return std::nullopt;
  ArgumentSpec spec;
  spec.isMemRef = static_cast<bool>(array);
  spec.kind = *kind;
  if (array)
    spec.shape.assign(array.getShape().begin(), array.getShape().end());
  if (auto memref = llvm::dyn_cast<mlir::MemRefType>(type))
    spec.identityLayout = memref.getLayout().isIdentity();
  llvm::raw_string_ostream os(spec.typeText);
  type.print(os);
  return spec;
}

std::string ArgumentSpec::describeMismatch(const HostArray &array,
                                           unsigned index) const {
  std::string argument = llvm::formatv("argument #{0}", index).str();
  if (array.kind != kind)
    return llvm::formatv("{0} has element type '{1}' but the data is '{2}'",
                         argument, getElementKindName(kind),
                         getElementKindName(array.kind));
  // Elements from the shape, refusing a product that overflows.
  int64_t elements = 1;
  for (int64_t d : array.shape)
    if (d < 0 || llvm::MulOverflow(elements, d, elements))
      return llvm::formatv("{0} has shape {1}, whose element count does not "
                           "fit in 64 bits",
                           argument, formatDims(array.shape));
  int64_t bytes = 0;
  if (llvm::MulOverflow(elements, int64_t(getElementBytes(kind)), bytes) ||
      static_cast<int64_t>(array.data.size()) != bytes)
    return llvm::formatv("{0} has {1} bytes of data for shape {2} of {3}",
                         argument, array.data.size(), formatDims(array.shape),
                         getElementKindName(kind));
  if (!isMemRef) {
    if (elements != 1)
      return llvm::formatv("{0} is a scalar of type '{1}' but the data has "
                           "shape {2}",
                           argument, typeText, formatDims(array.shape));
    return "";
  }
  bool shapeOk = shape.size() == array.shape.size();
  for (size_t d = 0; shapeOk && d < shape.size(); ++d)
    shapeOk =
        mlir::ShapedType::isDynamic(shape[d]) || shape[d] == array.shape[d];
  if (!shapeOk)
    return llvm::formatv("{0} has shape {1} but the function takes '{2}'",
                         argument, formatDims(array.shape), typeText);
  if (!identityLayout)
    return llvm::formatv("{0} must have the identity layout, got '{1}'",
                         argument, typeText);
  return "";
}

int64_t HostArray::getNumElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

/// `array` with rows of `width` elements: each row's first
/// min(width, row length) elements copied, the rest zero.
static HostArray resizeRows(const HostArray &array, int64_t width) {
  assert(!array.shape.empty() && "rank-0 arrays have no rows");
  int64_t elementBytes = getElementBytes(array.kind);
  int64_t from = array.shape.back() * elementBytes, to = width * elementBytes;
  int64_t rows = 1;
  for (int64_t d : llvm::ArrayRef(array.shape).drop_back())
    rows *= d;
  HostArray result = array;
  result.shape.back() = width;
  result.data.assign(rows * to, 0);
  for (int64_t r = 0; r < rows; ++r)
    if (int64_t bytes = std::min(from, to))
      std::memcpy(result.data.data() + r * to, array.data.data() + r * from,
                  bytes);
  return result;
}

HostArray npu::padRows(const HostArray &array, int64_t width) {
  assert(width >= array.shape.back() && "padding cannot shorten rows");
  return resizeRows(array, width);
}

HostArray npu::cutRows(const HostArray &array, int64_t width) {
  assert(width <= array.shape.back() && "cutting cannot lengthen rows");
  return resizeRows(array, width);
}
