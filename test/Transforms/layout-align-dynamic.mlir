// cost=bytes prices a tensor with a dynamic dimension as if that dimension
// were 1 (the cost per unit of it), never as free: issue #13 found such
// tensors priced at 1 byte, so the optimal strategy converted the large
// dynamic tensors instead of the small static weights, and reported 0
// bytes converted.
// RUN: npu-opt %s --split-input-file --npu-layout-align=cost=bytes --npu-verify-layout | FileCheck %s
// RUN: npu-opt %s --split-input-file --npu-layout-align="cost=bytes print-statistics" --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS

// The graph of layout-align-cost.mlir with a dynamic batch: converting the
// three 1x1x1x16 weights (960 bytes) is cheaper than converting the input
// and the sum, each at least one batch element of 1x8x8x16.
// CHECK-LABEL: func.func @dynamic_batch
// CHECK-COUNT-3: npu.channel_norm <to_nalign> {{.*}} : tensor<1x1x1x16xf32, #npu.layout<align>>
// CHECK-NOT: channel_norm
// CHECK: npu.add {{.*}} -> tensor<?x8x8x16xf32, #npu.layout<nalign>>
// STATS: remark: npu-layout-align: 3 channel_norm(s) inserted, 960 bytes converted{{$}}
func.func @dynamic_batch(%x: tensor<?x8x8x16xf32>) -> tensor<16xf32> {
  %p1 = npu.constant {npu.dev_info = #npu.align_mode<align>} dense<1.0> : tensor<1x1x1x16xf32> -> tensor<1x1x1x16xf32>
  %p2 = npu.constant {npu.dev_info = #npu.align_mode<align>} dense<2.0> : tensor<1x1x1x16xf32> -> tensor<1x1x1x16xf32>
  %p3 = npu.constant {npu.dev_info = #npu.align_mode<align>} dense<3.0> : tensor<1x1x1x16xf32> -> tensor<1x1x1x16xf32>
  %b1 = npu.add %x, %p1 : (tensor<?x8x8x16xf32>, tensor<1x1x1x16xf32>) -> tensor<?x8x8x16xf32>
  %b2 = npu.add %b1, %p2 : (tensor<?x8x8x16xf32>, tensor<1x1x1x16xf32>) -> tensor<?x8x8x16xf32>
  %b3 = npu.add %b2, %p3 : (tensor<?x8x8x16xf32>, tensor<1x1x1x16xf32>) -> tensor<?x8x8x16xf32>
  %r = npu.reduce <sum> %b3 {axes = array<i64: 0, 1, 2>} : tensor<?x8x8x16xf32> -> tensor<16xf32>
  return %r : tensor<16xf32>
}

// -----

// Dynamic tensors that must be converted (the pool's dense input and
// result) are priced per unit of their dynamic dimension, and the
// statistics say so: 1x8x8x16 f32 is 4096 bytes dense and 16384 aligned
// (channels padded to 64), 1x7x7x16 is 3136 and 12544: 36160 bytes.
// CHECK-LABEL: func.func @dynamic_converted
// CHECK: npu.channel_norm <to_align> %arg0 : tensor<?x8x8x16xf32, #npu.layout<nalign>>
// CHECK: npu.channel_norm <to_nalign> %{{.*}} : tensor<?x7x7x16xf32, #npu.layout<align>>
// STATS: remark: npu-layout-align: 2 channel_norm(s) inserted, 36160 bytes converted (each dynamic dimension counted as 1)
func.func @dynamic_converted(%x: tensor<?x8x8x16xf32>) -> tensor<?x7x7x16xf32> {
  %0 = npu.max_pool %x {kernel = array<i64: 2, 2>} : tensor<?x8x8x16xf32> -> tensor<?x7x7x16xf32>
  return %0 : tensor<?x7x7x16xf32>
}
