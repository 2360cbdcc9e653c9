//===- DeviceAttr.cpp - the device a module is compiled for ---------------===//
//
// The attribute is the JSON description in attribute form: it is written
// from DeviceModel's field table and read back through DeviceModel::fromJSON,
// so the field list and its validation live only in lib/Device.
//
//===----------------------------------------------------------------------===//

#include "npu/Dialect/NPUDev/DeviceAttr.h"
#include "npu/Dialect/NPUDev/NPUDevDialect.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace npu;

DictionaryAttr npu::dev::getDeviceAttr(MLIRContext *ctx,
                                       const DeviceModel &device) {
  Builder b(ctx);
  SmallVector<NamedAttribute> fields = {
      b.getNamedAttr("name", b.getStringAttr(device.name))};
  device.forEachField([&](StringRef key, bool integer, double value) {
    fields.push_back(
        b.getNamedAttr(key, integer ? Attribute(b.getI64IntegerAttr(value))
                                    : Attribute(b.getF64FloatAttr(value))));
  });
  return b.getDictionaryAttr(fields);
}

Attribute npu::dev::findDeviceAttr(Operation *op) {
  for (Operation *p = op; p; p = p->getParentOp())
    if (Attribute attr = p->getAttr(NPUDevDialect::getDeviceAttrName()))
      return attr;
  return {};
}

/// The description `dict` holds, as JSON.
static FailureOr<llvm::json::Object> toJSON(Operation *op,
                                            DictionaryAttr dict) {
  llvm::json::Object object;
  for (NamedAttribute field : dict) {
    StringRef key = field.getName().getValue();
    if (auto s = dyn_cast<StringAttr>(field.getValue()))
      object[key] = s.getValue();
    else if (auto i = dyn_cast<IntegerAttr>(field.getValue()))
      object[key] = i.getValue().getSExtValue();
    else if (auto f = dyn_cast<FloatAttr>(field.getValue()))
      object[key] = f.getValueAsDouble();
    else
      return op->emitOpError("npudev.device: field '")
             << key << "' must be a number or a string, got "
             << field.getValue();
  }
  return object;
}

FailureOr<DeviceModel> npu::dev::lookupDevice(Operation *op) {
  Attribute attr = findDeviceAttr(op);
  llvm::Expected<DeviceModel> device = DeviceModel::getDefault();
  if (auto preset = dyn_cast_or_null<StringAttr>(attr)) {
    device = DeviceModel::getPreset(preset.getValue());
  } else if (auto dict = dyn_cast_or_null<DictionaryAttr>(attr)) {
    FailureOr<llvm::json::Object> object = toJSON(op, dict);
    if (failed(object))
      return failure();
    device = DeviceModel::fromJSON(*object);
  } else if (attr) {
    return op->emitOpError("npudev.device must be a dictionary or a preset "
                           "name, got ")
           << attr;
  }
  if (!device)
    return op->emitOpError("npudev.device: ")
           << llvm::toString(device.takeError());
  return *device;
}

FailureOr<DeviceModel>
npu::dev::selectDevice(Operation *module,
                       const std::optional<DeviceModel> &requested,
                       StringRef tool, StringRef option) {
  if (!findDeviceAttr(module))
    return requested ? *requested : DeviceModel::getDefault();
  FailureOr<DeviceModel> named = lookupDevice(module);
  if (failed(named) || !requested)
    return named;
  if (std::optional<std::string> field = named->findDifference(*requested))
    return module->emitError(tool)
           << ": the module is compiled for device '" << named->name << "' but "
           << option << " names '" << requested->name << "' (they differ in '"
           << *field << "')";
  return named;
}
