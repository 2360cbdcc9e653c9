//===- NPUOpBase.td - base classes and type constraints ----*- tablegen -*-===//

#ifndef NPU_OP_BASE_TD
#define NPU_OP_BASE_TD

include "npu/NPUBase.td"
include "npu/NPUInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def NPU_ElementType : AnyTypeOf<[AnyFloat, AnySignlessInteger]>;
def NPU_Tensor : RankedTensorOf<[NPU_ElementType]>;
def NPU_FloatTensor : RankedTensorOf<[AnyFloat]>;
def NPU_IntTensor : RankedTensorOf<[AnySignlessInteger]>;

//===----------------------------------------------------------------------===//
// Base classes
//===----------------------------------------------------------------------===//

// Inferred result types are compared with the declared ones ignoring the
// `#npu.layout` encoding: layout is decided later, by LayoutAlignToNPU.
def NPU_InferTypeOpAdaptor : InferTypeOpAdaptorBase<[{
    static bool isCompatibleReturnTypes(::mlir::TypeRange l,
                                        ::mlir::TypeRange r) {
      return ::npu::graph::areCompatibleIgnoringLayout(l, r);
    }
  }]>;

// Runs the op's shape function, with its location, before the inferred
// result types are compared with the declared ones: a broken constraint is
// then reported by its own message instead of "failed to infer returned
// types".
def NPU_ShapeFunctionVerified : NativeOpTrait<"ShapeFunctionVerified"> {
  let cppNamespace = "::npu::graph";
}

// Any op of the dialect.
class NPU_Op<string mnemonic, list<Trait> traits = []>
    : Op<NPU_Dialect, mnemonic, traits>;

// A graph op with the default AlignMode rules and an inferred result type.
class NPU_GraphOp<string mnemonic, list<Trait> traits = []>
    : NPU_Op<mnemonic, !listconcat([Pure, NPU_AlignModeOpInterface,
                                    NPU_ShapeFunctionVerified,
                                    NPU_InferTypeOpAdaptor], traits)>;

#endif // NPU_OP_BASE_TD
