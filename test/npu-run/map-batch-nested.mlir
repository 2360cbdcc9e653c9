// A map inside a map: each sample of 2 x 2 rows is split again into its
// two rows, and each row doubled. Every buffer is allocated before the
// outer loop.
// RUN: npu-opt %s --npu-graph-to-device -o %t.mlir
// RUN: FileCheck %s --check-prefix=LOOPS < %t.mlir
// RUN: npu-run %t.mlir --input=%S/Inputs/f32-samples-3x4.npy --print-outputs | FileCheck %s
// RUN: npu-run %t.mlir --input=%S/Inputs/f32-samples-3x4.npy --print-outputs --mode=jit | FileCheck %s
// LOOPS: scf.for
// LOOPS-NOT: memref.alloc
// LOOPS: scf.for
// LOOPS-NOT: memref.alloc
// LOOPS: memref.dealloc
// CHECK: [3, 4] = [2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24]
func.func @nested(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %y = npu.map_batch(%x) : (tensor<?x4xf32>) -> tensor<?x4xf32> {
  ^bb0(%s: tensor<1x4xf32>):
    %r = npu.reshape %s : tensor<1x4xf32> -> tensor<2x2xf32>
    %d = npu.map_batch(%r) : (tensor<2x2xf32>) -> tensor<2x2xf32> {
    ^bb1(%row: tensor<1x2xf32>):
      %two = npu.add %row, %row : (tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<1x2xf32>
      npu.yield %two : tensor<1x2xf32>
    }
    %back = npu.reshape %d : tensor<2x2xf32> -> tensor<1x4xf32>
    npu.yield %back : tensor<1x4xf32>
  }
  return %y : tensor<?x4xf32>
}
