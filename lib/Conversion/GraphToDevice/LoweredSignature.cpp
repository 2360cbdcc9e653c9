//===- LoweredSignature.cpp - decoding a lowered function's arguments -----===//

#include "npu/Conversion/LoweredSignature.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypeInterfaces.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace npu::signature {

llvm::Expected<SmallVector<int64_t>>
bindOutputShape(func::FuncOp func, unsigned index,
                ArrayRef<int64_t> staticShape, unsigned numKnownArgs,
                function_ref<ArrayRef<int64_t>(unsigned)> argShape) {
  SmallVector<int64_t> shape(staticShape);
  auto sizes = func.getArgAttrOfType<DenseI64ArrayAttr>(index, kSizes);
  ArrayRef<int64_t> triples = sizes ? sizes.asArrayRef() : ArrayRef<int64_t>();
  size_t next = 0;
  for (int64_t &size : shape) {
    if (!ShapedType::isDynamic(size))
      continue;
    bool named = next + 2 < triples.size();
    int64_t arg = named ? triples[next] : -1;
    int64_t dim = named ? triples[next + 1] : -1;
    int64_t factor = named ? triples[next + 2] : -1;
    next += 3;
    if (arg < 0 || arg >= int64_t(numKnownArgs) || dim < 0 ||
        dim >= int64_t(argShape(arg).size()) || factor < 0)
      return llvm::createStringError(
          "argument #" + llvm::Twine(index) + ": " + kSizes +
          " does not name a dimension of an earlier argument and a factor "
          "for each of its dynamic sizes");
    if (llvm::MulOverflow(argShape(arg)[dim], factor, size))
      return llvm::createStringError(
          "argument #" + llvm::Twine(index) + ": its size " +
          llvm::Twine(argShape(arg)[dim]) + " x " + llvm::Twine(factor) +
          " overflows a 64-bit size");
  }
  return shape;
}

} // namespace npu::signature
