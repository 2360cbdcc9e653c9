// Round trip of every npu op: custom form, again through the printer, and
// through the generic form.
// RUN: npu-opt %s --split-input-file | FileCheck %s
// RUN: npu-opt %s --split-input-file | npu-opt --split-input-file | FileCheck %s
// RUN: npu-opt %s --split-input-file --mlir-print-op-generic | npu-opt --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @conv
func.func @conv(%x: tensor<1x8x8x16xf16>, %w: tensor<32x3x3x8xf16>, %b: tensor<32xf16>,
                %v: tensor<2x4x8x8x4xf32>, %w3: tensor<8x3x3x3x4xf32>) {
  // CHECK: npu.conv2d %{{.*}}, %{{.*}}, %{{.*}} {dilations = array<i64: 2, 2>, groups = 2 : i64, padding = array<i64: 2, 2, 2, 2>, strides = array<i64: 2, 1>} : (tensor<1x8x8x16xf16>, tensor<32x3x3x8xf16>, tensor<32xf16>) -> tensor<1x4x8x32xf16>
  %0 = npu.conv2d %x, %w, %b {strides = array<i64: 2, 1>, padding = array<i64: 2, 2, 2, 2>, dilations = array<i64: 2, 2>, groups = 2}
      : (tensor<1x8x8x16xf16>, tensor<32x3x3x8xf16>, tensor<32xf16>) -> tensor<1x4x8x32xf16>
  // CHECK: npu.conv3d %{{.*}}, %{{.*}} : (tensor<2x4x8x8x4xf32>, tensor<8x3x3x3x4xf32>) -> tensor<2x2x6x6x8xf32>
  %1 = npu.conv3d %v, %w3 : (tensor<2x4x8x8x4xf32>, tensor<8x3x3x3x4xf32>) -> tensor<2x2x6x6x8xf32>
  return
}

// -----

// CHECK-LABEL: func.func @matmul
func.func @matmul(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %bias: tensor<16xf32>,
                  %ba: tensor<3x8x4xf32>, %bb: tensor<1x16x8xf32>) {
  // CHECK: npu.matmul %{{.*}}, %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<8x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %0 = npu.matmul %a, %b, %bias : (tensor<4x8xf32>, tensor<8x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  // CHECK: npu.matmul %{{.*}}, %{{.*}} {transpose_lhs, transpose_rhs} : (tensor<3x8x4xf32>, tensor<1x16x8xf32>) -> tensor<3x4x16xf32>
  %1 = npu.matmul %ba, %bb {transpose_lhs, transpose_rhs} : (tensor<3x8x4xf32>, tensor<1x16x8xf32>) -> tensor<3x4x16xf32>
  return
}

// -----

// CHECK-LABEL: func.func @pool_reduce
func.func @pool_reduce(%x: tensor<2x9x9x8xf32>) {
  // CHECK: npu.max_pool %{{.*}} {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>} : tensor<2x9x9x8xf32> -> tensor<2x4x4x8xf32>
  %0 = npu.max_pool %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>} : tensor<2x9x9x8xf32> -> tensor<2x4x4x8xf32>
  // CHECK: npu.avg_pool %{{.*}} {count_include_pad, kernel = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : tensor<2x9x9x8xf32> -> tensor<2x10x10x8xf32>
  %1 = npu.avg_pool %x {kernel = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, count_include_pad} : tensor<2x9x9x8xf32> -> tensor<2x10x10x8xf32>
  // CHECK: npu.reduce <mean> %{{.*}} {axes = array<i64: 1, 2>, keepdims} : tensor<2x9x9x8xf32> -> tensor<2x1x1x8xf32>
  %2 = npu.reduce <mean> %x {axes = array<i64: 1, 2>, keepdims} : tensor<2x9x9x8xf32> -> tensor<2x1x1x8xf32>
  // CHECK: npu.reduce <sum> %{{.*}} {axes = array<i64: 3>} : tensor<2x9x9x8xf32> -> tensor<2x9x9xf32>
  %3 = npu.reduce <sum> %x {axes = array<i64: 3>} : tensor<2x9x9x8xf32> -> tensor<2x9x9xf32>
  // CHECK: npu.reduce <max>
  %4 = npu.reduce <max> %x {axes = array<i64: 0>} : tensor<2x9x9x8xf32> -> tensor<9x9x8xf32>
  // CHECK: npu.reduce <min>
  %5 = npu.reduce <min> %x {axes = array<i64: 0>} : tensor<2x9x9x8xf32> -> tensor<9x9x8xf32>
  return
}

// -----

// CHECK-LABEL: func.func @data_movement
func.func @data_movement(%x: tensor<2x3x4x5xf32>, %y: tensor<2x3x4x7xf32>,
                         %idx: tensor<2x3x4x5xi32>) {
  // CHECK: npu.transpose %{{.*}}, [0, 3, 1, 2] : tensor<2x3x4x5xf32> -> tensor<2x5x3x4xf32>
  %0 = npu.transpose %x, [0, 3, 1, 2] : tensor<2x3x4x5xf32> -> tensor<2x5x3x4xf32>
  // CHECK: npu.concat %{{.*}}, %{{.*}} {axis = 3 : i64} : (tensor<2x3x4x5xf32>, tensor<2x3x4x7xf32>) -> tensor<2x3x4x12xf32>
  %1 = npu.concat %x, %y {axis = 3} : (tensor<2x3x4x5xf32>, tensor<2x3x4x7xf32>) -> tensor<2x3x4x12xf32>
  // CHECK: npu.scatter %{{.*}}, %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<2x3x4x5xf32>, tensor<2x3x4x5xi32>, tensor<2x3x4x5xf32>) -> tensor<2x3x4x5xf32>
  %2 = npu.scatter %x, %idx, %x {axis = 1} : (tensor<2x3x4x5xf32>, tensor<2x3x4x5xi32>, tensor<2x3x4x5xf32>) -> tensor<2x3x4x5xf32>
  // CHECK: npu.pad %{{.*}} {pad_high = array<i64: 0, 0, 1, 3>, pad_low = array<i64: 0, 1, 1, 0>, value = -1.000000e+00 : f64} : tensor<2x3x4x5xf32> -> tensor<2x4x6x8xf32>
  %3 = npu.pad %x {pad_low = array<i64: 0, 1, 1, 0>, pad_high = array<i64: 0, 0, 1, 3>, value = -1.0} : tensor<2x3x4x5xf32> -> tensor<2x4x6x8xf32>
  // CHECK: npu.slice %{{.*}} {end = array<i64: 2, 3, 4, 5>, start = array<i64: 0, 1, 0, 1>, strides = array<i64: 1, 1, 3, 2>} : tensor<2x3x4x5xf32> -> tensor<2x2x2x2xf32>
  %4 = npu.slice %x {start = array<i64: 0, 1, 0, 1>, end = array<i64: 2, 3, 4, 5>, strides = array<i64: 1, 1, 3, 2>} : tensor<2x3x4x5xf32> -> tensor<2x2x2x2xf32>
  // CHECK: npu.reshape %{{.*}} : tensor<2x3x4x5xf32> -> tensor<6x20xf32>
  %5 = npu.reshape %x : tensor<2x3x4x5xf32> -> tensor<6x20xf32>
  // CHECK: npu.cast %{{.*}} : tensor<2x3x4x5xf32> -> tensor<2x3x4x5xf16>
  %6 = npu.cast %x : tensor<2x3x4x5xf32> -> tensor<2x3x4x5xf16>
  return
}

// -----

// CHECK-LABEL: func.func @constant_and_channel_norm
func.func @constant_and_channel_norm(%x: tensor<1x4x4x3xf16, #npu.layout<nalign>>) {
  // CHECK: npu.constant dense<1.000000e+00> : tensor<2x2xf32> -> tensor<2x2xf32, #npu.layout<align>>
  %0 = npu.constant dense<1.0> : tensor<2x2xf32> -> tensor<2x2xf32, #npu.layout<align>>
  // CHECK: npu.channel_norm <to_align> %{{.*}} : tensor<1x4x4x3xf16, #npu.layout<nalign>> -> tensor<1x4x4x3xf16, #npu.layout<align>>
  %1 = npu.channel_norm <to_align> %x : tensor<1x4x4x3xf16, #npu.layout<nalign>> -> tensor<1x4x4x3xf16, #npu.layout<align>>
  // CHECK: npu.channel_norm <to_nalign> %{{.*}} : tensor<1x4x4x3xf16, #npu.layout<align>> -> tensor<1x4x4x3xf16>
  %2 = npu.channel_norm <to_nalign> %1 : tensor<1x4x4x3xf16, #npu.layout<align>> -> tensor<1x4x4x3xf16>
  return
}

// -----

// CHECK-LABEL: func.func @unary
func.func @unary(%x: tensor<2x8xf32>, %i: tensor<2x8xi32>) {
  // CHECK: npu.relu %{{.*}} : tensor<2x8xf32> -> tensor<2x8xf32>
  %0 = npu.relu %x : tensor<2x8xf32> -> tensor<2x8xf32>
  // CHECK: npu.relu %{{.*}} : tensor<2x8xi32> -> tensor<2x8xi32>
  %1 = npu.relu %i : tensor<2x8xi32> -> tensor<2x8xi32>
  // CHECK: npu.neg
  %2 = npu.neg %i : tensor<2x8xi32> -> tensor<2x8xi32>
  // CHECK: npu.abs
  %3 = npu.abs %x : tensor<2x8xf32> -> tensor<2x8xf32>
  // CHECK: npu.gelu
  %4 = npu.gelu %x : tensor<2x8xf32> -> tensor<2x8xf32>
  // CHECK: npu.exp
  %5 = npu.exp %x : tensor<2x8xf32> -> tensor<2x8xf32>
  // CHECK: npu.log
  %6 = npu.log %x : tensor<2x8xf32> -> tensor<2x8xf32>
  // CHECK: npu.tanh
  %7 = npu.tanh %x : tensor<2x8xf32> -> tensor<2x8xf32>
  // CHECK: npu.sigmoid
  %8 = npu.sigmoid %x : tensor<2x8xf32> -> tensor<2x8xf32>
  // CHECK: npu.sqrt
  %9 = npu.sqrt %x : tensor<2x8xf32> -> tensor<2x8xf32>
  // CHECK: npu.rsqrt
  %10 = npu.rsqrt %x : tensor<2x8xf32> -> tensor<2x8xf32>
  return
}

// -----

// CHECK-LABEL: func.func @binary
func.func @binary(%a: tensor<4x1x8xf32>, %b: tensor<3x1xf32>) {
  // CHECK: npu.add %{{.*}}, %{{.*}} : (tensor<4x1x8xf32>, tensor<3x1xf32>) -> tensor<4x3x8xf32>
  %0 = npu.add %a, %b : (tensor<4x1x8xf32>, tensor<3x1xf32>) -> tensor<4x3x8xf32>
  // CHECK: npu.sub
  %1 = npu.sub %a, %b : (tensor<4x1x8xf32>, tensor<3x1xf32>) -> tensor<4x3x8xf32>
  // CHECK: npu.mul
  %2 = npu.mul %a, %b : (tensor<4x1x8xf32>, tensor<3x1xf32>) -> tensor<4x3x8xf32>
  // CHECK: npu.div
  %3 = npu.div %a, %b : (tensor<4x1x8xf32>, tensor<3x1xf32>) -> tensor<4x3x8xf32>
  // CHECK: npu.max
  %4 = npu.max %a, %b : (tensor<4x1x8xf32>, tensor<3x1xf32>) -> tensor<4x3x8xf32>
  // CHECK: npu.min
  %5 = npu.min %a, %b : (tensor<4x1x8xf32>, tensor<3x1xf32>) -> tensor<4x3x8xf32>
  return
}

// -----

// CHECK-LABEL: func.func @vector_scalar
func.func @vector_scalar(%x: tensor<1x4x4x8xf32>, %c: tensor<8xf32>, %s: tensor<1xf32>) {
  // CHECK: npu.vs_add %{{.*}}, %{{.*}} : (tensor<1x4x4x8xf32>, tensor<8xf32>) -> tensor<1x4x4x8xf32>
  %0 = npu.vs_add %x, %c : (tensor<1x4x4x8xf32>, tensor<8xf32>) -> tensor<1x4x4x8xf32>
  // CHECK: npu.vs_sub
  %1 = npu.vs_sub %x, %s : (tensor<1x4x4x8xf32>, tensor<1xf32>) -> tensor<1x4x4x8xf32>
  // CHECK: npu.vs_mul
  %2 = npu.vs_mul %x, %c : (tensor<1x4x4x8xf32>, tensor<8xf32>) -> tensor<1x4x4x8xf32>
  // CHECK: npu.vs_div
  %3 = npu.vs_div %x, %c : (tensor<1x4x4x8xf32>, tensor<8xf32>) -> tensor<1x4x4x8xf32>
  // CHECK: npu.vs_max
  %4 = npu.vs_max %x, %c : (tensor<1x4x4x8xf32>, tensor<8xf32>) -> tensor<1x4x4x8xf32>
  // CHECK: npu.vs_min
  %5 = npu.vs_min %x, %c : (tensor<1x4x4x8xf32>, tensor<8xf32>) -> tensor<1x4x4x8xf32>
  return
}

// -----

// CHECK-LABEL: func.func @normalisation
func.func @normalisation(%x: tensor<2x16x64xbf16>, %g: tensor<16x64xbf16>) {
  // CHECK: npu.softmax %{{.*}} {axis = 1 : i64} : tensor<2x16x64xbf16> -> tensor<2x16x64xbf16>
  %0 = npu.softmax %x {axis = 1} : tensor<2x16x64xbf16> -> tensor<2x16x64xbf16>
  // CHECK: npu.softmax %{{.*}} : tensor<2x16x64xbf16> -> tensor<2x16x64xbf16>
  %1 = npu.softmax %x : tensor<2x16x64xbf16> -> tensor<2x16x64xbf16>
  // CHECK: npu.layer_norm %{{.*}}, %{{.*}}, %{{.*}} {axis = -2 : i64, epsilon = 1.000000e-03 : f32} : (tensor<2x16x64xbf16>, tensor<16x64xbf16>, tensor<16x64xbf16>) -> tensor<2x16x64xbf16>
  %2 = npu.layer_norm %x, %g, %g {axis = -2, epsilon = 1.0e-3 : f32} : (tensor<2x16x64xbf16>, tensor<16x64xbf16>, tensor<16x64xbf16>) -> tensor<2x16x64xbf16>
  return
}

// -----

// Zero-element tensors are valid everywhere.
// CHECK-LABEL: func.func @empty
func.func @empty(%x: tensor<0x8x8x16xf32>, %w: tensor<4x3x3x16xf32>, %e: tensor<1x0x0x16xf32>) {
  // CHECK: -> tensor<0x6x6x4xf32>
  %0 = npu.conv2d %x, %w : (tensor<0x8x8x16xf32>, tensor<4x3x3x16xf32>) -> tensor<0x6x6x4xf32>
  // CHECK: -> tensor<1x0x0x4xf32>
  %1 = npu.conv2d %e, %w : (tensor<1x0x0x16xf32>, tensor<4x3x3x16xf32>) -> tensor<1x0x0x4xf32>
  // CHECK: -> tensor<0x8x8x16xf32>
  %2 = npu.relu %x : tensor<0x8x8x16xf32> -> tensor<0x8x8x16xf32>
  // CHECK: -> tensor<0x8x8xf32>
  %3 = npu.reduce <sum> %x {axes = array<i64: 3>} : tensor<0x8x8x16xf32> -> tensor<0x8x8xf32>
  return
}

// -----

// Dynamic dimensions propagate.
// CHECK-LABEL: func.func @dynamic
func.func @dynamic(%x: tensor<?x8x8x16xf32>, %w: tensor<4x3x3x16xf32>, %y: tensor<?x16xf32>) {
  // CHECK: -> tensor<?x6x6x4xf32>
  %0 = npu.conv2d %x, %w : (tensor<?x8x8x16xf32>, tensor<4x3x3x16xf32>) -> tensor<?x6x6x4xf32>
  // CHECK: -> tensor<?x16xf32>
  %1 = npu.add %y, %y : (tensor<?x16xf32>, tensor<?x16xf32>) -> tensor<?x16xf32>
  return
}

// -----

// CHECK-LABEL: func.func @moe
func.func @moe(%g: tensor<8xf32>, %i: tensor<8xi32>, %l: tensor<8xi32>,
               %d: tensor<12x16xf32>, %x: tensor<8x16xf32>,
               %g0: tensor<0xf32>, %i0: tensor<0xi32>, %l0: tensor<0xi32>,
               %gk: tensor<2x8xf32>, %ik: tensor<2x8xi32>) {
  // CHECK: npu.moe_dispatch_backward_data %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {capacity = 6 : i64, num_experts = 2 : i64} : (tensor<8xf32>, tensor<8xi32>, tensor<8xi32>, tensor<12x16xf32>) -> tensor<8x16xf32>
  %0 = npu.moe_dispatch_backward_data %g, %i, %l, %d {capacity = 6, num_experts = 2} : (tensor<8xf32>, tensor<8xi32>, tensor<8xi32>, tensor<12x16xf32>) -> tensor<8x16xf32>
  // CHECK: npu.moe_dispatch_forward {{.*}} -> tensor<12x16xf32>
  %1 = npu.moe_dispatch_forward %g, %i, %l, %x {capacity = 6, num_experts = 2} : (tensor<8xf32>, tensor<8xi32>, tensor<8xi32>, tensor<8x16xf32>) -> tensor<12x16xf32>
  // CHECK: npu.moe_dispatch_backward_gate {{.*}} -> tensor<8xf32>
  %2 = npu.moe_dispatch_backward_gate %i, %l, %x, %d {capacity = 6, num_experts = 2} : (tensor<8xi32>, tensor<8xi32>, tensor<8x16xf32>, tensor<12x16xf32>) -> tensor<8xf32>
  // CHECK: npu.moe_combine {{.*}} : (tensor<2x8xf32>, tensor<2x8xi32>, tensor<2x8xi32>, tensor<12x16xf32>) -> tensor<8x16xf32>
  %k = npu.moe_combine %gk, %ik, %ik, %d {capacity = 6, num_experts = 2} : (tensor<2x8xf32>, tensor<2x8xi32>, tensor<2x8xi32>, tensor<12x16xf32>) -> tensor<8x16xf32>
  // The zero-element cases of mlu-ops' MoE dispatch backward are valid.
  // CHECK: -> tensor<0x16xf32>
  %3 = npu.moe_dispatch_backward_data %g0, %i0, %l0, %d {capacity = 6, num_experts = 2} : (tensor<0xf32>, tensor<0xi32>, tensor<0xi32>, tensor<12x16xf32>) -> tensor<0x16xf32>
  return
}

// -----

// f16 and bf16 gates and data; the result has their type.
// CHECK-LABEL: func.func @moe_half
func.func @moe_half(%g: tensor<8xf16>, %i: tensor<8xi32>, %d: tensor<12x16xf16>,
                    %x: tensor<8x16xbf16>, %db: tensor<12x16xbf16>,
                    %gk: tensor<2x8xbf16>, %ik: tensor<2x8xi32>) {
  // CHECK: npu.moe_dispatch_backward_data {{.*}} : (tensor<8xf16>, tensor<8xi32>, tensor<8xi32>, tensor<12x16xf16>) -> tensor<8x16xf16>
  %0 = npu.moe_dispatch_backward_data %g, %i, %i, %d {capacity = 6, num_experts = 2} : (tensor<8xf16>, tensor<8xi32>, tensor<8xi32>, tensor<12x16xf16>) -> tensor<8x16xf16>
  // CHECK: npu.moe_dispatch_backward_gate {{.*}} -> tensor<8xbf16>
  %1 = npu.moe_dispatch_backward_gate %i, %i, %x, %db {capacity = 6, num_experts = 2} : (tensor<8xi32>, tensor<8xi32>, tensor<8x16xbf16>, tensor<12x16xbf16>) -> tensor<8xbf16>
  // CHECK: npu.moe_combine {{.*}} -> tensor<8x16xbf16>
  %2 = npu.moe_combine %gk, %ik, %ik, %db {capacity = 6, num_experts = 2} : (tensor<2x8xbf16>, tensor<2x8xi32>, tensor<2x8xi32>, tensor<12x16xbf16>) -> tensor<8x16xbf16>
  return
}

// -----

// A graph applied to each sample: two inputs sharing a batch read at run
// time, a weight read by every sample, two rows per sample out.
// CHECK-LABEL: func.func @map_batch
// CHECK: npu.map_batch(%{{.*}}, %{{.*}}) : (tensor<?x4xf32>, tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x2x4xf32>) {
// CHECK-NEXT: ^bb0(%[[S:.*]]: tensor<1x4xf32>, %[[T:.*]]: tensor<1x4xf32>):
// CHECK: npu.concat %[[S]], %[[T]]
// CHECK: npu.yield %{{.*}}, %{{.*}} : tensor<1x4xf32>, tensor<2x2x4xf32>
func.func @map_batch(%x: tensor<?x4xf32>, %z: tensor<?x4xf32>, %w: tensor<4xf32>) -> (tensor<?x4xf32>, tensor<?x2x4xf32>) {
  %y:2 = npu.map_batch(%x, %z) : (tensor<?x4xf32>, tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x2x4xf32>) {
  ^bb0(%s: tensor<1x4xf32>, %t: tensor<1x4xf32>):
    %a = npu.add %s, %w : (tensor<1x4xf32>, tensor<4xf32>) -> tensor<1x4xf32>
    %c = npu.concat %s, %t {axis = 0 : i64} : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<2x4xf32>
    %r = npu.reshape %c : tensor<2x4xf32> -> tensor<2x1x4xf32>
    %e = npu.expand %r {shape = array<i64: 2, 2, 4>} : tensor<2x1x4xf32> -> tensor<2x2x4xf32>
    npu.yield %a, %e : tensor<1x4xf32>, tensor<2x2x4xf32>
  }
  return %y#0, %y#1 : tensor<?x4xf32>, tensor<?x2x4xf32>
}

// -----

// With a chunk region: the body at two samples.
// CHECK-LABEL: func.func @map_batch_chunk
// CHECK: npu.map_batch(%{{.*}}) : (tensor<?x4xf32>) -> tensor<?x4xf32> {
// CHECK: npu.yield %{{.*}} : tensor<1x4xf32>
// CHECK-NEXT: } chunk {
// CHECK-NEXT: ^bb0(%{{.*}}: tensor<2x4xf32>):
// CHECK: npu.yield %{{.*}} : tensor<2x4xf32>
func.func @map_batch_chunk(%x: tensor<?x4xf32>, %w: tensor<4xf32>) -> tensor<?x4xf32> {
  %y = npu.map_batch(%x) : (tensor<?x4xf32>) -> tensor<?x4xf32> {
  ^bb0(%s: tensor<1x4xf32>):
    %a = npu.add %s, %w : (tensor<1x4xf32>, tensor<4xf32>) -> tensor<1x4xf32>
    npu.yield %a : tensor<1x4xf32>
  } chunk {
  ^bb0(%s: tensor<2x4xf32>):
    %a = npu.add %s, %w : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
    npu.yield %a : tensor<2x4xf32>
  }
  return %y : tensor<?x4xf32>
}
