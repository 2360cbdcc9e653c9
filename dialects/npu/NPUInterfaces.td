//===- NPUInterfaces.td - AlignMode and MoE interfaces -----*- tablegen -*-===//

#ifndef NPU_INTERFACES_TD
#define NPU_INTERFACES_TD

include "mlir/IR/OpBase.td"

// Ops whose device kernel only exists for channel-aligned data.
def NPU_RequiresAlignedLayout : NativeOpTrait<"RequiresAlignedLayout"> {
  let cppNamespace = "::npu::graph";
}

// Ops whose second operand is broadcast onto the first (the vector-scalar
// family): they follow the producer of their full-size first operand.
def NPU_BroadcastsSecondOperand : NativeOpTrait<"BroadcastsSecondOperand"> {
  let cppNamespace = "::npu::graph";
}

// Ops that compute each result element from the operand elements at its
// index, operands broadcast numpy-style (aligned at their last axis): every
// index is treated alike, so any axis may be split into pieces computed
// apart (the ONNX importer's batch read at run time relies on it).
def NPU_Elementwise : NativeOpTrait<"Elementwise"> {
  let cppNamespace = "::npu::graph";
}

def NPU_AlignModeOpInterface : OpInterface<"AlignModeOpInterface"> {
  let cppNamespace = "::npu::graph";
  let description = [{
    Reports the storage alignment an op requires of its result. The rules
    (see docs/align-mode.md) are: ops marked `RequiresAlignedLayout` are
    ALIGN; any op whose result has rank 1 or 3 is NALIGN; ops may override
    (slice, channel_norm); everything else adapts (BOTH). Pinning through
    `npu.dev_info` and the graph input/output rule are applied on top of this
    by `npu::graph::getAlignMode`.
  }];
  let methods = [
    InterfaceMethod<[{
        Returns the mode this op requires of its result, from its kind,
        attributes and result rank (not from its neighbours).
      }], "::npu::graph::AlignMode", "getAlignMode", (ins), [{}], [{
        constexpr bool alignOnly =
            ConcreteOp::template hasTrait<::npu::graph::RequiresAlignedLayout>();
        return ::npu::graph::detail::applyRankRule(
            $_op.getOperation(),
            alignOnly ? ::npu::graph::AlignMode::ALIGN : ::npu::graph::AlignMode::BOTH);
      }]>,
    InterfaceMethod<[{
        Returns the index of the operand whose producer decides this op's
        mode when the op itself is BOTH (the full-size operand of a broadcast
        op), or std::nullopt when all operands have a say.
      }], "std::optional<unsigned>", "getAlignLeaderOperand", (ins), [{}], [{
        if constexpr (ConcreteOp::template hasTrait<
                          ::npu::graph::BroadcastsSecondOperand>())
          return 0u;
        return std::nullopt;
      }]>
  ];
}

def NPU_MoEDispatchOpInterface : OpInterface<"MoEDispatchOpInterface"> {
  let cppNamespace = "::npu::graph";
  let description = [{
    An op of the MoE dispatch family. Each op states the role of its
    operands (`static MoEOperands getOperandRoles(Adaptor)`, written in its
    own ODS definition); shape inference and the device kernels read them
    through it, so no code switches over the family's op types.
  }];
  let methods = [
    InterfaceMethod<[{
        Returns the op's operands by role, taken from `operands`: the op's
        own operands, or values standing in for them (the memrefs a
        lowering stores them in).
      }], "::npu::graph::MoEOperands", "getMoEOperands",
      (ins "::mlir::ValueRange":$operands), [{}], [{
        return ConcreteOp::getOperandRoles(
            typename ConcreteOp::Adaptor(operands, $_op));
      }]>
  ];
}

#endif // NPU_INTERFACES_TD
