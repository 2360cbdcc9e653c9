// A size read at run time that would make a buffer larger than the
// device's global memory is an error naming the argument and the size, in
// both executors, before any kernel runs (issue #34). The intermediate
// grad_input holds 4096 f32 per sample, 16 KiB: on a device with 128 KiB of
// global memory at most 8 samples fit it. Four run; 64 do not, though the
// output (one f32 per sample) would fit.
// RUN: npu-opt %s --npu-graph-to-device="device=%S/Inputs/small-global-device.json" --canonicalize --cse -o %t.mlir
// RUN: npu-run %t.mlir --input=%S/Inputs/f32-4.npy,%S/Inputs/i32-0123.npy,%S/Inputs/i32-0123.npy --random-inputs=1 | FileCheck %s --check-prefix=FOUR --allow-empty
// RUN: npu-run %t.mlir --input=%S/Inputs/f32-4.npy,%S/Inputs/i32-0123.npy,%S/Inputs/i32-0123.npy --random-inputs=1 --mode=jit | FileCheck %s --check-prefix=FOUR --allow-empty
// RUN: not npu-run %t.mlir --input=%S/Inputs/f32-4.npy,%S/Inputs/i32-64.npy,%S/Inputs/i32-64.npy --random-inputs=1 2>&1 | FileCheck %s --check-prefix=MANY
// RUN: not npu-run %t.mlir --input=%S/Inputs/f32-4.npy,%S/Inputs/i32-64.npy,%S/Inputs/i32-64.npy --random-inputs=1 --mode=jit 2>&1 | FileCheck %s --check-prefix=MANY
// FOUR-NOT: error
// MANY: 'moe' argument #1 has size 64 in dimension 0: a buffer sized from it would not fit the 131072 bytes of global memory of device 'small_global'

func.func @moe(%g: tensor<?xf32>, %i: tensor<?xi32>, %l: tensor<?xi32>, %d: tensor<2x4096xf32>) -> tensor<?xf32> {
  %r = npu.moe_dispatch_backward_data %g, %i, %l, %d {capacity = 1, num_experts = 2} : (tensor<?xf32>, tensor<?xi32>, tensor<?xi32>, tensor<2x4096xf32>) -> tensor<?x4096xf32>
  %s = npu.moe_dispatch_backward_gate %i, %l, %r, %d {capacity = 1, num_experts = 2} : (tensor<?xi32>, tensor<?xi32>, tensor<?x4096xf32>, tensor<2x4096xf32>) -> tensor<?xf32>
  return %s : tensor<?xf32>
}
