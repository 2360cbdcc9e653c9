// concat, slice and pad copy boxes through vector tiles of their last two
// dimensions (strided windows where a slice steps); pad fills first;
// expand spreads its operand over each tile.
// RUN: npu-opt %s --npu-lower-to-device=device=ascend910b --canonicalize | FileCheck %s

// One copy per input, each into its place along the axis.
// CHECK-LABEL: func.func @concat
// CHECK: npudev.launch tasks(4) on vector attributes {npudev.tiling = {strategy = "concat", tile_cols = 3 : i64, tile_rows = 5 : i64}}
// CHECK: memref.subview %arg2[0, %{{.*}}, 0, 0] [1, 1, 5, 3]
// CHECK: npudev.launch tasks(4) on vector attributes {npudev.tiling = {strategy = "concat", tile_cols = 6 : i64, tile_rows = 5 : i64}}
// CHECK: memref.subview %arg2[0, %{{.*}}, 0, 3] [1, 1, 5, 6]
func.func @concat(%a: tensor<1x4x5x3xf32>, %b: tensor<1x4x5x6xf32>) -> tensor<1x4x5x9xf32> {
  %r = npu.concat %a, %b {axis = 3 : i64} : (tensor<1x4x5x3xf32>, tensor<1x4x5x6xf32>) -> tensor<1x4x5x9xf32>
  return %r : tensor<1x4x5x9xf32>
}

// CHECK-LABEL: func.func @slice
// CHECK: memref.subview %arg0[%{{.*}}, 0, 2] [1, 5, 3] [2, 1, 3] : memref<8x5x9xf32, #npudev.space<global>> to memref<5x3xf32, strided<[9, 3], offset: ?>
func.func @slice(%x: tensor<8x5x9xf32>) -> tensor<3x5x3xf32> {
  %r = npu.slice %x {start = array<i64: 1, 0, 2>, end = array<i64: 7, 5, 9>, strides = array<i64: 2, 1, 3>} : tensor<8x5x9xf32> -> tensor<3x5x3xf32>
  return %r : tensor<3x5x3xf32>
}

// CHECK-LABEL: func.func @pad
// CHECK: npudev.launch tasks(1) on vector attributes {npudev.tiling = {strategy = "pad", tile = 84 : i64}}
// CHECK: npudev.vfill %{{.*}}, %{{.*}} : f16
// CHECK: npudev.launch tasks(3) on vector attributes {npudev.tiling = {strategy = "pad", tile_cols = 2 : i64, tile_rows = 4 : i64}}
// CHECK: memref.subview %arg1[0, %{{.*}}, 2, 0] [1, 1, 4, 2]
func.func @pad(%x: tensor<1x3x4x2xf16>) -> tensor<1x6x7x2xf16> {
  %r = npu.pad %x {pad_low = array<i64: 0, 1, 2, 0>, pad_high = array<i64: 0, 2, 1, 0>, value = -2.5 : f64} : tensor<1x3x4x2xf16> -> tensor<1x6x7x2xf16>
  return %r : tensor<1x6x7x2xf16>
}

// CHECK-LABEL: func.func @expand
// CHECK: npudev.dma %{{.*}}, %[[ROW:.*]] : memref<1x6xf32
// CHECK: scf.for
// CHECK: npudev.vbinary_broadcast <mul> %[[T:.*]], %{{.*}}, %[[T]] along 1
// CHECK: npudev.dma %[[T]]
func.func @expand(%x: tensor<6xf32>) -> tensor<4x5x6xf32> {
  %r = npu.expand %x {shape = array<i64: 4, 5, 6>} : tensor<6xf32> -> tensor<4x5x6xf32>
  return %r : tensor<4x5x6xf32>
}

// scatter_nd: a copy of the data, then the tuples in order over column
// tiles of the slice, each row from the tuple's components.
// CHECK-LABEL: func.func @scatter_nd
// CHECK: npudev.launch {{.*}}strategy = "scatter.copy"
// CHECK: npudev.launch {{.*}}strategy = "scatter_nd", tile = 8
// CHECK: scf.for
// CHECK: memref.load %{{.*}} : memref<2x2xi64
// CHECK: scf.if
// CHECK: npudev.dma
// CHECK: npudev.dma
// CHECK: npudev.report_rows
func.func @scatter_nd(%d: tensor<4x3x8xf32>, %i: tensor<2x2xi64>, %u: tensor<2x8xf32>) -> tensor<4x3x8xf32> {
  %r = npu.scatter_nd %d, %i, %u : (tensor<4x3x8xf32>, tensor<2x2xi64>, tensor<2x8xf32>) -> tensor<4x3x8xf32>
  return %r : tensor<4x3x8xf32>
}

// scatter (ScatterElements): positions off the axis shared by the tasks,
// the axis walked in order, one element per copy.
// CHECK-LABEL: func.func @scatter_elements
// CHECK: npudev.launch {{.*}}strategy = "scatter.copy"
// CHECK: npudev.launch tasks(2) {{.*}}strategy = "scatter"
// CHECK: npudev.report_rows
func.func @scatter_elements(%d: tensor<3x5xf32>, %i: tensor<2x3xi32>, %u: tensor<2x3xf32>) -> tensor<3x5xf32> {
  %r = npu.scatter %d, %i, %u {axis = 1 : i64} : (tensor<3x5xf32>, tensor<2x3xi32>, tensor<2x3xf32>) -> tensor<3x5xf32>
  return %r : tensor<3x5xf32>
}
