//===- NPUDevBase.td - npudev dialect, spaces, types -------*- tablegen -*-===//
//
// The device loop dialect: kernels over memrefs placed in the NPU's memory
// spaces, moved by DMA and computed on by vector and cube (matrix) ops.
// Control flow and scalar arithmetic are upstream scf and arith.
//
//===----------------------------------------------------------------------===//

#ifndef NPUDEV_BASE_TD
#define NPUDEV_BASE_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/OpBase.td"
include "device/DeviceEnums.td"
include "npudev/NPUDevEnums.td"

def NPUDev_Dialect : Dialect {
  let name = "npudev";
  let cppNamespace = "::npu::dev";
  let summary = "NPU device kernels: memory spaces, DMA, vector and cube ops";
  let description = [{
    A kernel is an `npudev.launch` of a number of tasks; tasks are spread
    over the device's cores and each runs the launch body with its own
    `npudev.task_id`. Data lives in memrefs whose memory space is an
    `#npudev.space<...>`: `global` (GDRAM/HBM), `vector` (per-core scratch
    of the vector unit: NRAM/UB), `cube` (per-core buffer of the matrix
    unit: WRAM/L1) or `shared` (per-cluster SRAM). On-chip buffers are
    allocated with a static size; DMA moves data between spaces,
    synchronously or through a token; vector ops compute on vector-space
    buffers, one instruction over the whole buffer; `npudev.matmul` runs on
    the matrix unit.
  }];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  let extraClassDeclaration = [{
    /// Module attribute naming the device a kernel is compiled for (a
    /// preset name); the verifier checks on-chip capacity against it.
    static constexpr ::llvm::StringLiteral getDeviceAttrName() {
      return "npudev.device";
    }
  }];
}

// The device's enums (device/DeviceEnums.td) as npudev attributes.
def NPUDev_MemorySpaceAttr
    : EnumAttr<NPUDev_Dialect, NPU_MemorySpace, "space"> {
  let cppNamespace = "::npu::dev";
  let assemblyFormat = "`<` $value `>`";
}

def NPUDev_TaskTypeAttr
    : EnumAttr<NPUDev_Dialect, NPUDev_TaskType, "task_type"> {
  let assemblyFormat = "`<` $value `>`";
}

def NPUDev_CoreKindAttr : EnumAttr<NPUDev_Dialect, NPU_CoreKind, "cores"> {
  let cppNamespace = "::npu::dev";
  let assemblyFormat = "$value";
}

def NPUDev_BinaryKindAttr
    : EnumAttr<NPUDev_Dialect, NPUDev_BinaryKind, "binary"> {
  let assemblyFormat = "`<` $value `>`";
}

def NPUDev_UnaryKindAttr
    : EnumAttr<NPUDev_Dialect, NPUDev_UnaryKind, "unary"> {
  let assemblyFormat = "`<` $value `>`";
}

def NPUDev_ComparePredicateAttr
    : EnumAttr<NPUDev_Dialect, NPUDev_ComparePredicate, "predicate"> {
  let assemblyFormat = "`<` $value `>`";
}

def NPUDev_ReduceKindAttr
    : EnumAttr<NPUDev_Dialect, NPUDev_ReduceKind, "reduce"> {
  let assemblyFormat = "`<` $value `>`";
}

def NPUDev_TokenType : TypeDef<NPUDev_Dialect, "Token"> {
  let mnemonic = "token";
  let summary = "completion of an asynchronous DMA or npudev.async region";
}

//===----------------------------------------------------------------------===//
// Which unit runs an op
//===----------------------------------------------------------------------===//

/// Ops that need the vector unit: a cube core (CoreKind::cube) has none.
def NPUDev_VectorUnit : NativeOpTrait<"VectorUnit"> {
  let cppNamespace = "::npu::dev";
}
/// Ops that need the matrix unit: a vector core (CoreKind::vector) has none.
def NPUDev_CubeUnit : NativeOpTrait<"CubeUnit"> {
  let cppNamespace = "::npu::dev";
}

//===----------------------------------------------------------------------===//
// Type constraints on memory spaces
//===----------------------------------------------------------------------===//

class NPUDev_MemRefIn<list<string> spaces, string description>
    : Type<And<[
        CPred<"::llvm::isa<::mlir::MemRefType>($_self)">,
        CPred<"::npu::dev::isInSpace(::llvm::cast<::mlir::MemRefType>($_self), {"
              # !interleave(!foreach(s, spaces, "::npu::dev::MemorySpace::" # s), ", ")
              # "})">]>,
      description, "::mlir::MemRefType">;

def NPUDev_AnyMemRef : NPUDev_MemRefIn<["global", "vector", "cube", "shared"],
    "memref in an npudev memory space">;
def NPUDev_VectorMemRef : NPUDev_MemRefIn<["vector"],
    "memref in the vector space (#npudev.space<vector>)">;
def NPUDev_OnChipMemRef : NPUDev_MemRefIn<["vector", "cube", "shared"],
    "memref in an on-chip space (vector, cube or shared)">;

#endif // NPUDEV_BASE_TD
