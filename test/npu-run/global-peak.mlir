// The report's peak global memory: the intermediates' buffers, reused by
// liveness (npu-lower-to-device), hold two tensors of 32 f32 at once where
// five are computed. The executors agree on the result, exp(-relu(x)).
// RUN: npu-run %s --random-inputs=1 --report | FileCheck %s
// RUN: npu-run %s --random-inputs=1 --print-outputs > %t.sim
// RUN: npu-run %s --random-inputs=1 --print-outputs --mode=jit | diff %t.sim -

// CHECK: peak global         256 bytes allocated (arguments aside)
func.func @f(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %a = npu.relu %x : tensor<4x8xf32> -> tensor<4x8xf32>
  %b = npu.neg %a : tensor<4x8xf32> -> tensor<4x8xf32>
  %c = npu.exp %b : tensor<4x8xf32> -> tensor<4x8xf32>
  %d = npu.reshape %c : tensor<4x8xf32> -> tensor<8x4xf32>
  %e = npu.abs %d : tensor<8x4xf32> -> tensor<8x4xf32>
  %f = npu.reshape %e : tensor<8x4xf32> -> tensor<4x8xf32>
  return %f : tensor<4x8xf32>
}
