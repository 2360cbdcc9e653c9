// The sparse dialect's formats (CSR, BSR, ELL, DCSR, CSF, a ragged tensor,
// SparseTIR's irregular batched matmul) and iterations, printed and parsed
// back.
// RUN: npu-opt %s --split-input-file | npu-opt | FileCheck %s

// CSR: a dense-fixed row axis and a sorted sparse-variable column axis;
// SpMM C[i, k] = sum_j A[i, j] B[j, k], j a reduction.
// CHECK-LABEL: func.func @csr_spmm
// CHECK: %[[I:.*]] = sparse.axis dense_fixed length 4
// CHECK: %[[J:.*]] = sparse.axis sparse_variable parent %[[I]] length 6 indptr %{{.*}} : memref<5xi32> indices %{{.*}} : memref<?xi32> sorted
// CHECK: sparse.buffer %{{.*}} [%[[I]], %[[J]]] : memref<?xf32> -> !sparse.buffer<2 x f32>
// CHECK: sparse.iteration [%[[I]], %[[J]], %{{.*}}] [#sparse.iterator<spatial>, #sparse.iterator<reduction>, #sparse.iterator<spatial>] init {
// CHECK: ^bb0(%{{.*}}: index, %{{.*}}: index):
// CHECK: } do {
// CHECK: sparse.load %{{.*}}[%{{.*}}, %{{.*}}] : !sparse.buffer<2 x f32>
// CHECK: sparse.store
func.func @csr_spmm(%indptr: memref<5xi32>, %indices: memref<?xi32>, %a: memref<?xf32>, %b: memref<?xf32>, %c: memref<?xf32>) {
  %i = sparse.axis dense_fixed length 4
  %j = sparse.axis sparse_variable parent %i length 6 indptr %indptr : memref<5xi32> indices %indices : memref<?xi32> sorted
  %dj = sparse.axis dense_fixed length 6
  %k = sparse.axis dense_fixed length 8
  %A = sparse.buffer %a [%i, %j] : memref<?xf32> -> !sparse.buffer<2 x f32>
  %B = sparse.buffer %b [%dj, %k] : memref<?xf32> -> !sparse.buffer<2 x f32>
  %C = sparse.buffer %c [%i, %k] : memref<?xf32> -> !sparse.buffer<2 x f32>
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

// BSR: 2 x 2 blocks; the block axes are dense-fixed and stand after the
// block-sparse ones.
// CHECK-LABEL: func.func @bsr
// CHECK: sparse.buffer %{{.*}} [%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : memref<?xf16> -> !sparse.buffer<4 x f16>
func.func @bsr(%indptr: memref<?xindex>, %indices: memref<?xindex>, %a: memref<?xf16>) {
  %i = sparse.axis dense_fixed length 3
  %j = sparse.axis sparse_variable parent %i length 3 indptr %indptr : memref<?xindex> indices %indices : memref<?xindex>
  %bi = sparse.axis dense_fixed length 2
  %bj = sparse.axis dense_fixed length 2
  %A = sparse.buffer %a [%i, %j, %bi, %bj] : memref<?xf16> -> !sparse.buffer<4 x f16>
  return
}

// -----

// ELL (two columns per row), DCSR (sparse rows, then sparse columns) and
// CSF (three sparse levels).
// CHECK-LABEL: func.func @ell_dcsr_csf
// CHECK: sparse.axis sparse_fixed parent %{{.*}} length 9 nnz_cols 2 indices %{{.*}} : memref<8xi64> sorted
// CHECK: sparse.axis sparse_fixed parent %{{.*}} length 9 nnz_cols 3 indices
// CHECK: sparse.axis sparse_variable parent
func.func @ell_dcsr_csf(%ell: memref<8xi64>, %rows: memref<3xi32>, %p: memref<?xi32>, %c: memref<?xi32>, %p2: memref<?xi32>, %c2: memref<?xi32>) {
  %i = sparse.axis dense_fixed length 4
  %e = sparse.axis sparse_fixed parent %i length 9 nnz_cols 2 indices %ell : memref<8xi64> sorted
  %root = sparse.axis dense_fixed length 1
  %r = sparse.axis sparse_fixed parent %root length 9 nnz_cols 3 indices %rows : memref<3xi32> sorted
  %col = sparse.axis sparse_variable parent %r length 9 indptr %p : memref<?xi32> indices %c : memref<?xi32> sorted
  %third = sparse.axis sparse_variable parent %col length 5 indptr %p2 : memref<?xi32> indices %c2 : memref<?xi32>
  return
}

// -----

// SparseTIR's irregular batched matmul: b batches of n[i] x k[i] times
// k[i] x m[i]. j, kk and l are dense-variable children of i (their runs'
// lengths are n[i], m[i], k[i]); each buffer's last axis hangs off its
// row axis with an indptr over that buffer's rows.
// CHECK-LABEL: func.func @irregular_batched_matmul
// CHECK: sparse.iteration [%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] [#sparse.iterator<spatial>, #sparse.iterator<spatial>, #sparse.iterator<spatial>, #sparse.iterator<reduction>]
func.func @irregular_batched_matmul(%n: memref<4xi32>, %m: memref<4xi32>, %k: memref<4xi32>,
    %aRows: memref<?xi32>, %bRows: memref<?xi32>, %cRows: memref<?xi32>,
    %a: memref<?xf32>, %b: memref<?xf32>, %c: memref<?xf32>) {
  %i = sparse.axis dense_fixed length 3
  %j = sparse.axis dense_variable parent %i length 64 indptr %n : memref<4xi32>
  %kk = sparse.axis dense_variable parent %i length 64 indptr %m : memref<4xi32>
  %l = sparse.axis dense_variable parent %i length 64 indptr %k : memref<4xi32>
  %aj = sparse.axis dense_variable parent %j length 64 indptr %aRows : memref<?xi32>
  %bl = sparse.axis dense_variable parent %l length 64 indptr %bRows : memref<?xi32>
  %cj = sparse.axis dense_variable parent %j length 64 indptr %cRows : memref<?xi32>
  %A = sparse.buffer %a [%i, %j, %aj] : memref<?xf32> -> !sparse.buffer<3 x f32>
  %B = sparse.buffer %b [%i, %l, %bl] : memref<?xf32> -> !sparse.buffer<3 x f32>
  %C = sparse.buffer %c [%i, %j, %cj] : memref<?xf32> -> !sparse.buffer<3 x f32>
  sparse.iteration [%i, %j, %kk, %l] [#sparse.iterator<spatial>, #sparse.iterator<spatial>, #sparse.iterator<spatial>, #sparse.iterator<reduction>] do {
  ^bb0(%vi: index, %vj: index, %vk: index, %vl: index):
    %x = sparse.load %A[%vi, %vj, %vl] : !sparse.buffer<3 x f32>
    %y = sparse.load %B[%vi, %vl, %vk] : !sparse.buffer<3 x f32>
    %acc = sparse.load %C[%vi, %vj, %vk] : !sparse.buffer<3 x f32>
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    sparse.store %s, %C[%vi, %vj, %vk] : !sparse.buffer<3 x f32>
  }
  return
}
