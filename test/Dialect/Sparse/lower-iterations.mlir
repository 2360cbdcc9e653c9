// npu-sparse-lower-iterations: sparse iterations to loops over positions.
// RUN: npu-opt %s --split-input-file --npu-sparse-lower-iterations --canonicalize | FileCheck %s

// CSR SpMM: rows over 4 positions, columns over indptr[i + 1] - indptr[i],
// the column coordinate read as indices[pos]; A takes the loop's position
// (its own axis), dense B the coordinate. A is not written, so its load
// runs once per nonzero, outside the loop over k. The init nest over the
// spatial axes (i, k) comes first.
// CHECK-LABEL: func.func @csr_spmm
// CHECK-SAME: (%[[PTR:[^:]*]]: memref<5xi32>, %[[IDX:[^:]*]]: memref<?xi32>
// CHECK: scf.for %[[I0:.*]] = %c0 to %c4
// CHECK-NEXT: scf.for %[[K0:.*]] = %c0 to %c8
// CHECK-NEXT: sparse.pos_store %{{.*}}, %{{.*}}[%[[I0]], %[[K0]]]
// CHECK: scf.for %[[I:.*]] = %c0 to %c4
// CHECK: %[[LO:.*]] = memref.load %[[PTR]][%[[I]]]
// CHECK: %[[HI:.*]] = memref.load %[[PTR]]
// CHECK: %[[N:.*]] = arith.subi
// CHECK: scf.for %[[J:.*]] = %c0 to %[[N]]
// CHECK: %[[POS:.*]] = arith.addi %{{.*}}, %[[J]]
// CHECK: %[[COL:.*]] = memref.load %[[IDX]][%[[POS]]]
// CHECK: %[[C:.*]] = arith.index_cast %[[COL]]
// CHECK: sparse.pos_load %{{.*}}[%[[I]], %[[J]]]
// CHECK: scf.for %[[K:.*]] = %c0 to %c8
// CHECK: sparse.pos_load %{{.*}}[%[[C]], %[[K]]]
// CHECK-NOT: scf.while
func.func @csr_spmm(%indptr: memref<5xi32>, %indices: memref<?xi32>, %a: memref<?xf32>, %b: memref<48xf32>, %c: memref<32xf32>) {
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

// M is another CSR matrix over the same rows: its column axis is not the
// iterated one, so the position of column j in M's row i is found by a
// lower_bound over M's sorted run. It uses only i and j, so it is placed
// before the loop over k, and so is the (guarded) load of M, shared by
// both loads of the body; a column M lacks reads 0.
// CHECK-LABEL: func.func @masked_by_other_pattern
// CHECK: %[[ZERO:.*]] = arith.constant 0.0
// CHECK: scf.for %[[I:.*]] = %c0 to %c4
// CHECK: scf.for %[[J:.*]] = %c0 to
// CHECK: %[[COL:.*]] = arith.index_cast
// CHECK: %[[START:.*]] = arith.index_cast
// CHECK: %[[R:.*]]:2 = scf.while
// CHECK: arith.cmpi ult
// CHECK: scf.condition
// CHECK: arith.shrui
// CHECK: %[[FOUND:.*]] = scf.if
// CHECK: arith.cmpi eq
// CHECK: %[[LOCAL:.*]] = arith.subi %[[R]]#0, %[[START]]
// CHECK: %[[X:.*]] = scf.if %[[FOUND]] -> (f32)
// CHECK-NEXT: sparse.pos_load %{{.*}}[%[[I]], %[[LOCAL]]]
// CHECK: } else {
// CHECK-NEXT: scf.yield %[[ZERO]]
// CHECK: scf.for %[[K:.*]] = %c0 to %c8
// CHECK-NOT: sparse.pos_load %{{.*}}[%[[I]], %[[LOCAL]]]
// CHECK: arith.mulf %[[X]], %[[X]]
// CHECK-NOT: scf.while
func.func @masked_by_other_pattern(%ap: memref<5xi32>, %ai: memref<?xi32>, %mp: memref<5xi32>, %mi: memref<?xi32>, %a: memref<?xf32>, %m: memref<?xf32>, %c: memref<32xf32>) {
  %i = sparse.axis dense_fixed length 4
  %j = sparse.axis sparse_variable parent %i length 6 indptr %ap : memref<5xi32> indices %ai : memref<?xi32>
  %mj = sparse.axis sparse_variable parent %i length 6 indptr %mp : memref<5xi32> indices %mi : memref<?xi32> sorted
  %k = sparse.axis dense_fixed length 8
  %A = sparse.buffer %a [%i, %j] : memref<?xf32> -> !sparse.buffer<2 x f32>
  %M = sparse.buffer %m [%i, %mj] : memref<?xf32> -> !sparse.buffer<2 x f32>
  %C = sparse.buffer %c [%i, %k] : memref<32xf32> -> !sparse.buffer<2 x f32>
  sparse.iteration [%i, %j, %k] [#sparse.iterator<spatial>, #sparse.iterator<reduction>, #sparse.iterator<spatial>] do {
  ^bb0(%vi: index, %vj: index, %vk: index):
    %x = sparse.load %M[%vi, %vj] : !sparse.buffer<2 x f32>
    %y = sparse.load %M[%vi, %vj] : !sparse.buffer<2 x f32>
    %acc = sparse.load %C[%vi, %vk] : !sparse.buffer<2 x f32>
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    sparse.store %s, %C[%vi, %vk] : !sparse.buffer<2 x f32>
  }
  return
}

// -----

// fuse = [0, 1]: one loop over the nonzeros, indptr[0] to indptr[4]; the
// row of each found by binary search (the last r with indptr[r] <= pos),
// its place in the row pos - indptr[row]. loop_order puts k outside.
// CHECK-LABEL: func.func @fused_rows
// CHECK-SAME: (%[[PTR:[^:]*]]: memref<5xi32>
// CHECK: scf.for %[[K:.*]] = %c0 to %c8
// CHECK-DAG: memref.load %[[PTR]][%c0]
// CHECK-DAG: memref.load %[[PTR]][%c4]
// CHECK: scf.for %[[P:.*]] = %{{.*}} to %{{.*}} step %c1
// CHECK-NEXT: %[[P1:.*]] = arith.addi %[[P]], %c1
// CHECK-NEXT: %[[NEXT:.*]]:2 = scf.while
// CHECK: %[[ROW:.*]] = arith.subi %[[NEXT]]#0, %c1
// CHECK: %[[START:.*]] = memref.load %[[PTR]][%[[ROW]]]
// CHECK: %[[S:.*]] = arith.index_cast %[[START]]
// CHECK: %[[LOCAL:.*]] = arith.subi %[[P]], %[[S]]
// CHECK: sparse.pos_load %{{.*}}[%[[ROW]], %[[LOCAL]]]
// CHECK: sparse.pos_load %{{.*}}[%[[ROW]], %[[K]]]
// CHECK-NOT: scf.for
func.func @fused_rows(%indptr: memref<5xi32>, %indices: memref<?xi32>, %a: memref<?xf32>, %c: memref<32xf32>) {
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
  } {loop_order = array<i64: 2, 0, 1>, fuse = array<i64: 0, 1>}
  return
}

// -----

// SDDMM: the reduction over k is innermost and the accumulator O[i, j] is
// fixed outside it, so it is carried through the loop: one load before,
// one store after, none inside.
// CHECK-LABEL: func.func @sddmm_accumulator
// CHECK: scf.for %[[I:.*]] = %c0 to %c4
// CHECK: scf.for %[[J:.*]] = %c0 to
// CHECK: %[[INIT:.*]] = sparse.pos_load %[[O:.*]][%[[I]], %[[J]]]
// CHECK: %[[SUM:.*]] = scf.for %[[K:.*]] = %c0 to %c8 step %c1 iter_args(%[[ACC:.*]] = %[[INIT]]) -> (f32)
// CHECK-NOT: sparse.pos_load %[[O]]
// CHECK-NOT: sparse.pos_store
// CHECK: %[[NEW:.*]] = arith.addf %[[ACC]]
// CHECK-NEXT: scf.yield %[[NEW]]
// CHECK: sparse.pos_store %[[SUM]], %[[O]][%[[I]], %[[J]]]
func.func @sddmm_accumulator(%indptr: memref<5xi32>, %indices: memref<?xi32>, %out: memref<?xf32>, %x: memref<32xf32>, %y: memref<48xf32>) {
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

// SDDMM with its zero fill: the init only stores one constant into O at
// its coordinates, every spatial axis among them, and the body reads and
// writes O only there, with the one reduction axis innermost. The
// accumulator carried through the loop over k is stored at every (i, j),
// even when k has no position, so it starts from the constant and the
// init nest goes: no fill written, no start read back.
// CHECK-LABEL: func.func @sddmm_init_folded
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[O:.*]] = sparse.buffer %arg2
// CHECK: scf.for %[[I:.*]] = %c0 to %c4
// CHECK-NOT: sparse.pos_store
// CHECK: scf.for %[[J:.*]] = %c0 to
// CHECK-NOT: sparse.pos_load %[[O]]
// CHECK: %[[SUM:.*]] = scf.for %{{.*}} = %c0 to %c8 step %c1 iter_args(%{{.*}} = %[[ZERO]]) -> (f32)
// CHECK-NOT: sparse.pos_load %[[O]]
// CHECK: sparse.pos_store %[[SUM]], %[[O]][%[[I]], %[[J]]]
// CHECK-NOT: scf.for
// CHECK: return
func.func @sddmm_init_folded(%indptr: memref<5xi32>, %indices: memref<?xi32>, %out: memref<?xf32>, %x: memref<32xf32>, %y: memref<48xf32>) {
  %i = sparse.axis dense_fixed length 4
  %j = sparse.axis sparse_variable parent %i length 6 indptr %indptr : memref<5xi32> indices %indices : memref<?xi32> sorted
  %dj = sparse.axis dense_fixed length 6
  %k = sparse.axis dense_fixed length 8
  %O = sparse.buffer %out [%i, %j] : memref<?xf32> -> !sparse.buffer<2 x f32>
  %X = sparse.buffer %x [%i, %k] : memref<32xf32> -> !sparse.buffer<2 x f32>
  %Y = sparse.buffer %y [%dj, %k] : memref<48xf32> -> !sparse.buffer<2 x f32>
  sparse.iteration [%i, %j, %k] [#sparse.iterator<spatial>, #sparse.iterator<spatial>, #sparse.iterator<reduction>] init {
  ^bb0(%vi: index, %vj: index):
    %zero = arith.constant 0.0 : f32
    sparse.store %zero, %O[%vi, %vj] : !sparse.buffer<2 x f32>
  } do {
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

// Fills the init nest keeps, each with its reason: a value that is not a
// constant; a body that reads the filled buffer at another element
// (O[i, 0], which the fill, not the load, must have set when row i's
// sums start); and SpMM, whose reduction axis j is not innermost (a row
// with no nonzero never stores its sum, so only the fill writes it).
// CHECK-LABEL: func.func @fill_not_constant
// CHECK: scf.for
// CHECK: sparse.pos_store %arg5,
// CHECK: scf.for
// CHECK: sparse.pos_load
// CHECK-LABEL: func.func @fill_read_elsewhere
// CHECK: scf.for
// CHECK: sparse.pos_store %cst
// CHECK-LABEL: func.func @spmm_fill_kept
// CHECK: scf.for
// CHECK: sparse.pos_store %cst
func.func @fill_not_constant(%indptr: memref<5xi32>, %indices: memref<?xi32>, %out: memref<?xf32>, %x: memref<32xf32>, %y: memref<48xf32>, %start: f32) {
  %i = sparse.axis dense_fixed length 4
  %j = sparse.axis sparse_variable parent %i length 6 indptr %indptr : memref<5xi32> indices %indices : memref<?xi32> sorted
  %dj = sparse.axis dense_fixed length 6
  %k = sparse.axis dense_fixed length 8
  %O = sparse.buffer %out [%i, %j] : memref<?xf32> -> !sparse.buffer<2 x f32>
  %X = sparse.buffer %x [%i, %k] : memref<32xf32> -> !sparse.buffer<2 x f32>
  %Y = sparse.buffer %y [%dj, %k] : memref<48xf32> -> !sparse.buffer<2 x f32>
  sparse.iteration [%i, %j, %k] [#sparse.iterator<spatial>, #sparse.iterator<spatial>, #sparse.iterator<reduction>] init {
  ^bb0(%vi: index, %vj: index):
    sparse.store %start, %O[%vi, %vj] : !sparse.buffer<2 x f32>
  } do {
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
func.func @fill_read_elsewhere(%indptr: memref<5xi32>, %indices: memref<?xi32>, %out: memref<?xf32>, %x: memref<32xf32>, %y: memref<48xf32>) {
  %i = sparse.axis dense_fixed length 4
  %j = sparse.axis sparse_variable parent %i length 6 indptr %indptr : memref<5xi32> indices %indices : memref<?xi32> sorted
  %dj = sparse.axis dense_fixed length 6
  %k = sparse.axis dense_fixed length 8
  %O = sparse.buffer %out [%i, %j] : memref<?xf32> -> !sparse.buffer<2 x f32>
  %X = sparse.buffer %x [%i, %k] : memref<32xf32> -> !sparse.buffer<2 x f32>
  %Y = sparse.buffer %y [%dj, %k] : memref<48xf32> -> !sparse.buffer<2 x f32>
  sparse.iteration [%i, %j, %k] [#sparse.iterator<spatial>, #sparse.iterator<spatial>, #sparse.iterator<reduction>] init {
  ^bb0(%vi: index, %vj: index):
    %zero = arith.constant 0.0 : f32
    sparse.store %zero, %O[%vi, %vj] : !sparse.buffer<2 x f32>
  } do {
  ^bb0(%vi: index, %vj: index, %vk: index):
    %c0 = arith.constant 0 : index
    %a = sparse.load %X[%vi, %vk] : !sparse.buffer<2 x f32>
    %b = sparse.load %O[%vi, %c0] : !sparse.buffer<2 x f32>
    %acc = sparse.load %O[%vi, %vj] : !sparse.buffer<2 x f32>
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    sparse.store %s, %O[%vi, %vj] : !sparse.buffer<2 x f32>
  }
  return
}
func.func @spmm_fill_kept(%indptr: memref<5xi32>, %indices: memref<?xi32>, %a: memref<?xf32>, %b: memref<48xf32>, %c: memref<32xf32>) {
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
