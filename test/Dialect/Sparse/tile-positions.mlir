// npu-sparse-tile-positions: a row's nonzero loop around a dense-axis loop
// as chunks of gathered [T, F] tiles, the sum reduced per chunk by vreduce.
// RUN: npu-opt %s --split-input-file --npu-sparse-to-device=tasks=2 --npu-sparse-lower-iterations --npu-sparse-tile-positions --canonicalize | FileCheck %s

// SpMM, C[i, :] += A[i, j] B[j, :]. C's row is read once before the
// chunks and written once after; per chunk the column indices and A's
// values come in by one DMA each, B's rows by one dma_gather on those
// indices, A's values scale the rows (broadcast along 0) into rows 1..m
// of the terms' tile under the running row (row 0), and a transpose and a
// vreduce add each column in order.
// The first chunk runs in the row loop, the rest (rows longer than a
// chunk) in a loop of their own.
// An empty row does nothing, so the row loop runs at the rows with
// nonzeros only: per block of 256 rows, a scalar loop lists each row and
// its bounds at the count so far, which a non-empty run advances, and the
// body runs at the listed rows, reading them from the lists. C's row is
// the row's own (C[i, :]): its copy in promises so (private_window), so
// that pipelining may read it ahead of the rows before it. No chunk is
// empty then: the vector work runs unchecked.
// CHECK-LABEL: func.func @spmm
// CHECK: %[[ACC:.*]] = npudev.alloc : memref<8xf32, #npudev.space<vector>>
// CHECK: %[[TRANSPOSED:.*]] = npudev.alloc : memref<8x[[T1:[0-9]+]]xf32, #npudev.space<vector>>
// CHECK: %[[TERMS:.*]] = npudev.alloc : memref<[[T1]]x8xf32, #npudev.space<vector>>
// CHECK: %[[ROWS:.*]] = npudev.alloc : memref<[[T:[0-9]+]]x8xf32, #npudev.space<vector>>
// CHECK: scf.for %[[FIRST:.*]] = %{{.*}} to %{{.*}} step %c256 {
// CHECK: %[[COUNT:.*]] = scf.for %[[Q:.*]] = %c0 to %{{.*}} step %c1 iter_args(%[[N:.*]] = %c0) -> (index) {
// CHECK-NEXT: %[[I:.*]] = arith.addi %[[FIRST]], %[[Q]] : index
// CHECK-NEXT: %[[LO:.*]] = memref.load %arg0[%[[I]]]
// CHECK: %[[HI:.*]] = memref.load %arg0[%{{.*}}]
// CHECK: %[[LEN:.*]] = arith.subi
// CHECK: %[[I32:.*]] = arith.index_cast %[[I]] : index to i32
// CHECK-NEXT: memref.store %[[I32]], %[[ILIST:.*]][%[[N]]]
// CHECK-NEXT: memref.store %[[LO]], %[[LOLIST:.*]][%[[N]]]
// CHECK-NEXT: memref.store %[[HI]], %[[HILIST:.*]][%[[N]]]
// CHECK-NEXT: %[[NONEMPTY:.*]] = arith.cmpi sgt, %[[LEN]], %c0 : index
// CHECK-NEXT: %[[NEXT:.*]] = arith.addi %[[N]], %c1 : index
// CHECK-NEXT: %[[N2:.*]] = arith.select %[[NONEMPTY]], %[[NEXT]], %[[N]] : index
// CHECK-NEXT: scf.yield %[[N2]] : index
// CHECK: scf.for %[[P:.*]] = %c0 to %[[COUNT]] step %c1 {
// CHECK-NEXT: memref.load %[[ILIST]][%[[P]]]
// CHECK: memref.load %[[LOLIST]][%[[P]]]
// CHECK: memref.load %[[HILIST]][%[[P]]]
// CHECK-NOT: memref.load %arg0
// CHECK: npudev.dma %[[ROW:.*]], %[[ACC]] {private_window} : memref<8xf32, strided<[1], offset: ?>, #npudev.space<global>> to memref<8xf32, #npudev.space<vector>>
// CHECK: npudev.dma %{{.*}}, %[[INDICES:.*]] : memref<?xi32, strided<[1], offset: ?>, #npudev.space<global>> to memref<?xi32
// CHECK: npudev.dma %{{.*}}, %[[VALUES:.*]] : memref<?xf32, strided<[1], offset: ?>, #npudev.space<global>> to memref<?xf32
// CHECK: %[[TABLE:.*]] = memref.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [6, 8]
// CHECK-NEXT: npudev.dma_gather %[[TABLE]][%[[INDICES]]], %[[GATHERED:[a-z_0-9]+]]
// CHECK-NOT: scf.if
// CHECK: npudev.vbinary_scalar <mul> %[[ACC]], %cst
// CHECK: npudev.vbinary_broadcast <mul> %[[GATHERED]], %[[VALUES]], %{{.*}} along 0
// CHECK: npudev.vtranspose
// CHECK-NEXT: npudev.vreduce <sum> %{{.*}}, %[[ACC]] : memref<8x?xf32
// CHECK-NEXT: scf.for %{{.*}} = %c[[T]] to %{{.*}} step %c[[T]] {
// CHECK-NOT: scf.if
// CHECK: npudev.dma_gather
// CHECK: npudev.vreduce <sum> %{{.*}}, %[[ACC]]
// CHECK-NEXT: }
// CHECK-NEXT: npudev.dma %[[ACC]], %[[ROW]]
// CHECK-NEXT: }
// CHECK-NEXT: }
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

// -----

// SDDMM, A[i, j] = sum_k X[i, k] Y[j, k]. X's row is read once; per chunk
// Y's rows are gathered, scaled by X's row (broadcast along 1) into
// columns 1..F of the terms' tile, A's current values copied into column
// 0 (their copy promises that no other row writes them: CSR runs do not
// overlap), and one vreduce along k gives the chunk's results, DMA'd back.
// Its rows are listed as SpMM's are.
// CHECK-LABEL: func.func @sddmm
// CHECK: scf.for {{.*}} iter_args
// CHECK: scf.for
// CHECK: npudev.dma %{{.*}}, %[[XROW:.*]] : memref<8xf32, strided<[1], offset: ?>, #npudev.space<global>> to memref<8xf32, #npudev.space<vector>>
// CHECK: npudev.dma %{{.*}}, %{{.*}} {private_window} : memref<?xf32
// CHECK: npudev.dma_gather %{{.*}}, %[[GATHERED:[a-z_0-9]+]]
// CHECK: npudev.vbinary_scalar <mul> %{{.*}}, %cst, %{{.*}} : memref<?xf32, strided<[1], offset: ?>, #npudev.space<vector>>, f32, memref<?xf32, strided<[9], offset: ?>
// CHECK: npudev.vbinary_broadcast <mul> %[[GATHERED]], %[[XROW]], %{{.*}} along 1
// CHECK: npudev.vreduce <sum> %{{.*}}, %[[RESULTS:.*]] : memref<?x9xf32
// CHECK: npudev.dma %[[RESULTS]], %{{.*}} : memref<?xf32, strided<[1], offset: ?>, #npudev.space<vector>> to memref<?xf32, strided<[1], offset: ?>, #npudev.space<global>>
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

// SDDMM with its zero fill: npu-sparse-lower-iterations starts the sum
// from the constant (no init nest), so column 0 of the terms' tile is
// filled with it once, where the tile is allocated, and no start is read;
// the rows are listed, so no chunk is empty and the vector work needs no
// check.
// CHECK-LABEL: func.func @sddmm_zero_start
// CHECK: %[[TERMS:.*]] = npudev.alloc : memref<1024x9xf32, #npudev.space<vector>>
// CHECK: %[[COLUMN:.*]] = memref.subview %[[TERMS]][0, 0] [1024, 1] [1, 1]
// CHECK: npudev.vfill %cst, %{{.*}} : f32, memref<1024xf32, strided<[9], offset: ?>
// CHECK: scf.for {{.*}} iter_args
// CHECK: scf.for
// CHECK-NOT: private_window
// CHECK-NOT: scf.if
// CHECK: npudev.dma_gather
// CHECK-NOT: scf.if
// CHECK: npudev.vreduce <sum>
// CHECK-NEXT: memref.subview
// CHECK-NEXT: npudev.dma
func.func @sddmm_zero_start(%indptr: memref<5xi32>, %indices: memref<?xi32>, %a: memref<?xf32>, %x: memref<32xf32>, %y: memref<48xf32>) {
  %i = sparse.axis dense_fixed length 4
  %j = sparse.axis sparse_variable parent %i length 6 indptr %indptr : memref<5xi32> indices %indices : memref<?xi32> sorted
  %dj = sparse.axis dense_fixed length 6
  %k = sparse.axis dense_fixed length 8
  %A = sparse.buffer %a [%i, %j] : memref<?xf32> -> !sparse.buffer<2 x f32>
  %X = sparse.buffer %x [%i, %k] : memref<32xf32> -> !sparse.buffer<2 x f32>
  %Y = sparse.buffer %y [%dj, %k] : memref<48xf32> -> !sparse.buffer<2 x f32>
  sparse.iteration [%i, %j, %k] [#sparse.iterator<spatial>, #sparse.iterator<spatial>, #sparse.iterator<reduction>] init {
  ^bb0(%vi: index, %vj: index):
    %zero = arith.constant 0.0 : f32
    sparse.store %zero, %A[%vi, %vj] : !sparse.buffer<2 x f32>
  } do {
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

// Every row adds into one row, C[0, :]: the row is not the row's own, so
// its copy in makes no promise and the row loop is not compacted (rows are
// still taken one after another, empty ones included); a row's first
// chunk may then be empty, and its vector work is skipped when it is
// (vreduce would turn a -0.0 into +0.0).
// CHECK-LABEL: func.func @spmm_one_row
// CHECK-NOT: iter_args
// CHECK-NOT: private_window
// CHECK: npudev.dma_gather
// CHECK-NOT: private_window
// CHECK: %[[ANY:.*]] = arith.cmpi sgt, %{{.*}}, %c0 : index
// CHECK-NEXT: scf.if %[[ANY]] {
// CHECK: npudev.vreduce
// CHECK: return
func.func @spmm_one_row(%indptr: memref<5xi32>, %indices: memref<?xi32>, %a: memref<?xf32>, %b: memref<48xf32>, %c: memref<32xf32>) {
  %i = sparse.axis dense_fixed length 4
  %j = sparse.axis sparse_variable parent %i length 6 indptr %indptr : memref<5xi32> indices %indices : memref<?xi32> sorted
  %dj = sparse.axis dense_fixed length 6
  %k = sparse.axis dense_fixed length 8
  %A = sparse.buffer %a [%i, %j] : memref<?xf32> -> !sparse.buffer<2 x f32>
  %B = sparse.buffer %b [%dj, %k] : memref<48xf32> -> !sparse.buffer<2 x f32>
  %C = sparse.buffer %c [%i, %k] : memref<32xf32> -> !sparse.buffer<2 x f32>
  sparse.iteration [%i, %j, %k] [#sparse.iterator<spatial>, #sparse.iterator<reduction>, #sparse.iterator<spatial>] do {
  ^bb0(%vi: index, %vj: index, %vk: index):
    %zero = arith.constant 0 : index
    %x = sparse.load %A[%vi, %vj] : !sparse.buffer<2 x f32>
    %y = sparse.load %B[%vj, %vk] : !sparse.buffer<2 x f32>
    %acc = sparse.load %C[%zero, %vk] : !sparse.buffer<2 x f32>
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    sparse.store %s, %C[%zero, %vk] : !sparse.buffer<2 x f32>
  }
  return
}

// -----

// A sum over the nonzeros of something other than a product's tile (here
// C's row plus A's value, fixed along k): no [T, F] term to reduce, the
// loops stay.
// CHECK-LABEL: func.func @column_sum
// CHECK-NOT: npudev.dma_gather
// CHECK: sparse.pos_load
func.func @column_sum(%indptr: memref<5xi32>, %indices: memref<?xi32>, %a: memref<?xf32>, %c: memref<32xf32>) {
  %i = sparse.axis dense_fixed length 4
  %j = sparse.axis sparse_variable parent %i length 6 indptr %indptr : memref<5xi32> indices %indices : memref<?xi32> sorted
  %k = sparse.axis dense_fixed length 8
  %A = sparse.buffer %a [%i, %j] : memref<?xf32> -> !sparse.buffer<2 x f32>
  %C = sparse.buffer %c [%i, %k] : memref<32xf32> -> !sparse.buffer<2 x f32>
  sparse.iteration [%i, %j, %k] [#sparse.iterator<spatial>, #sparse.iterator<reduction>, #sparse.iterator<spatial>] do {
  ^bb0(%vi: index, %vj: index, %vk: index):
    %x = sparse.load %A[%vi, %vj] : !sparse.buffer<2 x f32>
    %acc = sparse.load %C[%vi, %vk] : !sparse.buffer<2 x f32>
    %s = arith.addf %acc, %x : f32
    sparse.store %s, %C[%vi, %vk] : !sparse.buffer<2 x f32>
  }
  return
}

// -----

// The chunk size T on mlu590 (512 KiB of vector memory), F = 256: half
// the memory less 8 F bytes, 260,096 bytes,
// over what a position takes: a row of F in each of the sum's three
// tiles (3,072 bytes) and in each of the two [T, F] tiles (the gathered
// rows of B and the products: 2,048), and four 4-byte scalars (16), 5,136
// bytes. T = 50 (42 if the gathered rows were counted twice).
// CHECK-LABEL: func.func @spmm_wide
// CHECK: npudev.alloc : memref<256x51xf32, #npudev.space<vector>>
// CHECK: npudev.alloc : memref<51x256xf32, #npudev.space<vector>>
// CHECK: npudev.alloc : memref<50x256xf32, #npudev.space<vector>>
func.func @spmm_wide(%indptr: memref<5xi32>, %indices: memref<?xi32>, %a: memref<?xf32>, %b: memref<1536xf32>, %c: memref<1024xf32>) {
  %i = sparse.axis dense_fixed length 4
  %j = sparse.axis sparse_variable parent %i length 6 indptr %indptr : memref<5xi32> indices %indices : memref<?xi32> sorted
  %dj = sparse.axis dense_fixed length 6
  %k = sparse.axis dense_fixed length 256
  %A = sparse.buffer %a [%i, %j] : memref<?xf32> -> !sparse.buffer<2 x f32>
  %B = sparse.buffer %b [%dj, %k] : memref<1536xf32> -> !sparse.buffer<2 x f32>
  %C = sparse.buffer %c [%i, %k] : memref<1024xf32> -> !sparse.buffer<2 x f32>
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
