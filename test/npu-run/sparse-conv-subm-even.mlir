// Submanifold convolution with an even kernel extent and an even dilation
// (k 1x1x2, d 1x1x2, p 0x0x1): offset 0 maps x to x + 1, offset 1 (= K / 2)
// to x - 1, so no offset maps a site to itself. Sites x = 0 and x = 1,
// features [[1], [10]], weights [[[2]], [[3]]]: by the definition
// (out[o] = sum over pairs), out[1] = 1 * 2 (site 0 through offset 0) and
// out[0] = 10 * 3 (site 1 through offset 1), [[30], [2]]. The lowering
// used to take offset K / 2 as the identity and gave [[3], [2]].
// RUN: npu-run %s --input=%S/Inputs/subm-even-indices.npy,%S/Inputs/subm-even-features.npy,%S/Inputs/subm-even-weights.npy --random-inputs=0 --print-outputs | FileCheck %s
// RUN: npu-run %s --input=%S/Inputs/subm-even-indices.npy,%S/Inputs/subm-even-features.npy,%S/Inputs/subm-even-weights.npy --random-inputs=0 --print-outputs --mode=jit | FileCheck %s
// RUN: npu-opt %s --npu-lower-to-device=sparse-conv-strategy=grid | npu-run - --input=%S/Inputs/subm-even-indices.npy,%S/Inputs/subm-even-features.npy,%S/Inputs/subm-even-weights.npy --random-inputs=0 --print-outputs | FileCheck %s
// RUN: npu-opt %s --npu-lower-to-device=sparse-conv-strategy=grid | npu-run - --input=%S/Inputs/subm-even-indices.npy,%S/Inputs/subm-even-features.npy,%S/Inputs/subm-even-weights.npy --random-inputs=0 --print-outputs --mode=jit | FileCheck %s
// CHECK: arg3 [2, 1] = [30, 2]

func.func @subm_even(%idx: tensor<2x4xi32>, %f: tensor<2x1xf32>, %w: tensor<2x1x1xf32>) -> tensor<2x1xf32> {
  %o, %p, %n = npu.get_indice_pairs %idx {batch_size = 1 : i64, spatial_shape = array<i64: 1, 1, 4>, kernel_size = array<i64: 1, 1, 2>, dilation = array<i64: 1, 1, 2>, padding = array<i64: 0, 0, 1>, subm} : (tensor<2x4xi32>) -> (tensor<2x4xi32>, tensor<2x2x2xi32>, tensor<2xi32>)
  %c2 = arith.constant 2 : index
  %y = npu.sparse_conv3d %f, %w, %p, %n, %c2 {subm} : (tensor<2x1xf32>, tensor<2x1x1xf32>, tensor<2x2x2xi32>, tensor<2xi32>, index) -> tensor<2x1xf32>
  return %y : tensor<2x1xf32>
}
