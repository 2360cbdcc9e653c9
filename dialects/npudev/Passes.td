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
    global memory into on-chip buffers with `npudev.dma`, work on them and
    store results back becomes an N-stage pipeline. Each buffer it loads
    into or stores from gets N copies (one per iteration in flight, chosen
    by the iteration number); each load, with the address arithmetic it
    needs, becomes an `npudev.async` issued N - 1 iterations ahead, waited
    for where the load was; each store is left in flight
    (`npudev.dma_start`), with an `npudev.wait_all` after the loop (under
    `scf.if` when the loop may run no iteration: it then started no copy,
    and the wait would drain the copies a pipeline around it issued ahead). The
    pipelining itself is upstream MLIR's (`scf::pipelineForLoop`): with a
    static trip count the last iterations are peeled; with a dynamic one
    the loads of iterations past the end are skipped under `scf.if`, so any
    trip count, 0 included, is right.

    Only buffers that carry nothing between iterations are multiplied: each
    iteration writes every view of them it reads before reading it, in
    every loop that uses them, and views of them are taken inside the loop.
    A load stays where it is when the loop also writes the global memory it
    reads (unless the only writes are stores after it into the very window
    it loads, and that window moves past itself every iteration: a row
    loaded, updated and stored back; or the load is marked
    `private_window` and the loop's writes come after it), when its address depends on anything
    but the induction variable, values from outside the loop and reads of
    memory the loop never writes (an index from a staged table), or when
    something before it in the body touches its buffer; a store stays
    synchronous when its buffer is touched before the iteration's first
    load. A `dma_gather` into such a buffer whose indices a pipelined load
    brings in is issued one stage after that load (stage 1), behind its
    wait.

    Before any of that, a copy to global memory out of a buffer a loop
    around it never writes, into memory nothing else in that loop touches
    (rows filled from one constant tile), is left in flight, with one
    `npudev.wait_all` after the outermost such loop.

    N is the device's choice by default: enough tiles in flight that their
    transfers cover the DMA latency (`dma_latency_cycles` against a tile's
    bytes at `dma_gbps`), from 2 to 4. When the copies do not fit the
    launch's on-chip capacity, the pass uses fewer stages and says so with
    a remark; with fewer than two the loop stays synchronous.
  }];
  let options = [
    Option<"stages", "stages", "unsigned", "0",
           "iterations in flight (copies per buffer), 2 to 4; 0 lets the "
           "device model choose">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect"];
}

#endif // NPU_NPUDEV_PASSES_TD
