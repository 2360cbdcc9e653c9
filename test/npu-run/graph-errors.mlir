// Graph-level IR that cannot be lowered for the device is reported, naming
// the op, before anything runs.
// RUN: not npu-run %s --random-inputs=3 2>&1 | FileCheck %s

// CHECK: graph-errors.mlir:[[@LINE+2]]:{{[0-9]+}}: error: 'math.exp' op has no device lowering
func.func @tensor_math(%x: tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32> {
  %r = math.exp %x : tensor<1x4x4x8xf32>
  return %r : tensor<1x4x4x8xf32>
}
