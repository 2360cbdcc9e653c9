//===- NPUBatchOps.td - a graph applied to each sample -----*- tablegen -*-===//
//
// A graph whose batch is read at run time: the body computes one sample,
// and the op applies it to each sample of its inputs.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_BATCH_OPS_TD
#define NPU_BATCH_OPS_TD

include "npu/NPUOpBase.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

def NPU_MapBatchOp : NPU_Op<"map_batch", [
    RecursiveMemoryEffects, SingleBlock]> {
  let summary = "applies a graph to each sample of a batch";
  let description = [{
    The inputs share a leading dimension, the batch B, which may be read at
    run time (`?`). The body computes one sample: its arguments are the
    inputs' rows one at a time (each input's type with a leading 1), and
    it yields, per result, K rows; result j holds the K_j rows of every
    sample in turn, B * K_j in all. Values defined above are read by every
    sample (weights). B may be 0: the results are then empty.

    An optional second region, `chunk`, computes C samples at once (its
    arguments are C rows of each input, C >= 2, and it yields C * K_j rows
    per result): the same graph at a batch of C. The lowering then runs it
    over the batch's first C * floor(B / C) samples and the body over the
    rest, so that kernels built for several samples keep more of the
    device busy than one sample's do.

    The ONNX importer writes a network whose batch is not bound this way,
    after checking that no op mixes samples; the lowering runs the body's
    kernels once per sample (and the chunk's once per C samples), so one
    compile serves every batch.

    ```mlir
    %y = npu.map_batch(%x) : (tensor<?x8x8x3xf32>) -> tensor<?x10xf32> {
    ^bb0(%sample: tensor<1x8x8x3xf32>):
      ...
      npu.yield %logits : tensor<1x10xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<NPU_Tensor>:$inputs);
  let results = (outs Variadic<NPU_Tensor>:$outputs);
  let regions = (region SizedRegion<1>:$body, AnyRegion:$chunk);
  let assemblyFormat = [{
    `(` $inputs `)` attr-dict `:` functional-type($inputs, $outputs) $body
    (`chunk` $chunk^)?
  }];
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// The body's only block.
    ::mlir::Block &getSampleBlock() { return getBody().front(); }
    /// The values the body yields for one sample.
    ::mlir::ValueRange getSampleResults();
    /// Rows per sample of result `i` (its yielded value's leading size).
    int64_t getRowsPerSample(unsigned i);
    /// C, the samples the chunk region computes at once; 0 without one.
    int64_t getChunkSize();
  }];
}

def NPU_YieldOp : NPU_Op<"yield", [Pure, Terminator, ReturnLike,
                                   HasParent<"MapBatchOp">]> {
  let summary = "the values one sample (or chunk) of npu.map_batch computes";
  let arguments = (ins Variadic<NPU_Tensor>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

#endif // NPU_BATCH_OPS_TD
