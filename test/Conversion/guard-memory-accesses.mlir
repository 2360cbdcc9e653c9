// npu-guard-memory-accesses, the JIT's checked mode: each load and store
// runs under "in bounds and nothing failed" and records its site
// otherwise; a view gets upstream's runtime verification, its cf.assert
// turned into a record instead of an abort; copies and runtime calls run
// only while nothing failed. A second run leaves guarded ops alone.
// RUN: npu-opt %s --split-input-file --npu-guard-memory-accesses | FileCheck %s
// RUN: npu-opt %s --split-input-file --npu-guard-memory-accesses --npu-guard-memory-accesses | FileCheck %s --check-prefix=TWICE

// CHECK: module attributes {npudev.checked_sites = [
// CHECK-SAME: ["{{.*}}guard-memory-accesses.mlir{{.*}}:{{[0-9]+}}:8", "memref.load", ""]
// CHECK-SAME: ["{{.*}}guard-memory-accesses.mlir{{.*}}:{{[0-9]+}}:3", "memref.store", ""]
// CHECK: memref.global @npu_checked_status : memref<4xi64> = dense<0>
// CHECK-LABEL: func.func @load_store
// CHECK-SAME: %[[M:.*]]: memref<8xf32>, %[[I:.*]]: index
// CHECK: %[[DIM:.*]] = memref.dim {npudev.checked} %[[M]]
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[I]], %[[DIM]]
// CHECK: %[[GO:.*]] = arith.andi %{{.*}}, %[[IN]]
// CHECK: %[[V:.*]] = scf.if %[[GO]] -> (f32) {
// CHECK:   memref.load %[[M]][%[[I]]] {npudev.checked}
// CHECK: } else {
// CHECK:   memref.generic_atomic_rmw
// CHECK:   arith.constant 0.000000e+00 : f32
// CHECK: scf.if
// CHECK:   memref.store %[[V]], %[[M]][%[[I]]] {npudev.checked}
// CHECK: return %[[V]]
// TWICE-LABEL: func.func @load_store
// TWICE-COUNT-2: memref.generic_atomic_rmw
// TWICE-NOT: memref.generic_atomic_rmw
func.func @load_store(%m: memref<8xf32>, %i: index) -> f32 {
  %v = memref.load %m[%i] : memref<8xf32>
  memref.store %v, %m[%i] : memref<8xf32>
  return %v : f32
}

// -----

// CHECK: module attributes {npudev.checked_sites = [{{.*}}"memref.subview", "subview is out-of-bounds of the base memref"]
// CHECK-LABEL: func.func @view_and_call
// TWICE-LABEL: func.func @view_and_call
// CHECK: memref.subview
// CHECK-NOT: cf.assert
// CHECK: scf.if
// CHECK:   memref.generic_atomic_rmw
// CHECK: memref.load {{.*}} {npudev.checked} : memref<4xi64>
// CHECK: scf.if
// CHECK-NEXT: func.call @npu_rt_sort_f32
func.func private @npu_rt_sort_f32(memref<?xf32, strided<[?], offset: ?>>, memref<?xf32, strided<[?], offset: ?>>)
func.func @view_and_call(%m: memref<8xf32>, %o: index) {
  %s = memref.subview %m[%o] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: ?>>
  %c = memref.cast %s : memref<4xf32, strided<[1], offset: ?>> to memref<?xf32, strided<[?], offset: ?>>
  func.call @npu_rt_sort_f32(%c, %c) : (memref<?xf32, strided<[?], offset: ?>>, memref<?xf32, strided<[?], offset: ?>>) -> ()
  return
}

// -----

// A loop around a guarded access stops once something failed, as the
// simulator stops at the first failure: scf.for becomes an scf.while that
// also asks the status (a bound read from bad data, 2^31 - 1, ran its
// skipped iterations for seconds to minutes). A while loop's condition asks
// too; the second run leaves both alone.
// CHECK-LABEL: func.func @loops
// TWICE-LABEL: func.func @loops
// CHECK: %[[R:.*]]:2 = scf.while (%[[IV:.*]] = %{{.*}}, %[[ACC:.*]] = %{{.*}}) : (index, f32) -> (index, f32) {
// CHECK:   %[[IN:.*]] = arith.cmpi slt, %[[IV]], %[[N:.*]] : index
// CHECK:   %[[S:.*]] = memref.load {{.*}} {npudev.checked} : memref<4xi64>
// CHECK:   %[[OK:.*]] = arith.cmpi eq, %[[S]], %{{.*}} : i64
// CHECK:   %[[GO:.*]] = arith.andi %[[IN]], %[[OK]] : i1
// CHECK:   scf.condition(%[[GO]]) %[[IV]], %[[ACC]] : index, f32
// CHECK: } do {
// CHECK:   memref.load %{{.*}}[%{{.*}}] {npudev.checked} : memref<?xf32>
// CHECK:   %[[NEXT:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK:   scf.yield %[[NEXT]], %{{.*}} : index, f32
// CHECK: } attributes {npudev.checked}
// CHECK: scf.while
// CHECK:   arith.andi
// CHECK:   scf.condition
// CHECK: return %[[R]]#1
// TWICE: scf.while
// TWICE-NOT: scf.while
// TWICE: memref.generic_atomic_rmw
// TWICE-NOT: memref.generic_atomic_rmw
// TWICE: scf.while
// TWICE-COUNT-2: memref.generic_atomic_rmw
// TWICE-NOT: memref.generic_atomic_rmw
// TWICE-NOT: scf.while
func.func @loops(%m: memref<?xf32>, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> f32 {
    %v = memref.load %m[%i] : memref<?xf32>
    %s = arith.addf %acc, %v : f32
    scf.yield %s : f32
  }
  %last = scf.while (%i = %c0) : (index) -> index {
    %v = memref.load %m[%i] : memref<?xf32>
    %more = arith.cmpf one, %v, %zero : f32
    scf.condition(%more) %i : index
  } do {
  ^bb0(%i: index):
    %j = arith.addi %i, %c1 : index
    scf.yield %j : index
  }
  memref.store %sum, %m[%last] : memref<?xf32>
  return %sum : f32
}
