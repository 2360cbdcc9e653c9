// npu-lower-to-device stores a value LayoutAlignToNPU made aligned with its
// rows padded to 64 elements, and hands kernels the strided view of its C
// columns; channel_norm is the copy between the two storages.
// RUN: npu-opt %s --split-input-file --npu-lower-to-device | FileCheck %s

// An aligned result is a padded output argument marked with its logical C;
// channel_norm copies the dense rows into the view of its first C columns.
// CHECK-LABEL: func.func @to_align
// CHECK-SAME: (%[[X:.*]]: memref<1x4x4x8xf32, #npudev.space<global>>, %[[OUT:.*]]: memref<1x4x4x64xf32, #npudev.space<global>> {npudev.channels = 8 : i64, npudev.output})
// CHECK: %[[VIEW:.*]] = memref.subview %[[OUT]][0, 0, 0, 0] [1, 4, 4, 8] [1, 1, 1, 1] : memref<1x4x4x64xf32, #npudev.space<global>> to memref<1x4x4x8xf32, strided<[1024, 256, 64, 1]>, #npudev.space<global>>
// CHECK: npudev.launch tasks({{[0-9]+}}) on vector attributes {npudev.tiling = {strategy = "channel_norm"
// CHECK: memref.subview %[[X]]
// CHECK: memref.subview %[[VIEW]]
// CHECK-NOT: npudev.launch
// CHECK: return
func.func @to_align(%x: tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32, #npu.layout<align>> {
  %r = npu.channel_norm <to_align> %x : tensor<1x4x4x8xf32> -> tensor<1x4x4x8xf32, #npu.layout<align>>
  return %r : tensor<1x4x4x8xf32, #npu.layout<align>>
}

// -----

// An aligned intermediate takes a pool buffer of padded rows (4 x 64). The
// elementwise kernel reads dense operands, so a repack launch copies the
// aligned argument into a dense buffer and another copies its dense result
// back into the padded rows, where channel_norm reads it.
// CHECK-LABEL: func.func @repack
// CHECK-SAME: (%[[X:.*]]: memref<4x64xf32, #npudev.space<global>> {npudev.channels = 8 : i64}, %[[OUT:.*]]: memref<4x8xf32, #npudev.space<global>> {npudev.output})
// CHECK: %[[XV:.*]] = memref.subview %[[X]][0, 0] [4, 8] [1, 1]
// CHECK: %[[PADDED:.*]] = memref.alloc() : memref<256xf32, #npudev.space<global>>
// CHECK: %[[ROWS:.*]] = memref.expand_shape %[[PADDED]] {{\[\[}}0, 1]] output_shape [4, 64]
// CHECK: %[[AV:.*]] = memref.subview %[[ROWS]][0, 0] [4, 8] [1, 1] : memref<4x64xf32, #npudev.space<global>> to memref<4x8xf32, strided<[64, 1]>, #npudev.space<global>>
// CHECK: npudev.launch {{.*}}strategy = "repack"
// CHECK: memref.subview %[[XV]]
// CHECK: npudev.launch {{.*}}strategy = "elementwise"
// CHECK: npudev.vunary <relu>
// CHECK: npudev.launch {{.*}}strategy = "repack"
// CHECK: memref.subview %[[AV]]
// CHECK: npudev.launch {{.*}}strategy = "channel_norm"
// CHECK: memref.subview %[[AV]]
// CHECK: memref.subview %[[OUT]]
func.func @repack(%x: tensor<4x8xf32, #npu.layout<align>>) -> tensor<4x8xf32, #npu.layout<nalign>> {
  %a = npu.relu %x : tensor<4x8xf32, #npu.layout<align>> -> tensor<4x8xf32, #npu.layout<align>>
  %r = npu.channel_norm <to_nalign> %a : tensor<4x8xf32, #npu.layout<align>> -> tensor<4x8xf32, #npu.layout<nalign>>
  return %r : tensor<4x8xf32, #npu.layout<nalign>>
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
