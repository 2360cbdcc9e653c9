// npu-lower-to-device rejects what it cannot lower, naming the op.
// RUN: npu-opt %s --split-input-file --npu-lower-to-device --verify-diagnostics
// RUN: not npu-opt %s --npu-lower-to-device=device=tpu 2>&1 | FileCheck %s --check-prefix=DEVICE

// DEVICE: error: npu-lower-to-device: unknown device preset 'tpu' (known: mlu590, ascend910b)

func.func @no_kernel(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'npu.relu' op has no device lowering}}
  %r = npu.relu %x : tensor<4x8xf32> -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// expected-error @+1 {{'func.func' op cannot be lowered to the device: value of type 'tensor<?xf32>' is not a statically shaped tensor}}
func.func @dynamic(%g: tensor<?xf32>, %i: tensor<4xi32>, %l: tensor<4xi32>, %d: tensor<6x8xf32>) -> tensor<4x8xf32> {
  %c = npu.moe_dispatch_backward_data %g, %i, %l, %d {capacity = 3, num_experts = 2} : (tensor<?xf32>, tensor<4xi32>, tensor<4xi32>, tensor<6x8xf32>) -> tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}

