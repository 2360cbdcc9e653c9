// npu.matmul becomes a cube launch over [tm, tn] output tiles, each summing
// its products over the contraction in steps of tk into an f32 tile; a bias
// or a narrower result goes through an f32 workspace and a vector launch.
// RUN: npu-opt %s --split-input-file --npu-lower-to-device=device=ascend910b --canonicalize --verify-diagnostics | FileCheck %s
// RUN: npu-opt %s --split-input-file --npu-graph-to-device=device=ascend910b --verify-diagnostics | FileCheck %s --check-prefix=PIPE

// f32 without bias: the tiles are stored straight into the result. The
// first step of the contraction starts the sum, the others accumulate; the
// loop's loads are pipelined.
// CHECK-LABEL: func.func @gemm
// CHECK: npudev.launch tasks(24) on cube attributes {npudev.tiling = {strategy = "gemm", tile_k = 128 : i64, tile_m = 128 : i64, tile_n = 128 : i64}}
// CHECK: %[[SUM:.*]] = npudev.alloc : memref<128x128xf32, #npudev.space<cube>>
// CHECK: scf.for
// CHECK: scf.for %[[K0:.*]] = %c0 to %c512 step %c128
// CHECK: npudev.dma %{{.*}}, %[[A:.*]] :
// CHECK: npudev.dma %{{.*}}, %[[B:.*]] :
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[K0]], %c0
// CHECK: scf.if %[[FIRST]]
// CHECK-NEXT: npudev.matmul %[[A]], %[[B]], %[[C:.*]] :
// CHECK: else
// CHECK-NEXT: npudev.matmul %[[A]], %[[B]], %[[C]] {accumulate}
// CHECK: npudev.dma %[[C]], %{{.*}}#npudev.space<global>>
// CHECK-NOT: npudev.launch
// PIPE-LABEL: func.func @gemm
// PIPE: npudev.async
// PIPE: npudev.matmul
func.func @gemm(%a: tensor<1024x512xf32>, %b: tensor<512x640xf32>) -> tensor<1024x640xf32> {
  %r = npu.matmul %a, %b : (tensor<1024x512xf32>, tensor<512x640xf32>) -> tensor<1024x640xf32>
  return %r : tensor<1024x640xf32>
}

// -----

// f16 with a bias, the rhs shared by both batches and read transposed: the
// sums go to an f32 workspace; the epilogue adds the bias (widened) along
// the rows and rounds to f16.
// CHECK-LABEL: func.func @gemm_bias_f16
// CHECK: %[[WS:.*]] = memref.alloc() : memref<2x200x96xf32, #npudev.space<global>>
// CHECK: npudev.launch tasks(4) on cube attributes {npudev.tiling = {strategy = "gemm", tile_k = 64 : i64, tile_m = 128 : i64, tile_n = 96 : i64}}
// CHECK: memref.expand_shape %arg1 {{\[}}[0, 1], [2]] output_shape [1, 96, 64]
// CHECK: npudev.matmul %{{.*}}, %{{.*}}, %{{.*}} {transpose_b}
// CHECK: npudev.dma %{{.*}}, %{{.*}} : memref<?x?xf32, strided<[96, 1], offset: ?>, #npudev.space<cube>> to memref<?x?xf32, strided<[96, 1], offset: ?>, #npudev.space<global>>
// CHECK: npudev.launch tasks(5) on vector attributes {npudev.tiling = {step = "epilogue", strategy = "gemm", tile_cols = 96 : i64, tile_rows = 85 : i64}}
// CHECK: memref.collapse_shape %[[WS]]
// CHECK: scf.for
// CHECK: npudev.vcast %[[BIAS:.*]], %[[WIDE:.*]] : memref<?xf16
// CHECK: npudev.vbinary_broadcast <add> %[[T:.*]], %[[WIDE]], %[[T]] along 1
// CHECK: npudev.vcast %[[T]], %{{.*}} : memref<?x?xf32, {{.*}}>, memref<?x?xf16
// CHECK: memref.dealloc %[[WS]]
func.func @gemm_bias_f16(%a: tensor<2x200x64xf16>, %b: tensor<96x64xf16>, %bias: tensor<96xf16>) -> tensor<2x200x96xf16> {
  %r = npu.matmul %a, %b, %bias {transpose_rhs} : (tensor<2x200x64xf16>, tensor<96x64xf16>, tensor<96xf16>) -> tensor<2x200x96xf16>
  return %r : tensor<2x200x96xf16>
}

// -----

// An empty contraction: no cube launch; the epilogue writes zeros.
// CHECK-LABEL: func.func @empty_k
// CHECK-NOT: on cube
// CHECK: npudev.launch tasks(1) on vector
// CHECK: npudev.vfill %{{.*}}, %[[Z:.*]] : f32
// CHECK: npudev.dma %[[Z]], %{{.*}}#npudev.space<global>>
func.func @empty_k(%a: tensor<5x0xf32>, %b: tensor<0x4xf32>) -> tensor<5x4xf32> {
  %r = npu.matmul %a, %b : (tensor<5x0xf32>, tensor<0x4xf32>) -> tensor<5x4xf32>
  return %r : tensor<5x4xf32>
}

// -----

func.func @partial_batch(%a: tensor<2x1x8x8xf32>, %b: tensor<1x3x8x8xf32>) -> tensor<2x3x8x8xf32> {
  // expected-error @+1 {{'npu.matmul' op cannot be lowered to the device: batch dimensions broadcast in part (an operand has all of the result's batches or one)}}
  %r = npu.matmul %a, %b : (tensor<2x1x8x8xf32>, tensor<1x3x8x8xf32>) -> tensor<2x3x8x8xf32>
  return %r : tensor<2x3x8x8xf32>
}

// -----

func.func @integers(%a: tensor<8x8xi32>, %b: tensor<8x8xi32>) -> tensor<8x8xi32> {
  // expected-error @+1 {{'npu.matmul' op cannot be lowered to the device: the cube multiplies f16, bf16 or f32, got 'i32'}}
  %r = npu.matmul %a, %b : (tensor<8x8xi32>, tensor<8x8xi32>) -> tensor<8x8xi32>
  return %r : tensor<8x8xi32>
}
