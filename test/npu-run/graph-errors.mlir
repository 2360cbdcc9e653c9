// Graph-level IR that cannot be lowered for the device is reported, naming
// the op, before anything runs.
// RUN: not npu-run %s --random-inputs=3 2>&1 | FileCheck %s

// CHECK: graph-errors.mlir:[[@LINE+2]]:{{[0-9]+}}: error: 'npu.not' op has no device lowering
func.func @not(%x: tensor<4x8xi1>) -> tensor<4x8xi1> {
  %r = npu.not %x : tensor<4x8xi1> -> tensor<4x8xi1>
  return %r : tensor<4x8xi1>
}
