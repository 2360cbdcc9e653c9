// Pools fold the taps inside the input into an f32 accumulator (no padding
// value ever read); reduce views its input as [A, R, B] and reduces each
// output element's terms as a row.
// RUN: npu-opt %s --split-input-file --npu-lower-to-device=device=ascend910b --canonicalize --verify-diagnostics | FileCheck %s

// ResNet's stem pool: per tap whose input row is inside, the output columns
// whose input column is inside read every second input column at once.
// CHECK-LABEL: func.func @max_pool
// CHECK: npudev.launch tasks(48) on vector attributes {npudev.tiling = {strategy = "pool", tile_channels = 64 : i64, tile_cols = 56 : i64}}
// CHECK: npudev.vfill %[[NEG_INF:.*]], %[[ACC:.*]] : f32
// CHECK: scf.for
// CHECK: scf.if
// CHECK: scf.for
// CHECK: scf.if
// CHECK: npudev.dma %{{.*}}, %[[IN:.*]] : memref<?x?xf16, strided<[128, 1], offset: ?>, #npudev.space<global>>
// CHECK: npudev.vcast %[[IN]], %[[WIDE:.*]] :
// CHECK: npudev.vbinary <max> %[[PART:.*]], %[[WIDE]], %[[PART]]
// CHECK: npudev.vcast %[[ACC]], %[[OUT:.*]] :
// CHECK: npudev.dma %[[OUT]]
func.func @max_pool(%x: tensor<1x112x112x64xf16>) -> tensor<1x56x56x64xf16> {
  %r = npu.max_pool %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>} : tensor<1x112x112x64xf16> -> tensor<1x56x56x64xf16>
  return %r : tensor<1x56x56x64xf16>
}

// -----

// Without count_include_pad the divisor is the count of taps inside, per
// output column.
// CHECK-LABEL: func.func @avg_pool
// CHECK: npudev.vbinary <add>
// CHECK: npudev.vbinary_scalar <add> %[[COUNT:.*]], %{{.*}}, %[[COUNT]]
// CHECK: npudev.vbinary_broadcast <div> %[[ACC:.*]], %{{.*}}, %[[ACC]] along 0
func.func @avg_pool(%x: tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32> {
  %r = npu.avg_pool %x {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>} : tensor<1x8x8x16xf32> -> tensor<1x8x8x16xf32>
  return %r : tensor<1x8x8x16xf32>
}

// -----

// A global average pool: [1, 49, 2048], 49 terms per output element.
// CHECK-LABEL: func.func @global_mean
// CHECK: npudev.launch tasks(16) on vector attributes {npudev.tiling = {strategy = "reduce", tile_cols = 128 : i64, tile_rows = 49 : i64}}
// CHECK: npudev.dma %{{.*}}, %[[ROWS:.*]] : memref<?x?xf32, strided<[2048, 1], offset: ?>, #npudev.space<global>>
// CHECK: npudev.vtranspose %[[ROWS]], %[[TURNED:.*]] :
// CHECK: npudev.vreduce <sum> %[[TURNED]], %[[PART:.*]] :
// CHECK: npudev.vbinary <add> %[[ACC:.*]], %[[PART]], %[[ACC]]
// CHECK: npudev.vbinary_scalar <div> %[[ACC]]
func.func @global_mean(%x: tensor<1x7x7x2048xf32>) -> tensor<1x1x1x2048xf32> {
  %r = npu.reduce <mean> %x {axes = array<i64: 1, 2>, keepdims} : tensor<1x7x7x2048xf32> -> tensor<1x1x1x2048xf32>
  return %r : tensor<1x1x1x2048xf32>
}

// -----

func.func @axes_apart(%x: tensor<2x3x4xf32>) -> tensor<1x3x1xf32> {
  // expected-error @+1 {{'npu.reduce' op cannot be lowered to the device: axes array<i64: 0, 2> are not consecutive (supported: one block of axes)}}
  %r = npu.reduce <sum> %x {axes = array<i64: 0, 2>, keepdims} : tensor<2x3x4xf32> -> tensor<1x3x1xf32>
  return %r : tensor<1x3x1xf32>
}
