// On a device with 2 GiB of vector and of cube memory per core (inside the
// description's ranges), kernels size their on-chip buffers from the input
// they get, not from the device: sparse_conv3d's chunks took 4 sites to
// 134,217,728-row buffers (40 s and 5 GB in the simulator), FlashAttention
// backward's f32 sums 134,217,728-element ones. No buffer here reaches
// 10,000 elements along a dimension.
// RUN: npu-opt %s --split-input-file --npu-lower-to-device=device=%S/Inputs/large-on-chip.json | FileCheck %s

// CHECK-LABEL: func.func @sparse_conv
// CHECK-NOT: npudev.alloc : memref<{{([0-9]+x)*}}{{[0-9][0-9][0-9][0-9][0-9]}}
func.func @sparse_conv(%idx: tensor<4x4xi32>, %f: tensor<4x2xf32>, %w: tensor<27x2x2xf32>) -> tensor<?x2xf32> {
  %o, %p, %n = npu.get_indice_pairs %idx {batch_size = 1 : i64, spatial_shape = array<i64: 8, 8, 8>, kernel_size = array<i64: 3, 3, 3>, padding = array<i64: 1, 1, 1>} : (tensor<4x4xi32>) -> (tensor<?x4xi32>, tensor<27x2x4xi32>, tensor<27xi32>)
  %c0 = arith.constant 0 : index
  %m = tensor.dim %o, %c0 : tensor<?x4xi32>
  %y = npu.sparse_conv3d %f, %w, %p, %n, %m : (tensor<4x2xf32>, tensor<27x2x2xf32>, tensor<27x2x4xi32>, tensor<27xi32>, index) -> tensor<?x2xf32>
  return %y : tensor<?x2xf32>
}

// -----

// CHECK-LABEL: func.func @sparse_conv_table
// CHECK-NOT: npudev.alloc : memref<{{([0-9]+x)*}}{{[0-9][0-9][0-9][0-9][0-9]}}
func.func @sparse_conv_table(%p: tensor<3x2x4xi32>, %n: tensor<3xi32>, %f: tensor<4x2xbf16>, %w: tensor<3x2x2xbf16>) -> tensor<4x2xbf16> {
  %c4 = arith.constant 4 : index
  %y = npu.sparse_conv3d %f, %w, %p, %n, %c4 : (tensor<4x2xbf16>, tensor<3x2x2xbf16>, tensor<3x2x4xi32>, tensor<3xi32>, index) -> tensor<4x2xbf16>
  return %y : tensor<4x2xbf16>
}

// -----

// CHECK-LABEL: func.func @moe
// CHECK-NOT: npudev.alloc : memref<{{([0-9]+x)*}}{{[0-9][0-9][0-9][0-9][0-9]}}
func.func @moe(%g: tensor<5xf32>, %i: tensor<5xi32>, %l: tensor<5xi32>, %x: tensor<5x3xf32>, %gates: tensor<2x5xf32>, %ii: tensor<2x5xi32>) -> (tensor<6x3xf32>, tensor<5x3xf32>, tensor<5xf32>, tensor<5x3xf32>) {
  %d = npu.moe_dispatch_forward %g, %i, %l, %x {capacity = 3, num_experts = 2} : (tensor<5xf32>, tensor<5xi32>, tensor<5xi32>, tensor<5x3xf32>) -> tensor<6x3xf32>
  %dx = npu.moe_dispatch_backward_data %g, %i, %l, %d {capacity = 3, num_experts = 2} : (tensor<5xf32>, tensor<5xi32>, tensor<5xi32>, tensor<6x3xf32>) -> tensor<5x3xf32>
  %dg = npu.moe_dispatch_backward_gate %i, %l, %x, %d {capacity = 3, num_experts = 2} : (tensor<5xi32>, tensor<5xi32>, tensor<5x3xf32>, tensor<6x3xf32>) -> tensor<5xf32>
  %c = npu.moe_combine %gates, %ii, %ii, %d {capacity = 3, num_experts = 2} : (tensor<2x5xf32>, tensor<2x5xi32>, tensor<2x5xi32>, tensor<6x3xf32>) -> tensor<5x3xf32>
  return %d, %dx, %dg, %c : tensor<6x3xf32>, tensor<5x3xf32>, tensor<5xf32>, tensor<5x3xf32>
}

// -----

// CHECK-LABEL: func.func @attention
// CHECK-NOT: npudev.alloc : memref<{{([0-9]+x)*}}{{[0-9][0-9][0-9][0-9][0-9]}}
func.func @attention(%q: tensor<1x2x5x8xf16>, %st: tensor<1x2x5x8xf32>) -> (tensor<1x2x5x8xf16>, tensor<1x2x5x8xf16>) {
  %m, %s, %o = npu.flash_attention %q, %q, %q {input_layout = #npu.attention_layout<BNSD>, head_num = 2, scale = 0.5} : (tensor<1x2x5x8xf16>, tensor<1x2x5x8xf16>, tensor<1x2x5x8xf16>) -> (tensor<1x2x5x8xf32>, tensor<1x2x5x8xf32>, tensor<1x2x5x8xf16>)
  %dq, %dk, %dv = npu.flash_attention_grad %q, %q, %q, %q, %st, %st, %q {input_layout = #npu.attention_layout<BNSD>, head_num = 2, scale = 0.5} : (tensor<1x2x5x8xf16>, tensor<1x2x5x8xf16>, tensor<1x2x5x8xf16>, tensor<1x2x5x8xf16>, tensor<1x2x5x8xf32>, tensor<1x2x5x8xf32>, tensor<1x2x5x8xf16>) -> (tensor<1x2x5x8xf16>, tensor<1x2x5x8xf16>, tensor<1x2x5x8xf16>)
  return %o, %dq : tensor<1x2x5x8xf16>, tensor<1x2x5x8xf16>
}
// CHECK: return
