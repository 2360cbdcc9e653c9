//===- Passes.td - npu-mlir passes --------------------------*- tablegen -*-===//

#ifndef NPU_PASSES_TD
#define NPU_PASSES_TD

include "mlir/Pass/PassBase.td"

// Graph inputs/outputs have no kernel: by default they are NALIGN (the
// user's buffers are dense), but a deployment may hand over aligned buffers.
defvar NPU_GraphIOModeOption = Option<"graphIOMode", "io-mode",
    "::npu::AlignMode", "::npu::AlignMode::NALIGN",
    "AlignMode of function arguments and returned values",
    [{::llvm::cl::values(
        clEnumValN(::npu::AlignMode::NALIGN, "nalign", "dense (default)"),
        clEnumValN(::npu::AlignMode::ALIGN, "align", "channel-aligned"))}]>;

def AnnotateAlignMode
    : Pass<"npu-annotate-align-mode", "mlir::func::FuncOp"> {
  let summary = "Attach to every op the AlignMode that the rules assign it";
  let description = [{
    Writes `npu.align_mode = #npu.align_mode<...>` on every op of the
    function and on every argument, as `npu::getAlignMode` reports it (the
    op's own rule, `npu.dev_info` pinning, the graph input/output rule and
    the broadcast-follows-producer rule). It makes no decision about
    conflicts: it shows what LayoutAlignToNPU starts from. Ops that do not
    implement the interface are annotated `unknown`.
  }];
  let options = [NPU_GraphIOModeOption];
  let dependentDialects = ["::npu::NPUDialect"];
}

#endif // NPU_PASSES_TD
