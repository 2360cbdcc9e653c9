//===- Patterns.h - the families of npudev-to-loops patterns ----*- C++ -*-===//
//
// Private to lib/Conversion/DeviceToLoops. Each family of ops has one file
// and contributes its patterns through one function here; adding an op to
// a family touches only that family's file.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_LIB_CONVERSION_DEVICETOLOOPS_PATTERNS_H
#define NPU_LIB_CONVERSION_DEVICETOLOOPS_PATTERNS_H

#include "LoopBuilders.h"

namespace npu::dev {

/// launch, task_id, task_dim (TaskPatterns.cpp).
void populateTaskLoweringPatterns(mlir::RewritePatternSet &patterns);
/// alloc, dma, dma_start, wait, wait_all, dma_gather, dma_scatter
/// (DmaPatterns.cpp).
void populateDmaLoweringPatterns(mlir::RewritePatternSet &patterns);
/// The vector unit's loop-shaped ops (VectorPatterns.cpp).
void populateVectorLoweringPatterns(mlir::RewritePatternSet &patterns);
/// matmul (MatmulPatterns.cpp).
void populateMatmulLoweringPatterns(mlir::RewritePatternSet &patterns);
/// vsort, vmerge, vunique: runtime calls (SortPatterns.cpp).
void populateSortLoweringPatterns(mlir::RewritePatternSet &patterns);

/// arith.maximumf and arith.minimumf with the simulator's NaN rule: the
/// first NaN operand, quieted (FloatMinMaxPatterns.cpp).
void populateFloatMinMaxPatterns(mlir::RewritePatternSet &patterns);

/// set_flag, wait_flag: runtime calls; async: its body in place
/// (MixedLaunchLowering.cpp).
void populateMixedLaunchLoweringPatterns(mlir::RewritePatternSet &patterns);
/// Clones the constants `region` uses from above into it, so that a
/// function outlined from it sees them as constants rather than arguments
/// (OutlineLaunches.cpp).
void sinkConstants(mlir::Region &region);

/// Moves every npudev.launch into a private, non-inlined function of its
/// own, called where it stood (OutlineLaunches.cpp).
void outlineLaunches(mlir::ModuleOp module);

/// Moves each region of every npudev.mixed_launch into a function of its
/// own and the launch into a call the JIT completes after the conversion to
/// LLVM (MixedLaunchLowering.cpp).
void outlineMixedLaunches(mlir::ModuleOp module);

/// Lowers the matmuls that read buffers which only stage matmul inputs
/// (each view of one filled by one DMA from global memory, and otherwise
/// only read by matmuls)
/// to kernel calls on the DMAs' sources, erasing the DMAs and the buffers
/// (StagingForwarding.cpp).
void forwardStagedMatmulInputs(mlir::ModuleOp module);

/// Whether `op` leaves global memory alone: it has no memory effects,
/// allocates a buffer, or copies into on-chip memory (StagingForwarding.cpp).
bool leavesGlobalMemoryAlone(mlir::Operation *op);

/// Makes each elementwise vector op whose buffer only carries data from
/// one global window to another (DMA in, the op in place, DMA out) read
/// and write those windows, erasing the DMAs and the buffer
/// (TransitForwarding.cpp).
void forwardTransitBuffers(mlir::ModuleOp module);

/// Makes each vector op whose output an npudev.dma_start consumes (copies
/// to global memory as the values' last read) write the DMA's target,
/// erasing the DMA (TransitForwarding.cpp).
void forwardConsumedWriteBacks(mlir::ModuleOp module);

/// Replaces every npudev.report_rows by a status argument and atomic
/// stores, and guards each launch by it (ReportLowering.cpp).
void lowerRowReports(mlir::ModuleOp module);

} // namespace npu::dev

#endif // NPU_LIB_CONVERSION_DEVICETOLOOPS_PATTERNS_H
