//===- NPUDialect.cpp - npu dialect, attributes, layouts ------------------===//

#include "npu/Dialect/NPU/NPUDialect.h"
#include "npu/Dialect/NPU/NPUOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace npu::graph;

#include "npu/Dialect/NPU/NPUDialect.cpp.inc"
#include "npu/Dialect/NPU/NPUEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "npu/Dialect/NPU/NPUAttrs.cpp.inc"

void NPUDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "npu/Dialect/NPU/NPUAttrs.cpp.inc"
      >();
  // The ops' definitions are sharded (NPUOpDefs<i>.cpp).
  registerNPUDialectOperations(this);
}

Operation *NPUDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                           Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || !isa<RankedTensorType>(type))
    return nullptr;
  return builder.create<ConstantOp>(loc, type, elements);
}

/// `npu.dev_info` must pin a storage layout; `npu.align_mode` is any mode.
LogicalResult NPUDialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attr) {
  StringRef name = attr.getName().strref();
  if (name == getONNXSourceAttrName()) {
    if (!isa<ModuleOp>(op) || !isa<StringAttr>(attr.getValue()))
      return op->emitError()
             << "'" << name << "' must be a string on a builtin.module";
    return success();
  }
  if (name != getDevInfoAttrName() && name != getAlignModeAttrName())
    return op->emitError() << "unknown npu attribute '" << name << "'";
  auto mode = dyn_cast<AlignModeAttr>(attr.getValue());
  if (!mode)
    return op->emitError() << "'" << name
                           << "' must be an #npu.align_mode attribute, got "
                           << attr.getValue();
  if (name == getDevInfoAttrName() && mode.getValue() != AlignMode::ALIGN &&
      mode.getValue() != AlignMode::NALIGN)
    return op->emitError() << "'" << name << "' must pin align or nalign, got "
                           << stringifyAlignMode(mode.getValue());
  return success();
}

/// Whether `perm` is a permutation of 0 .. perm.size() - 1.
static bool isPermutation(ArrayRef<int64_t> perm) {
  SmallVector<bool> seen(perm.size(), false);
  for (int64_t index : perm) {
    if (index < 0 || index >= static_cast<int64_t>(perm.size()) || seen[index])
      return false;
    seen[index] = true;
  }
  return true;
}

/// Function arguments may carry `npu.weight` (unit), `npu.onnx_name`
/// (string), `npu.onnx_perm` (a permutation of the argument's dimensions)
/// and `npu.align_mode` (written by npu-annotate-align-mode).
LogicalResult NPUDialect::verifyRegionArgAttribute(Operation *op,
                                                   unsigned /*regionIndex*/,
                                                   unsigned argIndex,
                                                   NamedAttribute attr) {
  StringRef name = attr.getName().strref();
  Attribute value = attr.getValue();
  auto fail = [&](StringRef what) {
    return op->emitError() << "argument " << argIndex << ": '" << name
                           << "' must be " << what << ", got " << value;
  };
  if (name == getWeightAttrName())
    return isa<UnitAttr>(value) ? success() : fail("a unit attribute");
  if (name == getONNXNameAttrName())
    return isa<StringAttr>(value) ? success() : fail("a string");
  if (name == getAlignModeAttrName())
    return isa<AlignModeAttr>(value) ? success()
                                     : fail("an #npu.align_mode attribute");
  if (name != getONNXPermAttrName())
    return op->emitError() << "argument " << argIndex
                           << ": unknown npu argument attribute '" << name
                           << "'";
  auto perm = dyn_cast<DenseI64ArrayAttr>(value);
  if (!perm || !isPermutation(perm.asArrayRef()))
    return fail("a permutation (array<i64>)");
  auto func = dyn_cast<FunctionOpInterface>(op);
  if (!func || argIndex >= func.getNumArguments())
    return success();
  // A tensor, or the memref it is stored in once lowered to the device.
  auto type = dyn_cast<ShapedType>(func.getArgumentTypes()[argIndex]);
  if (!type || !type.hasRank() || type.getRank() != perm.size())
    return fail("a permutation of the argument's dimensions");
  return success();
}

/// Function results may carry `npu.onnx_name` (string).
LogicalResult NPUDialect::verifyRegionResultAttribute(Operation *op,
                                                      unsigned /*regionIndex*/,
                                                      unsigned resultIndex,
                                                      NamedAttribute attr) {
  StringRef name = attr.getName().strref();
  if (name != getONNXNameAttrName())
    return op->emitError() << "result " << resultIndex
                           << ": unknown npu result attribute '" << name << "'";
  if (!isa<StringAttr>(attr.getValue()))
    return op->emitError() << "result " << resultIndex << ": '" << name
                           << "' must be a string, got " << attr.getValue();
  return success();
}

//===----------------------------------------------------------------------===//
// Layout encoding
//===----------------------------------------------------------------------===//

bool npu::graph::canBeStoredAligned(int64_t rank) {
  return rank == 2 || rank >= 4;
}

LogicalResult LayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 AlignMode mode) {
  if (mode != AlignMode::ALIGN && mode != AlignMode::NALIGN)
    return emitError() << "#npu.layout must be align or nalign, got "
                       << stringifyAlignMode(mode);
  return success();
}

LogicalResult
LayoutAttr::verifyEncoding(ArrayRef<int64_t> shape, Type elementType,
                           function_ref<InFlightDiagnostic()> emitError) const {
  if (getMode() == AlignMode::ALIGN && !canBeStoredAligned(shape.size()))
    return emitError() << "#npu.layout<align> needs a tensor of rank 2 or at "
                          "least 4 (the aligned Cx form), got rank "
                       << shape.size();
  return success();
}

std::optional<AlignMode> npu::graph::getLayoutMode(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return std::nullopt;
  if (auto layout = dyn_cast_or_null<LayoutAttr>(tensor.getEncoding()))
    return layout.getMode();
  return std::nullopt;
}

RankedTensorType npu::graph::withLayout(RankedTensorType type, AlignMode mode) {
  return RankedTensorType::get(type.getShape(), type.getElementType(),
                               LayoutAttr::get(type.getContext(), mode));
}

Type npu::graph::stripLayout(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !isa_and_nonnull<LayoutAttr>(tensor.getEncoding()))
    return type;
  return RankedTensorType::get(tensor.getShape(), tensor.getElementType());
}

bool npu::graph::areCompatibleIgnoringLayout(TypeRange lhs, TypeRange rhs) {
  if (lhs.size() != rhs.size())
    return false;
  for (auto [l, r] : llvm::zip(lhs, rhs))
    if (stripLayout(l) != stripLayout(r))
      return false;
  return true;
}

/// The bytes a tensor of `shape` and `element` occupies, its innermost
/// dimension padded to the alignment unit when `aligned`.
static std::optional<int64_t> computeStorageBytes(ArrayRef<int64_t> shape,
                                                  Type element, bool aligned) {
  if (ShapedType::isDynamicShape(shape) || !element.isIntOrFloat())
    return std::nullopt;
  int64_t bytes = llvm::divideCeil(element.getIntOrFloatBitWidth(), 8);
  for (auto [i, dim] : llvm::enumerate(shape)) {
    bool isChannel = i + 1 == shape.size();
    int64_t stored = isChannel && aligned
                         ? static_cast<int64_t>(llvm::alignTo(
                               dim, NPUDialect::kChannelAlignment))
                         : dim;
    if (__builtin_mul_overflow(bytes, stored, &bytes))
      return std::nullopt; // No device holds it anyway.
  }
  return bytes;
}

/// The storage sizes of `type` without and with channel alignment, as
/// priced: each dynamic dimension counted as 1, an element without a fixed
/// width (index) as 8 bytes, each size capped at kMaxPricedBytes. Never 0
/// for a non-empty tensor, so a dynamic tensor is never free to convert.
static std::pair<int64_t, int64_t> getPricedBytes(RankedTensorType type) {
  SmallVector<int64_t> shape(type.getShape());
  for (int64_t &d : shape)
    if (ShapedType::isDynamic(d))
      d = 1;
  Type element = type.getElementType();
  if (!element.isIntOrFloat())
    element = IntegerType::get(type.getContext(), 64);
  auto priced = [&](bool aligned) {
    return std::min(
        computeStorageBytes(shape, element, aligned).value_or(kMaxPricedBytes),
        kMaxPricedBytes);
  };
  int64_t dense = priced(/*aligned=*/false);
  return {dense, canBeStoredAligned(type.getRank()) ? priced(/*aligned=*/true)
                                                    : dense};
}

int64_t npu::graph::getConversionBytes(RankedTensorType type) {
  auto [dense, aligned] = getPricedBytes(type);
  return dense + aligned;
}

int64_t npu::graph::getAlignedPaddingBytes(RankedTensorType type) {
  auto [dense, aligned] = getPricedBytes(type);
  return aligned - dense;
}

std::optional<int64_t> npu::graph::getPaddedRowLength(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || tensor.getRank() == 0 ||
      getLayoutMode(tensor) != AlignMode::ALIGN)
    return std::nullopt;
  int64_t channels = tensor.getShape().back();
  if (ShapedType::isDynamic(channels))
    return std::nullopt;
  int64_t padded = llvm::alignTo(channels, NPUDialect::kChannelAlignment);
  if (padded == channels)
    return std::nullopt;
  return padded;
}

std::optional<int64_t>
npu::graph::getStorageSizeInBytes(RankedTensorType type) {
  return computeStorageBytes(type.getShape(), type.getElementType(),
                             getLayoutMode(type) == AlignMode::ALIGN);
}
