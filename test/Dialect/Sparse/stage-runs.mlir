// npu-sparse-stage-runs: runs of read-only arrays that a loop reads at q + c staged in
// vector memory per chunk (here 2 positions, so rows cross chunks).
// RUN: npu-opt %s --split-input-file --npu-sparse-to-device=tasks=2 --npu-sparse-lower-iterations --npu-sparse-tile-dense-axis --npu-sparse-stage-runs=chunk=2 --canonicalize | FileCheck %s
// RUN: not npu-opt %s --split-input-file --npu-sparse-stage-runs=chunk=0 2>&1 | FileCheck %s --check-prefix=CHUNK

// CHUNK: error: npu-sparse-stage-runs: chunk must be at least 1, got 0

// The row loop stages indptr[i] and indptr[i + 1] (two runs, started
// together); the loop over a row's nonzeros stages its indices and A's
// values. Reads of B's rows (at a coordinate, not q + c) stay DMAs.
// CHECK-LABEL: func.func @spmm
// CHECK: npudev.launch tasks(2) on vector {
// CHECK-DAG: %[[PTR0:[0-9]+]] = npudev.alloc : memref<2xi32, #npudev.space<vector>>
// CHECK-DAG: %[[PTR1:[0-9]+]] = npudev.alloc : memref<2xi32, #npudev.space<vector>>
// CHECK-DAG: %[[IDX:[0-9]+]] = npudev.alloc : memref<2xi32, #npudev.space<vector>>
// CHECK-DAG: %[[VAL:[0-9]+]] = npudev.alloc : memref<2xf32, #npudev.space<vector>>
// CHECK: scf.for %[[R0:.*]] = %{{.*}} to %[[REND:.*]] step %c2 {
// CHECK: %[[RLEFT:.*]] = arith.subi %[[REND]], %[[R0]]
// CHECK: %[[RN:.*]] = arith.minui %[[RLEFT]], %c2
// CHECK: memref.subview %arg0[%[[R0]]] [%[[RN]]] [1]
// CHECK: %[[T0:.*]] = npudev.dma_start
// CHECK: %[[R1:.*]] = arith.addi %[[R0]], %c1
// CHECK: memref.subview %arg0[%[[R1]]] [%[[RN]]] [1]
// CHECK: %[[T1:.*]] = npudev.dma_start
// CHECK: npudev.wait %[[T0]]
// CHECK-NEXT: npudev.wait %[[T1]]
// CHECK-NEXT: scf.for %[[R:.*]] = %c0 to %[[RN]] step %c1 {
// CHECK-DAG: memref.load %[[PTR0]][%[[R]]]
// CHECK-DAG: memref.load %[[PTR1]][%[[R]]]
// CHECK: scf.for %[[N0:.*]] = %c0 to %{{.*}} step %c2 {
// CHECK: npudev.dma_start
// CHECK: npudev.dma_start
// CHECK: npudev.wait
// CHECK: npudev.wait
// CHECK: scf.for %[[N:.*]] = %c0 to %{{.*}} step %c1 {
// CHECK-DAG: memref.load %[[IDX]][%[[N]]]
// CHECK-DAG: memref.load %[[VAL]][%[[N]]]
// CHECK: npudev.dma {{.*}} to memref<?xf32, strided<[1], offset: ?>, #npudev.space<vector>>
// CHECK: npudev.vbinary_scalar <mul>
// CHECK-NOT: memref.load %arg
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

// Not staged: an array the loop reads at q and writes at q + 1 (what one
// iteration writes, the next reads), and a read that runs only under a
// condition (%b: its last elements need not exist). %a, read on every
// iteration, is.
// CHECK-LABEL: func.func @unstageable
// CHECK: %[[A:.*]] = npudev.alloc : memref<2xf32, #npudev.space<vector>>
// CHECK-NOT: npudev.alloc
// CHECK: npudev.dma_start %{{.*}}, %{{.*}} : memref<?xf32, strided<[1], offset: ?>, #npudev.space<global>>
// CHECK-NOT: npudev.dma_start
// CHECK: memref.load %[[A]]
// CHECK-DAG: memref.load %arg1
// CHECK-DAG: memref.load %arg2
func.func @unstageable(%a: memref<16xf32, #npudev.space<global>>, %b: memref<16xf32, #npudev.space<global>>, %o: memref<17xf32, #npudev.space<global>>, %n: index) {
  npudev.launch tasks(1) on vector {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    scf.for %q = %c0 to %n step %c1 {
      %x = memref.load %a[%q] : memref<16xf32, #npudev.space<global>>
      %y = memref.load %o[%q] : memref<17xf32, #npudev.space<global>>
      %s = arith.addf %x, %y : f32
      %small = arith.cmpi ult, %q, %c8 : index
      %t = scf.if %small -> f32 {
        %z = memref.load %b[%q] : memref<16xf32, #npudev.space<global>>
        scf.yield %z : f32
      } else {
        scf.yield %s : f32
      }
      %next = arith.addi %q, %c1 : index
      memref.store %t, %o[%next] : memref<17xf32, #npudev.space<global>>
    }
    npudev.end
  }
  return
}

// -----

// The same through a sparse buffer: its position stores write %o, so the
// reads of %o at q stay scalar reads of global memory.
// CHECK-LABEL: func.func @buffer_written
// CHECK-COUNT-1: npudev.alloc
// CHECK-NOT: npudev.alloc
// CHECK: memref.load %arg1
func.func @buffer_written(%a: memref<16xf32, #npudev.space<global>>, %o: memref<17xf32, #npudev.space<global>>, %n: index) {
  %i = sparse.axis dense_fixed length 17
  %O = sparse.buffer %o [%i] : memref<17xf32, #npudev.space<global>> -> !sparse.buffer<1 x f32>
  npudev.launch tasks(1) on vector {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %q = %c0 to %n step %c1 {
      %x = memref.load %a[%q] : memref<16xf32, #npudev.space<global>>
      %y = memref.load %o[%q] : memref<17xf32, #npudev.space<global>>
      %s = arith.addf %x, %y : f32
      %next = arith.addi %q, %c1 : index
      sparse.pos_store %s, %O[%next] : !sparse.buffer<1 x f32>
    }
    npudev.end
  }
  return
}

// -----

// An array read and written at q alone (each iteration updates its own
// element): copied in per chunk, updated in the copy, copied back. An
// array only ever set to one constant on every iteration is not copied
// in: its copy is filled once, where it is allocated, and only copied out.
// CHECK-LABEL: func.func @updated
// CHECK-DAG: %[[A:.*]] = npudev.alloc : memref<2xf32, #npudev.space<vector>>
// CHECK-DAG: %[[O:.*]] = npudev.alloc : memref<2xf32, #npudev.space<vector>>
// CHECK-DAG: %[[Z:.*]] = npudev.alloc : memref<2xf32, #npudev.space<vector>>
// CHECK-DAG: npudev.vfill %cst{{.*}}, %[[Z]]
// CHECK: scf.for %[[C0:.*]] = %c0 to %{{.*}} step %c2 {
// CHECK: memref.subview %arg0[%[[C0]]]
// CHECK: npudev.dma_start
// CHECK: memref.subview %arg1[%[[C0]]]
// CHECK: npudev.dma_start
// CHECK-NOT: npudev.dma_start
// CHECK: scf.for %[[Q:.*]] = %c0 to %[[M:.*]] step %c1 {
// CHECK-DAG: memref.load %[[A]][%[[Q]]]
// CHECK-DAG: memref.load %[[O]][%[[Q]]]
// CHECK-DAG: memref.store %{{.*}}, %[[O]][%[[Q]]]
// CHECK-NOT: memref.store %{{.*}}, %[[Z]]
// CHECK: }
// CHECK: memref.subview %arg1[%[[C0]]] [%[[M]]] [1]
// CHECK: npudev.dma %{{.*}}, %{{.*}} : {{.*}} to memref<?xf32, strided<[1], offset: ?>, #npudev.space<global>>
// CHECK: memref.subview %arg2[%[[C0]]] [%[[M]]] [1]
// CHECK: npudev.dma %{{.*}}, %{{.*}} : {{.*}} to memref<?xf32, strided<[1], offset: ?>, #npudev.space<global>>
// CHECK-NOT: memref.load %arg
// CHECK-NOT: memref.store {{.*}} %arg
func.func @updated(%a: memref<16xf32, #npudev.space<global>>, %o: memref<16xf32, #npudev.space<global>>, %z: memref<16xf32, #npudev.space<global>>, %n: index) {
  npudev.launch tasks(1) on vector {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f32
    scf.for %q = %c0 to %n step %c1 {
      %x = memref.load %a[%q] : memref<16xf32, #npudev.space<global>>
      %y = memref.load %o[%q] : memref<16xf32, #npudev.space<global>>
      %s = arith.addf %x, %y : f32
      memref.store %s, %o[%q] : memref<16xf32, #npudev.space<global>>
      memref.store %zero, %z[%q] : memref<16xf32, #npudev.space<global>>
    }
    npudev.end
  }
  return
}

// -----

// Loop-carried values pass through both loops.
// CHECK-LABEL: func.func @carried
// CHECK: %[[SUM:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c2 iter_args(%[[OUTER:.*]] = %cst) -> (f32) {
// CHECK: npudev.dma_start
// CHECK: %[[INNER:.*]] = scf.for %{{.*}} = %c0 to %{{.*}} step %c1 iter_args(%[[ACC:.*]] = %[[OUTER]]) -> (f32) {
// CHECK: arith.addf %[[ACC]]
// CHECK: scf.yield %[[INNER]] : f32
// CHECK: memref.store %[[SUM]]
func.func @carried(%a: memref<16xf32, #npudev.space<global>>, %o: memref<1xf32, #npudev.space<global>>, %n: index) {
  npudev.launch tasks(1) on vector {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f32
    %sum = scf.for %q = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) {
      %x = memref.load %a[%q] : memref<16xf32, #npudev.space<global>>
      %s = arith.addf %acc, %x : f32
      scf.yield %s : f32
    }
    memref.store %sum, %o[%c0] : memref<1xf32, #npudev.space<global>>
    npudev.end
  }
  return
}

// -----

// a[q - 1] and a[q] for q in [1, n): two runs, the first starting one
// before the chunk (the checked mode reads indptr this way).
// CHECK-LABEL: func.func @previous
// CHECK: scf.for %[[C0:.*]] = %c1 to %{{.*}} step %c2
// CHECK: %[[PREV:.*]] = arith.addi %[[C0]], %c-1
// CHECK: memref.subview %arg0[%[[PREV]]]
// CHECK: npudev.dma_start
// CHECK: memref.subview %arg0[%[[C0]]]
// CHECK: npudev.dma_start
// CHECK-NOT: memref.load %arg0
func.func @previous(%a: memref<16xi32, #npudev.space<global>>, %o: memref<16xi1, #npudev.space<global>>, %n: index) {
  npudev.launch tasks(1) on vector {
    %c1 = arith.constant 1 : index
    scf.for %q = %c1 to %n step %c1 {
      %p = arith.subi %q, %c1 : index
      %x = memref.load %a[%p] : memref<16xi32, #npudev.space<global>>
      %y = memref.load %a[%q] : memref<16xi32, #npudev.space<global>>
      %up = arith.cmpi sle, %x, %y : i32
      memref.store %up, %o[%q] : memref<16xi1, #npudev.space<global>>
    }
    npudev.end
  }
  return
}

// -----

// Copies that would not fit in the vector memory: the loop stays.
// RUN: npu-opt %s --split-input-file --npu-sparse-stage-runs=chunk=1000000 | FileCheck %s --check-prefix=LARGE
// LARGE-LABEL: func.func @carried
// LARGE-NOT: npudev.dma_start
// LARGE: memref.load %arg0
