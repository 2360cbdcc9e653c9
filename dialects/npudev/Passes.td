//===- Passes.td - npudev to npudev transforms -------------*- tablegen -*-===//
//
// Transforms of device programs that stay within npudev and the upstream
// loop dialects: what a kernel builder writes plainly, made to keep the
// device busy.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_NPUDEV_PASSES_TD
#define NPU_NPUDEV_PASSES_TD

include "mlir/Pass/PassBase.td"

def PipelineDmaLoops : Pass<"npu-pipeline-dma-loops", "mlir::func::FuncOp"> {
  let summary = "Turn tile loops that load, compute and store into "
                "software pipelines";
  let description = [{
    A tile loop inside a launch (`scf.for`) whose iterations each load
    global memory into on-chip buffers with `npudev.dma` and then work on
    them becomes an N-stage pipeline: each such buffer gets N copies (one
    per iteration in flight, chosen by the iteration number), its load
    becomes an `npudev.dma_start` issued N - 1 iterations ahead, and the
    iteration waits for it where the load was. The pipelining itself is
    upstream MLIR's (`scf::pipelineForLoop`): the loads and what they
    depend on in stage 0, the rest in stage N - 1. A loop whose trip count
    is not known is pipelined under a check that it runs at least N
    iterations, and left as it was otherwise.

    A loop is left alone when it writes global memory that it also loads
    (the next iterations' loads would read before the stores), when a
    load's address depends on values the loop computes (other than the
    induction variable and values defined outside), or when an on-chip
    buffer it loads is used outside the loop. When the extra buffers do
    not fit the launch's on-chip capacity, the pass uses fewer stages, and
    says so with a remark; with fewer than two the loop stays synchronous.
  }];
  let options = [
    Option<"stages", "stages", "unsigned", "2",
           "iterations in flight (buffers per loaded tile), 2 to 4">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect"];
}

#endif // NPU_NPUDEV_PASSES_TD
