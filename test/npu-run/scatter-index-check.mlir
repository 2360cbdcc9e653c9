// An index outside its dimension fails scatter_nd and scatter in both
// executors, naming it, instead of writing outside the result.
// RUN: not npu-run %s --entry=scatter_nd --input=%S/Inputs/i32-0123.npy --random-inputs=1 --mode=sim 2>&1 | FileCheck %s --check-prefix=ND
// RUN: not npu-run %s --entry=scatter_nd --input=%S/Inputs/i32-0123.npy --random-inputs=1 --mode=jit 2>&1 | FileCheck %s --check-prefix=ND
// RUN: not npu-run %s --entry=scatter --input=%S/Inputs/i32-0123.npy --random-inputs=1 --mode=sim 2>&1 | FileCheck %s --check-prefix=ELEMENTS
// RUN: not npu-run %s --entry=scatter --input=%S/Inputs/i32-0123.npy --random-inputs=1 --mode=jit 2>&1 | FileCheck %s --check-prefix=ELEMENTS
// The checks survive --canonicalize --cse on the lowered kernels:
// RUN: npu-opt %s --npu-graph-to-device --canonicalize --cse | not npu-run - --entry=scatter_nd --input=%S/Inputs/i32-0123.npy --random-inputs=1 2>&1 | FileCheck %s --check-prefix=ND
// RUN: npu-opt %s --npu-graph-to-device --canonicalize --cse | not npu-run - --entry=scatter --input=%S/Inputs/i32-0123.npy --random-inputs=1 --mode=jit 2>&1 | FileCheck %s --check-prefix=ELEMENTS

// ND: error: {{.*}}'npu.scatter_nd' index tuple #3 is outside the data's leading dimensions [3] (each component c of a dimension of size n needs -n <= c < n)
func.func @scatter_nd(%i: tensor<4xi32>, %x: tensor<3x5xf32>, %u: tensor<4x5xf32>) -> tensor<3x5xf32> {
  %t = npu.reshape %i : tensor<4xi32> -> tensor<4x1xi32>
  %r = npu.scatter_nd %x, %t, %u : (tensor<3x5xf32>, tensor<4x1xi32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  return %r : tensor<3x5xf32>
}

// ELEMENTS: error: {{.*}}'npu.scatter' index #3 is outside [-3, 3) along axis 1
func.func @scatter(%i: tensor<4xi32>, %x: tensor<2x3xf32>, %u: tensor<2x2xf32>) -> tensor<2x3xf32> {
  %t = npu.reshape %i : tensor<4xi32> -> tensor<2x2xi32>
  %r = npu.scatter %x, %t, %u {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x2xi32>, tensor<2x2xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
