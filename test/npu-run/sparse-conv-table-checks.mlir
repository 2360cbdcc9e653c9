// A pair table that does not come from get_indice_pairs is input data:
// sparse_conv3d checks it before any offset runs, and both executors name
// the offset that breaks a rule instead of reading past the table (a count
// of 5 for a table of 4 gave an internal subview message) or running a
// negative count as 0 with exit 0.
// RUN: npu-run %s --input=%S/Inputs/table-pairs.npy,%S/Inputs/table-num.npy --random-inputs=1 --print-outputs | FileCheck %s --check-prefix=OK
// RUN: npu-run %s --input=%S/Inputs/table-pairs.npy,%S/Inputs/table-num.npy --random-inputs=1 --print-outputs --mode=jit | FileCheck %s --check-prefix=OK
// Row 3 is no pair's output: zeros.
// OK: arg4 [4, 2] = [{{[^,]+}}, {{[^,]+}}, {{[^,]+}}, {{[^,]+}}, {{[^,]+}}, {{[^,]+}}, 0, 0]
// RUN: not npu-run %s --input=%S/Inputs/table-pairs.npy,%S/Inputs/table-num-negative.npy --random-inputs=1 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: not npu-run %s --input=%S/Inputs/table-pairs.npy,%S/Inputs/table-num-negative.npy --random-inputs=1 --mode=jit 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// NEGATIVE: 'npu.sparse_conv3d' indice_num[1] is outside [0, 4]
// RUN: not npu-run %s --input=%S/Inputs/table-pairs.npy,%S/Inputs/table-num-past.npy --random-inputs=1 2>&1 | FileCheck %s --check-prefix=PAST
// RUN: not npu-run %s --input=%S/Inputs/table-pairs.npy,%S/Inputs/table-num-past.npy --random-inputs=1 --mode=jit --checked 2>&1 | FileCheck %s --check-prefix=PAST
// PAST: 'npu.sparse_conv3d' indice_num[1] is outside [0, 4]
// RUN: not npu-run %s --input=%S/Inputs/table-pairs-bad-gather.npy,%S/Inputs/table-num.npy --random-inputs=1 2>&1 | FileCheck %s --check-prefix=GATHER
// RUN: not npu-run %s --input=%S/Inputs/table-pairs-bad-gather.npy,%S/Inputs/table-num.npy --random-inputs=1 --mode=jit 2>&1 | FileCheck %s --check-prefix=GATHER
// GATHER: 'npu.sparse_conv3d' indice_pairs offset 0 gathers a row outside the features
// RUN: not npu-run %s --input=%S/Inputs/table-pairs-bad-scatter.npy,%S/Inputs/table-num.npy --random-inputs=1 2>&1 | FileCheck %s --check-prefix=SCATTER
// RUN: not npu-run %s --input=%S/Inputs/table-pairs-bad-scatter.npy,%S/Inputs/table-num.npy --random-inputs=1 --mode=jit 2>&1 | FileCheck %s --check-prefix=SCATTER
// SCATTER: 'npu.sparse_conv3d' indice_pairs offset 1 scatters to a row outside [0, num_act_out)
// The checks survive canonicalize and CSE.
// RUN: npu-opt %s --npu-lower-to-device --canonicalize --cse | not npu-run - --input=%S/Inputs/table-pairs.npy,%S/Inputs/table-num-past.npy --random-inputs=1 --mode=jit 2>&1 | FileCheck %s --check-prefix=PAST

func.func @conv(%p: tensor<3x2x4xi32>, %n: tensor<3xi32>, %f: tensor<4x2xf32>, %w: tensor<3x2x2xf32>) -> tensor<4x2xf32> {
  %c4 = arith.constant 4 : index
  %y = npu.sparse_conv3d %f, %w, %p, %n, %c4 : (tensor<4x2xf32>, tensor<3x2x2xf32>, tensor<3x2x4xi32>, tensor<3xi32>, index) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}
