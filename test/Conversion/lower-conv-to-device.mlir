// npu.conv2d as an implicit GEMM: a zero-bordered copy of the input when
// padded, a cube launch summing each output tile over (tap, input-channel
// block) from strided windows of the input, and the gemm epilogue.
// RUN: npu-opt %s --npu-lower-to-device=device=ascend910b --canonicalize | FileCheck %s
// RUN: npu-opt %s --npu-graph-to-device=device=ascend910b | FileCheck %s --check-prefix=PIPE

// Stride 2, padding 1, two groups, f16 with a bias. The filter argument
// keeps npu.onnx_perm, as npu-import-onnx writes it, on its memref.
// CHECK-LABEL: func.func @conv
// CHECK-SAME: {npu.onnx_perm = array<i64: 0, 2, 3, 1>, npu.weight}
// CHECK: %[[PADDED:.*]] = memref.alloc() : memref<1x11x12x6xf16, #npudev.space<global>>
// CHECK: npudev.launch tasks(11) on vector attributes {npudev.tiling = {chunk = 72 : i64, step = "pad", strategy = "conv2d"}}
// CHECK: npudev.vfill
// CHECK: scf.if
// Few tiles: one output row each, and the nine steps split in two partial
// sums, keep twenty cube cores busy.
// CHECK: %[[SUMS:.*]] = memref.alloc() : memref<2x25x4xf32, #npudev.space<global>>
// CHECK: npudev.launch tasks(20) on cube attributes {npudev.tiling = {splits = 2 : i64, step = "implicit_gemm", strategy = "conv2d", tile_cols = 5 : i64, tile_k = 3 : i64, tile_n = 2 : i64, tile_rows = 1 : i64}}
// CHECK: scf.for
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %c1 {
// The tile's pixels at a tap: every second column of the padded rows.
// CHECK: memref.subview %[[PADDED]][0, %{{.*}}, %{{.*}}, %{{.*}}] [1, 1, 5, 3] [1, 2, 2, 1] : memref<1x11x12x6xf16, #npudev.space<global>> to memref<1x5x3xf16, strided<[792, 12, 1], offset: ?>
// CHECK: npudev.dma %{{.*}}, %{{.*}} : memref<1x?x?xf16, strided<[792, 12, 1], offset: ?>
// The [rows, columns, channels] tile read as the matrix of its pixels.
// CHECK: %[[PIXELS:.*]] = memref.collapse_shape %{{.*}} {{\[}}[0, 1], [2]]
// CHECK: %[[A:.*]] = memref.cast %[[PIXELS]]
// CHECK: memref.subview %arg1[%{{.*}}, %{{.*}}, %{{.*}}, 0] [2, 1, 1, 3] [1, 1, 1, 1] : memref<4x3x3x3xf16, #npudev.space<global>> to memref<2x3xf16, strided<[27, 1], offset: ?>
// CHECK: npudev.dma %{{.*}}, %[[B:.*]] :
// CHECK: npudev.matmul %[[A]], %[[B]], %{{.*}} {transpose_b}
// CHECK: npudev.matmul %[[A]], %[[B]], %{{.*}} {accumulate, transpose_b}
// CHECK: memref.dealloc %[[PADDED]]
// CHECK: npudev.launch tasks(1) on vector attributes {npudev.tiling = {splits = 2 : i64, step = "epilogue", strategy = "conv2d", tile_cols = 4 : i64, tile_rows = 25 : i64}}
// CHECK: npudev.vbinary_broadcast <add>
// CHECK: npudev.vcast
// CHECK: memref.dealloc %[[SUMS]]
// PIPE-LABEL: func.func @conv
// PIPE: on cube
// PIPE: npudev.async
func.func @conv(%x: tensor<1x9x10x6xf16>, %w: tensor<4x3x3x3xf16> {npu.onnx_perm = array<i64: 0, 2, 3, 1>, npu.weight}, %b: tensor<4xf16>) -> tensor<1x5x5x4xf16> {
  %r = npu.conv2d %x, %w, %b {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, groups = 2} : (tensor<1x9x10x6xf16>, tensor<4x3x3x3xf16>, tensor<4xf16>) -> tensor<1x5x5x4xf16>
  return %r : tensor<1x5x5x4xf16>
}

// f32 without padding or bias: the tiles go straight to the result. Three
// output rows (84 pixels) per tile: 20 tiles read the filter 20 times.
// CHECK-LABEL: func.func @pointwise
// CHECK-NOT: memref.alloc()
// CHECK: npudev.launch tasks(20) on cube attributes {npudev.tiling = {splits = 1 : i64, step = "implicit_gemm", strategy = "conv2d", tile_cols = 28 : i64, tile_k = 64 : i64, tile_n = 128 : i64, tile_rows = 3 : i64}}
// CHECK: npudev.dma %{{.*}}, %{{.*}} : memref<?x?xf32, strided<[128, 1], offset: ?>, #npudev.space<cube>> to memref<?x?xf32, strided<[256, 1], offset: ?>, #npudev.space<global>>
// CHECK-NOT: npudev.launch
func.func @pointwise(%x: tensor<1x28x28x64xf32>, %w: tensor<256x1x1x64xf32>) -> tensor<1x28x28x256xf32> {
  %r = npu.conv2d %x, %w : (tensor<1x28x28x64xf32>, tensor<256x1x1x64xf32>) -> tensor<1x28x28x256xf32>
  return %r : tensor<1x28x28x256xf32>
}

// Depthwise (one input and one output channel per group): a vector launch
// over tiles of output columns and channels, the filter turned so that a
// tap's weights are a row, and a loop over the taps that reads the input
// rows inside the input (no padded copy) and adds their products. The
// pipelined tap loop loads the next taps' rows ahead.
// CHECK-LABEL: func.func @depthwise
// CHECK-NOT: memref.alloc()
// CHECK: npudev.launch tasks(5) on vector attributes {npudev.tiling = {step = "depthwise", strategy = "conv2d", tile_channels = 6 : i64, tile_cols = 5 : i64}}
// CHECK: %[[TAPS:.*]] = npudev.alloc : memref<9x6xf32, #npudev.space<vector>>
// CHECK: memref.collapse_shape %arg1 {{\[}}[0], [1, 2, 3]] : memref<6x3x3x1xf16, #npudev.space<global>> into memref<6x9xf16, #npudev.space<global>>
// CHECK: npudev.vtranspose %{{.*}}, %{{.*}} : memref<?x9xf32, {{.*}}>, memref<9x?xf32,
// CHECK: scf.for %[[TAP:.*]] = %c0 to %c9 step %c1
// CHECK: memref.subview %arg0[0, %{{.*}}, %{{.*}}, 0] [1, 1, %{{.*}}, 6] [1, 1, 2, 1]
// CHECK: npudev.vcast
// CHECK: memref.subview %[[TAPS]][%[[TAP]], 0] [1, 6] [1, 1]
// CHECK: npudev.vbinary_broadcast <mul> {{.*}} along 1
// CHECK: npudev.vbinary <add>
// CHECK: npudev.vbinary_broadcast <add> {{.*}} along 1
// CHECK: npudev.vcast
// CHECK-NOT: npudev.launch
// CHECK-NOT: on cube
// PIPE-LABEL: func.func @depthwise
// PIPE: on vector
// PIPE: scf.for
// PIPE: scf.for %{{.*}} = %c0 to %c{{[0-9]+}} step %c1 iter_args
// PIPE: npudev.async
func.func @depthwise(%x: tensor<1x9x10x6xf16>, %w: tensor<6x3x3x1xf16> {npu.weight}, %b: tensor<6xf16> {npu.weight}) -> tensor<1x5x5x6xf16> {
  %r = npu.conv2d %x, %w, %b {strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, groups = 6} : (tensor<1x9x10x6xf16>, tensor<6x3x3x1xf16>, tensor<6xf16>) -> tensor<1x5x5x6xf16>
  return %r : tensor<1x5x5x6xf16>
}

// Four tiles of one output row for 24 cube cores: the nine steps of each
// (taps of one 64-channel block) are split three ways, [0, 3), [3, 6),
// [6, 9), each into its own partial sum, which the epilogue adds in order.
// CHECK-LABEL: func.func @split_contraction
// CHECK: %[[PARTS:.*]] = memref.alloc() : memref<3x16x32xf32, #npudev.space<global>>
// CHECK: npudev.launch tasks(12) on cube attributes {npudev.tiling = {splits = 3 : i64, step = "implicit_gemm", strategy = "conv2d", tile_cols = 4 : i64, tile_k = 64 : i64, tile_n = 32 : i64, tile_rows = 1 : i64}}
// CHECK: memref.collapse_shape %[[PARTS]] {{\[}}[0, 1], [2]] : memref<3x16x32xf32, #npudev.space<global>> into memref<48x32xf32, #npudev.space<global>>
// CHECK: scf.for %{{.*}} = %[[FIRST:[0-9a-z_]+]] to %{{.*}} step %c1 {
// CHECK: arith.cmpi eq, %{{.*}}, %[[FIRST]]
// CHECK: npudev.launch tasks(1) on vector attributes {npudev.tiling = {splits = 3 : i64, step = "epilogue", strategy = "conv2d", tile_cols = 32 : i64, tile_rows = 16 : i64}}
// CHECK: npudev.dma
// CHECK: npudev.dma
// CHECK: npudev.vbinary <add>
// CHECK: npudev.dma
// CHECK: npudev.vbinary <add>
// CHECK: memref.dealloc %[[PARTS]]
func.func @split_contraction(%x: tensor<1x4x4x64xf32>, %w: tensor<32x3x3x64xf32>) -> tensor<1x4x4x32xf32> {
  %r = npu.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x4x4x64xf32>, tensor<32x3x3x64xf32>) -> tensor<1x4x4x32xf32>
  return %r : tensor<1x4x4x32xf32>
}
