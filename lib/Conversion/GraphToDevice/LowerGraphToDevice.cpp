//===- LowerGraphToDevice.cpp - graph ops to npudev kernels ---------------===//
//
// Rewrites each function that uses npu graph ops into a device program, in
// one walk over its body:
//  1. the signature: static tensor arguments become global memrefs; each
//     result becomes an extra argument marked `npudev.output`;
//  2. every op gets a destination: the output argument when its result is
//     returned (first claim wins), else a global memref.alloc;
//  3. the op's family builds its kernels in place of the op, reading the
//     memrefs of its operands and writing its destination;
//  4. returned values that were not written in place (function arguments,
//     values returned twice) are copied into their output argument, the
//     allocations are freed and the graph ops erased.
// O(ops + kernel size).
//
//===----------------------------------------------------------------------===//

#include "OperatorKernels.h"
#include "npu/Conversion/Passes.h"
#include "npu/Dialect/NPU/NPUDialect.h"
#include "npu/Dialect/NPUDev/DeviceAttr.h"
#include "npu/Dialect/NPUDev/NPUDevOps.h"
#include "npu/Dialect/NPUDev/Semantics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

namespace npu {
#define GEN_PASS_DEF_LOWERGRAPHTODEVICE
#include "npu/Conversion/Passes.h.inc"
} // namespace npu

using namespace mlir;
using namespace npu;

namespace {

/// The global memref a static tensor is stored in, or failure.
FailureOr<MemRefType> getGlobalMemRefType(Operation *op, Value value) {
  auto tensor = dyn_cast<RankedTensorType>(value.getType());
  if (!tensor || !tensor.hasStaticShape()) {
    op->emitOpError("cannot be lowered to the device: value of type ")
        << value.getType() << " is not a statically shaped tensor";
    return failure();
  }
  return MemRefType::get(
      tensor.getShape(), tensor.getElementType(), MemRefLayoutAttrInterface(),
      dev::MemorySpaceAttr::get(op->getContext(), dev::MemorySpace::global));
}

bool usesGraphOps(func::FuncOp func) {
  return func
      .walk([](Operation *op) {
        return isa<NPUDialect>(op->getDialect()) ? WalkResult::interrupt()
                                                 : WalkResult::advance();
      })
      .wasInterrupted();
}

/// Replaces the signature of `func`: tensors become global memrefs, results
/// become trailing `npudev.output` arguments. Maps the old arguments to
/// the new ones in `mapping`; returns the output arguments.
FailureOr<SmallVector<Value>> convertSignature(func::FuncOp func,
                                               IRMapping &mapping) {
  Block &entry = func.getBody().front();
  SmallVector<Type> inputs;
  for (BlockArgument arg : entry.getArguments()) {
    FailureOr<MemRefType> type = getGlobalMemRefType(func, arg);
    if (failed(type))
      return failure();
    inputs.push_back(*type);
  }
  unsigned numInputs = inputs.size();
  for (Value result : entry.getTerminator()->getOperands()) {
    FailureOr<MemRefType> type = getGlobalMemRefType(func, result);
    if (failed(type))
      return failure();
    inputs.push_back(*type);
  }
  // Swap in fresh arguments so that the old ones keep their tensor types
  // until their users are erased.
  SmallVector<Value> outputs;
  for (auto [i, type] : llvm::enumerate(inputs)) {
    BlockArgument arg = entry.addArgument(type, func.getLoc());
    if (i < numInputs)
      mapping.map(entry.getArgument(i), arg);
    else
      outputs.push_back(arg);
  }
  func.setType(FunctionType::get(func.getContext(), inputs, {}));
  return outputs;
}

class GraphLowering {
public:
  GraphLowering(func::FuncOp func, const DeviceModel &device)
      : func(func), device(device) {}

  LogicalResult run() {
    Block &entry = func.getBody().front();
    unsigned numOldArgs = entry.getNumArguments();
    FailureOr<SmallVector<Value>> outputs = convertSignature(func, mapping);
    if (failed(outputs))
      return failure();
    auto ret = cast<func::ReturnOp>(entry.getTerminator());
    claimOutputs(ret, *outputs);
    for (Operation &op : entry.without_terminator())
      if (failed(lowerOp(op)))
        return failure();
    finish(ret, *outputs);
    // Users first, so that no erased op leaves a dangling use.
    for (Operation *op : llvm::reverse(lowered))
      op->erase();
    entry.eraseArguments(0, numOldArgs);
    for (unsigned i = 0, e = outputs->size(); i < e; ++i)
      func.setArgAttr(func.getNumArguments() - e + i, "npudev.output",
                      UnitAttr::get(func.getContext()));
    return success();
  }

private:
  /// Ops whose result is returned write straight into the output argument.
  void claimOutputs(func::ReturnOp ret, ArrayRef<Value> outputs) {
    for (auto [value, output] : llvm::zip(ret.getOperands(), outputs))
      if (value.getDefiningOp() && !destinations.count(value))
        destinations[value] = output;
  }

  LogicalResult lowerOp(Operation &op) {
    if (!hasDeviceKernels(&op))
      return op.emitOpError("has no device lowering");
    Value result = op.getResult(0);
    FailureOr<MemRefType> type = getGlobalMemRefType(&op, result);
    if (failed(type))
      return failure();
    OpBuilder b(&op);
    Value target = destinations.lookup(result);
    if (!target) {
      target = b.create<memref::AllocOp>(op.getLoc(), *type);
      allocations.push_back(target);
    }
    SmallVector<Value> operands;
    for (Value operand : op.getOperands())
      operands.push_back(mapping.lookup(operand));
    Operation *before = op.getPrevNode();
    if (failed(buildMoEKernels(b, &op, operands, target, device)) ||
        failed(checkOnChipMemory(op, before)))
      return failure();
    mapping.map(result, target);
    lowered.push_back(&op);
    return success();
  }

  /// The kernels built for `op` (the launches between `before` and `op`)
  /// fit the device, counted as the launch verifier and the simulator count.
  LogicalResult checkOnChipMemory(Operation &op, Operation *before) {
    Operation *first = before ? before->getNextNode() : &op.getBlock()->front();
    for (Operation *p = first; p != &op; p = p->getNextNode()) {
      auto launch = dyn_cast<dev::LaunchOp>(p);
      if (!launch)
        continue;
      dev::OnChipPeaks peaks = dev::getOnChipPeaks(launch.getBody().front());
      for (dev::MemorySpace space :
           {dev::MemorySpace::vector, dev::MemorySpace::cube,
            dev::MemorySpace::shared}) {
        int64_t need = peaks[static_cast<unsigned>(space)];
        if (need > device.getCapacity(space))
          return op.emitOpError("cannot be lowered for device '")
                 << device.name << "': its kernel needs " << need
                 << " bytes of " << dev::stringifyMemorySpace(space)
                 << " memory at once, the device has "
                 << device.getCapacity(space);
      }
    }
    return success();
  }

  void finish(func::ReturnOp ret, ArrayRef<Value> outputs) {
    OpBuilder b(ret);
    for (auto [value, output] : llvm::zip(ret.getOperands(), outputs)) {
      Value stored = mapping.lookup(value);
      if (stored != output)
        b.create<memref::CopyOp>(ret.getLoc(), stored, output);
    }
    for (Value buffer : allocations)
      b.create<memref::DeallocOp>(ret.getLoc(), buffer);
    b.create<func::ReturnOp>(ret.getLoc());
    ret.erase();
  }

  func::FuncOp func;
  const DeviceModel &device;
  IRMapping mapping;
  llvm::DenseMap<Value, Value> destinations;
  SmallVector<Value> allocations;
  SmallVector<Operation *> lowered;
};

/// The device to build kernels for: the one the module names, else the
/// `device` option, else mlu590. An option that disagrees with the module's
/// device is an error naming both.
FailureOr<DeviceModel> selectDevice(ModuleOp module, StringRef option) {
  std::optional<DeviceModel> requested;
  if (!option.empty()) {
    llvm::Expected<DeviceModel> loaded = DeviceModel::load(option);
    if (!loaded)
      return module.emitError("npu-lower-to-device: ")
             << llvm::toString(loaded.takeError());
    requested = *loaded;
  }
  if (!dev::findDeviceAttr(module))
    return requested ? *requested : cantFail(DeviceModel::getPreset("mlu590"));
  FailureOr<DeviceModel> named = dev::lookupDevice(module);
  if (failed(named))
    return failure();
  if (requested && *requested != *named)
    return module.emitError("npu-lower-to-device: the module is compiled for "
                            "device '")
           << named->name << "' but the device option names '"
           << requested->name << "'";
  return *named;
}

struct LowerGraphToDevicePass
    : public npu::impl::LowerGraphToDeviceBase<LowerGraphToDevicePass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<DeviceModel> model = selectDevice(module, device);
    if (failed(model))
      return signalPassFailure();
    bool lowered = false;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal() || !usesGraphOps(func))
        continue;
      if (failed(GraphLowering(func, *model).run()))
        return signalPassFailure();
      lowered = true;
    }
    // A module already at device level keeps the device it names.
    if (lowered)
      module->setAttr(dev::NPUDevDialect::getDeviceAttrName(),
                      dev::getDeviceAttr(&getContext(), *model));
  }
};

} // namespace
