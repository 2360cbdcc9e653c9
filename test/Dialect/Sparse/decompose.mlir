// The hybrid ELL + CSR split: one copy launch, then one iteration per part.
// RUN: npu-opt %s --split-input-file --npu-sparse-decompose --verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @spmm_split
// CHECK-SAME: (%[[PTR:[^:]*]]: memref<5xi32>, %[[IDX:[^:]*]]: memref<?xi32>, %[[A:[^:]*]]: memref<?xf32>
// CHECK: %[[I:.*]] = sparse.axis dense_fixed length 4
// CHECK: %[[J:.*]] = sparse.axis sparse_variable
// CHECK: %[[ELLIDX:.*]] = memref.alloc(%c12) : memref<?xi32>
// CHECK: %[[RESTPTR:.*]] = memref.alloc(%c5) : memref<?xi32>
// CHECK: %[[RESTIDX:.*]] = memref.alloc(%{{.*}}) : memref<?xi32>
// CHECK: %[[ELLVAL:.*]] = memref.alloc(%c12) : memref<?xf32>
// CHECK: %[[RESTVAL:.*]] = memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK: %[[E:.*]] = sparse.axis sparse_fixed parent %[[I]] length 6 nnz_cols 3 indices %[[ELLIDX]] : memref<?xi32>
// CHECK: %[[R:.*]] = sparse.axis sparse_variable parent %[[I]] length 6 indptr %[[RESTPTR]] : memref<?xi32> indices %[[RESTIDX]] : memref<?xi32> sorted
// CHECK: npudev.launch tasks(1) on vector {
// CHECK: scf.for
// CHECK: scf.if
// CHECK: memref.store %{{.*}}, %[[ELLVAL]]
// CHECK: } else {
// CHECK: memref.store %{{.*}}, %[[ELLVAL]]
// CHECK: memref.store %{{.*}}, %[[RESTPTR]]
// CHECK: memref.store %{{.*}}, %[[RESTVAL]]
// CHECK: }
// CHECK: %[[AE:.*]] = sparse.buffer %[[ELLVAL]] [%[[I]], %[[E]]]
// CHECK: %[[AR:.*]] = sparse.buffer %[[RESTVAL]] [%[[I]], %[[R]]]
// CHECK: sparse.iteration [%[[I]], %[[E]], %{{.*}}] {{.*}} init {
// CHECK: sparse.load %[[AE]]
// CHECK-NOT: init
// CHECK: sparse.iteration [%[[I]], %[[R]], %{{.*}}] {{.*}} do {
// CHECK: sparse.load %[[AR]]
// CHECK-NOT: hybrid_ell_width
// CHECK: memref.dealloc %[[ELLIDX]]
func.func @spmm_split(%indptr: memref<5xi32>, %indices: memref<?xi32>, %a: memref<?xf32>, %b: memref<48xf32>, %c: memref<32xf32>) {
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
  } {hybrid_ell_width = 3 : i64}
  return
}

// -----

func.func @writes_split_buffer(%indptr: memref<5xi32>, %indices: memref<?xi32>, %a: memref<?xf32>) {
  %i = sparse.axis dense_fixed length 4
  %j = sparse.axis sparse_variable parent %i length 6 indptr %indptr : memref<5xi32> indices %indices : memref<?xi32> sorted
  %A = sparse.buffer %a [%i, %j] : memref<?xf32> -> !sparse.buffer<2 x f32>
  sparse.iteration [%i, %j] [#sparse.iterator<spatial>, #sparse.iterator<spatial>] do {
  ^bb0(%vi: index, %vj: index):
    %one = arith.constant 1.0 : f32
    // expected-error @+1 {{writes a buffer over the axis npu-sparse-decompose splits; the parts are copies, so it must be read-only}}
    sparse.store %one, %A[%vi, %vj] : !sparse.buffer<2 x f32>
  } {hybrid_ell_width = 2 : i64}
  return
}

// -----

func.func @blocked_buffer(%indptr: memref<5xi32>, %indices: memref<?xi32>, %a: memref<?xf32>) {
  %i = sparse.axis dense_fixed length 4
  %j = sparse.axis sparse_variable parent %i length 6 indptr %indptr : memref<5xi32> indices %indices : memref<?xi32> sorted
  %bi = sparse.axis dense_fixed length 2
  // expected-error @+1 {{is over the axis npu-sparse-decompose splits; it can split buffers over exactly [rows, columns] only}}
  %A = sparse.buffer %a [%i, %j, %bi] : memref<?xf32> -> !sparse.buffer<3 x f32>
  sparse.iteration [%i, %j] [#sparse.iterator<spatial>, #sparse.iterator<spatial>] do {
  ^bb0(%vi: index, %vj: index):
  } {hybrid_ell_width = 2 : i64}
  return
}

// -----

func.func @no_columns(%indptr: memref<5xi32>, %indices: memref<?xi32>, %a: memref<?xf32>) {
  %i = sparse.axis dense_fixed length 4
  %j = sparse.axis sparse_variable parent %i length 0 indptr %indptr : memref<5xi32> indices %indices : memref<?xi32>
  %A = sparse.buffer %a [%i, %j] : memref<?xf32> -> !sparse.buffer<2 x f32>
  // expected-error @+1 {{cannot be split into ELL + CSR: its column axis has length 0, so there is no coordinate to pad with}}
  sparse.iteration [%i, %j] [#sparse.iterator<spatial>, #sparse.iterator<spatial>] do {
  ^bb0(%vi: index, %vj: index):
    %x = sparse.load %A[%vi, %vj] : !sparse.buffer<2 x f32>
  } {hybrid_ell_width = 2 : i64}
  return
}
