// npu.map_batch run at three batches, one of them empty, in both
// executors: per sample, x + w, and the sample's rows of x and z each
// repeated twice. x holds 1 .. 12 and z its negation, so sample b gives
// x_b + [10, 20, 30, 40] and the rows x_b, x_b, z_b, z_b.
// Inputs whose batches differ are an error naming the op. The lowering
// runs --canonicalize --cse first, and the check survives them.
// RUN: npu-opt %s --npu-graph-to-device --canonicalize --cse -o %t.mlir
// RUN: npu-run %t.mlir --input=%S/Inputs/f32-samples-3x4.npy,%S/Inputs/f32-negated-samples-3x4.npy,%S/Inputs/f32-weights-4.npy --print-outputs --report 2>&1 | FileCheck %s --check-prefixes=THREE,REPORT
// RUN: npu-run %t.mlir --input=%S/Inputs/f32-samples-3x4.npy,%S/Inputs/f32-negated-samples-3x4.npy,%S/Inputs/f32-weights-4.npy --print-outputs --mode=jit | FileCheck %s --check-prefix=THREE
// THREE: arg3 [3, 4] = [11, 22, 33, 44, 15, 26, 37, 48, 19, 30, 41, 52]
// THREE: arg4 [6, 2, 4] = [1, 2, 3, 4, 1, 2, 3, 4, -1, -2, -3, -4, -1, -2, -3, -4, 5, 6, 7, 8, 5, 6, 7, 8, -5, -6, -7, -8, -5, -6, -7, -8, 9, 10, 11, 12, 9, 10, 11, 12, -9, -10, -11, -12, -9, -10, -11, -12]
// The samples' rows go in and out through launches of their own.
// REPORT: sample
// RUN: npu-run %t.mlir --input=%S/Inputs/f32-samples-2x4.npy,%S/Inputs/f32-samples-2x4.npy,%S/Inputs/f32-weights-4.npy --print-outputs | FileCheck %s --check-prefix=TWO
// RUN: npu-run %t.mlir --input=%S/Inputs/f32-samples-2x4.npy,%S/Inputs/f32-samples-2x4.npy,%S/Inputs/f32-weights-4.npy --print-outputs --mode=jit | FileCheck %s --check-prefix=TWO
// TWO: arg3 [2, 4] = [11, 22, 33, 44, 15, 26, 37, 48]
// TWO: arg4 [4, 2, 4] = [1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4, 5, 6, 7, 8, 5, 6, 7, 8, 5, 6, 7, 8, 5, 6, 7, 8]
// RUN: npu-run %t.mlir --input=%S/Inputs/f32-samples-0x4.npy,%S/Inputs/f32-samples-0x4.npy,%S/Inputs/f32-weights-4.npy --print-outputs | FileCheck %s --check-prefix=EMPTY
// RUN: npu-run %t.mlir --input=%S/Inputs/f32-samples-0x4.npy,%S/Inputs/f32-samples-0x4.npy,%S/Inputs/f32-weights-4.npy --print-outputs --mode=jit | FileCheck %s --check-prefix=EMPTY
// EMPTY: arg3 [0, 4] = []
// EMPTY: arg4 [0, 2, 4] = []
// RUN: not npu-run %t.mlir --input=%S/Inputs/f32-samples-3x4.npy,%S/Inputs/f32-samples-2x4.npy,%S/Inputs/f32-weights-4.npy 2>&1 | FileCheck %s --check-prefix=MISMATCH
// RUN: not npu-run %t.mlir --input=%S/Inputs/f32-samples-3x4.npy,%S/Inputs/f32-samples-2x4.npy,%S/Inputs/f32-weights-4.npy --mode=jit 2>&1 | FileCheck %s --check-prefix=MISMATCH
// MISMATCH: error: {{.*}}'npu.map_batch' input #1 has 2 samples, input #0 a different number: the inputs share their batch

func.func @map_batch(%x: tensor<?x4xf32>, %z: tensor<?x4xf32>, %w: tensor<4xf32>) -> (tensor<?x4xf32>, tensor<?x2x4xf32>) {
  %y:2 = npu.map_batch(%x, %z) : (tensor<?x4xf32>, tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x2x4xf32>) {
  ^bb0(%s: tensor<1x4xf32>, %t: tensor<1x4xf32>):
    %a = npu.add %s, %w : (tensor<1x4xf32>, tensor<4xf32>) -> tensor<1x4xf32>
    %c = npu.concat %s, %t {axis = 0 : i64} : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<2x4xf32>
    %r = npu.reshape %c : tensor<2x4xf32> -> tensor<2x1x4xf32>
    %e = npu.expand %r {shape = array<i64: 2, 2, 4>} : tensor<2x1x4xf32> -> tensor<2x2x4xf32>
    npu.yield %a, %e : tensor<1x4xf32>, tensor<2x2x4xf32>
  }
  return %y#0, %y#1 : tensor<?x4xf32>, tensor<?x2x4xf32>
}

