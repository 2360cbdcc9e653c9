// npu.transpose moves 2-D planes of the input's last dimension and one
// other: strided windows in, a vtranspose on chip when the last dimension
// moves, windows of contiguous rows out.
// RUN: npu-opt %s --npu-lower-to-device=device=ascend910b --canonicalize | FileCheck %s
// RUN: npu-opt %s --npu-graph-to-device=device=ascend910b | FileCheck %s --check-prefix=PIPE

// NCHW to NHWC: planes of (C, W) per (N, H); C becomes the last dimension.
// CHECK-LABEL: func.func @to_nhwc
// CHECK: npudev.launch tasks(48) on vector attributes {npudev.tiling = {strategy = "transpose", tile_cols = 56 : i64, tile_rows = 64 : i64}}
// CHECK: scf.for %{{.*}} = %{{.*}} to %c112 step %c48
// CHECK: memref.subview %arg0[%{{.*}}, 0, %{{.*}}, 0] [1, 64, 1, 56] [1, 1, 1, 1] : memref<2x64x56x56xf16, #npudev.space<global>> to memref<64x56xf16, strided<[3136, 1], offset: ?>
// CHECK: npudev.dma %{{.*}}, %[[IN:.*]] :
// CHECK: npudev.vtranspose %[[IN]], %[[OUT:.*]] :
// CHECK: memref.subview %arg1[%{{.*}}, %{{.*}}, 0, 0] [1, 1, 56, 64] [1, 1, 1, 1]
// CHECK: npudev.dma %[[OUT]], %{{.*}} :
// PIPE-LABEL: func.func @to_nhwc
// PIPE: npudev.async
func.func @to_nhwc(%x: tensor<2x64x56x56xf16>) -> tensor<2x56x56x64xf16> {
  %r = npu.transpose %x, [0, 2, 3, 1] : tensor<2x64x56x56xf16> -> tensor<2x56x56x64xf16>
  return %r : tensor<2x56x56x64xf16>
}

// Splitting heads keeps the last dimension: rows are copied, no vtranspose.
// CHECK-LABEL: func.func @heads
// CHECK: tile_cols = 64 : i64, tile_rows = 128 : i64
// CHECK: memref.subview %arg0[%{{.*}}, 0, %{{.*}}, 0] [1, 128, 1, 64] [1, 1, 1, 1] : memref<2x128x8x64xf32, #npudev.space<global>> to memref<128x64xf32, strided<[512, 1], offset: ?>
// CHECK-NOT: npudev.vtranspose
// CHECK: memref.subview %arg1[%{{.*}}, %{{.*}}, 0, 0] [1, 1, 128, 64]
func.func @heads(%x: tensor<2x128x8x64xf32>) -> tensor<2x8x128x64xf32> {
  %r = npu.transpose %x, [0, 2, 1, 3] : tensor<2x128x8x64xf32> -> tensor<2x8x128x64xf32>
  return %r : tensor<2x8x128x64xf32>
}
