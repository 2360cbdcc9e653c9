// npu.topk: each row is a work item of the vector tasks. A row that fits one
// tile is copied on chip (negated when the largest are wanted), numbered and
// sorted with its positions; a longer row is cut into tiles whose sorted
// prefixes are merged into the row's running top k.
// RUN: npu-opt %s --split-input-file --npu-lower-to-device=device=ascend910b --canonicalize | FileCheck %s

// The RPN's 150 best of 6000 anchor scores: one row, one tile.
// CHECK-LABEL: func.func @one_tile
// CHECK: npudev.launch tasks(1) on vector attributes {npudev.tiling = {strategy = "topk", tile = 6000 : i64, tiles_per_row = 1 : i64}}
// CHECK: npudev.dma
// CHECK: npudev.vunary <neg>
// CHECK: npudev.iota
// CHECK: npudev.vsort {{.*}} values(
// CHECK-NOT: npudev.vmerge
// CHECK: npudev.vunary <neg>
// CHECK: npudev.vcast {{.*}} : memref<150xi32{{.*}}>, memref<150xi64
// CHECK: npudev.dma
// CHECK: npudev.dma
func.func @one_tile(%x: tensor<1x6000xf32>) -> (tensor<1x150xf32>, tensor<1x150xi64>) {
  %v, %i = npu.topk %x {k = 150 : i64, axis = 1 : i64} : tensor<1x6000xf32> -> tensor<1x150xf32>, tensor<1x150xi64>
  return %v, %i : tensor<1x150xf32>, tensor<1x150xi64>
}

// -----

// The smallest along a middle axis: rows are strided (every 4th element),
// 3 x 4 of them over 12 tasks, and nothing is negated.
// CHECK-LABEL: func.func @strided_smallest
// CHECK: npudev.launch tasks(12) on vector
// CHECK-NOT: <neg>
// CHECK: npudev.dma {{.*}} : memref<20xf32, strided<[4], offset: ?>, #npudev.space<global>> to memref<20xf32
// CHECK: npudev.vsort
// CHECK: npudev.vcast
// CHECK: npudev.dma {{.*}} to memref<2xf32, strided<[4], offset: ?>, #npudev.space<global>>
func.func @strided_smallest(%x: tensor<3x20x4xf32>) -> (tensor<3x2x4xf32>, tensor<3x2x4xi64>) {
  %v, %i = npu.topk %x {k = 2 : i64, axis = 1 : i64, largest = false} : tensor<3x20x4xf32> -> tensor<3x2x4xf32>, tensor<3x2x4xi64>
  return %v, %i : tensor<3x2x4xf32>, tensor<3x2x4xi64>
}

// -----

// 25001 f16 elements take two tiles of 12501 (the second one short): the
// first tile's top 64 start the run, a loop merges the full tiles after it
// (none here) and the short tile is merged last.
// CHECK-LABEL: func.func @two_tiles
// CHECK: npudev.tiling = {strategy = "topk", tile = 12501 : i64, tiles_per_row = 2 : i64}
// CHECK: npudev.vsort {{.*}} : memref<12501xf16
// CHECK: npudev.vbinary_scalar <mul>
// CHECK: npudev.vbinary_scalar <add>
// CHECK: npudev.vsort {{.*}} : memref<12500xf16
// CHECK: npudev.vmerge {{.*}} : memref<64xf16{{.*}}>, memref<64xf16{{.*}}>, memref<128xf16
// CHECK: npudev.vbinary_scalar <mul>
func.func @two_tiles(%x: tensor<25001xf16>) -> (tensor<64xf16>, tensor<64xi64>) {
  %v, %i = npu.topk %x {k = 64 : i64, axis = 0 : i64} : tensor<25001xf16> -> tensor<64xf16>, tensor<64xi64>
  return %v, %i : tensor<64xf16>, tensor<64xi64>
}

// -----

// k = 0: empty results, no launch.
// CHECK-LABEL: func.func @k_zero
// CHECK-NOT: npudev.launch
// CHECK: return
func.func @k_zero(%x: tensor<2x5xf32>) -> (tensor<2x0xf32>, tensor<2x0xi64>) {
  %v, %i = npu.topk %x {k = 0 : i64, axis = 1 : i64} : tensor<2x5xf32> -> tensor<2x0xf32>, tensor<2x0xi64>
  return %v, %i : tensor<2x0xf32>, tensor<2x0xi64>
}
