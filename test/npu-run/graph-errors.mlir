// Graph-level IR that cannot be lowered for the device is reported, naming
// the op, before anything runs.
// RUN: not npu-run %s --random-inputs=3 2>&1 | FileCheck %s

// CHECK: graph-errors.mlir:[[@LINE+2]]:{{[0-9]+}}: error: 'npu.channel_norm' op has no device lowering
func.func @channel_norm(%x: tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32> {
  %r = npu.channel_norm <to_align> %x : tensor<1x4x4x8xf32> -> tensor<1x4x4x8xf32>
  return %r : tensor<1x4x4x8xf32>
}
