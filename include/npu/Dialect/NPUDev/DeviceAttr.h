//===- DeviceAttr.h - the device a module is compiled for -------*- C++ -*-===//
//
// A lowered module carries its whole DeviceModel as the module attribute
// `npudev.device`: a dictionary with every field of the JSON description
// (it prints and parses like any attribute). The launch verifier, the
// lowerings, the simulator and npu-run all read it through lookupDevice,
// which validates it with the same rules as a JSON file.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_DIALECT_NPUDEV_DEVICEATTR_H
#define NPU_DIALECT_NPUDEV_DEVICEATTR_H

#include "npu/Device/DeviceModel.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Operation.h"

namespace npu::dev {

/// The `npudev.device` value describing `device`: every field, integers as
/// i64, the rest as f64.
mlir::DictionaryAttr getDeviceAttr(mlir::MLIRContext *ctx,
                                   const DeviceModel &device);

/// The `npudev.device` attribute of `op` or its nearest ancestor naming
/// one, or null.
mlir::Attribute findDeviceAttr(mlir::Operation *op);

/// The device `op` is compiled for: findDeviceAttr as a dictionary (fields
/// not given come from its "base" preset) or a preset name, else
/// DeviceModel::getDefault(). A malformed description is an error at `op`
/// naming the field.
mlir::FailureOr<DeviceModel> lookupDevice(mlir::Operation *op);

/// The device to build or run `module`'s kernels for: the one it names,
/// else `requested`, else DeviceModel::getDefault(). A `requested` device
/// that differs from the one the module names is an error at the module,
/// "<tool>: the module is compiled for device 'X' but <option> names 'Y'
/// (they differ in 'F')". The one rule of every tool and pass that picks
/// a device.
mlir::FailureOr<DeviceModel>
selectDevice(mlir::Operation *module,
             const std::optional<DeviceModel> &requested, llvm::StringRef tool,
             llvm::StringRef option);

} // namespace npu::dev

#endif // NPU_DIALECT_NPUDEV_DEVICEATTR_H
