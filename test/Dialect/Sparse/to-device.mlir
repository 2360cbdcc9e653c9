// npu-sparse-to-device: each iteration in a launch, tasks over shares of the first axis.
// RUN: npu-opt %s --split-input-file --npu-sparse-to-device | FileCheck %s
// RUN: npu-opt %s --split-input-file --npu-sparse-to-device=tasks=3 | FileCheck %s --check-prefix=THREE
// RUN: npu-opt %s --split-input-file --npu-sparse-to-device=row-cost=5 | FileCheck %s --check-prefix=COST
// RUN: not npu-opt %s --split-input-file --npu-sparse-to-device=row-cost=-1 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: error: npu-sparse-to-device: row-cost must not be negative, got -1

// CSR rows split by work, a row weighing its nonzeros plus row-cost (6 by
// default): task t starts at the first row r with indptr[r] - indptr[0] +
// c r >= t * (nnz + c rows) / T, task 0 at row 0, the last ends at the
// last row. mlu590 has 48 vector cores.
// COST-LABEL: func.func @csr_rows
// COST: %[[T:.*]] = npudev.task_id
// COST-DAG: %[[ROWS:.*]] = arith.constant 4 : index
// COST-DAG: %[[C:.*]] = arith.constant 5 : index
// COST: %[[NNZ:.*]] = arith.subi
// COST: %[[ROWWORK:.*]] = arith.muli %[[ROWS]], %[[C]] : index
// COST: %[[WORK:.*]] = arith.addi %[[NNZ]], %[[ROWWORK]] : index
// COST: arith.muli %[[T]], %[[WORK]] : index
// COST: scf.while
// COST: %[[MID:.*]] = arith.shrui
// COST: %[[PTR:.*]] = arith.index_cast
// COST: %[[BEFORE:.*]] = arith.muli %[[MID]], %[[C]] : index
// COST: arith.addi %[[PTR]], %[[BEFORE]] : index
// The kernel's arrays move to global memory, where the device reads them.
// CHECK-LABEL: func.func @csr_rows
// CHECK-SAME: (%{{.*}}: memref<5xi32, #npudev.space<global>>, %{{.*}}: memref<?xi32, #npudev.space<global>>
// CHECK: npudev.launch tasks(48) on vector {
// CHECK: %[[T:.*]] = npudev.task_id
// CHECK: memref.load %[[PTR:.*]][%{{.*}}] : memref<5xi32, #npudev.space<global>>
// CHECK: arith.muli %[[T]]
// CHECK: scf.while
// CHECK: %[[BEGIN:.*]] = arith.select %{{.*}}, %c0{{.*}}, %{{.*}}#0 : index
// CHECK: scf.while
// CHECK: %[[END:.*]] = arith.select %{{.*}}, %c4, %{{.*}} : index
// CHECK: sparse.iteration [{{.*}}] [#sparse.iterator<spatial>, #sparse.iterator<reduction>] range(%[[BEGIN]], %[[END]]) init
// THREE: npudev.launch tasks(3) on vector
func.func @csr_rows(%indptr: memref<5xi32>, %indices: memref<?xi32>, %a: memref<?xf32>, %c: memref<4xf32>) {
  %i = sparse.axis dense_fixed length 4
  %j = sparse.axis sparse_variable parent %i length 6 indptr %indptr : memref<5xi32> indices %indices : memref<?xi32> sorted
  %A = sparse.buffer %a [%i, %j] : memref<?xf32> -> !sparse.buffer<2 x f32>
  %C = sparse.buffer %c [%i] : memref<4xf32> -> !sparse.buffer<1 x f32>
  sparse.iteration [%i, %j] [#sparse.iterator<spatial>, #sparse.iterator<reduction>] init {
  ^bb0(%vi: index):
    %zero = arith.constant 0.0 : f32
    sparse.store %zero, %C[%vi] : !sparse.buffer<1 x f32>
  } do {
  ^bb0(%vi: index, %vj: index):
    %x = sparse.load %A[%vi, %vj] : !sparse.buffer<2 x f32>
    %acc = sparse.load %C[%vi] : !sparse.buffer<1 x f32>
    %s = arith.addf %acc, %x : f32
    sparse.store %s, %C[%vi] : !sparse.buffer<1 x f32>
  }
  return
}

// -----

// A dense first axis with no variable child: equal row counts.
// CHECK-LABEL: func.func @dense_rows
// CHECK: npudev.launch tasks(48) on vector {
// CHECK-NOT: scf.while
// CHECK: arith.divui
// CHECK: sparse.iteration {{.*}} range(
func.func @dense_rows(%c: memref<10xf32>) {
  %i = sparse.axis dense_fixed length 10
  %C = sparse.buffer %c [%i] : memref<10xf32> -> !sparse.buffer<1 x f32>
  sparse.iteration [%i] [#sparse.iterator<spatial>] do {
  ^bb0(%vi: index):
    %one = arith.constant 1.0 : f32
    sparse.store %one, %C[%vi] : !sparse.buffer<1 x f32>
  }
  return
}

// -----

// A reduction over the first axis cannot be shared: one task.
// CHECK-LABEL: func.func @reduce_rows
// CHECK: npudev.launch tasks(1) on vector {
// CHECK-NEXT: sparse.iteration [%{{.*}}] [#sparse.iterator<reduction>] do
func.func @reduce_rows(%c: memref<10xf32>, %s: memref<1xf32>) {
  %i = sparse.axis dense_fixed length 10
  %o = sparse.axis dense_fixed length 1
  %C = sparse.buffer %c [%i] : memref<10xf32> -> !sparse.buffer<1 x f32>
  sparse.iteration [%i] [#sparse.iterator<reduction>] do {
  ^bb0(%vi: index):
    %x = sparse.load %C[%vi] : !sparse.buffer<1 x f32>
  }
  return
}
