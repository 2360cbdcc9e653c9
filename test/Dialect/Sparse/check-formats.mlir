// The checked mode: two one-task launches before the first iteration, the
// structural checks, then the contents', each rule a report naming the
// axis.
// RUN: npu-opt %s --split-input-file --npu-sparse-check-formats --verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @csr
// CHECK: npudev.launch tasks(1) on vector {
// CHECK: npudev.report_rows %{{.*}}, "sparse.axis #1 (sparse_variable): indptr[{row}] is not 0"
// CHECK: npudev.report_rows %{{.*}}, "sparse.axis #1 (sparse_variable): indptr decreases at entry {row}"
// CHECK: npudev.report_rows %{{.*}}, "sparse.axis #1 (sparse_variable): indptr has {row} entries, not the parent's positions plus one"
// CHECK: npudev.report_rows %{{.*}}, "sparse.axis #1 (sparse_variable): indptr ends at {row}, not at the number of indices"
// CHECK: }
// CHECK: npudev.launch tasks(1) on vector {
// CHECK: npudev.report_rows %{{.*}}, "sparse.axis #1 (sparse_variable): the coordinate at position {row} is outside [0, 6)"
// CHECK: npudev.report_rows %{{.*}}, "sparse.axis #1 (sparse_variable): coordinates are not increasing at position {row}, but the axis is declared sorted"
// CHECK: }
// CHECK: sparse.iteration
func.func @csr(%indptr: memref<5xi32>, %indices: memref<?xi32>, %c: memref<4xf32>) {
  %i = sparse.axis dense_fixed length 4
  %j = sparse.axis sparse_variable parent %i length 6 indptr %indptr : memref<5xi32> indices %indices : memref<?xi32> sorted
  %C = sparse.buffer %c [%i] : memref<4xf32> -> !sparse.buffer<1 x f32>
  sparse.iteration [%i, %j] [#sparse.iterator<spatial>, #sparse.iterator<spatial>] do {
  ^bb0(%vi: index, %vj: index):
  }
  return
}

// -----

// Nothing to check on dense-fixed axes alone.
// CHECK-LABEL: func.func @dense
// CHECK-NOT: npudev.launch
func.func @dense() {
  %i = sparse.axis dense_fixed length 4
  sparse.iteration [%i] [#sparse.iterator<spatial>] do {
  ^bb0(%vi: index):
  }
  return
}

// -----

func.func @axis_after_iteration(%p: memref<5xi32>) {
  %i = sparse.axis dense_fixed length 4
  // expected-error @+1 {{is checked by npu-sparse-check-formats only if every sparse.axis is defined before it, in its block}}
  sparse.iteration [%i] [#sparse.iterator<spatial>] do {
  ^bb0(%vi: index):
  }
  %j = sparse.axis dense_variable parent %i length 4 indptr %p : memref<5xi32>
  return
}
