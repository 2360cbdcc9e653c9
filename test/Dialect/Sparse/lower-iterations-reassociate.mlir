// npu-sparse-lower-iterations{reassociate-reductions}: the update of an
// accumulator carried through the innermost loop may be regrouped (and a
// zero's sign may change with it, which LLVM needs to regroup an unrolled
// sum); nothing else is.
// RUN: npu-opt %s --split-input-file --npu-sparse-lower-iterations="reassociate-reductions=1" --canonicalize | FileCheck %s
// RUN: npu-opt %s --split-input-file --npu-sparse-lower-iterations --canonicalize | FileCheck %s --check-prefix=IN-ORDER

// SDDMM: the sum over k is carried, so its addf is reassociable; the
// product feeding it is not a reduction step and keeps its rounding order.
// CHECK-LABEL: func.func @sddmm
// CHECK: scf.for %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32)
// CHECK: %[[P:.*]] = arith.mulf %{{[^ ]*}}, %{{[^ ]*}} : f32
// CHECK-NEXT: arith.addf %[[ACC]], %[[P]] fastmath<reassoc,nsz> : f32
// IN-ORDER-LABEL: func.func @sddmm
// IN-ORDER-NOT: fastmath
// IN-ORDER: return
func.func @sddmm(%indptr: memref<5xi32>, %indices: memref<?xi32>, %out: memref<?xf32>, %x: memref<32xf32>, %y: memref<48xf32>) {
  %i = sparse.axis dense_fixed length 4
  %j = sparse.axis sparse_variable parent %i length 6 indptr %indptr : memref<5xi32> indices %indices : memref<?xi32> sorted
  %dj = sparse.axis dense_fixed length 6
  %k = sparse.axis dense_fixed length 8
  %O = sparse.buffer %out [%i, %j] : memref<?xf32> -> !sparse.buffer<2 x f32>
  %X = sparse.buffer %x [%i, %k] : memref<32xf32> -> !sparse.buffer<2 x f32>
  %Y = sparse.buffer %y [%dj, %k] : memref<48xf32> -> !sparse.buffer<2 x f32>
  sparse.iteration [%i, %j, %k] [#sparse.iterator<spatial>, #sparse.iterator<spatial>, #sparse.iterator<reduction>] do {
  ^bb0(%vi: index, %vj: index, %vk: index):
    %a = sparse.load %X[%vi, %vk] : !sparse.buffer<2 x f32>
    %b = sparse.load %Y[%vj, %vk] : !sparse.buffer<2 x f32>
    %acc = sparse.load %O[%vi, %vj] : !sparse.buffer<2 x f32>
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    sparse.store %s, %O[%vi, %vj] : !sparse.buffer<2 x f32>
  }
  return
}

// -----

// A row maximum over a CSR row: the carried maximumf is reassociable too.
// CHECK-LABEL: func.func @row_max
// CHECK: scf.for %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32)
// CHECK: arith.maximumf %[[ACC]], %{{.*}} fastmath<reassoc,nsz> : f32
func.func @row_max(%indptr: memref<5xi32>, %indices: memref<?xi32>, %a: memref<?xf32>, %out: memref<4xf32>) {
  %i = sparse.axis dense_fixed length 4
  %j = sparse.axis sparse_variable parent %i length 6 indptr %indptr : memref<5xi32> indices %indices : memref<?xi32> sorted
  %A = sparse.buffer %a [%i, %j] : memref<?xf32> -> !sparse.buffer<2 x f32>
  %O = sparse.buffer %out [%i] : memref<4xf32> -> !sparse.buffer<1 x f32>
  sparse.iteration [%i, %j] [#sparse.iterator<spatial>, #sparse.iterator<reduction>] do {
  ^bb0(%vi: index, %vj: index):
    %v = sparse.load %A[%vi, %vj] : !sparse.buffer<2 x f32>
    %acc = sparse.load %O[%vi] : !sparse.buffer<1 x f32>
    %m = arith.maximumf %acc, %v : f32
    sparse.store %m, %O[%vi] : !sparse.buffer<1 x f32>
  }
  return
}

// -----

// SpMM: the reduction axis j is not innermost; the accumulator C[i, k]
// moves with the innermost k, so nothing is carried and nothing regrouped.
// CHECK-LABEL: func.func @spmm
// CHECK-NOT: fastmath
// CHECK: return
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
    %v = sparse.load %A[%vi, %vj] : !sparse.buffer<2 x f32>
    %w = sparse.load %B[%vj, %vk] : !sparse.buffer<2 x f32>
    %acc = sparse.load %C[%vi, %vk] : !sparse.buffer<2 x f32>
    %p = arith.mulf %v, %w : f32
    %s = arith.addf %acc, %p : f32
    sparse.store %s, %C[%vi, %vk] : !sparse.buffer<2 x f32>
  }
  return
}
