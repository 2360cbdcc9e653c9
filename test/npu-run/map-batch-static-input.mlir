// npu.map_batch whose first input's batch is read at run time and whose
// second input's is static (3): the loop runs over the first's samples,
// so a first input of another batch is an error, in both executors, rather
// than a read past the second.
// RUN: npu-opt %s --npu-graph-to-device -o %t.mlir
// RUN: npu-run %t.mlir --input=%S/Inputs/f32-samples-3x4.npy,%S/Inputs/f32-negated-samples-3x4.npy --print-outputs | FileCheck %s
// RUN: npu-run %t.mlir --input=%S/Inputs/f32-samples-3x4.npy,%S/Inputs/f32-negated-samples-3x4.npy --print-outputs --mode=jit | FileCheck %s
// CHECK: [3, 4] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
// RUN: not npu-run %t.mlir --input=%S/Inputs/f32-samples-2x4.npy,%S/Inputs/f32-negated-samples-3x4.npy 2>&1 | FileCheck %s --check-prefix=MISMATCH
// RUN: not npu-run %t.mlir --input=%S/Inputs/f32-samples-2x4.npy,%S/Inputs/f32-negated-samples-3x4.npy --mode=jit 2>&1 | FileCheck %s --check-prefix=MISMATCH
// MISMATCH: error: {{.*}}'npu.map_batch' input #1 has 3 samples, input #0 a different number: the inputs share their batch

func.func @mixed(%x: tensor<?x4xf32>, %z: tensor<3x4xf32>) -> tensor<?x4xf32> {
  %y = npu.map_batch(%x, %z) : (tensor<?x4xf32>, tensor<3x4xf32>) -> tensor<?x4xf32> {
  ^bb0(%s: tensor<1x4xf32>, %t: tensor<1x4xf32>):
    %sum = npu.add %s, %t : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
    npu.yield %sum : tensor<1x4xf32>
  }
  return %y : tensor<?x4xf32>
}
