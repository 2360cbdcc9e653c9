// TND with its rows (T1, T2) read at run time as well as its packed
// sequences' cumulative lengths (issue #34): one module serves packings of
// 3, 5 and 0 query rows, in both executors. As in
// attention-packed-lengths.mlir, a zero query makes each output row the
// mean of the value rows it sees (row j of value holds j + 1) and
// sparse_mode 3 lets query row i of S1 queries over S2 keys see its first
// i + S2 - S1 + 1 keys.
// 3 rows, ends [1, 3] / [2, 5]: 1.5; then 3.5 and 4.
// 5 rows, ends [2, 5] / [2, 5]: 1 and 1.5; then 3, 3.5 and 4.
// RUN: npu-opt %s --npu-graph-to-device=device=ascend910b --canonicalize --cse -o %t.mlir
// RUN: npu-run %t.mlir --input=%S/Inputs/f32-zeros-3x1x8.npy,%S/Inputs/f32-zeros-5x1x8.npy,%S/Inputs/f32-rows-5x1x8.npy,%S/Inputs/i64-1-3.npy,%S/Inputs/i64-2-5.npy --print-outputs | FileCheck %s --check-prefix=THREE
// RUN: npu-run %t.mlir --input=%S/Inputs/f32-zeros-3x1x8.npy,%S/Inputs/f32-zeros-5x1x8.npy,%S/Inputs/f32-rows-5x1x8.npy,%S/Inputs/i64-1-3.npy,%S/Inputs/i64-2-5.npy --print-outputs --mode=jit | FileCheck %s --check-prefix=THREE
// THREE: arg7 [3, 1, 8] = [1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 3.5, 3.5, 3.5, 3.5, 3.5, 3.5, 3.5, 3.5, 4, 4, 4, 4, 4, 4, 4, 4]
// RUN: npu-run %t.mlir --input=%S/Inputs/f32-zeros-5x1x8.npy,%S/Inputs/f32-zeros-5x1x8.npy,%S/Inputs/f32-rows-5x1x8.npy,%S/Inputs/i64-2-5.npy,%S/Inputs/i64-2-5.npy --print-outputs | FileCheck %s --check-prefix=FIVE
// RUN: npu-run %t.mlir --input=%S/Inputs/f32-zeros-5x1x8.npy,%S/Inputs/f32-zeros-5x1x8.npy,%S/Inputs/f32-rows-5x1x8.npy,%S/Inputs/i64-2-5.npy,%S/Inputs/i64-2-5.npy --print-outputs --mode=jit | FileCheck %s --check-prefix=FIVE
// FIVE: arg7 [5, 1, 8] = [1, 1, 1, 1, 1, 1, 1, 1, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 3, 3, 3, 3, 3, 3, 3, 3, 3.5, 3.5, 3.5, 3.5, 3.5, 3.5, 3.5, 3.5, 4, 4, 4, 4, 4, 4, 4, 4]
// No query rows: empty results.
// RUN: npu-run %t.mlir --input=%S/Inputs/f32-zeros-0x1x8.npy,%S/Inputs/f32-zeros-5x1x8.npy,%S/Inputs/f32-rows-5x1x8.npy,%S/Inputs/i64-0-0.npy,%S/Inputs/i64-2-5.npy --print-outputs | FileCheck %s --check-prefix=NONE
// RUN: npu-run %t.mlir --input=%S/Inputs/f32-zeros-0x1x8.npy,%S/Inputs/f32-zeros-5x1x8.npy,%S/Inputs/f32-rows-5x1x8.npy,%S/Inputs/i64-0-0.npy,%S/Inputs/i64-2-5.npy --print-outputs --mode=jit | FileCheck %s --check-prefix=NONE
// NONE: arg7 [0, 1, 8] = []
// Value rows that are not key's, and ends that do not reach query's rows,
// fail the kernel naming the operand.
// RUN: not npu-run %t.mlir --input=%S/Inputs/f32-zeros-5x1x8.npy,%S/Inputs/f32-zeros-5x1x8.npy,%S/Inputs/f32-zeros-3x1x8.npy,%S/Inputs/i64-2-5.npy,%S/Inputs/i64-2-5.npy 2>&1 | FileCheck %s --check-prefix=VALUE
// RUN: not npu-run %t.mlir --input=%S/Inputs/f32-zeros-5x1x8.npy,%S/Inputs/f32-zeros-5x1x8.npy,%S/Inputs/f32-zeros-3x1x8.npy,%S/Inputs/i64-2-5.npy,%S/Inputs/i64-2-5.npy --mode=jit 2>&1 | FileCheck %s --check-prefix=VALUE
// VALUE: 'npu.flash_attention' value has 3 rows, key has a different number
// RUN: not npu-run %t.mlir --input=%S/Inputs/f32-zeros-5x1x8.npy,%S/Inputs/f32-zeros-5x1x8.npy,%S/Inputs/f32-rows-5x1x8.npy,%S/Inputs/i64-1-3.npy,%S/Inputs/i64-2-5.npy 2>&1 | FileCheck %s --check-prefix=ENDS
// RUN: not npu-run %t.mlir --input=%S/Inputs/f32-zeros-5x1x8.npy,%S/Inputs/f32-zeros-5x1x8.npy,%S/Inputs/f32-rows-5x1x8.npy,%S/Inputs/i64-1-3.npy,%S/Inputs/i64-2-5.npy --mode=jit 2>&1 | FileCheck %s --check-prefix=ENDS
// ENDS: 'npu.flash_attention' seq_qlen holds no cumulative lengths ending at the rows of query: batch 1

func.func @packed(%q: tensor<?x1x8xf32>, %k: tensor<?x1x8xf32>, %v: tensor<?x1x8xf32>, %ql: tensor<2xi64>, %kl: tensor<2xi64>) -> (tensor<?x1x8xf32>, tensor<?x1x8xf32>, tensor<?x1x8xf32>) {
  %m, %s, %o = npu.flash_attention %q, %k, %v seq_qlen %ql seq_kvlen %kl {input_layout = #npu.attention_layout<TND>, head_num = 1, scale = 0.35, sparse_mode = 3} : (tensor<?x1x8xf32>, tensor<?x1x8xf32>, tensor<?x1x8xf32>, tensor<2xi64>, tensor<2xi64>) -> (tensor<?x1x8xf32>, tensor<?x1x8xf32>, tensor<?x1x8xf32>)
  return %m, %s, %o : tensor<?x1x8xf32>, tensor<?x1x8xf32>, tensor<?x1x8xf32>
}
