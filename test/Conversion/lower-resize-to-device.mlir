// npu.resize: per (image, output row, channel block) the scalar unit maps
// the row back to the input in f64 (the op's coordinate mode), the input
// rows are loaded and widened, and each output column takes (nearest) or
// blends (linear) input columns; the row is rounded and stored.
// RUN: npu-opt %s --split-input-file --npu-lower-to-device=device=ascend910b --canonicalize --verify-diagnostics | FileCheck %s

// Linear, half_pixel: two input rows blended by the row's weight, then two
// columns per output column.
// CHECK-LABEL: func.func @linear
// CHECK: npudev.launch tasks(6) on vector attributes {npudev.tiling = {step = "linear", strategy = "resize", tile_channels = 5 : i64}}
// CHECK: arith.divf %{{.*}}, %{{.*}} : f64
// CHECK: arith.maximumf %{{.*}}, %{{.*}} : f64
// CHECK: arith.fptosi %{{.*}} : f64 to i64
// CHECK: npudev.dma
// CHECK: npudev.vcast
// CHECK: npudev.dma
// CHECK: npudev.vcast
// CHECK: npudev.vbinary_scalar <mul>
// CHECK: npudev.vbinary_scalar <mul>
// CHECK: npudev.vbinary <add>
// CHECK: scf.for %{{.*}} = %c0 to %c8 step %c1
// CHECK: npudev.vbinary_scalar <mul> {{.*}} : memref<1x?xf32
// CHECK: npudev.vbinary_scalar <mul> {{.*}} : memref<1x?xf32
// CHECK: npudev.vbinary <add>
// CHECK: npudev.vcast {{.*}} : memref<8x?xf32, {{.*}}>, memref<8x?xf16
// CHECK: npudev.dma
func.func @linear(%x: tensor<1x3x4x5xf16>) -> tensor<1x6x8x5xf16> {
  %r = npu.resize %x <linear> {size = array<i64: 6, 8>} : tensor<1x3x4x5xf16> -> tensor<1x6x8x5xf16>
  return %r : tensor<1x6x8x5xf16>
}

// -----

// Nearest, asymmetric with floor: one input row, one column copied (1 x)
// per output column.
// CHECK-LABEL: func.func @nearest
// CHECK: npudev.launch tasks(14) on vector attributes {npudev.tiling = {step = "nearest", strategy = "resize", tile_channels = 2 : i64}}
// CHECK: npudev.dma
// CHECK-NOT: npudev.vcast
// CHECK: scf.for %{{.*}} = %c0 to %c11 step %c1
// CHECK: npudev.vbinary_scalar <mul> %{{.*}}, %cst{{.*}}, %{{.*}} : memref<1x?xf32
func.func @nearest(%x: tensor<2x3x5x2xf32>) -> tensor<2x7x11x2xf32> {
  %r = npu.resize %x <nearest> {coordinate_mode = #npu.resize_coordinate_mode<asymmetric>, nearest_mode = #npu.resize_nearest_mode<floor>, size = array<i64: 7, 11>} : tensor<2x3x5x2xf32> -> tensor<2x7x11x2xf32>
  return %r : tensor<2x7x11x2xf32>
}

// -----

// An empty output needs no kernel.
// CHECK-LABEL: func.func @empty
// CHECK-NOT: npudev.launch
func.func @empty(%x: tensor<0x3x5x2xf32>) -> tensor<0x7x11x2xf32> {
  %r = npu.resize %x <nearest> {size = array<i64: 7, 11>} : tensor<0x3x5x2xf32> -> tensor<0x7x11x2xf32>
  return %r : tensor<0x7x11x2xf32>
}

// -----

// An input row wider than vector memory holds, even one channel of it.
func.func @too_wide(%x: tensor<1x2x40000x1xf32>) -> tensor<1x4x40000x1xf32> {
  // expected-error @+1 {{'npu.resize' op cannot be lowered for device 'ascend910b': one channel of an input row of 40000 and an output row of 40000 needs 480004 bytes of vector memory, the device has 196608}}
  %r = npu.resize %x <linear> {size = array<i64: 4, 40000>} : tensor<1x2x40000x1xf32> -> tensor<1x4x40000x1xf32>
  return %r : tensor<1x4x40000x1xf32>
}

// -----

// f64 is not computed in f32.
func.func @f64(%x: tensor<1x2x2x1xf64>) -> tensor<1x4x4x1xf64> {
  // expected-error @+1 {{'npu.resize' op cannot be lowered to the device: resize is computed in f32 from f16, bf16 or f32, got 'f64'}}
  %r = npu.resize %x <linear> {size = array<i64: 4, 4>} : tensor<1x2x2x1xf64> -> tensor<1x4x4x1xf64>
  return %r : tensor<1x4x4x1xf64>
}

// -----

// grid_sample: per (image, block of points) the image's plane and the
// block's grid points are copied on chip; per point the scalar unit maps it
// to its four neighbours (math.floor in f64) and sums their channels.
// CHECK-LABEL: func.func @grid_sample
// CHECK: npudev.launch tasks(2) on vector attributes {npudev.tiling = {strategy = "grid_sample", tile_points = 20 : i64}}
// CHECK: npudev.alloc : memref<240xf32, #npudev.space<vector>>
// CHECK: npudev.alloc : memref<20x2xf32, #npudev.space<vector>>
// CHECK: npudev.alloc : memref<20x3xf32, #npudev.space<vector>>
// CHECK: math.floor
// CHECK: math.floor
func.func @grid_sample(%x: tensor<2x8x10x3xf32>, %g: tensor<2x4x5x2xf32>) -> tensor<2x4x5x3xf32> {
  %0 = npu.grid_sample %x, %g {align_corners = true} : (tensor<2x8x10x3xf32>, tensor<2x4x5x2xf32>) -> tensor<2x4x5x3xf32>
  return %0 : tensor<2x4x5x3xf32>
}
