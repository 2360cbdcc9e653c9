// Stage 3's tiles: an innermost dense loop along the buffers' last axis
// as DMA'd slices and vector ops, per chunk.
// RUN: npu-opt %s --npu-sparse-to-device=tasks=2 --npu-sparse-lower-iterations --npu-sparse-tile | FileCheck %s

// SpMM: per nonzero, Y's and X's rows of 8 in, X's row out; A's value
// (fixed along k) filled into a tile. The arrays now live in global memory.
// CHECK-LABEL: func.func @spmm
// CHECK-SAME: memref<5xi32, #npudev.space<global>>
// CHECK: npudev.launch tasks(2) on vector {
// CHECK: %[[Y:.*]] = npudev.alloc : memref<8xf32, #npudev.space<vector>>
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c8
// CHECK: npudev.dma %{{.*}}, %{{.*}} : memref<?xf32, strided<[1], offset: ?>, #npudev.space<global>> to memref<?xf32, strided<[1], offset: ?>, #npudev.space<vector>>
// CHECK: npudev.dma
// CHECK: npudev.vfill
// CHECK: npudev.vbinary <mul>
// CHECK: npudev.vbinary <add>
// CHECK: npudev.dma %{{.*}}, %{{.*}} : memref<?xf32, strided<[1], offset: ?>, #npudev.space<vector>> to memref<?xf32, strided<[1], offset: ?>, #npudev.space<global>>
func.func @spmm(%indptr: memref<5xi32>, %indices: memref<?xi32>, %a: memref<?xf32>, %b: memref<48xf32>, %c: memref<32xf32>) {
  %i = sparse.axis dense_fixed length 4
  %j = sparse.axis sparse_variable parent %i length 6 indptr %indptr : memref<5xi32> indices %indices : memref<?xi32> sorted
  %dj = sparse.axis dense_fixed length 6
  %k = sparse.axis dense_fixed length 8
  %A = sparse.buffer %a [%i, %j] : memref<?xf32> -> !sparse.buffer<2 x f32>
  %B = sparse.buffer %b [%dj, %k] : memref<48xf32> -> !sparse.buffer<2 x f32>
  %C = sparse.buffer %c [%i, %k] : memref<32xf32> -> !sparse.buffer<2 x f32>
  sparse.iteration [%i, %j, %k] [#sparse.iterator<spatial>, #sparse.iterator<reduction>, #sparse.iterator<spatial>] do {
  ^bb0(%vi: index, %vj: index, %vk: index):
    %x = sparse.load %A[%vi, %vj] : !sparse.buffer<2 x f32>
    %y = sparse.load %B[%vj, %vk] : !sparse.buffer<2 x f32>
    %acc = sparse.load %C[%vi, %vk] : !sparse.buffer<2 x f32>
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    sparse.store %s, %C[%vi, %vk] : !sparse.buffer<2 x f32>
  }
  return
}
