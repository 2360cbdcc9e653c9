// Accesses npu-sparse-lower-iterations cannot lower, each with its diagnostic.
// RUN: npu-opt %s --split-input-file --npu-sparse-lower-iterations --verify-diagnostics

func.func @store_creates_nonzero(%ap: memref<5xi32>, %ai: memref<?xi32>, %mp: memref<5xi32>, %mi: memref<?xi32>, %m: memref<?xf32>, %v: f32) {
  %i = sparse.axis dense_fixed length 4
  %j = sparse.axis sparse_variable parent %i length 6 indptr %ap : memref<5xi32> indices %ai : memref<?xi32> sorted
  %mj = sparse.axis sparse_variable parent %i length 6 indptr %mp : memref<5xi32> indices %mi : memref<?xi32> sorted
  %M = sparse.buffer %m [%i, %mj] : memref<?xf32> -> !sparse.buffer<2 x f32>
  sparse.iteration [%i, %j] [#sparse.iterator<spatial>, #sparse.iterator<spatial>] do {
  ^bb0(%vi: index, %vj: index):
    // expected-error @+1 {{stores at a coordinate of axis #1 (sparse_variable) of its buffer that is not that axis's own iterated coordinate: a store cannot create a nonzero}}
    sparse.store %v, %M[%vi, %vj] : !sparse.buffer<2 x f32>
  }
  return
}

// -----

func.func @search_unsorted(%ap: memref<5xi32>, %ai: memref<?xi32>, %mp: memref<5xi32>, %mi: memref<?xi32>, %m: memref<?xf32>) {
  %i = sparse.axis dense_fixed length 4
  %j = sparse.axis sparse_variable parent %i length 6 indptr %ap : memref<5xi32> indices %ai : memref<?xi32> sorted
  %mj = sparse.axis sparse_variable parent %i length 6 indptr %mp : memref<5xi32> indices %mi : memref<?xi32>
  %M = sparse.buffer %m [%i, %mj] : memref<?xf32> -> !sparse.buffer<2 x f32>
  sparse.iteration [%i, %j] [#sparse.iterator<spatial>, #sparse.iterator<spatial>] do {
  ^bb0(%vi: index, %vj: index):
    // expected-error @+1 {{looks up a coordinate in axis #1 (sparse_variable) of its buffer, which is not declared sorted}}
    %x = sparse.load %M[%vi, %vj] : !sparse.buffer<2 x f32>
  }
  return
}

// -----

func.func @buffer_not_defined(%B: !sparse.buffer<1 x f32>) {
  %i = sparse.axis dense_fixed length 4
  sparse.iteration [%i] [#sparse.iterator<spatial>] do {
  ^bb0(%vi: index):
    // expected-error @+1 {{needs its buffer defined by sparse.buffer}}
    %x = sparse.load %B[%vi] : !sparse.buffer<1 x f32>
  }
  return
}

// -----

func.func @undecomposed(%p: memref<5xi32>, %c: memref<?xi32>) {
  %i = sparse.axis dense_fixed length 4
  %j = sparse.axis sparse_variable parent %i length 4 indptr %p : memref<5xi32> indices %c : memref<?xi32>
  // expected-error @+1 {{asks for a hybrid ELL + CSR split: run npu-sparse-decompose first}}
  sparse.iteration [%i, %j] [#sparse.iterator<spatial>, #sparse.iterator<spatial>] do {
  ^bb0(%vi: index, %vj: index):
  } {hybrid_ell_width = 2 : i64}
  return
}
