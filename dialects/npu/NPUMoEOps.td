//===- NPUMoEOps.td - mixture-of-experts dispatch (tutel) --*- tablegen -*-===//
//
// The dispatch family of tutel's MoE layer. Each sample i has a gate
// weight gates[i], an expert indices[i] and a slot locations[i]; the
// dispatched tensor has num_experts * capacity rows, row
// indices[i] * capacity + locations[i] belonging to sample i. A sample whose
// expert is not in [0, num_experts) or whose slot is not in [0, capacity)
// is dropped. Shapes and checks follow mlu-ops' MoE dispatch backward
// (mluOpMoeDispatchBackwardData).
//
// Gates, data and results share one float type, f32, f16 or bf16 (tutel's
// single __dtype). Every product is computed in f32, where the product of two
// f16 values is exact, and so is that of two bf16 values unless it falls below
// f32's normal range; sums (backward_gate, combine) accumulate in f32 from +0
// and the result is rounded to the element type once.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_MOE_OPS_TD
#define NPU_MOE_OPS_TD

include "npu/NPUOpBase.td"

def NPU_MoEFloatTensor : RankedTensorOf<[F32, F16, BF16]>;
def NPU_I32Tensor : RankedTensorOf<[I32]>;

// `operandRoles` is the body of the op's `getOperandRoles(Adaptor a)`: the
// MoEOperands its operands fill.
class NPU_MoEOp<string mnemonic, code operandRoles>
    : NPU_GraphOp<mnemonic, [NPU_MoEDispatchOpInterface]> {
  let extraClassDeclaration = [{
    /// The operands of `a` by role.
    static ::npu::graph::MoEOperands getOperandRoles(Adaptor a) {
      using Result = ::npu::graph::MoEOperands::Result;
      ::npu::graph::MoEOperands ops;
      ops.indices = a.getIndices();
      ops.locations = a.getLocations();
      ops.capacity = a.getCapacity();
      ops.numExperts = a.getNumExperts();
  }] # operandRoles # [{
      return ops;
    }
  }];
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return ::npu::graph::detail::inferMoEType(loc, getOperationName(),
                                         getOperandRoles(adaptor), types);
    }
  }];
}

def NPU_MoEDispatchBackwardDataOp
    : NPU_MoEOp<"moe_dispatch_backward_data", [{
      ops.gates = a.getGates();
      ops.dispatch = a.getDispatch();
      ops.result = Result::SamplesByHidden;
    }]> {
  let summary = "gradient of the dispatched input: gather, scale by gate";
  let description = [{
    `grad_input[i, :] = gates[i] * dispatch[indices[i] * capacity +
    locations[i], :]` for a kept sample, 0 for a dropped one.
    gates [samples], indices and locations [samples] i32, dispatch
    [num_experts * capacity, hidden]; result [samples, hidden]. The product
    is rounded once to the element type.
  }];
  let arguments = (ins NPU_MoEFloatTensor:$gates, NPU_I32Tensor:$indices,
                       NPU_I32Tensor:$locations, NPU_MoEFloatTensor:$dispatch,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$capacity,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$num_experts);
  let results = (outs NPU_MoEFloatTensor:$grad_input);
  let assemblyFormat = "$gates `,` $indices `,` $locations `,` $dispatch "
                       "attr-dict `:` functional-type(operands, results)";
}

def NPU_MoEDispatchForwardOp : NPU_MoEOp<"moe_dispatch_forward", [{
      ops.gates = a.getGates();
      ops.input = a.getInput();
      ops.result = Result::RowsByHidden;
    }]> {
  let summary = "dispatch: scatter scaled samples to their expert slots";
  let description = [{
    `dispatch[indices[i] * capacity + locations[i], :] = gates[i] *
    input[i, :]` for every kept sample; rows no sample writes are 0. When
    two kept samples name the same row, the later sample (larger i) wins.
    gates, indices, locations [samples], input [samples, hidden]; result
    [num_experts * capacity, hidden]. The product is rounded once to the
    element type.
  }];
  let arguments = (ins NPU_MoEFloatTensor:$gates, NPU_I32Tensor:$indices,
                       NPU_I32Tensor:$locations, NPU_MoEFloatTensor:$input,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$capacity,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$num_experts);
  let results = (outs NPU_MoEFloatTensor:$dispatch);
  let assemblyFormat = "$gates `,` $indices `,` $locations `,` $input "
                       "attr-dict `:` functional-type(operands, results)";
}

def NPU_MoEDispatchBackwardGateOp
    : NPU_MoEOp<"moe_dispatch_backward_gate", [{
      ops.input = a.getInput();
      ops.dispatch = a.getDispatch();
      ops.result = Result::Samples;
    }]> {
  let summary = "gradient of the gates: row dot products";
  let description = [{
    `grad_gates[i] = sum_j dispatch[indices[i] * capacity + locations[i], j]
    * input[i, j]` for a kept sample, 0 for a dropped one: products in f32,
    summed in f32 in j order from +0, the sum rounded once to the element
    type. indices, locations [samples], input [samples, hidden], dispatch
    [num_experts * capacity, hidden]; result [samples].
  }];
  let arguments = (ins NPU_I32Tensor:$indices, NPU_I32Tensor:$locations,
                       NPU_MoEFloatTensor:$input, NPU_MoEFloatTensor:$dispatch,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$capacity,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$num_experts);
  let results = (outs NPU_MoEFloatTensor:$grad_gates);
  let assemblyFormat = "$indices `,` $locations `,` $input `,` $dispatch "
                       "attr-dict `:` functional-type(operands, results)";
}

def NPU_MoECombineOp : NPU_MoEOp<"moe_combine", [{
      ops.gates = a.getGates();
      ops.dispatch = a.getDispatch();
      ops.result = Result::SamplesByHidden;
      ops.topK = true;
    }]> {
  let summary = "combine: each sample sums its top-k expert rows, gated";
  let description = [{
    tutel's decoder: `output[i, :] = sum_j gates[j, i] * dispatch[indices[j,
    i] * capacity + locations[j, i], :]` over the top-k slots j in order
    from 0, skipping dropped slots; each product is computed in f32 and
    added to an f32 sum that starts at +0 (so a sample with no kept slot
    gets zeros), rounded once to the element type at the end. The forward of
    backward_data summed over k. gates [k, samples], indices and locations
    [k, samples] i32, dispatch [num_experts * capacity, hidden]; result
    [samples, hidden].
  }];
  let arguments = (ins NPU_MoEFloatTensor:$gates, NPU_I32Tensor:$indices,
                       NPU_I32Tensor:$locations, NPU_MoEFloatTensor:$dispatch,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$capacity,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$num_experts);
  let results = (outs NPU_MoEFloatTensor:$output);
  let assemblyFormat = "$gates `,` $indices `,` $locations `,` $dispatch "
                       "attr-dict `:` functional-type(operands, results)";
}

#endif // NPU_MOE_OPS_TD
