//===- Pipelines.h - the registered lowering pipelines ----------*- C++ -*-===//
//
// The three lowerings a user runs whole, each a registered pass pipeline
// (npu-opt --npu-graph-to-device, --npu-sparse-to-device-pipeline,
// --npu-lower-to-llvm) and a build function for C++ clients, so that the
// sequence of passes is written once:
//  - graph to device: attention fused, graph ops to npudev kernels;
//  - sparse to device: sparse iterations to npudev kernels (checked mode,
//    format split, tasks, position loops, tiles, staged runs, flat
//    memrefs);
//  - device to LLVM: npudev kernels to the LLVM dialect, as the JIT runs
//    them.
// Each is implemented in the conversion library that owns its last step.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_CONVERSION_PIPELINES_H
#define NPU_CONVERSION_PIPELINES_H

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace npu {

//===----------------------------------------------------------------------===//
// Graph to device (lib/Conversion/GraphToDevice)
//===----------------------------------------------------------------------===//

struct GraphToDevicePipelineOptions
    : mlir::PassPipelineOptions<GraphToDevicePipelineOptions> {
  Option<std::string> device{
      *this, "device",
      llvm::cl::desc("device preset or JSON description the kernels are "
                     "built for (default: the device the module names, else "
                     "mlu590)")};
  Option<std::string> sparseConvStrategy{
      *this, "sparse-conv-strategy",
      llvm::cl::desc("get_indice_pairs strategy: auto, grid or sort"),
      llvm::cl::init("auto")};
  Option<unsigned> pipelineStages{
      *this, "pipeline-stages",
      llvm::cl::desc("iterations in flight in the kernels' tile loops "
                     "(npu-pipeline-dma-loops): 2 to 4, 0 for the device "
                     "model's choice, 1 for none"),
      llvm::cl::init(0)};
};

/// npu-fuse-attention on every function, npu-lower-to-device, then
/// [npu-pipeline-dma-loops on every function, canonicalize, cse].
void buildGraphToDevicePipeline(mlir::OpPassManager &pm,
                                const GraphToDevicePipelineOptions &options);

/// Registers it as `npu-graph-to-device`.
void registerGraphToDevicePipeline();

//===----------------------------------------------------------------------===//
// Sparse to device (lib/Conversion/SparseToDevice)
//===----------------------------------------------------------------------===//

struct SparseToDevicePipelineOptions
    : mlir::PassPipelineOptions<SparseToDevicePipelineOptions> {
  Option<bool> checked{
      *this, "checked",
      llvm::cl::desc("check every axis's indptr and indices first "
                     "(npu-sparse-check-formats)"),
      llvm::cl::init(false)};
  Option<bool> onDevice{
      *this, "on-device",
      llvm::cl::desc("run the iterations on the device's tasks, their "
                     "dense loops as tiles and their runs staged on chip; "
                     "false: as plain loops in the kernel"),
      llvm::cl::init(true)};
  Option<int64_t> tasks{
      *this, "tasks",
      llvm::cl::desc("tasks per launch; 0 takes the device's vector cores"),
      llvm::cl::init(0)};
  Option<int64_t> rowCost{
      *this, "row-cost",
      llvm::cl::desc("what a row costs beyond its nonzeros, in nonzeros, "
                     "when rows are split over the tasks"),
      llvm::cl::init(6)};
  Option<bool> reassociateReductions{
      *this, "reassociate-reductions",
      llvm::cl::desc("let a carried accumulator be reduced in any order "
                     "(npu-sparse-lower-iterations)"),
      llvm::cl::init(false)};
  Option<bool> tile{*this, "tile",
                    llvm::cl::desc("innermost dense loops as DMA'd tiles "
                                   "(npu-sparse-tile-dense-axis)"),
                    llvm::cl::init(true)};
  Option<int64_t> stageChunk{
      *this, "stage-chunk",
      llvm::cl::desc("positions per chunk of npu-sparse-stage-runs; 0 "
                     "stages nothing"),
      llvm::cl::init(256)};
  Option<unsigned> pipelineStages{
      *this, "pipeline-stages",
      llvm::cl::desc("iterations in flight in the kernels' tile loops "
                     "(npu-pipeline-dma-loops): 2 to 4, 0 for the device "
                     "model's choice, 1 for none"),
      llvm::cl::init(0)};
};

/// [npu-sparse-check-formats, canonicalize, cse,] npu-sparse-decompose,
/// [npu-sparse-to-device,] npu-sparse-lower-iterations,
/// [npu-sparse-tile-dense-axis, npu-sparse-stage-runs,]
/// npu-sparse-lower-buffers, canonicalize[, npu-pipeline-dma-loops,
/// canonicalize, cse].
void buildSparseToDevicePipeline(mlir::OpPassManager &pm,
                                 const SparseToDevicePipelineOptions &options);

/// Registers it as `npu-sparse-to-device-pipeline`.
void registerSparseToDevicePipeline();

//===----------------------------------------------------------------------===//
// Device to LLVM (lib/Conversion/DeviceToLLVM)
//===----------------------------------------------------------------------===//

struct DeviceToLLVMPipelineOptions
    : mlir::PassPipelineOptions<DeviceToLLVMPipelineOptions> {
  Option<int64_t> threads{*this, "threads",
                          llvm::cl::desc("host threads running the tasks"),
                          llvm::cl::init(1)};
  Option<bool> checked{*this, "checked",
                       llvm::cl::desc("bounds-check every memory access "
                                      "(npu-guard-memory-accesses)"),
                       llvm::cl::init(false)};
  Option<std::string> distinctArgumentsOf{
      *this, "distinct-arguments-of",
      llvm::cl::desc("the entry every caller passes memref arguments that "
                     "never overlap: mark them noalias "
                     "(npu-mark-distinct-arguments); empty: none"),
      llvm::cl::init("")};
};

/// npudev kernels to the LLVM dialect: npu-lower-device-to-loops, tasks on
/// the async runtime's threads (threads > 1), math to libm where it has
/// the function, upstream lowerings to LLVM, npu-lower-mixed-launch-calls
/// [, npu-mark-distinct-arguments].
void buildDeviceToLLVMPipeline(mlir::OpPassManager &pm,
                               const DeviceToLLVMPipelineOptions &options);

/// Registers it as `npu-lower-to-llvm`.
void registerDeviceToLLVMPipeline();

} // namespace npu

#endif // NPU_CONVERSION_PIPELINES_H
