// One FlashAttention module whose sequence lengths are read at run time,
// run at three pairs of lengths, one of them empty, in both executors
// (issue #34). With a zero query every visible key scores the same, so each
// output row is the mean of the value rows it sees: row j of value holds
// j + 1, and with sparse_mode 3 (causal from the bottom right) query row i
// of S1 sees keys 0 .. i + S2 - S1, whose mean is (i + S2 - S1 + 2) / 2.
// S1 3, S2 5: 2, 2.5, 3. S2 0: no key, so 0 with max -inf and sum 0.
// S1 0: empty outputs. A value with a different length than the key is an
// error naming it.
// RUN: npu-opt %s --npu-graph-to-device=device=ascend910b --canonicalize --cse -o %t.mlir
// RUN: npu-run %t.mlir --input=%S/Inputs/f32-zeros-1x3x1x8.npy,%S/Inputs/f32-zeros-1x5x1x8.npy,%S/Inputs/f32-rows-1x5x1x8.npy --print-outputs --report 2>&1 | FileCheck %s --check-prefixes=FIVE,REPORT
// RUN: npu-run %t.mlir --input=%S/Inputs/f32-zeros-1x3x1x8.npy,%S/Inputs/f32-zeros-1x5x1x8.npy,%S/Inputs/f32-rows-1x5x1x8.npy --print-outputs --mode=jit | FileCheck %s --check-prefix=FIVE
// FIVE: arg3 [1, 1, 3, 8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
// FIVE: arg4 [1, 1, 3, 8] = [3, 3, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5, 5, 5, 5, 5, 5]
// FIVE: arg5 [1, 3, 1, 8] = [2, 2, 2, 2, 2, 2, 2, 2, 2.5, 2.5, 2.5, 2.5, 2.5, 2.5, 2.5, 2.5, 3, 3, 3, 3, 3, 3, 3, 3]
// The report names the template the lengths chose: b (few keys and rows).
// REPORT: flash_attention.b
// RUN: npu-run %t.mlir --input=%S/Inputs/f32-zeros-1x3x1x8.npy,%S/Inputs/f32-zeros-1x0x1x8.npy,%S/Inputs/f32-zeros-1x0x1x8.npy --print-outputs | FileCheck %s --check-prefix=NOKEYS
// RUN: npu-run %t.mlir --input=%S/Inputs/f32-zeros-1x3x1x8.npy,%S/Inputs/f32-zeros-1x0x1x8.npy,%S/Inputs/f32-zeros-1x0x1x8.npy --print-outputs --mode=jit | FileCheck %s --check-prefix=NOKEYS
// NOKEYS: arg3 [1, 1, 3, 8] = [-inf, -inf,
// NOKEYS: arg4 [1, 1, 3, 8] = [0, 0,
// NOKEYS: arg5 [1, 3, 1, 8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
// RUN: npu-run %t.mlir --input=%S/Inputs/f32-zeros-1x0x1x8.npy,%S/Inputs/f32-zeros-1x5x1x8.npy,%S/Inputs/f32-rows-1x5x1x8.npy --print-outputs | FileCheck %s --check-prefix=NOQUERIES
// RUN: npu-run %t.mlir --input=%S/Inputs/f32-zeros-1x0x1x8.npy,%S/Inputs/f32-zeros-1x5x1x8.npy,%S/Inputs/f32-rows-1x5x1x8.npy --print-outputs --mode=jit | FileCheck %s --check-prefix=NOQUERIES
// NOQUERIES: arg3 [1, 1, 0, 8] = []
// NOQUERIES: arg5 [1, 0, 1, 8] = []
// RUN: not npu-run %t.mlir --input=%S/Inputs/f32-zeros-1x3x1x8.npy,%S/Inputs/f32-zeros-1x3x1x8.npy,%S/Inputs/f32-rows-1x5x1x8.npy 2>&1 | FileCheck %s --check-prefix=MISMATCH
// RUN: not npu-run %t.mlir --input=%S/Inputs/f32-zeros-1x3x1x8.npy,%S/Inputs/f32-zeros-1x3x1x8.npy,%S/Inputs/f32-rows-1x5x1x8.npy --mode=jit 2>&1 | FileCheck %s --check-prefix=MISMATCH
// MISMATCH: 'npu.flash_attention' value has 5 keys, key has a different number

func.func @attention(%q: tensor<1x?x1x8xf32>, %k: tensor<1x?x1x8xf32>, %v: tensor<1x?x1x8xf32>) -> (tensor<1x1x?x8xf32>, tensor<1x1x?x8xf32>, tensor<1x?x1x8xf32>) {
  %m, %s, %o = npu.flash_attention %q, %k, %v {input_layout = #npu.attention_layout<BSND>, head_num = 1, scale = 0.35, sparse_mode = 3} : (tensor<1x?x1x8xf32>, tensor<1x?x1x8xf32>, tensor<1x?x1x8xf32>) -> (tensor<1x1x?x8xf32>, tensor<1x1x?x8xf32>, tensor<1x?x1x8xf32>)
  return %m, %s, %o : tensor<1x1x?x8xf32>, tensor<1x1x?x8xf32>, tensor<1x?x1x8xf32>
}
