// An index outside [-N, N) fails the gather in both executors, naming the
// first bad index, instead of reading outside the data.
// RUN: not npu-run %s --input=%S/Inputs/i32-0123.npy --random-inputs=1 --mode=sim 2>&1 | FileCheck %s
// RUN: not npu-run %s --input=%S/Inputs/i32-0123.npy --random-inputs=1 --mode=jit 2>&1 | FileCheck %s

// CHECK: error: {{.*}}'npu.gather' index #3 is outside [-3, 3)
func.func @gather(%i: tensor<4xi32>, %x: tensor<3x5xf32>) -> tensor<4x5xf32> {
  %r = npu.gather %x, %i {axis = 0 : i64} : (tensor<3x5xf32>, tensor<4xi32>) -> tensor<4x5xf32>
  return %r : tensor<4x5xf32>
}
