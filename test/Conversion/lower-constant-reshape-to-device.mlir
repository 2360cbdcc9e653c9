// Constants are written before they are read: a splat by one fill launch,
// a few values by scalar stores; a reshape copies tiles in order.
// RUN: npu-opt %s --npu-lower-to-device=device=ascend910b --canonicalize | FileCheck %s

// CHECK-LABEL: func.func @splat
// CHECK: npudev.launch tasks(48) on vector attributes {npudev.tiling = {strategy = "fill", tile = 1366 : i64}}
// CHECK: %[[T:.*]] = npudev.alloc : memref<1366xf16
// CHECK: npudev.vfill %{{.*}}, %[[T]]
// CHECK: scf.for
// CHECK: npudev.dma
func.func @splat() -> tensor<256x256xf16> {
  %c = npu.constant dense<-1.5> : tensor<256x256xf16> -> tensor<256x256xf16>
  return %c : tensor<256x256xf16>
}

// CHECK-LABEL: func.func @values
// CHECK-NOT: npudev.launch
// CHECK: %[[FLAT:.*]] = memref.collapse_shape %arg0
// CHECK-DAG: memref.store %{{.*}}, %[[FLAT]][%c0]
// CHECK-DAG: memref.store %{{.*}}, %[[FLAT]][%c3]
func.func @values() -> tensor<2x2xf32> {
  %c = npu.constant dense<[[1.0, -2.0], [0.5, 3.0]]> : tensor<2x2xf32> -> tensor<2x2xf32>
  return %c : tensor<2x2xf32>
}

// CHECK-LABEL: func.func @reshape
// CHECK: npudev.launch tasks(2) on vector attributes {npudev.tiling = {strategy = "elementwise", tile_cols = 8192 : i64, tile_rows = 1 : i64}}
// CHECK: scf.for
// CHECK: npudev.dma %{{.*}}, %[[TILE:.*]] :
// CHECK-NOT: npudev.v
// CHECK: npudev.dma %[[TILE]], %{{.*}} :
func.func @reshape(%x: tensor<3x50x70xf32>) -> tensor<70x150xf32> {
  %r = npu.reshape %x : tensor<3x50x70xf32> -> tensor<70x150xf32>
  return %r : tensor<70x150xf32>
}
