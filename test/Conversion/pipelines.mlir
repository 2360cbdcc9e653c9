// The registered pipelines run exactly the passes they stand for, in order:
// each is compared with the same passes spelled one by one.
// RUN: npu-opt %s --npu-graph-to-device=device=ascend910b -o %t.graph
// RUN: npu-opt %s --npu-fuse-attention --npu-lower-to-device=device=ascend910b --npu-pipeline-dma-loops --canonicalize --cse -o %t.graph-steps
// RUN: diff %t.graph %t.graph-steps
// RUN: FileCheck %s --check-prefix=GRAPH < %t.graph
// RUN: npu-opt %S/Inputs/csr-row-sums.mlir --npu-sparse-to-device-pipeline -o %t.sparse
// RUN: npu-opt %S/Inputs/csr-row-sums.mlir --npu-sparse-decompose --npu-sparse-to-device --npu-sparse-lower-iterations --npu-sparse-tile-positions --npu-sparse-tile-dense-axis --npu-sparse-stage-runs --npu-sparse-lower-buffers --canonicalize --npu-pipeline-dma-loops --canonicalize --cse -o %t.sparse-steps
// RUN: diff %t.sparse %t.sparse-steps
// RUN: FileCheck %s --check-prefix=SPARSE < %t.sparse
// pipeline-stages=1 leaves the tile loops synchronous: the same passes
// without npu-pipeline-dma-loops. (The attention example's loops are
// pipelined by default.)
// RUN: npu-opt %S/../../examples/attention.mlir --npu-graph-to-device="device=ascend910b pipeline-stages=1" -o %t.attention-sync
// RUN: npu-opt %S/../../examples/attention.mlir --npu-fuse-attention --npu-lower-to-device=device=ascend910b -o %t.attention-sync-steps
// RUN: diff %t.attention-sync %t.attention-sync-steps
// RUN: npu-opt %S/../../examples/attention.mlir --npu-graph-to-device=device=ascend910b 2>/dev/null | FileCheck %s --check-prefix=PIPELINED
// RUN: npu-opt %S/Inputs/csr-row-sums.mlir --npu-sparse-to-device-pipeline=pipeline-stages=1 -o %t.sparse-sync
// RUN: npu-opt %S/Inputs/csr-row-sums.mlir --npu-sparse-decompose --npu-sparse-to-device --npu-sparse-lower-iterations --npu-sparse-tile-positions --npu-sparse-tile-dense-axis --npu-sparse-stage-runs --npu-sparse-lower-buffers --canonicalize -o %t.sparse-sync-steps
// RUN: diff %t.sparse-sync %t.sparse-sync-steps
// RUN: npu-opt %S/Inputs/csr-row-sums.mlir --npu-sparse-to-device-pipeline="checked=true on-device=false" -o %t.checked
// RUN: npu-opt %S/Inputs/csr-row-sums.mlir --npu-sparse-check-formats --npu-sparse-decompose --npu-sparse-lower-iterations --npu-sparse-lower-buffers --canonicalize -o %t.checked-steps
// RUN: diff %t.checked %t.checked-steps
// RUN: FileCheck %s --check-prefix=CHECKED < %t.checked
// RUN: npu-opt %t.sparse --npu-lower-to-llvm | FileCheck %s --check-prefix=LLVM

// GRAPH: npudev.launch tasks(48) on vector
// GRAPH-NOT: npu.moe

// PIPELINED: npudev.mixed_launch
// PIPELINED: npudev.async

// SPARSE: npudev.launch tasks(48) on vector
// SPARSE-NOT: sparse.

// CHECKED: npudev.report_rows
// CHECKED-NOT: npudev.launch tasks(48)
// CHECKED-NOT: {{^ *(%.* = )?sparse\.}}

// LLVM: llvm.func @csr_row_sums
// LLVM-NOT: npudev.
// LLVM-NOT: scf.

func.func @moe(%g: tensor<4xf32>, %i: tensor<4xi32>, %l: tensor<4xi32>, %d: tensor<6x300xf32>) -> tensor<4x300xf32> {
  %r = npu.moe_dispatch_backward_data %g, %i, %l, %d {capacity = 3, num_experts = 2} : (tensor<4xf32>, tensor<4xi32>, tensor<4xi32>, tensor<6x300xf32>) -> tensor<4x300xf32>
  return %r : tensor<4x300xf32>
}
