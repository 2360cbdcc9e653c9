// npu-lower-to-device stores a value LayoutAlignToNPU made aligned with its
// rows padded to 64 elements, and hands kernels the strided view of its C
// columns; channel_norm is the copy between the two storages.
// RUN: npu-opt %s --split-input-file --npu-lower-to-device | FileCheck %s

// An aligned result is a padded output argument marked with its logical C;
// channel_norm copies the dense rows into the view of its first C columns.
// CHECK-LABEL: func.func @to_align
// CHECK-SAME: (%[[X:.*]]: memref<1x4x4x8xf32, #npudev.space<global>>, %[[OUT:.*]]: memref<1x4x4x64xf32, #npudev.space<global>> {npudev.channels = 8 : i64, npudev.output})
// CHECK: %[[VIEW:.*]] = memref.subview %[[OUT]][0, 0, 0, 0] [1, 4, 4, 8] [1, 1, 1, 1] : memref<1x4x4x64xf32, #npudev.space<global>> to memref<1x4x4x8xf32, strided<[1024, 256, 64, 1]>, #npudev.space<global>>
// Both are copied as [16, 8] rows, the padded ones 64 apart.
// CHECK: memref.collapse_shape %[[X]] {{\[\[}}0, 1, 2, 3]] : memref<1x4x4x8xf32, #npudev.space<global>> into memref<128xf32, #npudev.space<global>>
// CHECK: memref.collapse_shape %[[VIEW]] {{\[\[}}0, 1, 2], [3]] : memref<1x4x4x8xf32, strided<[1024, 256, 64, 1]>, #npudev.space<global>> into memref<16x8xf32, strided<[64, 1]>, #npudev.space<global>>
// CHECK: npudev.launch tasks({{[0-9]+}}) on vector attributes {npudev.tiling = {strategy = "channel_norm"
// CHECK-NOT: npudev.launch
// CHECK: return
func.func @to_align(%x: tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32, #npu.layout<align>> {
  %r = npu.channel_norm <to_align> %x : tensor<1x4x4x8xf32> -> tensor<1x4x4x8xf32, #npu.layout<align>>
  return %r : tensor<1x4x4x8xf32, #npu.layout<align>>
}

// -----

// An aligned intermediate takes a pool buffer of padded rows (4 x 64), and
// relu reads and writes the views in place, a row of C at a time.
// CHECK-LABEL: func.func @in_place
// CHECK-SAME: (%[[X:.*]]: memref<4x64xf32, #npudev.space<global>> {npudev.channels = 8 : i64}, %[[OUT:.*]]: memref<4x8xf32, #npudev.space<global>> {npudev.output})
// CHECK: %[[XV:.*]] = memref.subview %[[X]][0, 0] [4, 8] [1, 1]
// CHECK: %[[PADDED:.*]] = memref.alloc() : memref<256xf32, #npudev.space<global>>
// CHECK: %[[ROWS:.*]] = memref.expand_shape %[[PADDED]] {{\[\[}}0, 1]] output_shape [4, 64]
// CHECK: %[[AV:.*]] = memref.subview %[[ROWS]][0, 0] [4, 8] [1, 1] : memref<4x64xf32, #npudev.space<global>> to memref<4x8xf32, strided<[64, 1]>, #npudev.space<global>>
// CHECK-NOT: repack
// CHECK: npudev.launch {{.*}}strategy = "elementwise"
// CHECK: memref.subview %[[XV]]
// CHECK: npudev.vunary <relu>
// CHECK: memref.subview %[[AV]]
// CHECK: npudev.launch {{.*}}strategy = "channel_norm"
// CHECK: memref.subview %[[AV]]
// CHECK: memref.subview %[[OUT]]
func.func @in_place(%x: tensor<4x8xf32, #npu.layout<align>>) -> tensor<4x8xf32, #npu.layout<nalign>> {
  %a = npu.relu %x : tensor<4x8xf32, #npu.layout<align>> -> tensor<4x8xf32, #npu.layout<align>>
  %r = npu.channel_norm <to_nalign> %a : tensor<4x8xf32, #npu.layout<align>> -> tensor<4x8xf32, #npu.layout<nalign>>
  return %r : tensor<4x8xf32, #npu.layout<nalign>>
}

// -----

// pad reads its input's padded rows in place, but fills its whole result
// as one flat run, which padded rows are not: it writes a dense buffer, and
// a repack launch copies that into the padded rows of the output.
// CHECK-LABEL: func.func @repack
// CHECK-SAME: (%[[X:.*]]: memref<4x64xf32, #npudev.space<global>> {npudev.channels = 8 : i64}, %[[OUT:.*]]: memref<4x64xf32, #npudev.space<global>> {npudev.channels = 10 : i64, npudev.output})
// CHECK: %[[XV:.*]] = memref.subview %[[X]][0, 0] [4, 8] [1, 1]
// CHECK: %[[OV:.*]] = memref.subview %[[OUT]][0, 0] [4, 10] [1, 1]
// CHECK-NOT: repack
// CHECK: npudev.launch {{.*}}strategy = "pad"
// CHECK: npudev.launch {{.*}}strategy = "pad"
// CHECK: memref.subview %[[XV]]
// CHECK: npudev.launch {{.*}}strategy = "repack"
// CHECK: memref.subview %[[OV]]
func.func @repack(%x: tensor<4x8xf32, #npu.layout<align>>) -> tensor<4x10xf32, #npu.layout<align>> {
  %r = npu.pad %x {pad_high = array<i64: 0, 1>, pad_low = array<i64: 0, 1>} : tensor<4x8xf32, #npu.layout<align>> -> tensor<4x10xf32, #npu.layout<align>>
  return %r : tensor<4x10xf32, #npu.layout<align>>
}

// -----

// C a multiple of 64: aligned storage is the dense bytes, so nothing is
// padded, viewed or repacked.
// CHECK-LABEL: func.func @whole_rows
// CHECK-SAME: (%{{.*}}: memref<2x64xf32, #npudev.space<global>>, %{{.*}}: memref<2x64xf32, #npudev.space<global>> {npudev.output})
// CHECK-NOT: strided<[64
// CHECK-NOT: repack
// CHECK: return
func.func @whole_rows(%x: tensor<2x64xf32, #npu.layout<align>>) -> tensor<2x64xf32, #npu.layout<align>> {
  %r = npu.relu %x : tensor<2x64xf32, #npu.layout<align>> -> tensor<2x64xf32, #npu.layout<align>>
  return %r : tensor<2x64xf32, #npu.layout<align>>
}

// -----

// conv2d reads its padded input rows in place (the border copy moves
// pixels of C channels) and writes its result's padded rows through the
// epilogue: no repack. A depthwise filter ([C, KH, KW, 1], one value per
// padded row) is the exception: it takes one repack.
// CHECK-LABEL: func.func @conv
// CHECK-SAME: (%[[X:.*]]: memref<1x6x6x64xf32, #npudev.space<global>> {npudev.channels = 5 : i64}, %{{.*}}: memref<7x3x3x64xf32, #npudev.space<global>> {npudev.channels = 5 : i64}, %{{.*}}: memref<7xf32, #npudev.space<global>>, %{{.*}}: memref<1x6x6x64xf32, #npudev.space<global>> {npudev.channels = 7 : i64, npudev.output})
// CHECK-NOT: repack
// CHECK: strategy = "conv2d"
// CHECK-NOT: repack
// CHECK: return
func.func @conv(%x: tensor<1x6x6x5xf32, #npu.layout<align>>, %w: tensor<7x3x3x5xf32, #npu.layout<align>>, %b: tensor<7xf32>) -> tensor<1x6x6x7xf32, #npu.layout<align>> {
  %r = npu.conv2d %x, %w, %b {padding = array<i64: 1, 1, 1, 1>} : (tensor<1x6x6x5xf32, #npu.layout<align>>, tensor<7x3x3x5xf32, #npu.layout<align>>, tensor<7xf32>) -> tensor<1x6x6x7xf32, #npu.layout<align>>
  return %r : tensor<1x6x6x7xf32, #npu.layout<align>>
}

// -----

// CHECK-LABEL: func.func @depthwise
// CHECK: npudev.launch {{.*}}strategy = "repack"
// CHECK-NOT: repack
// CHECK: strategy = "conv2d"
// CHECK-NOT: repack
// CHECK: return
func.func @depthwise(%x: tensor<1x6x6x5xf32, #npu.layout<align>>, %w: tensor<5x3x3x1xf32, #npu.layout<align>>) -> tensor<1x6x6x5xf32, #npu.layout<align>> {
  %r = npu.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>, groups = 5 : i64} : (tensor<1x6x6x5xf32, #npu.layout<align>>, tensor<5x3x3x1xf32, #npu.layout<align>>) -> tensor<1x6x6x5xf32, #npu.layout<align>>
  return %r : tensor<1x6x6x5xf32, #npu.layout<align>>
}

// -----

// A reshape that keeps C copies [rows, C] between the padded views (as
// Swin's window partitions do); one that changes C moves elements across
// rows and works on dense copies.
// CHECK-LABEL: func.func @reshape_keeps_channels
// CHECK-NOT: repack
// CHECK: strategy = "reshape"
// CHECK-NOT: repack
// CHECK: return
func.func @reshape_keeps_channels(%x: tensor<1x4x4x8xf32, #npu.layout<align>>) -> tensor<2x2x4x8xf32, #npu.layout<align>> {
  %r = npu.reshape %x : tensor<1x4x4x8xf32, #npu.layout<align>> -> tensor<2x2x4x8xf32, #npu.layout<align>>
  return %r : tensor<2x2x4x8xf32, #npu.layout<align>>
}

// -----

// CHECK-LABEL: func.func @reshape_changes_channels
// CHECK: strategy = "repack"
// CHECK: strategy = "elementwise"
// CHECK: strategy = "repack"
func.func @reshape_changes_channels(%x: tensor<1x4x4x8xf32, #npu.layout<align>>) -> tensor<1x4x2x16xf32, #npu.layout<align>> {
  %r = npu.reshape %x : tensor<1x4x4x8xf32, #npu.layout<align>> -> tensor<1x4x2x16xf32, #npu.layout<align>>
  return %r : tensor<1x4x2x16xf32, #npu.layout<align>>
}

// -----

// reduce reads padded rows in place when C stays a dimension of its own
// (ResNet's global average pool), and softmax over the last axis too.
// CHECK-LABEL: func.func @reduce_softmax_in_place
// CHECK-NOT: repack
// CHECK: strategy = "reduce"
// CHECK-NOT: repack
// CHECK: strategy = "rows"
// CHECK-NOT: repack
// CHECK: return
func.func @reduce_softmax_in_place(%x: tensor<1x4x4x8xf32, #npu.layout<align>>) -> (tensor<1x1x1x8xf32, #npu.layout<align>>, tensor<1x4x4x8xf32, #npu.layout<align>>) {
  %m = npu.reduce <mean> %x {axes = array<i64: 1, 2>, keepdims} : tensor<1x4x4x8xf32, #npu.layout<align>> -> tensor<1x1x1x8xf32, #npu.layout<align>>
  %s = npu.softmax %x {axis = -1 : i64} : tensor<1x4x4x8xf32, #npu.layout<align>> -> tensor<1x4x4x8xf32, #npu.layout<align>>
  return %m, %s : tensor<1x1x1x8xf32, #npu.layout<align>>, tensor<1x4x4x8xf32, #npu.layout<align>>
}

// -----

// A copy of fewer tiles than cores is cut into shorter tiles (at least 512
// elements each): [4096, 8] goes to 48 vector tasks on mlu590, not one.
// CHECK-LABEL: func.func @copy_shared_among_cores
// CHECK: npudev.launch tasks(48) on vector attributes {npudev.tiling = {strategy = "channel_norm", tile_cols = 8 : i64, tile_rows = 86 : i64}}
func.func @copy_shared_among_cores(%x: tensor<4096x8xf32>) -> tensor<4096x8xf32, #npu.layout<align>> {
  %r = npu.channel_norm <to_align> %x : tensor<4096x8xf32> -> tensor<4096x8xf32, #npu.layout<align>>
  return %r : tensor<4096x8xf32, #npu.layout<align>>
}
