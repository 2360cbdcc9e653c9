// conv3d becomes one conv2d per depth tap over the depth slices that tap
// reads (padded in depth first), batch and output depth merged, summed; the
// bias rides on the first. Empty results become empty constants.
// RUN: npu-opt %s --npu-decompose-conv3d --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @strided_padded
// CHECK: %[[P:.*]] = npu.pad %arg0 {pad_high = array<i64: 0, 1, 0, 0, 0>, pad_low = array<i64: 0, 1, 0, 0, 0>} : tensor<2x5x6x6x4xf32> -> tensor<2x7x6x6x4xf32>
// CHECK: %[[S0:.*]] = npu.slice %[[P]] {end = array<i64: 2, 5, 6, 6, 4>, start = array<i64: 0, 0, 0, 0, 0>, strides = array<i64: 1, 2, 1, 1, 1>}
// CHECK: %[[I0:.*]] = npu.reshape %[[S0]] : tensor<2x3x6x6x4xf32> -> tensor<6x6x6x4xf32>
// CHECK: %[[W0:.*]] = npu.slice %arg1 {end = array<i64: 8, 1, 3, 3, 4>, start = array<i64: 0, 0, 0, 0, 0>}
// CHECK: %[[F0:.*]] = npu.reshape %[[W0]] : tensor<8x1x3x3x4xf32> -> tensor<8x3x3x4xf32>
// CHECK: %[[C0:.*]] = npu.conv2d %[[I0]], %[[F0]], %arg2 {padding = array<i64: 1, 1, 1, 1>}
// CHECK: npu.slice %[[P]] {end = array<i64: 2, 6, 6, 6, 4>, start = array<i64: 0, 1, 0, 0, 0>, strides = array<i64: 1, 2, 1, 1, 1>}
// CHECK: %[[C1:.*]] = npu.conv2d %{{.*}}, %{{.*}} {padding = array<i64: 1, 1, 1, 1>} :
// CHECK: %[[A1:.*]] = npu.add %[[C0]], %[[C1]]
// CHECK: npu.slice %[[P]] {end = array<i64: 2, 7, 6, 6, 4>, start = array<i64: 0, 2, 0, 0, 0>, strides = array<i64: 1, 2, 1, 1, 1>}
// CHECK: %[[C2:.*]] = npu.conv2d
// CHECK: %[[A2:.*]] = npu.add %[[A1]], %[[C2]]
// CHECK: %[[R:.*]] = npu.reshape %[[A2]] : tensor<6x6x6x8xf32> -> tensor<2x3x6x6x8xf32>
// CHECK: return %[[R]]
// CHECK-NOT: npu.conv3d
func.func @strided_padded(%x: tensor<2x5x6x6x4xf32>, %w: tensor<8x3x3x3x4xf32>, %b: tensor<8xf32>) -> tensor<2x3x6x6x8xf32> {
  %r = npu.conv3d %x, %w, %b {strides = array<i64: 2, 1, 1>, padding = array<i64: 1, 1, 1, 1, 1, 1>} : (tensor<2x5x6x6x4xf32>, tensor<8x3x3x3x4xf32>, tensor<8xf32>) -> tensor<2x3x6x6x8xf32>
  return %r : tensor<2x3x6x6x8xf32>
}

// -----

// A filter one deep over every depth: no pad, no slices, one conv2d with
// the spatial attributes and the groups.
// CHECK-LABEL: func.func @one_tap
// CHECK-NOT: npu.slice
// CHECK: %[[I:.*]] = npu.reshape %arg0 : tensor<1x4x5x5x6xf16> -> tensor<4x5x5x6xf16>
// CHECK: %[[F:.*]] = npu.reshape %arg1 : tensor<6x1x3x3x3xf16> -> tensor<6x3x3x3xf16>
// CHECK: npu.conv2d %[[I]], %[[F]] {dilations = array<i64: 2, 1>, groups = 2 : i64, strides = array<i64: 1, 2>}
// CHECK-NOT: npu.add
func.func @one_tap(%x: tensor<1x4x5x5x6xf16>, %w: tensor<6x1x3x3x3xf16>) -> tensor<1x4x1x2x6xf16> {
  %r = npu.conv3d %x, %w {strides = array<i64: 1, 1, 2>, dilations = array<i64: 1, 2, 1>, groups = 2 : i64} : (tensor<1x4x5x5x6xf16>, tensor<6x1x3x3x3xf16>) -> tensor<1x4x1x2x6xf16>
  return %r : tensor<1x4x1x2x6xf16>
}

// -----

// CHECK-LABEL: func.func @empty
// CHECK: %[[E:.*]] = npu.constant dense<> : tensor<0x2x2x2x5xf32>
// CHECK: return %[[E]]
func.func @empty(%x: tensor<0x3x4x4x3xf32>, %w: tensor<5x2x3x3x3xf32>) -> tensor<0x2x2x2x5xf32> {
  %r = npu.conv3d %x, %w : (tensor<0x3x4x4x3xf32>, tensor<5x2x3x3x3xf32>) -> tensor<0x2x2x2x5xf32>
  return %r : tensor<0x2x2x2x5xf32>
}
