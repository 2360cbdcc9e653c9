// npu-run never makes up data silently (issue #13): the result buffers of a
// graph-level function need no data and start as zeros, an argument with no
// data is an error unless --random-inputs is given, and then npu-run says
// which arguments are random.

// RUN: npu-run %s --input=%S/Inputs/f32-4.npy --print-outputs 2>&1 | FileCheck %s --check-prefix=GIVEN
// RUN: npu-run %s --input=%S/Inputs/f32-4.npy --print-outputs --mode=jit 2>&1 | FileCheck %s --check-prefix=GIVEN
// GIVEN-NOT: random
// GIVEN: arg1 [4] = [1, 2, 3, 4]

// RUN: not npu-run %s 2>&1 | FileCheck %s --check-prefix=NODATA
// NODATA: npu-run: argument #0 of 'id' has no data: give it with --input, or use --random-inputs

// RUN: npu-run %s --random-inputs=4 2>&1 | FileCheck %s --check-prefix=RANDOM
// RUN: npu-run %s --entry=swap --input=%S/Inputs/f32-4.npy --random-inputs=4 2>&1 | FileCheck %s --check-prefix=RANDOM1
// RANDOM: npu-run: random data (seed 4) for argument #0{{$}}
// RANDOM1: npu-run: random data (seed 4) for argument #1{{$}}

// A function that only passes tensors through is graph-level too: its
// results are copied into their buffers.
// RUN: npu-run %s --entry=swap --input=%S/Inputs/f32-4.npy,%S/Inputs/f32-4.npy --print-outputs | FileCheck %s --check-prefix=SWAP
// SWAP: arg2 [4] = [1, 2, 3, 4]
// SWAP: arg3 [4] = [1, 2, 3, 4]

func.func @id(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

func.func @swap(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  return %y, %x : tensor<4xf32>, tensor<4xf32>
}

// A graph-level argument's mismatch names the tensor type the user wrote,
// not the memref it is lowered to.
// RUN: not npu-run %s --entry=id64 --input=%S/Inputs/f32-4.npy 2>&1 | FileCheck %s --check-prefix=TENSOR
// RUN: not npu-run %s --entry=id64 --input=%S/Inputs/i32-64.npy 2>&1 | FileCheck %s --check-prefix=TENSOR-KIND
// TENSOR: npu-run: argument #0 has shape [4] but the function takes 'tensor<64xf32>'
// TENSOR-KIND: npu-run: argument #0 has element type 'f32' but the data is 'i32'
func.func @id64(%x: tensor<64xf32>) -> tensor<64xf32> {
  return %x : tensor<64xf32>
}
