// softmax and layer_norm become one launch of vector tasks over tiles of
// whole rows, widened to f32, normalised with row reductions and
// broadcasts, rounded back.
// RUN: npu-opt %s --npu-lower-to-device=device=ascend910b --canonicalize | FileCheck %s
// RUN: npu-opt %s --npu-graph-to-device=device=ascend910b | FileCheck %s --check-prefix=PIPE

// 64 rows over 48 tasks: 1 row per tile leaves each task more than one.
// CHECK-LABEL: func.func @softmax
// CHECK: npudev.launch tasks(48) on vector attributes {npudev.tiling = {strategy = "rows", tile_rows = 1 : i64}}
// CHECK: scf.for
// CHECK: npudev.dma %{{.*}}, %[[IN:.*]] : memref<?x1000xf16
// CHECK: npudev.vcast %[[IN]], %[[X:.*]] :
// CHECK: npudev.vreduce <max> %[[X]], %[[MAX:.*]] :
// CHECK: npudev.vbinary_broadcast <sub> %[[X]], %[[MAX]], %[[Y:.*]] along 0
// CHECK: npudev.vunary <exp> %[[Y]], %[[Y]]
// CHECK: npudev.vreduce <sum> %[[Y]], %[[SUM:.*]] :
// CHECK: npudev.vbinary_broadcast <div> %[[Y]], %[[SUM]], %[[Y]] along 0
// CHECK: npudev.vcast %[[Y]], %[[OUT:.*]] :
// CHECK: npudev.dma %[[OUT]], %{{.*}} : memref<?x1000xf16
// PIPE-LABEL: func.func @softmax
// PIPE: npudev.async
func.func @softmax(%x: tensor<64x1000xf16>) -> tensor<64x1000xf16> {
  %r = npu.softmax %x : tensor<64x1000xf16> -> tensor<64x1000xf16>
  return %r : tensor<64x1000xf16>
}

// gamma and beta are copied once per task; each row is centred, scaled by
// rsqrt(var + eps), then gamma and beta spread along the columns.
// CHECK-LABEL: func.func @layer_norm
// CHECK: npudev.launch tasks(48) on vector attributes {npudev.tiling = {strategy = "rows", tile_rows = 6 : i64}}
// CHECK: %[[G:.*]] = npudev.alloc : memref<768xf32
// CHECK: npudev.dma %arg1, %[[G]]
// CHECK: %[[B:.*]] = npudev.alloc : memref<768xf32
// CHECK: npudev.dma %arg2, %[[B]]
// CHECK: scf.for
// CHECK: npudev.vreduce <sum> %[[X:.*]], %[[MEAN:.*]] :
// CHECK: npudev.vbinary_scalar <div> %[[MEAN]], %{{.*}}, %[[MEAN]]
// CHECK: npudev.vbinary_broadcast <sub> %[[X]], %[[MEAN]], %[[X]] along 0
// CHECK: npudev.vbinary <mul> %[[X]], %[[X]], %[[SQ:.*]] :
// CHECK: npudev.vreduce <sum> %[[SQ]], %[[VAR:.*]] :
// CHECK: npudev.vunary <rsqrt> %[[VAR]], %[[VAR]]
// CHECK: npudev.vbinary_broadcast <mul> %[[X]], %[[VAR]], %[[Y:.*]] along 0
// CHECK: npudev.vbinary_broadcast <mul> %[[Y]], %[[G]], %[[Y]] along 1
// CHECK: npudev.vbinary_broadcast <add> %[[Y]], %[[B]], %[[Y]] along 1
func.func @layer_norm(%x: tensor<4x128x768xf32>, %g: tensor<768xf32>, %b: tensor<768xf32>) -> tensor<4x128x768xf32> {
  %r = npu.layer_norm %x, %g, %b : (tensor<4x128x768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<4x128x768xf32>
  return %r : tensor<4x128x768xf32>
}
