// npu.map_batch with a chunk region of two samples, run at batches 3, 2
// and 0 in both executors: the chunk region computes the first
// 2 * floor(B / 2) samples, two at a time, and the body the rest. To show
// which region computed which rows, this chunk adds w twice where the body
// adds it once (a real chunk region is the body at two samples, as the
// importer writes it). x holds 1 .. 12 and w [10, 20, 30, 40].
// The second result repeats each sample's row twice, in both regions.
// RUN: npu-opt %s --npu-graph-to-device --canonicalize --cse -o %t.mlir
// RUN: npu-run %t.mlir --input=%S/Inputs/f32-samples-3x4.npy,%S/Inputs/f32-weights-4.npy --print-outputs | FileCheck %s --check-prefix=THREE
// RUN: npu-run %t.mlir --input=%S/Inputs/f32-samples-3x4.npy,%S/Inputs/f32-weights-4.npy --print-outputs --mode=jit | FileCheck %s --check-prefix=THREE
// Samples 0 and 1 from the chunk (x + 2w), sample 2 from the body (x + w).
// THREE: arg2 [3, 4] = [21, 42, 63, 84, 25, 46, 67, 88, 19, 30, 41, 52]
// THREE: arg3 [6, 4] = [1, 2, 3, 4, 1, 2, 3, 4, 5, 6, 7, 8, 5, 6, 7, 8, 9, 10, 11, 12, 9, 10, 11, 12]
// RUN: npu-run %t.mlir --input=%S/Inputs/f32-samples-2x4.npy,%S/Inputs/f32-weights-4.npy --print-outputs | FileCheck %s --check-prefix=TWO
// RUN: npu-run %t.mlir --input=%S/Inputs/f32-samples-2x4.npy,%S/Inputs/f32-weights-4.npy --print-outputs --mode=jit | FileCheck %s --check-prefix=TWO
// TWO: arg2 [2, 4] = [21, 42, 63, 84, 25, 46, 67, 88]
// TWO: arg3 [4, 4] = [1, 2, 3, 4, 1, 2, 3, 4, 5, 6, 7, 8, 5, 6, 7, 8]
// RUN: npu-run %t.mlir --input=%S/Inputs/f32-samples-0x4.npy,%S/Inputs/f32-weights-4.npy --print-outputs | FileCheck %s --check-prefix=EMPTY
// RUN: npu-run %t.mlir --input=%S/Inputs/f32-samples-0x4.npy,%S/Inputs/f32-weights-4.npy --print-outputs --mode=jit | FileCheck %s --check-prefix=EMPTY
// EMPTY: arg2 [0, 4] = []
// EMPTY: arg3 [0, 4] = []

func.func @map_batch(%x: tensor<?x4xf32>, %w: tensor<4xf32>) -> (tensor<?x4xf32>, tensor<?x4xf32>) {
  %w2 = npu.add %w, %w : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %y:2 = npu.map_batch(%x) : (tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xf32>) {
  ^bb0(%s: tensor<1x4xf32>):
    %a = npu.add %s, %w : (tensor<1x4xf32>, tensor<4xf32>) -> tensor<1x4xf32>
    %r = npu.reshape %s : tensor<1x4xf32> -> tensor<1x1x4xf32>
    %e = npu.expand %r {shape = array<i64: 1, 2, 4>} : tensor<1x1x4xf32> -> tensor<1x2x4xf32>
    %t = npu.reshape %e : tensor<1x2x4xf32> -> tensor<2x4xf32>
    npu.yield %a, %t : tensor<1x4xf32>, tensor<2x4xf32>
  } chunk {
  ^bb0(%s: tensor<2x4xf32>):
    %a = npu.add %s, %w2 : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
    %r = npu.reshape %s : tensor<2x4xf32> -> tensor<2x1x4xf32>
    %e = npu.expand %r {shape = array<i64: 2, 2, 4>} : tensor<2x1x4xf32> -> tensor<2x2x4xf32>
    %t = npu.reshape %e : tensor<2x2x4xf32> -> tensor<4x4xf32>
    npu.yield %a, %t : tensor<2x4xf32>, tensor<4x4xf32>
  }
  return %y#0, %y#1 : tensor<?x4xf32>, tensor<?x4xf32>
}
