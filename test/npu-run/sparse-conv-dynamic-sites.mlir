// One compile serves every LiDAR frame (issue #34): the number of sites
// is read at run time. The module is lowered once by npu-opt and run on
// two sites (the values of sparse-conv-subm-even.mlir, from the
// definition: [[30], [2]]) and on none, in both executors; features with
// another number of rows than the sites are an error naming the op.
// RUN: npu-opt %s --npu-graph-to-device --canonicalize --cse -o %t.mlir
// RUN: FileCheck %s --check-prefix=IR < %t.mlir
// RUN: npu-run %t.mlir --input=%S/Inputs/subm-even-indices.npy,%S/Inputs/subm-even-features.npy,%S/Inputs/subm-even-weights.npy --print-outputs | FileCheck %s --check-prefix=TWO
// RUN: npu-run %t.mlir --input=%S/Inputs/subm-even-indices.npy,%S/Inputs/subm-even-features.npy,%S/Inputs/subm-even-weights.npy --print-outputs --mode=jit | FileCheck %s --check-prefix=TWO
// RUN: npu-run %t.mlir --input=%S/Inputs/i32-0x4.npy,%S/Inputs/f32-0x1.npy,%S/Inputs/subm-even-weights.npy --print-outputs | FileCheck %s --check-prefix=NONE
// RUN: npu-run %t.mlir --input=%S/Inputs/i32-0x4.npy,%S/Inputs/f32-0x1.npy,%S/Inputs/subm-even-weights.npy --print-outputs --mode=jit | FileCheck %s --check-prefix=NONE
// RUN: not npu-run %t.mlir --input=%S/Inputs/subm-even-indices.npy,%S/Inputs/f32-0x1.npy,%S/Inputs/subm-even-weights.npy 2>&1 | FileCheck %s --check-prefix=ROWS
// RUN: not npu-run %t.mlir --input=%S/Inputs/subm-even-indices.npy,%S/Inputs/f32-0x1.npy,%S/Inputs/subm-even-weights.npy --mode=jit 2>&1 | FileCheck %s --check-prefix=ROWS
// The subm output is stored at the sites' rows; a default convolution's out_indices
// is stored at K (here 2) times the sites, with its count beside it.
// IR-LABEL: func.func @subm_even(
// IR-SAME: memref<?x4xi32, #npudev.space<global>>
// IR-SAME: memref<?x1xf32, #npudev.space<global>> {npudev.output, npudev.rows = 4 : i64, npudev.sizes = array<i64: 0, 0, 1>}
// IR-LABEL: func.func @default_pairs(
// IR-SAME: memref<?x4xi32, #npudev.space<global>> {npudev.output, npudev.rows = 4 : i64, npudev.sizes = array<i64: 0, 0, 2>}
// IR-SAME: memref<2x2x?xi32, #npudev.space<global>> {npudev.output, npudev.sizes = array<i64: 0, 0, 1>}

// TWO: arg3 [2, 1] = [30, 2]
// NONE: arg3 [0, 1] = []
// ROWS: 'npu.sparse_conv3d' features has 0 rows, the pair table's get_indice_pairs a different number of sites

func.func @subm_even(%idx: tensor<?x4xi32>, %f: tensor<?x1xf32>, %w: tensor<2x1x1xf32>) -> tensor<?x1xf32> {
  %o, %p, %n = npu.get_indice_pairs %idx {batch_size = 1 : i64, spatial_shape = array<i64: 1, 1, 4>, kernel_size = array<i64: 1, 1, 2>, dilation = array<i64: 1, 1, 2>, padding = array<i64: 0, 0, 1>, subm} : (tensor<?x4xi32>) -> (tensor<?x4xi32>, tensor<2x2x?xi32>, tensor<2xi32>)
  %c0 = arith.constant 0 : index
  %m = tensor.dim %o, %c0 : tensor<?x4xi32>
  %y = npu.sparse_conv3d %f, %w, %p, %n, %m {subm} : (tensor<?x1xf32>, tensor<2x1x1xf32>, tensor<2x2x?xi32>, tensor<2xi32>, index) -> tensor<?x1xf32>
  return %y : tensor<?x1xf32>
}

func.func @default_pairs(%idx: tensor<?x4xi32>) -> (tensor<?x4xi32>, tensor<2x2x?xi32>, tensor<2xi32>) {
  %o, %p, %n = npu.get_indice_pairs %idx {batch_size = 1 : i64, spatial_shape = array<i64: 1, 1, 4>, kernel_size = array<i64: 1, 1, 2>} : (tensor<?x4xi32>) -> (tensor<?x4xi32>, tensor<2x2x?xi32>, tensor<2xi32>)
  return %o, %p, %n : tensor<?x4xi32>, tensor<2x2x?xi32>, tensor<2xi32>
}

