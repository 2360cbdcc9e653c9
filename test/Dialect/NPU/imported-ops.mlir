// The ops ONNX networks need (erf, hard_swish, hard_sigmoid, clip, not, pow,
// the comparisons, and, or, select, gather, expand, scatter_nd, resize,
// topk): they parse, verify, infer their result types and print back.
// RUN: npu-opt %s --split-input-file | FileCheck %s
// RUN: npu-opt %s --split-input-file | npu-opt --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @unary
func.func @unary(%x: tensor<2x3xf32>, %b: tensor<2x3xi1>) -> (tensor<2x3xf32>, tensor<2x3xi1>) {
  // CHECK: npu.erf %{{.*}} : tensor<2x3xf32> -> tensor<2x3xf32>
  %0 = npu.erf %x : tensor<2x3xf32> -> tensor<2x3xf32>
  // CHECK: npu.hard_swish
  %1 = npu.hard_swish %0 : tensor<2x3xf32> -> tensor<2x3xf32>
  // CHECK: npu.hard_sigmoid %{{.*}} {alpha = 2.500000e-01 : f64} : tensor<2x3xf32> -> tensor<2x3xf32>
  %2 = npu.hard_sigmoid %1 {alpha = 0.25 : f64} : tensor<2x3xf32> -> tensor<2x3xf32>
  // CHECK: npu.clip %{{.*}} {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64}
  %3 = npu.clip %2 {min = 0.0 : f64, max = 6.0 : f64} : tensor<2x3xf32> -> tensor<2x3xf32>
  // CHECK: npu.not %{{.*}} : tensor<2x3xi1> -> tensor<2x3xi1>
  %4 = npu.not %b : tensor<2x3xi1> -> tensor<2x3xi1>
  return %3, %4 : tensor<2x3xf32>, tensor<2x3xi1>
}

// -----

// CHECK-LABEL: func.func @compare_select
func.func @compare_select(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %s: tensor<f32>) -> tensor<2x3xf32> {
  // CHECK: npu.pow %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %0 = npu.pow %a, %s : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  // CHECK: npu.equal %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %1 = npu.equal %0, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  // CHECK: npu.select %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2x3xi1>, tensor<f32>, tensor<3xf32>) -> tensor<2x3xf32>
  %2 = npu.select %1, %s, %b : (tensor<2x3xi1>, tensor<f32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %2 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @comparisons
func.func @comparisons(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xi1> {
  // CHECK: npu.less %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %0 = npu.less %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  // CHECK: npu.less_equal
  %1 = npu.less_equal %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  // CHECK: npu.greater
  %2 = npu.greater %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  // CHECK: npu.greater_equal
  %3 = npu.greater_equal %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  // CHECK: npu.and %{{.*}}, %{{.*}} : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  %4 = npu.and %0, %1 : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  // CHECK: npu.or
  %5 = npu.or %2, %3 : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  %6 = npu.or %4, %5 : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  return %6 : tensor<2x3xi1>
}

// -----

// CHECK-LABEL: func.func @indexing
func.func @indexing(%x: tensor<2x5x4xf32>, %i: tensor<3xi64>, %j: tensor<i64>,
                    %d: tensor<4x3xf32>, %idx: tensor<2x1xi64>, %u: tensor<2x3xf32>)
    -> (tensor<2x3x4xf32>, tensor<2x4xf32>, tensor<3x2x5x4xf32>, tensor<4x3xf32>) {
  // CHECK: npu.gather %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<2x5x4xf32>, tensor<3xi64>) -> tensor<2x3x4xf32>
  %0 = npu.gather %x, %i {axis = 1} : (tensor<2x5x4xf32>, tensor<3xi64>) -> tensor<2x3x4xf32>
  // A scalar index removes the axis; a negative axis counts from the end.
  // CHECK: npu.gather %{{.*}}, %{{.*}} {axis = -2 : i64} : (tensor<2x5x4xf32>, tensor<i64>) -> tensor<2x4xf32>
  %1 = npu.gather %x, %j {axis = -2} : (tensor<2x5x4xf32>, tensor<i64>) -> tensor<2x4xf32>
  // CHECK: npu.expand %{{.*}} {shape = array<i64: 3, 1, 1, 1>} : tensor<2x5x4xf32> -> tensor<3x2x5x4xf32>
  %2 = npu.expand %x {shape = array<i64: 3, 1, 1, 1>} : tensor<2x5x4xf32> -> tensor<3x2x5x4xf32>
  // CHECK: npu.scatter_nd %{{.*}}, %{{.*}}, %{{.*}} : (tensor<4x3xf32>, tensor<2x1xi64>, tensor<2x3xf32>) -> tensor<4x3xf32>
  %3 = npu.scatter_nd %d, %idx, %u : (tensor<4x3xf32>, tensor<2x1xi64>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return %0, %1, %2, %3 : tensor<2x3x4xf32>, tensor<2x4xf32>, tensor<3x2x5x4xf32>, tensor<4x3xf32>
}

// -----

// CHECK-LABEL: func.func @grid_sample
func.func @grid_sample(%x: tensor<2x8x10x3xf32>, %g: tensor<2x4x5x2xf32>) -> (tensor<2x4x5x3xf32>, tensor<2x4x5x3xf32>) {
  // CHECK: npu.grid_sample %{{.*}}, %{{.*}} {align_corners = true} : (tensor<2x8x10x3xf32>, tensor<2x4x5x2xf32>) -> tensor<2x4x5x3xf32>
  %0 = npu.grid_sample %x, %g {align_corners = true} : (tensor<2x8x10x3xf32>, tensor<2x4x5x2xf32>) -> tensor<2x4x5x3xf32>
  // CHECK: npu.grid_sample %{{.*}}, %{{.*}} {padding = #npu.grid_sample_padding<border>}
  %1 = npu.grid_sample %x, %g {padding = #npu.grid_sample_padding<border>} : (tensor<2x8x10x3xf32>, tensor<2x4x5x2xf32>) -> tensor<2x4x5x3xf32>
  return %0, %1 : tensor<2x4x5x3xf32>, tensor<2x4x5x3xf32>
}

// -----

// CHECK-LABEL: func.func @topk
func.func @topk(%x: tensor<2x8x5xf32>) -> (tensor<2x3x5xf32>, tensor<2x3x5xi64>, tensor<2x8x0xf16>) {
  // CHECK: npu.topk %{{.*}} {axis = 1 : i64, k = 3 : i64} : tensor<2x8x5xf32> -> tensor<2x3x5xf32>, tensor<2x3x5xi64>
  %v, %i = npu.topk %x {k = 3 : i64, axis = 1 : i64} : tensor<2x8x5xf32> -> tensor<2x3x5xf32>, tensor<2x3x5xi64>
  %h = npu.cast %x : tensor<2x8x5xf32> -> tensor<2x8x5xf16>
  // CHECK: npu.topk %{{.*}} {axis = 2 : i64, k = 0 : i64, largest = false} : tensor<2x8x5xf16> -> tensor<2x8x0xf16>, tensor<2x8x0xi64>
  %s, %j = npu.topk %h {k = 0 : i64, axis = 2 : i64, largest = false} : tensor<2x8x5xf16> -> tensor<2x8x0xf16>, tensor<2x8x0xi64>
  return %v, %i, %s : tensor<2x3x5xf32>, tensor<2x3x5xi64>, tensor<2x8x0xf16>
}

// -----

// CHECK-LABEL: func.func @resize
func.func @resize(%x: tensor<1x8x10x3xf32>) -> (tensor<1x16x20x3xf32>, tensor<1x4x5x3xf32>) {
  // CHECK: npu.resize %{{.*}} <linear> {coordinate_mode = #npu.resize_coordinate_mode<pytorch_half_pixel>, size = array<i64: 16, 20>}
  %0 = npu.resize %x <linear> {size = array<i64: 16, 20>, coordinate_mode = #npu.resize_coordinate_mode<pytorch_half_pixel>} : tensor<1x8x10x3xf32> -> tensor<1x16x20x3xf32>
  // CHECK: npu.resize %{{.*}} <nearest> {nearest_mode = #npu.resize_nearest_mode<floor>, size = array<i64: 4, 5>}
  %1 = npu.resize %x <nearest> {size = array<i64: 4, 5>, nearest_mode = #npu.resize_nearest_mode<floor>} : tensor<1x8x10x3xf32> -> tensor<1x4x5x3xf32>
  return %0, %1 : tensor<1x16x20x3xf32>, tensor<1x4x5x3xf32>
}

// -----

// The argument and result attributes an import writes.
// CHECK-LABEL: func.func @imported_attributes
// CHECK-SAME: {npu.onnx_name = "x"}
// CHECK-SAME: {npu.onnx_name = "w", npu.onnx_perm = array<i64: 0, 2, 3, 1>, npu.weight}
// CHECK-SAME: -> (tensor<1x6x6x4xf32> {npu.onnx_name = "y"})
func.func @imported_attributes(%x: tensor<1x8x8x3xf32> {npu.onnx_name = "x"}, %w: tensor<4x3x3x3xf32> {npu.onnx_name = "w", npu.onnx_perm = array<i64: 0, 2, 3, 1>, npu.weight}) -> (tensor<1x6x6x4xf32> {npu.onnx_name = "y"}) {
  %0 = npu.conv2d %x, %w : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>) -> tensor<1x6x6x4xf32>
  return %0 : tensor<1x6x6x4xf32>
}
