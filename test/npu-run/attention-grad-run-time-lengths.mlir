// FlashAttention's backward with sequence lengths read at run time: one
// module at two pairs of lengths, one without queries, in both executors
// (issue #34). With zero query, key and value and no mask, P is uniform,
// 1 / S2, and dS = P * (dP - D) is 0: dq and dk are 0 and dv[j] =
// sum_i P[i, j] dy[i]. Row i of dy holds i + 1, so with S1 3 and S2 4
// every dv element is (1 + 2 + 3) / 4 = 1.5. Without queries every
// gradient is 0. A dy whose length differs from the query's is an error
// naming it.
// RUN: npu-opt %s --npu-graph-to-device=device=ascend910b --canonicalize --cse -o %t.mlir
// RUN: npu-run %t.mlir --input=%S/Inputs/f32-zeros-1x3x1x8.npy,%S/Inputs/f32-zeros-1x4x1x8.npy,%S/Inputs/f32-zeros-1x4x1x8.npy,%S/Inputs/f32-rows-1x3x1x8.npy,%S/Inputs/f32-zeros-1x1x3x8.npy,%S/Inputs/f32-zeros-1x1x3x8.npy,%S/Inputs/f32-zeros-1x3x1x8.npy --print-outputs | FileCheck %s --check-prefix=FOUR
// RUN: npu-run %t.mlir --input=%S/Inputs/f32-zeros-1x3x1x8.npy,%S/Inputs/f32-zeros-1x4x1x8.npy,%S/Inputs/f32-zeros-1x4x1x8.npy,%S/Inputs/f32-rows-1x3x1x8.npy,%S/Inputs/f32-zeros-1x1x3x8.npy,%S/Inputs/f32-zeros-1x1x3x8.npy,%S/Inputs/f32-zeros-1x3x1x8.npy --print-outputs --mode=jit | FileCheck %s --check-prefix=FOUR
// FOUR: arg7 [1, 3, 1, 8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
// FOUR: arg8 [1, 4, 1, 8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
// FOUR: arg9 [1, 4, 1, 8] = [1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5]
// RUN: npu-run %t.mlir --input=%S/Inputs/f32-zeros-1x0x1x8.npy,%S/Inputs/f32-zeros-1x4x1x8.npy,%S/Inputs/f32-zeros-1x4x1x8.npy,%S/Inputs/f32-zeros-1x0x1x8.npy,%S/Inputs/f32-zeros-1x1x0x8.npy,%S/Inputs/f32-zeros-1x1x0x8.npy,%S/Inputs/f32-zeros-1x0x1x8.npy --print-outputs | FileCheck %s --check-prefix=NOQUERIES
// RUN: npu-run %t.mlir --input=%S/Inputs/f32-zeros-1x0x1x8.npy,%S/Inputs/f32-zeros-1x4x1x8.npy,%S/Inputs/f32-zeros-1x4x1x8.npy,%S/Inputs/f32-zeros-1x0x1x8.npy,%S/Inputs/f32-zeros-1x1x0x8.npy,%S/Inputs/f32-zeros-1x1x0x8.npy,%S/Inputs/f32-zeros-1x0x1x8.npy --print-outputs --mode=jit | FileCheck %s --check-prefix=NOQUERIES
// NOQUERIES: arg7 [1, 0, 1, 8] = []
// NOQUERIES: arg8 [1, 4, 1, 8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
// NOQUERIES: arg9 [1, 4, 1, 8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
// RUN: not npu-run %t.mlir --input=%S/Inputs/f32-zeros-1x3x1x8.npy,%S/Inputs/f32-zeros-1x4x1x8.npy,%S/Inputs/f32-zeros-1x4x1x8.npy,%S/Inputs/f32-rows-1x5x1x8.npy,%S/Inputs/f32-zeros-1x1x3x8.npy,%S/Inputs/f32-zeros-1x1x3x8.npy,%S/Inputs/f32-zeros-1x3x1x8.npy 2>&1 | FileCheck %s --check-prefix=MISMATCH
// RUN: not npu-run %t.mlir --input=%S/Inputs/f32-zeros-1x3x1x8.npy,%S/Inputs/f32-zeros-1x4x1x8.npy,%S/Inputs/f32-zeros-1x4x1x8.npy,%S/Inputs/f32-rows-1x5x1x8.npy,%S/Inputs/f32-zeros-1x1x3x8.npy,%S/Inputs/f32-zeros-1x1x3x8.npy,%S/Inputs/f32-zeros-1x3x1x8.npy --mode=jit 2>&1 | FileCheck %s --check-prefix=MISMATCH
// MISMATCH: 'npu.flash_attention_grad' dy has length 5 in dimension 1, query a different one

func.func @grad(%q: tensor<1x?x1x8xf32>, %k: tensor<1x?x1x8xf32>, %v: tensor<1x?x1x8xf32>, %dy: tensor<1x?x1x8xf32>, %m: tensor<1x1x?x8xf32>, %s: tensor<1x1x?x8xf32>, %o: tensor<1x?x1x8xf32>) -> (tensor<1x?x1x8xf32>, tensor<1x?x1x8xf32>, tensor<1x?x1x8xf32>) {
  %dq, %dk, %dv = npu.flash_attention_grad %q, %k, %v, %dy, %m, %s, %o {input_layout = #npu.attention_layout<BSND>, head_num = 1, scale = 0.35} : (tensor<1x?x1x8xf32>, tensor<1x?x1x8xf32>, tensor<1x?x1x8xf32>, tensor<1x?x1x8xf32>, tensor<1x1x?x8xf32>, tensor<1x1x?x8xf32>, tensor<1x?x1x8xf32>) -> (tensor<1x?x1x8xf32>, tensor<1x?x1x8xf32>, tensor<1x?x1x8xf32>)
  return %dq, %dk, %dv : tensor<1x?x1x8xf32>, tensor<1x?x1x8xf32>, tensor<1x?x1x8xf32>
}
