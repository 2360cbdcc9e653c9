// TND with the packed sequences' cumulative lengths given as data
// (seq_qlen, seq_kvlen): one module run at two packings of the same rows
// in both executors (issue #34). With a zero query each output row is the
// mean of the value rows it sees; row j of value holds j + 1, and with
// sparse_mode 3 query row i of a sequence of S1 queries over S2 keys sees
// its first i + S2 - S1 + 1 keys.
// Ends [1, 3] / [2, 5]: batch 0 has 1 query over values 1, 2 (mean 1.5);
// batch 1 has 2 queries over values 3, 4, 5 (means 3.5 and 4).
// Ends [0, 3] / [0, 5]: batch 0 is empty; batch 1's 3 queries over values
// 1 to 5 give 2, 2.5 and 3. Ends that fall, or do not end at the rows, are
// an error naming the operand and the first bad batch.
// RUN: npu-opt %s --npu-graph-to-device=device=ascend910b --canonicalize --cse -o %t.mlir
// RUN: npu-run %t.mlir --input=%S/Inputs/f32-zeros-3x1x8.npy,%S/Inputs/f32-zeros-5x1x8.npy,%S/Inputs/f32-rows-5x1x8.npy,%S/Inputs/i64-1-3.npy,%S/Inputs/i64-2-5.npy --print-outputs | FileCheck %s --check-prefix=TWO
// RUN: npu-run %t.mlir --input=%S/Inputs/f32-zeros-3x1x8.npy,%S/Inputs/f32-zeros-5x1x8.npy,%S/Inputs/f32-rows-5x1x8.npy,%S/Inputs/i64-1-3.npy,%S/Inputs/i64-2-5.npy --print-outputs --mode=jit | FileCheck %s --check-prefix=TWO
// TWO: arg7 [3, 1, 8] = [1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, 3.5, 3.5, 3.5, 3.5, 3.5, 3.5, 3.5, 3.5, 4, 4, 4, 4, 4, 4, 4, 4]
// RUN: npu-run %t.mlir --input=%S/Inputs/f32-zeros-3x1x8.npy,%S/Inputs/f32-zeros-5x1x8.npy,%S/Inputs/f32-rows-5x1x8.npy,%S/Inputs/i64-0-3.npy,%S/Inputs/i64-0-5.npy --print-outputs | FileCheck %s --check-prefix=ONE
// RUN: npu-run %t.mlir --input=%S/Inputs/f32-zeros-3x1x8.npy,%S/Inputs/f32-zeros-5x1x8.npy,%S/Inputs/f32-rows-5x1x8.npy,%S/Inputs/i64-0-3.npy,%S/Inputs/i64-0-5.npy --print-outputs --mode=jit | FileCheck %s --check-prefix=ONE
// ONE: arg7 [3, 1, 8] = [2, 2, 2, 2, 2, 2, 2, 2, 2.5, 2.5, 2.5, 2.5, 2.5, 2.5, 2.5, 2.5, 3, 3, 3, 3, 3, 3, 3, 3]
// RUN: not npu-run %t.mlir --input=%S/Inputs/f32-zeros-3x1x8.npy,%S/Inputs/f32-zeros-5x1x8.npy,%S/Inputs/f32-rows-5x1x8.npy,%S/Inputs/i64-2-1.npy,%S/Inputs/i64-2-5.npy 2>&1 | FileCheck %s --check-prefix=FALLING
// RUN: not npu-run %t.mlir --input=%S/Inputs/f32-zeros-3x1x8.npy,%S/Inputs/f32-zeros-5x1x8.npy,%S/Inputs/f32-rows-5x1x8.npy,%S/Inputs/i64-2-1.npy,%S/Inputs/i64-2-5.npy --mode=jit 2>&1 | FileCheck %s --check-prefix=FALLING
// FALLING: 'npu.flash_attention' seq_qlen holds no cumulative lengths ending at the 3 rows: batch 1
// Ends past the rows ([1, 7] for 3 rows): the JIT's kernel stops at the
// failed check, as the simulator's does, before the attention launch reads
// rows 3 to 6 (its bounds-checked build would report them, or deadlock on
// the tasks that never start).
// RUN: not npu-run %t.mlir --input=%S/Inputs/f32-zeros-3x1x8.npy,%S/Inputs/f32-zeros-5x1x8.npy,%S/Inputs/f32-rows-5x1x8.npy,%S/Inputs/i64-1-7.npy,%S/Inputs/i64-2-5.npy --mode=jit --checked 2>&1 | FileCheck %s --check-prefix=PAST
// PAST: 'npu.flash_attention' seq_qlen holds no cumulative lengths ending at the 3 rows: batch 1
// PAST-NOT: deadlocked
// PAST-NOT: out of bounds
// RUN: not npu-run %t.mlir --input=%S/Inputs/f32-zeros-3x1x8.npy,%S/Inputs/f32-zeros-5x1x8.npy,%S/Inputs/f32-rows-5x1x8.npy,%S/Inputs/i64-1-3.npy,%S/Inputs/i64-0-3.npy 2>&1 | FileCheck %s --check-prefix=SHORT
// SHORT: 'npu.flash_attention' seq_kvlen holds no cumulative lengths ending at the 5 rows: batch 1

func.func @packed(%q: tensor<3x1x8xf32>, %k: tensor<5x1x8xf32>, %v: tensor<5x1x8xf32>, %ql: tensor<2xi64>, %kl: tensor<2xi64>) -> (tensor<3x1x8xf32>, tensor<3x1x8xf32>, tensor<3x1x8xf32>) {
  %m, %s, %o = npu.flash_attention %q, %k, %v seq_qlen %ql seq_kvlen %kl {input_layout = #npu.attention_layout<TND>, head_num = 1, scale = 0.35, sparse_mode = 3} : (tensor<3x1x8xf32>, tensor<5x1x8xf32>, tensor<5x1x8xf32>, tensor<2xi64>, tensor<2xi64>) -> (tensor<3x1x8xf32>, tensor<3x1x8xf32>, tensor<3x1x8xf32>)
  return %m, %s, %o : tensor<3x1x8xf32>, tensor<3x1x8xf32>, tensor<3x1x8xf32>
}
