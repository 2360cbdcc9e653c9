//===- DeviceKernelOpInterface.td - graph ops with kernels -*- tablegen -*-===//
//
// How npu-lower-to-device reaches an op's kernels. The graph dialect does
// not know about the device: each operator family attaches this interface
// to its ops as an external model, from the GraphToDevice library
// (registerDeviceKernelModels), as upstream dialects attach
// BufferizableOpInterface from their transforms libraries.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_DEVICE_KERNEL_OP_INTERFACE_TD
#define NPU_DEVICE_KERNEL_OP_INTERFACE_TD

include "mlir/IR/OpBase.td"

def DeviceKernelOpInterface : OpInterface<"DeviceKernelOpInterface"> {
  let cppNamespace = "::npu";
  let description = [{
    A graph op that lowers to npudev kernels. The lowering gives the op the
    memrefs its operands and results are stored in (`KernelOperands`, in the
    op's operand and result order, so the op's Adaptor names them) and the
    device to build for; the op emits its kernels at the builder's
    insertion point.
  }];
  let methods = [
    InterfaceMethod<[{
        Whether the kernels read `value` (an operand of this op) or write it
        (a result) in the storage LayoutAlignToNPU chose: a channel-aligned
        value reaches them as a strided view of its padded rows. When false
        (the default), the lowering hands the kernels a dense copy of such
        a value, made or written back by a `repack` launch that the report
        shows apart.
      }], "bool", "readsAlignedStorage", (ins "::mlir::Value":$value), [{}], [{
        return false;
      }]>,
    InterfaceMethod<[{
        Emits the kernels of this op at `builder`'s insertion point, reading
        `io.operands` and writing `io.results` (and `io.rowCounts` for a
        result with data-dependent rows). Fails with a diagnostic naming the
        op when the op cannot run on `device`.
      }], "::llvm::LogicalResult", "buildDeviceKernels",
      (ins "::mlir::OpBuilder &":$builder,
           "const ::npu::KernelOperands &":$io,
           "const ::npu::DeviceModel &":$device,
           "const ::npu::KernelOptions &":$options)>,
    InterfaceMethod<[{
        Returns an upper bound of the rows of result `result`, whose first
        dimension is dynamic and depends on the data: a constant, or a
        multiple of a size read at run time. `indexBound` gives the bound
        of an index operand and `sizeOf` the size of an operand's
        dimension, when they are known. Fails with a diagnostic naming the
        op when there is none (the default: no data-dependent rows).
      }], "::mlir::FailureOr<::npu::SizeBound>", "getResultRowBound",
      (ins "unsigned":$result,
           "::llvm::function_ref<std::optional<::npu::SizeBound>(::mlir::Value)>":
               $indexBound,
           "::llvm::function_ref<std::optional<::npu::SizeBound>(::mlir::Value, unsigned)>":
               $sizeOf), [{}], [{
        return $_op->emitOpError("cannot be lowered to the device: result #")
               << result << " has a dynamic shape";
      }]>,
    InterfaceMethod<[{
        Whether the kernels take operands and results whose storage has
        sizes read at run time (dynamic memref dimensions). When false (the
        default) such an op is a lowering error: its kernels size loops and
        buffers from static shapes.
      }], "bool", "takesRunTimeSizes", (ins), [{}], [{
        return false;
      }]>,
    InterfaceMethod<[{
        Whether the first dimension of result `result` depends on the data
        (getResultRowBound bounds it) rather than on the operands' sizes.
      }], "bool", "hasDataDependentRows", (ins "unsigned":$result), [{}], [{
        return false;
      }]>,
    InterfaceMethod<[{
        For an op with data-dependent rows, which cannot state all its
        result sizes through ReifyRankedShapedTypeOpInterface: the operand
        and dimension whose size dimension `dim` of result `result` is,
        when it is one.
      }], "std::optional<std::pair<unsigned, unsigned>>", "getResultSizeOperand",
      (ins "unsigned":$result, "unsigned":$dim), [{}], [{
        return std::nullopt;
      }]>
  ];
}

#endif // NPU_DEVICE_KERNEL_OP_INTERFACE_TD
