//===- Passes.td - npu-mlir passes -------------------------*- tablegen -*-===//

#ifndef NPU_PASSES_TD
#define NPU_PASSES_TD

include "mlir/Pass/PassBase.td"

// Graph inputs/outputs have no kernel: by default they are NALIGN (the
// user's buffers are dense), but a deployment may hand over aligned buffers.
defvar NPU_GraphIOModeOption = Option<"graphIOMode", "io-mode",
    "::npu::graph::AlignMode", "::npu::graph::AlignMode::NALIGN",
    "AlignMode of function arguments and returned values",
    [{::llvm::cl::values(
        clEnumValN(::npu::graph::AlignMode::NALIGN, "nalign", "dense (default)"),
        clEnumValN(::npu::graph::AlignMode::ALIGN, "align", "channel-aligned"))}]>;

def AnnotateAlignMode
    : Pass<"npu-annotate-align-mode", "mlir::func::FuncOp"> {
  let summary = "Attach to every op the AlignMode that the rules assign it";
  let description = [{
    Writes `npu.align_mode = #npu.align_mode<...>` on every op of the
    function and on every argument, as `npu::graph::getAlignMode` reports it (the
    op's own rule, `npu.dev_info` pinning, the graph input/output rule and
    the broadcast-follows-producer rule). It makes no decision about
    conflicts: it shows what LayoutAlignToNPU starts from. Ops that do not
    implement the interface are annotated `unknown`.
  }];
  let options = [NPU_GraphIOModeOption];
  let dependentDialects = ["::npu::graph::NPUDialect"];
}

def LayoutAlignToNPU : Pass<"npu-layout-align", "mlir::func::FuncOp"> {
  let summary = "Insert channel_norm where producer and consumer disagree on alignment";
  let description = [{
    Decides the storage layout (aligned or dense) of every tensor of a
    function and inserts `npu.channel_norm` conversions where a value's
    layout differs from what a consumer needs. Fixed modes come from the
    AlignMode rules; the strategy picks the modes of the ops that adapt
    (BOTH):

    - `strategy=greedy`: the greedy one-pass algorithm of the
      LayoutAlignToNPU design. In topological order a BOTH op follows its
      producers: a broadcast op the producer of its full-size operand, any
      other op the producer that comes first in topological order (the
      common mode when they agree); without a producer (a constant or
      `npu.weight` argument), the mode its fixed-mode consumers read when
      they agree, else NALIGN. O(ops + uses).
    - `strategy=optimal` (default): the assignment with the minimum total
      conversion cost, exactly (a minimum s-t cut); among those, the one
      with the fewest padding bytes, then the fewest aligned values.

    `cost=bytes` (default) prices a conversion at the bytes it moves;
    `cost=count` counts conversions. Every value with a layout gets a
    `#npu.layout<...>` encoding, graph inputs and outputs included (the
    function type changes accordingly). Each (value, direction) gets one
    channel_norm, shared by all consumers that need it. Values of rank 0, 1
    or 3 cannot be stored aligned and never need one.

    Ops nested in regions and ops without an AlignMode rule that touch
    tensors are rejected with a diagnostic; `npu.dev_info` pins a mode on
    any op.
  }];
  let options = [
    NPU_GraphIOModeOption,
    Option<"strategy", "strategy", "::npu::LayoutStrategy",
           "::npu::LayoutStrategy::Optimal", "how BOTH ops are assigned",
           [{::llvm::cl::values(
               clEnumValN(::npu::LayoutStrategy::Greedy, "greedy",
                          "the LayoutAlignToNPU design's one-pass rule"),
               clEnumValN(::npu::LayoutStrategy::Optimal, "optimal",
                          "minimum conversion cost (default)"))}]>,
    Option<"costKind", "cost", "::npu::ConversionCostKind",
           "::npu::ConversionCostKind::Bytes", "what a conversion costs",
           [{::llvm::cl::values(
               clEnumValN(::npu::ConversionCostKind::Bytes, "bytes",
                          "the bytes it moves (default)"),
               clEnumValN(::npu::ConversionCostKind::Count, "count",
                          "one per channel_norm"))}]>,
    Option<"printStatistics", "print-statistics", "bool", "false",
           "report the statistics as a remark on each function (the "
           "--mlir-pass-statistics report is empty when MLIR is built "
           "without LLVM statistics, as Debian's release build is)">
  ];
  let statistics = [
    Statistic<"numChannelNorms", "channel-norms", "channel_norm ops inserted">,
    Statistic<"numBytesConverted", "bytes-converted",
              "bytes moved by the inserted channel_norm ops">
  ];
  let dependentDialects = ["::npu::graph::NPUDialect"];
}

def FuseAttention : Pass<"npu-fuse-attention", "mlir::func::FuncOp"> {
  let summary = "Replace scaled dot-product attention with npu.flash_attention";
  let description = [{
    Recognises attention as ONNX exporters write it,

        scores = matmul(Q, K^T)   [G..., S1, S2]
        scores = reshapes, scalar scalings, additions of bias or mask terms
        P      = softmax(scores, last axis)
        O      = matmul(P, V)     [G..., S1, D]

    with at most two batch dimensions G (one: B = 1, N = G; two: B, N),
    and replaces it with one `npu.flash_attention`. The transposes that
    exporters put around Q, K and V for the heads are read through: the
    input layout (BNSD, BSND or SBH) is the one in which the tensors they
    start from are already stored, so no data moves (BNSD on the
    transposed views when the three disagree). Scalar factors become
    `scale`; the added terms, summed and broadcast to a shape `pse` takes,
    become `pse` (factors on Q or K then stay where they are). Also folds
    the transposes and reshapes this leaves behind.

    Not fused: scores or probabilities with another user, a softmax over
    another axis, key/value batch dimensions that differ from the
    query's, a value head size other than the query's, and more than two
    batch dimensions.
  }];
  let statistics = [
    Statistic<"numFused", "fused", "attention blocks replaced by "
              "npu.flash_attention">
  ];
  let dependentDialects = ["::npu::graph::NPUDialect"];
}

def VerifyLayout : Pass<"npu-verify-layout", "mlir::ModuleOp"> {
  let summary = "Report every producer/consumer layout conflict";
  let description = [{
    Checks that every tensor with a layout carries a `#npu.layout`, that
    each op with a fixed mode produces that layout, and that every operand
    is stored in the layout its consumer needs. Each conflict is an error at
    the consumer with a note at the producer. Run after npu-layout-align.
    A module pass so that every function is checked and reported even after
    one fails (a function pass stops at the first failing function).
  }];
  let options = [NPU_GraphIOModeOption];
}

def PrintLayoutGraph : Pass<"npu-print-layout-graph", "mlir::func::FuncOp"> {
  let summary = "Write the function as a Graphviz graph coloured by layout";
  let description = [{
    Nodes are ops, graph inputs and the graph output, filled as the
    LayoutAlignToNPU design draws them: yellow when stored aligned, grey
    when dense, green for an adapting (BOTH) op whose layout is not decided
    yet; adapting ops whose layout is decided keep a green border.
    channel_norm ops are diamonds (blue to_align, orange to_nalign). Edges
    are labelled with the tensor type. Writes to `output` (default:
    standard error), one digraph per function.
  }];
  let options = [
    NPU_GraphIOModeOption,
    Option<"output", "output", "std::string", "\"-\"",
           "file to write ('-' for standard error)">
  ];
}

def NarrowFloats : Pass<"npu-narrow-floats", "mlir::func::FuncOp"> {
  let summary = "Compute a graph's f32 tensors in f16 or bf16";
  let description = [{
    Gives every f32 tensor of the function (arguments, results, op results)
    the element type `to`, keeping its shape and layout encoding, and
    rounds the f32 constants to it (to nearest, ties to even): the network
    as a half-precision deployment runs it, as `trtexec --fp16` or CANN's
    ATC with `--precision_mode=force_fp16` would. Integer tensors and
    scalars are left alone. Ops keep their own internal precision (softmax
    and layer_norm sum in f32, the cube accumulates in f32). A constant
    whose data is not a dense elements attribute is a diagnostic.
  }];
  let options = [
    Option<"elementType", "to", "std::string", "\"f16\"",
           "the float type f32 tensors become: f16 or bf16">
  ];
  let dependentDialects = ["::npu::graph::NPUDialect"];
}

def DecomposeConv3D : Pass<"npu-decompose-conv3d", "mlir::func::FuncOp"> {
  let summary = "Express conv3d as one conv2d per depth tap, summed";
  let description = [{
    A 3-D convolution of `[N, D, H, W, C]` by `[O, KD, KH, KW, I]` is, for
    each depth tap kd, a 2-D convolution of the depth slices that tap reads
    (`slice` with the depth stride, after `pad` when the depth is padded),
    the batch and the output depths merged (`reshape` to `[N Do, H, W, C]`),
    by the filter's kd plane; the KD results are added (the bias on the
    first). Every op it produces has device kernels, so video networks
    (r3d, mc3, r2plus1d) run; the cube does KD launches where one fused
    implicit GEMM would do. An empty result becomes an empty constant.
  }];
  let dependentDialects = ["::npu::graph::NPUDialect"];
}

#endif // NPU_PASSES_TD
