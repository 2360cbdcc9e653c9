//===- NPUOps.td - all ops of the npu dialect --------------*- tablegen -*-===//
//
// One file per op group; new operator families add a group here.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_OPS_TD
#define NPU_OPS_TD

include "npu/NPUNNOps.td"
include "npu/NPUDataMovementOps.td"
include "npu/NPUElementwiseOps.td"
include "npu/NPUMoEOps.td"
include "npu/NPUSparseConvOps.td"
include "npu/NPUAttentionOps.td"
include "npu/NPUBatchOps.td"

#endif // NPU_OPS_TD
