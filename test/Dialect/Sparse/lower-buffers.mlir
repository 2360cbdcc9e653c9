// npu-sparse-lower-buffers: sparse buffers to their flat data, offsets by the prefix rule.
// RUN: npu-opt %s --split-input-file --npu-sparse-lower-buffers --canonicalize --cse --verify-diagnostics | FileCheck %s

// CSR: F(1) = indptr[p0] + p1. BSR 2 x 2 blocks: F(3) = ((indptr[p0] + p1)
// * 2 + p2) * 2 + p3. The axes and buffers are gone.
// CHECK-LABEL: func.func @offsets
// CHECK-SAME: (%[[PTR:[^:]*]]: memref<4xi32>, %[[IDX:[^:]*]]: memref<?xi32>, %[[A:[^:]*]]: memref<?xf32>, %[[B:[^:]*]]: memref<?xf16>, %[[P0:[^:]*]]: index, %[[P1:[^:]*]]: index, %[[P2:[^:]*]]: index, %[[P3:[^:]*]]: index)
// CHECK-NOT: sparse.
// CHECK: %[[START:.*]] = memref.load %[[PTR]][%[[P0]]]
// CHECK: %[[S:.*]] = arith.index_cast %[[START]]
// CHECK: %[[F1:.*]] = arith.addi %[[S]], %[[P1]]
// CHECK: %[[X:.*]] = memref.load %[[A]][%[[F1]]]
// CHECK: %[[F2:.*]] = arith.muli %[[F1]], %c2
// CHECK: %[[F2P:.*]] = arith.addi %[[F2]], %[[P2]]
// CHECK: %[[F3:.*]] = arith.muli %[[F2P]], %c2
// CHECK: %[[F3P:.*]] = arith.addi %[[F3]], %[[P3]]
// CHECK: memref.store %{{.*}}, %[[B]][%[[F3P]]]
// CHECK-NOT: sparse.
func.func @offsets(%indptr: memref<4xi32>, %indices: memref<?xi32>, %a: memref<?xf32>, %b: memref<?xf16>, %p0: index, %p1: index, %p2: index, %p3: index) -> f32 {
  %i = sparse.axis dense_fixed length 3
  %j = sparse.axis sparse_variable parent %i length 3 indptr %indptr : memref<4xi32> indices %indices : memref<?xi32> sorted
  %bi = sparse.axis dense_fixed length 2
  %bj = sparse.axis dense_fixed length 2
  %A = sparse.buffer %a [%i, %j] : memref<?xf32> -> !sparse.buffer<2 x f32>
  %B = sparse.buffer %b [%i, %j, %bi, %bj] : memref<?xf16> -> !sparse.buffer<4 x f16>
  %x = sparse.pos_load %A[%p0, %p1] : !sparse.buffer<2 x f32>
  %h = arith.truncf %x : f32 to f16
  sparse.pos_store %h, %B[%p0, %p1, %p2, %p3] : !sparse.buffer<4 x f16>
  return %x : f32
}

// -----

// ELL: F(1) = p0 * nnz_cols + p1.
// CHECK-LABEL: func.func @ell
// CHECK: %[[F:.*]] = arith.muli %{{.*}}, %c3
// CHECK: %[[F1:.*]] = arith.addi %[[F]], %{{.*}}
// CHECK: memref.load %{{.*}}[%[[F1]]] : memref<12xf32>
func.func @ell(%indices: memref<12xi64>, %a: memref<12xf32>, %p0: index, %p1: index) -> f32 {
  %i = sparse.axis dense_fixed length 4
  %j = sparse.axis sparse_fixed parent %i length 9 nnz_cols 3 indices %indices : memref<12xi64> sorted
  %A = sparse.buffer %a [%i, %j] : memref<12xf32> -> !sparse.buffer<2 x f32>
  %x = sparse.pos_load %A[%p0, %p1] : !sparse.buffer<2 x f32>
  return %x : f32
}

// -----

func.func @iteration_first(%a: memref<4xf32>) {
  %i = sparse.axis dense_fixed length 4
  %A = sparse.buffer %a [%i] : memref<4xf32> -> !sparse.buffer<1 x f32>
  // expected-error @+1 {{must be lowered by npu-sparse-lower-iterations before npu-sparse-lower-buffers}}
  sparse.iteration [%i] [#sparse.iterator<spatial>] do {
  ^bb0(%vi: index):
  }
  return
}
