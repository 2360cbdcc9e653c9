// npu-sparse-tile-dense-axis: an innermost dense loop along the buffers' last axis
// as DMA'd slices and vector ops, per chunk.
// RUN: npu-opt %s --split-input-file --npu-sparse-to-device=tasks=2 --npu-sparse-lower-iterations --npu-sparse-tile-dense-axis --canonicalize | FileCheck %s

// SpMM. init: a tile of zeros filled once, where the launch allocates it,
// and only DMA'd out per row (the row loop has no fill). Body: C's row is
// the accumulator, fixed across the row's nonzeros: DMA'd in before the
// nonzero loop, updated in place, DMA'd out after it. Per nonzero only B's
// row comes in; A's value (fixed along k, the left operand of a
// commutative mul) is the scalar of vbinary_scalar. The arrays now live in
// global memory.
// CHECK-LABEL: func.func @spmm
// CHECK-SAME: memref<5xi32, #npudev.space<global>>
// CHECK: npudev.launch tasks(2) on vector {
// CHECK-COUNT-3: npudev.alloc : memref<8xf32, #npudev.space<vector>>
// CHECK-NEXT: %[[ZEROS:.*]] = npudev.alloc : memref<8xf32, #npudev.space<vector>>
// CHECK-NEXT: npudev.vfill %cst, %[[ZEROS]]
// CHECK: scf.for
// CHECK-NOT: npudev.vfill
// CHECK: %[[FILLED:.*]] = memref.cast %[[ZEROS]]
// CHECK-NEXT: npudev.dma %[[FILLED]], %{{.*}} : memref<?xf32, strided<[1], offset: ?>, #npudev.space<vector>> to memref<?xf32, strided<[1], offset: ?>, #npudev.space<global>>
// CHECK: scf.for
// CHECK: npudev.dma %{{.*}}, %[[ACC:[0-9]+]] : memref<?xf32, strided<[1], offset: ?>, #npudev.space<global>> to memref<8xf32, #npudev.space<vector>>
// CHECK-NEXT: scf.for
// CHECK: npudev.dma %{{.*}}, %{{.*}} : memref<?xf32, strided<[1], offset: ?>, #npudev.space<global>> to memref<?xf32, strided<[1], offset: ?>, #npudev.space<vector>>
// CHECK-NOT: npudev.dma
// CHECK: npudev.vbinary_scalar <mul>
// CHECK-NOT: npudev.dma
// CHECK: npudev.vbinary <add>
// CHECK-NOT: npudev.dma
// CHECK: }
// CHECK-NEXT: npudev.dma %[[ACC]], %{{.*}} : memref<8xf32, #npudev.space<vector>> to memref<?xf32, strided<[1], offset: ?>, #npudev.space<global>>
func.func @spmm(%indptr: memref<5xi32>, %indices: memref<?xi32>, %a: memref<?xf32>, %b: memref<48xf32>, %c: memref<32xf32>) {
  %i = sparse.axis dense_fixed length 4
  %j = sparse.axis sparse_variable parent %i length 6 indptr %indptr : memref<5xi32> indices %indices : memref<?xi32> sorted
  %dj = sparse.axis dense_fixed length 6
  %k = sparse.axis dense_fixed length 8
  %A = sparse.buffer %a [%i, %j] : memref<?xf32> -> !sparse.buffer<2 x f32>
  %B = sparse.buffer %b [%dj, %k] : memref<48xf32> -> !sparse.buffer<2 x f32>
  %C = sparse.buffer %c [%i, %k] : memref<32xf32> -> !sparse.buffer<2 x f32>
  sparse.iteration [%i, %j, %k] [#sparse.iterator<spatial>, #sparse.iterator<reduction>, #sparse.iterator<spatial>] init {
  ^bb0(%vi: index, %vk: index):
    %zero = arith.constant 0.0 : f32
    sparse.store %zero, %C[%vi, %vk] : !sparse.buffer<2 x f32>
  } do {
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


// -----

// A value fixed along k: the scalar of vbinary_scalar as a right operand
// (x / s); filled into a tile as the left operand of a non-commutative op
// (s - d).
// CHECK-LABEL: func.func @fixed_operands
// CHECK: npudev.dma
// CHECK: npudev.vbinary_scalar <div> %{{.*}}, %[[S:[0-9]+]]
// CHECK: npudev.vfill %[[S]]
// CHECK: npudev.vbinary <sub>
// CHECK: npudev.dma
func.func @fixed_operands(%s: memref<4xf32>, %x: memref<32xf32>, %y: memref<32xf32>) {
  %i = sparse.axis dense_fixed length 4
  %k = sparse.axis dense_fixed length 8
  %S = sparse.buffer %s [%i] : memref<4xf32> -> !sparse.buffer<1 x f32>
  %X = sparse.buffer %x [%i, %k] : memref<32xf32> -> !sparse.buffer<2 x f32>
  %Y = sparse.buffer %y [%i, %k] : memref<32xf32> -> !sparse.buffer<2 x f32>
  sparse.iteration [%i, %k] [#sparse.iterator<spatial>, #sparse.iterator<spatial>] do {
  ^bb0(%vi: index, %vk: index):
    %a = sparse.load %S[%vi] : !sparse.buffer<1 x f32>
    %v = sparse.load %X[%vi, %vk] : !sparse.buffer<2 x f32>
    %d = arith.divf %v, %a : f32
    %e = arith.subf %a, %d : f32
    sparse.store %e, %Y[%vi, %vk] : !sparse.buffer<2 x f32>
  }
  return
}


// -----

// Rows of 65536 features take several chunks (13107 f32 per tile: half
// the vector memory over five tiles), so the accumulator row cannot stay
// on chip: C's slice goes in and out per chunk.
// CHECK-LABEL: func.func @long_rows
// CHECK: npudev.alloc : memref<13107xf32, #npudev.space<vector>>
// CHECK: scf.for %{{.*}} = %c0 to %c65536 step %c13107
// CHECK: npudev.dma {{.*}} to memref<?xf32, strided<[1], offset: ?>, #npudev.space<vector>>
// CHECK: npudev.dma {{.*}} to memref<?xf32, strided<[1], offset: ?>, #npudev.space<vector>>
// CHECK: npudev.vbinary_scalar <mul>
// CHECK: npudev.vbinary <add>
// CHECK: npudev.dma {{.*}} to memref<?xf32, strided<[1], offset: ?>, #npudev.space<global>>
func.func @long_rows(%indptr: memref<3xi32>, %indices: memref<?xi32>, %a: memref<?xf32>, %b: memref<131072xf32>, %c: memref<131072xf32>) {
  %i = sparse.axis dense_fixed length 2
  %j = sparse.axis sparse_variable parent %i length 2 indptr %indptr : memref<3xi32> indices %indices : memref<?xi32> sorted
  %dj = sparse.axis dense_fixed length 2
  %k = sparse.axis dense_fixed length 65536
  %A = sparse.buffer %a [%i, %j] : memref<?xf32> -> !sparse.buffer<2 x f32>
  %B = sparse.buffer %b [%dj, %k] : memref<131072xf32> -> !sparse.buffer<2 x f32>
  %C = sparse.buffer %c [%i, %k] : memref<131072xf32> -> !sparse.buffer<2 x f32>
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


// -----

// SDDMM: the k loop carries A[i, j]'s sum. X's row (fixed across the row's
// nonzeros) comes in once per row, Y's per nonzero; their product goes to
// the positions after slot 0 of the sum's tile, the carried value to slot
// 0, and one vreduce adds them in k order, as the scalar loop did.
// CHECK-LABEL: func.func @sddmm
// CHECK-DAG: %[[OUT:.*]] = npudev.alloc : memref<1xf32, #npudev.space<vector>>
// CHECK-DAG: %[[SUM:.*]] = npudev.alloc : memref<9xf32, #npudev.space<vector>>
// CHECK: %[[TERMS:.*]] = memref.subview %[[SUM]][1] [8] [1]
// CHECK: npudev.dma {{.*}} to memref<8xf32, #npudev.space<vector>>
// CHECK: scf.for
// CHECK: %[[ACC:.*]] = sparse.pos_load
// CHECK: npudev.dma {{.*}} to memref<?xf32, strided<[1], offset: ?>, #npudev.space<vector>>
// CHECK: %[[T:.*]] = memref.cast %[[TERMS]]
// CHECK: npudev.vbinary <mul> %{{.*}}, %{{.*}}, %[[T]]
// CHECK: memref.store %[[ACC]], %[[SUM]][%c0]
// CHECK: %[[ALL:.*]] = memref.cast %[[SUM]]
// CHECK: npudev.vreduce <sum> %[[ALL]], %[[OUT]]
// CHECK: %[[S:.*]] = memref.load %[[OUT]][%c0]
// CHECK: sparse.pos_store %[[S]]
func.func @sddmm(%indptr: memref<5xi32>, %indices: memref<?xi32>, %a: memref<?xf32>, %x: memref<32xf32>, %y: memref<48xf32>) {
  %i = sparse.axis dense_fixed length 4
  %j = sparse.axis sparse_variable parent %i length 6 indptr %indptr : memref<5xi32> indices %indices : memref<?xi32> sorted
  %dj = sparse.axis dense_fixed length 6
  %k = sparse.axis dense_fixed length 8
  %A = sparse.buffer %a [%i, %j] : memref<?xf32> -> !sparse.buffer<2 x f32>
  %X = sparse.buffer %x [%i, %k] : memref<32xf32> -> !sparse.buffer<2 x f32>
  %Y = sparse.buffer %y [%dj, %k] : memref<48xf32> -> !sparse.buffer<2 x f32>
  sparse.iteration [%i, %j, %k] [#sparse.iterator<spatial>, #sparse.iterator<spatial>, #sparse.iterator<reduction>] do {
  ^bb0(%vi: index, %vj: index, %vk: index):
    %u = sparse.load %X[%vi, %vk] : !sparse.buffer<2 x f32>
    %w = sparse.load %Y[%vj, %vk] : !sparse.buffer<2 x f32>
    %acc = sparse.load %A[%vi, %vj] : !sparse.buffer<2 x f32>
    %p = arith.mulf %u, %w : f32
    %s = arith.addf %acc, %p : f32
    sparse.store %s, %A[%vi, %vj] : !sparse.buffer<2 x f32>
  }
  return
}

// -----

// Rows of 65536 features: the sum runs over four chunks (16384 f32 per
// tile: half the vector memory over X, Y, their product and one spare
// tile), carried from one chunk's vreduce to the next chunk's slot 0.
// CHECK-LABEL: func.func @long_sddmm
// CHECK: %[[ACC:.*]] = sparse.pos_load
// CHECK: %[[S:.*]] = scf.for %{{.*}} = %c0 to %c65536 step %c16384 iter_args(%[[C:.*]] = %[[ACC]]) -> (f32)
// CHECK: npudev.vbinary <mul>
// CHECK: memref.store %[[C]]
// CHECK: npudev.vreduce <sum>
// CHECK: %[[NEXT:.*]] = memref.load
// CHECK: scf.yield %[[NEXT]] : f32
// CHECK: sparse.pos_store %[[S]]
func.func @long_sddmm(%indptr: memref<5xi32>, %indices: memref<?xi32>, %a: memref<?xf32>, %x: memref<262144xf32>, %y: memref<393216xf32>) {
  %i = sparse.axis dense_fixed length 4
  %j = sparse.axis sparse_variable parent %i length 6 indptr %indptr : memref<5xi32> indices %indices : memref<?xi32> sorted
  %dj = sparse.axis dense_fixed length 6
  %k = sparse.axis dense_fixed length 65536
  %A = sparse.buffer %a [%i, %j] : memref<?xf32> -> !sparse.buffer<2 x f32>
  %X = sparse.buffer %x [%i, %k] : memref<262144xf32> -> !sparse.buffer<2 x f32>
  %Y = sparse.buffer %y [%dj, %k] : memref<393216xf32> -> !sparse.buffer<2 x f32>
  sparse.iteration [%i, %j, %k] [#sparse.iterator<spatial>, #sparse.iterator<spatial>, #sparse.iterator<reduction>] do {
  ^bb0(%vi: index, %vj: index, %vk: index):
    %u = sparse.load %X[%vi, %vk] : !sparse.buffer<2 x f32>
    %w = sparse.load %Y[%vj, %vk] : !sparse.buffer<2 x f32>
    %acc = sparse.load %A[%vi, %vj] : !sparse.buffer<2 x f32>
    %p = arith.mulf %u, %w : f32
    %s = arith.addf %acc, %p : f32
    sparse.store %s, %A[%vi, %vj] : !sparse.buffer<2 x f32>
  }
  return
}

// -----

// A body with an op that has no vector form stays a scalar loop.
// CHECK-LABEL: func.func @not_arithmetic
// CHECK-NOT: npudev.alloc
// CHECK: scf.for
// CHECK: scf.for %{{.*}} = %c0 to %c8 step %c1
// CHECK: math.exp
// CHECK-NOT: npudev.dma
func.func @not_arithmetic(%x: memref<32xf32>, %y: memref<32xf32>) {
  %i = sparse.axis dense_fixed length 4
  %k = sparse.axis dense_fixed length 8
  %X = sparse.buffer %x [%i, %k] : memref<32xf32> -> !sparse.buffer<2 x f32>
  %Y = sparse.buffer %y [%i, %k] : memref<32xf32> -> !sparse.buffer<2 x f32>
  sparse.iteration [%i, %k] [#sparse.iterator<spatial>, #sparse.iterator<spatial>] do {
  ^bb0(%vi: index, %vk: index):
    %v = sparse.load %X[%vi, %vk] : !sparse.buffer<2 x f32>
    %e = math.exp %v : f32
    sparse.store %e, %Y[%vi, %vk] : !sparse.buffer<2 x f32>
  }
  return
}
