// Graph-level IR that cannot be lowered for the device is reported, naming
// the op, before anything runs.
// RUN: not npu-run %s --random-inputs=3 2>&1 | FileCheck %s

// CHECK: graph-errors.mlir:[[@LINE+2]]:{{[0-9]+}}: error: 'npu.erf' op has no device lowering
func.func @erf(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = npu.erf %x : tensor<4x8xf32> -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
