// npu-lower-device-to-loops: npudev to scf/memref/arith/math.
// RUN: npu-opt %s --split-input-file --npu-lower-device-to-loops=outline-launches=false | FileCheck %s

// CHECK-LABEL: func.func @kernel
// CHECK-SAME: (%[[X:.*]]: memref<64xf32>)
// The device's exp's constants (include/npu/Support/DeviceExp.h), hoisted.
// CHECK-DAG: %[[BITS:.*]] = arith.constant 1262485504 : i32
// CHECK-DAG: %[[C0:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[C2:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-DAG: %[[C7:.*]] = arith.constant 1.98412701E-4 : f32
// CHECK-DAG: %[[LN2LO:.*]] = arith.constant 1.90465421E-9 : f32
// CHECK-DAG: %[[LN2HI:.*]] = arith.constant -0.693147182 : f32
// CHECK-DAG: %[[LOG2E:.*]] = arith.constant 1.44269502 : f32
// CHECK-DAG: %[[SHIFT:.*]] = arith.constant 0x4B400000 : f32
// CHECK-DAG: %[[LO:.*]] = arith.constant -1.040000e+02 : f32
// CHECK-DAG: %[[HI:.*]] = arith.constant 8.900000e+01 : f32
// CHECK-NOT: npudev
// CHECK: scf.parallel (%[[T:.*]]) = (%{{.*}}) to (%{{.*}}) step
// CHECK: %[[OFF:.*]] = arith.muli %[[T]]
// CHECK: %[[WIN:.*]] = memref.subview %[[X]][%[[OFF]]] [16] [1] : memref<64xf32> to memref<16xf32, strided<[1], offset: ?>>
// CHECK: %[[BUF:.*]] = memref.alloc() : memref<16xf32>
// A DMA between contiguous rows is an element loop (vectorized by LLVM).
// CHECK: scf.for %[[J:.*]] =
// CHECK:   %[[IN:.*]] = memref.load %[[WIN]][%[[J]]]
// CHECK:   memref.store %[[IN]], %[[BUF]][%[[J]]]
// CHECK: scf.for %[[I:.*]] =
// CHECK:   %[[V:.*]] = memref.load %[[BUF]][%[[I]]]
// The device's f32 exp, not libm's: clamp, round x log2(e) to n, reduce
// by n ln2 in two fmas, seven Horner steps, 2^n in two halves, a NaN made
// quiet.
// CHECK-NOT: math.exp
// CHECK:   %[[ABOVE:.*]] = arith.cmpf ogt, %[[V]], %[[HI]] : f32
// CHECK:   %[[X1:.*]] = arith.select %[[ABOVE]], %[[HI]], %[[V]] : f32
// CHECK:   %[[BELOW:.*]] = arith.cmpf olt, %[[X1]], %[[LO]] : f32
// CHECK:   %[[X2:.*]] = arith.select %[[BELOW]], %[[LO]], %[[X1]] : f32
// CHECK:   %[[SHIFTED:.*]] = math.fma %[[X2]], %[[LOG2E]], %[[SHIFT]] : f32
// CHECK:   %[[N:.*]] = arith.subf %[[SHIFTED]], %[[SHIFT]] : f32
// CHECK:   %[[R1:.*]] = math.fma %[[N]], %[[LN2HI]], %[[X2]] : f32
// CHECK:   %[[R:.*]] = math.fma %[[N]], %[[LN2LO]], %[[R1]] : f32
// CHECK:   math.fma %[[C7]], %[[R]], %{{.*}} : f32
// CHECK-COUNT-3: math.fma %{{.*}}, %[[R]], %{{.*}} : f32
// CHECK:   %[[P2:.*]] = math.fma %{{.*}}, %[[R]], %[[C2]] : f32
// CHECK:   %[[P1:.*]] = math.fma %[[P2]], %[[R]], %[[C0]] : f32
// CHECK:   %[[P0:.*]] = math.fma %[[P1]], %[[R]], %[[C0]] : f32
// CHECK-NEXT: %[[SBITS:.*]] = arith.bitcast %[[SHIFTED]] : f32 to i32
// CHECK-NEXT: %[[E:.*]] = arith.subi %[[SBITS]], %[[BITS]] : i32
// CHECK-NEXT: %[[HALF:.*]] = arith.shrsi %[[E]], %{{.*}} : i32
// CHECK:   %[[S1:.*]] = arith.mulf %[[P0]], %{{.*}} : f32
// CHECK:   arith.subi %[[E]], %[[HALF]] : i32
// CHECK:   %[[S2:.*]] = arith.mulf %[[S1]], %{{.*}} : f32
// CHECK:   %[[NAN:.*]] = arith.cmpf uno, %[[V]], %[[V]] : f32
// CHECK:   %[[QUIET:.*]] = arith.addf %[[V]], %[[V]] : f32
// CHECK:   %[[E:.*]] = arith.select %[[NAN]], %[[QUIET]], %[[S2]] : f32
// CHECK:   memref.store %[[E]], %[[BUF]][%[[I]]]
// CHECK: scf.for %[[K:.*]] =
// CHECK:   %[[OUT:.*]] = memref.load %[[BUF]][%[[K]]]
// CHECK:   memref.store %[[OUT]], %[[WIN]][%[[K]]]
// CHECK: memref.dealloc %[[BUF]]
func.func @kernel(%x: memref<64xf32, #npudev.space<global>>) {
  %c16 = arith.constant 16 : index
  npudev.launch tasks(4) {
    %t = npudev.task_id
    %off = arith.muli %t, %c16 : index
    %w = memref.subview %x[%off] [16] [1] : memref<64xf32, #npudev.space<global>> to memref<16xf32, strided<[1], offset: ?>, #npudev.space<global>>
    %b = npudev.alloc : memref<16xf32, #npudev.space<vector>>
    %tok = npudev.dma_start %w, %b : memref<16xf32, strided<[1], offset: ?>, #npudev.space<global>> to memref<16xf32, #npudev.space<vector>>
    npudev.wait %tok
    npudev.wait_all
    npudev.vunary <exp> %b, %b : memref<16xf32, #npudev.space<vector>>, memref<16xf32, #npudev.space<vector>>
    npudev.dma %b, %w : memref<16xf32, #npudev.space<vector>> to memref<16xf32, strided<[1], offset: ?>, #npudev.space<global>>
  }
  return
}

// -----

// In f64 the vector exp is libm's.
// CHECK-LABEL: func.func @exp_f64
// CHECK: math.exp %{{.*}} : f64
// CHECK-NOT: math.fma
func.func @exp_f64(%x: memref<16xf64, #npudev.space<global>>) {
  npudev.launch tasks(1) {
    %b = npudev.alloc : memref<16xf64, #npudev.space<vector>>
    npudev.dma %x, %b : memref<16xf64, #npudev.space<global>> to memref<16xf64, #npudev.space<vector>>
    npudev.vunary <exp> %b, %b : memref<16xf64, #npudev.space<vector>>, memref<16xf64, #npudev.space<vector>>
    npudev.dma %b, %x : memref<16xf64, #npudev.space<vector>> to memref<16xf64, #npudev.space<global>>
  }
  return
}

// -----

// Elementwise ops and DMAs over buffers whose rows lie back to back are one
// loop over 1-D views: it vectorizes across rows, and LLVM does not unroll
// it whole (a 17 x 1024 fill as two nested loops of static bounds became one
// block of 2,176 vector stores, which the post-RA scheduler took seconds
// over). A window with a gap between its rows keeps the loop nest.
// CHECK-LABEL: func.func @elementwise_rows
// CHECK-SAME: (%[[X:.*]]: memref<4x16xf32>)
// CHECK: %[[A:.*]] = memref.alloc() : memref<17x1024xf32>
// CHECK-NEXT: %[[AF:.*]] = memref.collapse_shape %[[A]] {{\[\[}}0, 1]] : memref<17x1024xf32> into memref<17408xf32>
// CHECK-NEXT: scf.for %[[I:.*]] = %{{.*}} to %c17408 step %c1 {
// CHECK-NEXT: memref.store %{{.*}}, %[[AF]][%[[I]]] : memref<17408xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[B:.*]] = memref.alloc() : memref<4x16xf32>
// CHECK-NEXT: %[[XF:.*]] = memref.collapse_shape %[[X]] {{\[\[}}0, 1]] : memref<4x16xf32> into memref<64xf32>
// CHECK-NEXT: %[[BF:.*]] = memref.collapse_shape %[[B]] {{\[\[}}0, 1]] : memref<4x16xf32> into memref<64xf32>
// CHECK-NEXT: scf.for %[[J:.*]] = %{{.*}} to %c64 step %c1 {
// CHECK-NEXT: %[[E:.*]] = memref.load %[[XF]][%[[J]]] : memref<64xf32>
// CHECK-NEXT: memref.store %[[E]], %[[BF]][%[[J]]] : memref<64xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %[[W:.*]] = memref.subview %[[B]][0, 0] [4, 8] [1, 1]
// CHECK-NEXT: %[[C:.*]] = memref.alloc() : memref<4x8xf32>
// CHECK-NEXT: scf.for %[[R:.*]] = %{{.*}} to %c4 step %c1 {
// CHECK-NEXT: scf.for %[[K:.*]] = %{{.*}} to %c8 step %c1 {
// CHECK-NEXT: memref.load %[[W]][%[[R]], %[[K]]] : memref<4x8xf32, strided<[16, 1]>>
// CHECK-NEXT: math.absf
// CHECK-NEXT: memref.store %{{.*}}, %[[C]][%[[R]], %[[K]]] : memref<4x8xf32>
func.func @elementwise_rows(%x: memref<4x16xf32, #npudev.space<global>>) {
  npudev.launch tasks(1) {
    %cst = arith.constant 0xFF800000 : f32
    %a = npudev.alloc : memref<17x1024xf32, #npudev.space<vector>>
    npudev.vfill %cst, %a : f32, memref<17x1024xf32, #npudev.space<vector>>
    %b = npudev.alloc : memref<4x16xf32, #npudev.space<vector>>
    npudev.dma %x, %b : memref<4x16xf32, #npudev.space<global>> to memref<4x16xf32, #npudev.space<vector>>
    %w = memref.subview %b[0, 0] [4, 8] [1, 1] : memref<4x16xf32, #npudev.space<vector>> to memref<4x8xf32, strided<[16, 1]>, #npudev.space<vector>>
    %c = npudev.alloc : memref<4x8xf32, #npudev.space<vector>>
    npudev.vunary <abs> %w, %c : memref<4x8xf32, strided<[16, 1]>, #npudev.space<vector>>, memref<4x8xf32, #npudev.space<vector>>
    npudev.dma %c, %w : memref<4x8xf32, #npudev.space<vector>> to memref<4x8xf32, strided<[16, 1]>, #npudev.space<vector>>
    npudev.dma %b, %x : memref<4x16xf32, #npudev.space<vector>> to memref<4x16xf32, #npudev.space<global>>
  }
  return
}

// -----

// Dynamic shapes keep the loop nest: two of them may disagree at run time
// with equal element counts, which the nest's checked mode reports.
// CHECK-LABEL: func.func @elementwise_dynamic_rows
// CHECK-NOT: memref.collapse_shape
// CHECK: scf.for %[[R:.*]] =
// CHECK-NEXT: scf.for %[[K:.*]] =
// CHECK-NEXT: memref.store %{{.*}}, %{{.*}}[%[[R]], %[[K]]] : memref<?x64xf32, strided<[64, 1]>>
func.func @elementwise_dynamic_rows(%n: index, %f: f32) {
  npudev.launch tasks(1) {
    %a = npudev.alloc : memref<16x64xf32, #npudev.space<vector>>
    %rows = memref.subview %a[0, 0] [%n, 64] [1, 1] : memref<16x64xf32, #npudev.space<vector>> to memref<?x64xf32, strided<[64, 1]>, #npudev.space<vector>>
    %d = memref.cast %rows : memref<?x64xf32, strided<[64, 1]>, #npudev.space<vector>> to memref<?x64xf32, #npudev.space<vector>>
    npudev.vfill %f, %d : f32, memref<?x64xf32, #npudev.space<vector>>
  }
  return
}

// -----

// A DMA whose innermost dimension is strided stays a memref.copy.
// CHECK-LABEL: func.func @strided_dma
// CHECK: memref.copy %{{.*}}, %{{.*}} : memref<8xf32, strided<[2]>> to memref<8xf32>
func.func @strided_dma(%x: memref<16xf32, #npudev.space<global>>) {
  npudev.launch tasks(1) {
    %w = memref.subview %x[0] [8] [2] : memref<16xf32, #npudev.space<global>> to memref<8xf32, strided<[2]>, #npudev.space<global>>
    %b = npudev.alloc : memref<8xf32, #npudev.space<vector>>
    npudev.dma %w, %b : memref<8xf32, strided<[2]>, #npudev.space<global>> to memref<8xf32, #npudev.space<vector>>
  }
  return
}

// -----

// Reductions run in index order from the identity of the element type.
// CHECK-LABEL: func.func @reduce
// CHECK: %[[INIT:.*]] = arith.constant -2147483648 : i32
// CHECK: scf.for %{{.*}} iter_args(%[[ACC:.*]] = %[[INIT]], %{{.*}} = %[[INIT]], %{{.*}} = %[[INIT]], %{{.*}} = %[[INIT]]) -> (i32, i32, i32, i32)
// CHECK:   arith.maxsi %[[ACC]]
func.func @reduce() {
  npudev.launch tasks(1) {
    %a = npudev.alloc : memref<4x8xi32, #npudev.space<vector>>
    %r = npudev.alloc : memref<4xi32, #npudev.space<vector>>
    npudev.vreduce <max> %a, %r : memref<4x8xi32, #npudev.space<vector>>, memref<4xi32, #npudev.space<vector>>
  }
  return
}

// -----

// Row sums fold 8 rows side by side (their dependent additions overlap),
// then at most one block of 4, one of 2 and a last row (the row count is
// read at run time here): each row still adds its elements in index order
// from 0.0, with its own accumulator.
// CHECK-LABEL: func.func @row_sums
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: scf.for %[[R:[^ ]*]] = %{{.*}} to %{{.*}} step %c8
// CHECK: %[[S:[^:]*]]:8 = scf.for %[[K:[^ ]*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A0:[^ ]*]] = %[[ZERO]], %[[A1:[^ ]*]] = %[[ZERO]], {{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32)
// CHECK: %[[X0:[^ ]*]] = memref.load %{{.*}}[%[[R]], %[[K]]]
// CHECK-NEXT: %[[Y0:[^ ]*]] = arith.addf %[[A0]], %[[X0]]
// CHECK: %[[X1:[^ ]*]] = memref.load %{{.*}}[%{{.*}}, %[[K]]]
// CHECK-NEXT: %[[Y1:[^ ]*]] = arith.addf %[[A1]], %[[X1]]
// CHECK: scf.yield %[[Y0]], %[[Y1]],
// CHECK: memref.store %[[S]]#0
// CHECK: memref.store %[[S]]#7
// CHECK: scf.for %{{.*}} step %c4
// CHECK: scf.for %{{.*}} iter_args({{.*}}) -> (f32, f32, f32, f32)
// CHECK: scf.for %{{.*}} step %c2
// CHECK: scf.for %{{.*}} iter_args({{.*}}) -> (f32, f32)
// CHECK: scf.for %{{.*}} step %c1
// CHECK: scf.for %{{.*}} iter_args({{.*}}) -> (f32)
func.func @row_sums(%n: index) {
  npudev.launch tasks(1) {
    %a = npudev.alloc : memref<15x64xf32, #npudev.space<vector>>
    %r = npudev.alloc : memref<15xf32, #npudev.space<vector>>
    %rows = memref.subview %a[0, 0] [%n, 64] [1, 1] : memref<15x64xf32, #npudev.space<vector>> to memref<?x64xf32, strided<[64, 1]>, #npudev.space<vector>>
    %sums = memref.subview %r[0] [%n] [1] : memref<15xf32, #npudev.space<vector>> to memref<?xf32, strided<[1]>, #npudev.space<vector>>
    npudev.vreduce <sum> %rows, %sums : memref<?x64xf32, strided<[64, 1]>, #npudev.space<vector>>, memref<?xf32, strided<[1]>, #npudev.space<vector>>
  }
  return
}

// -----

// Sort and unique call the runtime through its C interface.
// CHECK-DAG: func.func private @npu_rt_unique_i32(memref<?xi32, strided<[?], offset: ?>>, memref<?xi32, strided<[?], offset: ?>>) -> index attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @npu_rt_sort_i32(memref<?xi32, strided<[?], offset: ?>>, memref<?xi32, strided<[?], offset: ?>>) attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @sort
// CHECK: func.call @npu_rt_sort_i32
// CHECK: = func.call @npu_rt_unique_i32
func.func @sort() -> index {
  %n = npudev.alloc : memref<1xindex, #npudev.space<vector>>
  %c0 = arith.constant 0 : index
  npudev.launch tasks(1) {
    %a = npudev.alloc : memref<32xi32, #npudev.space<vector>>
    npudev.vsort %a, %a : memref<32xi32, #npudev.space<vector>>, memref<32xi32, #npudev.space<vector>>
    %count = npudev.vunique %a, %a : memref<32xi32, #npudev.space<vector>>, memref<32xi32, #npudev.space<vector>>
    memref.store %count, %n[%c0] : memref<1xindex, #npudev.space<vector>>
  }
  %r = memref.load %n[%c0] : memref<1xindex, #npudev.space<vector>>
  return %r : index
}

// -----

// Matmul without a runtime kernel (i8 inputs): an (i, j, k) nest, each
// product widened to the i32 accumulator and added in k order.
// CHECK-LABEL: func.func @matmul_i8
// CHECK: scf.for
// CHECK:   scf.for
// CHECK:     %[[INIT:.*]] = memref.load
// CHECK:     scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[INIT]]) -> (i32)
// CHECK:       %[[A:.*]] = arith.extsi {{.*}} : i8 to i32
// CHECK:       %[[B:.*]] = arith.extsi {{.*}} : i8 to i32
// CHECK:       %[[P:.*]] = arith.muli %[[A]], %[[B]] : i32
// CHECK:       arith.addi %[[ACC]], %[[P]] : i32
// CHECK-NOT: func.call
func.func @matmul_i8() {
  npudev.launch tasks(1) {
    %a = npudev.alloc : memref<4x8xi8, #npudev.space<vector>>
    %b = npudev.alloc : memref<8x4xi8, #npudev.space<cube>>
    %c = npudev.alloc : memref<4x4xi32, #npudev.space<vector>>
    npudev.matmul %a, %b, %c {accumulate} : memref<4x8xi8, #npudev.space<vector>>, memref<8x4xi8, #npudev.space<cube>>, memref<4x4xi32, #npudev.space<vector>>
  }
  return
}

// -----

// An f32 matmul calls the runtime's micro-kernel.
// CHECK: func.func private @npu_rt_matmul_f32(memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, i1) attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @matmul_f32
// CHECK: %[[ACC:.*]] = arith.constant false
// CHECK: func.call @npu_rt_matmul_f32(%{{.*}}, %{{.*}}, %{{.*}}, %[[ACC]])
func.func @matmul_f32() {
  npudev.launch tasks(1) {
    %a = npudev.alloc : memref<4x8xf32, #npudev.space<vector>>
    %b = npudev.alloc : memref<8x4xf32, #npudev.space<cube>>
    %c = npudev.alloc : memref<4x4xf32, #npudev.space<vector>>
    npudev.matmul %a, %b, %c : memref<4x8xf32, #npudev.space<vector>>, memref<8x4xf32, #npudev.space<cube>>, memref<4x4xf32, #npudev.space<vector>>
  }
  return
}

// -----

// f16 and bf16 inputs call the kernel of their type, which widens them to
// f32 as it packs them; a transposed operand is passed as a transposed view.
// CHECK-DAG: func.func private @npu_rt_matmul_f16(memref<?x?xf16, strided<[?, ?], offset: ?>>, memref<?x?xf16, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, i1)
// CHECK-DAG: func.func private @npu_rt_matmul_bf16(memref<?x?xbf16, strided<[?, ?], offset: ?>>, memref<?x?xbf16, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, i1)
// CHECK-LABEL: func.func @matmul_half
// CHECK: %[[ACC:.*]] = arith.constant true
// CHECK: func.call @npu_rt_matmul_f16(%{{.*}}, %{{.*}}, %{{.*}}, %[[ACC]])
// CHECK: %[[BT:.*]] = memref.transpose %{{.*}} (d0, d1) -> (d1, d0)
// CHECK: %[[B:.*]] = memref.cast %[[BT]]
// CHECK: func.call @npu_rt_matmul_bf16(%{{.*}}, %[[B]], %{{.*}}, %{{.*}})
func.func @matmul_half() {
  npudev.launch tasks(1) {
    %a = npudev.alloc : memref<4x8xf16, #npudev.space<vector>>
    %b = npudev.alloc : memref<8x4xf16, #npudev.space<cube>>
    %c = npudev.alloc : memref<4x4xf32, #npudev.space<vector>>
    npudev.matmul %a, %b, %c {accumulate} : memref<4x8xf16, #npudev.space<vector>>, memref<8x4xf16, #npudev.space<cube>>, memref<4x4xf32, #npudev.space<vector>>
    %x = npudev.alloc : memref<4x8xbf16, #npudev.space<vector>>
    %y = npudev.alloc : memref<4x8xbf16, #npudev.space<cube>>
    npudev.matmul %x, %y, %c {transpose_b} : memref<4x8xbf16, #npudev.space<vector>>, memref<4x8xbf16, #npudev.space<cube>>, memref<4x4xf32, #npudev.space<vector>>
  }
  return
}

// -----

// A report becomes a minimum over its rows stored atomically into its slot
// of a trailing status argument; each launch runs only while no report
// has fired (status[0] == 0).
// CHECK-LABEL: func.func @report
// CHECK-SAME: (%{{.*}}: memref<4xi32>, %[[STATUS:.*]]: memref<3xi64>)
// CHECK: %[[FAILED:.*]] = memref.load %[[STATUS]][%{{.*}}] : memref<3xi64>
// CHECK: %[[CLEAR:.*]] = arith.cmpi eq, %[[FAILED]], %{{.*}} : i64
// CHECK: scf.if %[[CLEAR]] {
// CHECK: scf.parallel
// CHECK: %[[MIN:.*]] = scf.for {{.*}} -> (i64)
// CHECK: arith.cmpi sge
// CHECK: arith.minsi
// CHECK: %[[FIRED:.*]] = arith.cmpi ne, %[[MIN]]
// CHECK: scf.if %[[FIRED]] {
// CHECK: memref.atomic_rmw mins %[[MIN]], %[[STATUS]][%c1] : (i64, memref<3xi64>) -> i64
// CHECK: memref.atomic_rmw assign %{{.*}}, %[[STATUS]][%c0] : (i64, memref<3xi64>) -> i64
// CHECK: memref.atomic_rmw mins %{{.*}}, %[[STATUS]][%c2]
// CHECK-NOT: npudev.report_rows
func.func @report(%x: memref<4xi32, #npudev.space<global>>) {
  npudev.launch tasks(2) {
    %rows = npudev.alloc : memref<4xi32, #npudev.space<vector>>
    npudev.dma %x, %rows : memref<4xi32, #npudev.space<global>> to memref<4xi32, #npudev.space<vector>>
    npudev.report_rows %rows, "first {row}" : memref<4xi32, #npudev.space<vector>>
    npudev.report_rows %rows, "second {row}" : memref<4xi32, #npudev.space<vector>>
  }
  return
}

// -----

// Staging forwarded: %a and %b only carry one DMA'd input each to the
// matmul, so the kernel reads the DMAs' sources (b through its transposed
// view) and neither the copies nor the buffers remain; c stays on chip.
!g = memref<64x64xf32, #npudev.space<global>>
!w = memref<16x16xf32, strided<[64, 1], offset: ?>, #npudev.space<global>>
!v = memref<16x16xf32, #npudev.space<vector>>
!c = memref<16x16xf32, #npudev.space<cube>>
// CHECK-LABEL: func.func @staged_inputs
// CHECK-SAME: (%[[A:[^:]*]]: memref<64x64xf32>, %[[B:[^:]*]]: memref<64x64xf32>
// CHECK: %[[C:.*]] = memref.alloc() : memref<16x16xf32>
// CHECK-NOT: memref.alloc
// CHECK: %[[WA:.*]] = memref.subview %[[A]]
// CHECK: %[[WB:.*]] = memref.subview %[[B]]
// CHECK: %[[BT:.*]] = memref.transpose %[[WB]]
// CHECK: %[[CA:.*]] = memref.cast %[[WA]]
// CHECK: %[[CB:.*]] = memref.cast %[[BT]]
// CHECK: %[[CC:.*]] = memref.cast %[[C]]
// CHECK: func.call @npu_rt_matmul_f32(%[[CA]], %[[CB]], %[[CC]], %{{.*}})
// CHECK: scf.for
// CHECK:   scf.for
// CHECK:     memref.load %[[C]]
// CHECK-NOT: scf.for
func.func @staged_inputs(%A: !g, %B: !g, %C: !g, %i: index) {
  npudev.launch tasks(1) {
    %a = npudev.alloc : !v
    %b = npudev.alloc : !c
    %c = npudev.alloc : !v
    %wa = memref.subview %A[%i, 0] [16, 16] [1, 1] : !g to !w
    %wb = memref.subview %B[0, %i] [16, 16] [1, 1] : !g to !w
    npudev.dma %wa, %a : !w to !v
    npudev.dma %wb, %b : !w to !c
    npudev.matmul %a, %b, %c {transpose_b} : !v, !c, !v
    %wc = memref.subview %C[%i, 0] [16, 16] [1, 1] : !g to !w
    npudev.dma %c, %wc : !v to !w
  }
  return
}

// -----

// Not forwarded: %a is read again after the matmul, and %b's source may
// change between its DMA and the matmul (a DMA writes global memory). Both
// copies stay, and the kernel reads the buffers.
!g = memref<64x64xf32, #npudev.space<global>>
!w = memref<16x16xf32, strided<[64, 1], offset: ?>, #npudev.space<global>>
!v = memref<16x16xf32, #npudev.space<vector>>
!c = memref<16x16xf32, #npudev.space<cube>>
// CHECK-LABEL: func.func @staging_kept
// CHECK: %[[BUFA:.*]] = memref.alloc() : memref<16x16xf32>
// CHECK: %[[BUFB:.*]] = memref.alloc() : memref<16x16xf32>
// CHECK: memref.store %{{.*}}, %[[BUFA]]
// CHECK: memref.store %{{.*}}, %[[BUFB]]
// CHECK: %[[CA:.*]] = memref.cast %[[BUFA]]
// CHECK: %[[CB:.*]] = memref.cast %[[BUFB]]
// CHECK: func.call @npu_rt_matmul_f32(%[[CA]], %[[CB]],
func.func @staging_kept(%A: !g, %B: !g, %C: !g, %i: index) {
  npudev.launch tasks(1) {
    %a = npudev.alloc : !v
    %b = npudev.alloc : !c
    %c = npudev.alloc : !v
    %wa = memref.subview %A[%i, 0] [16, 16] [1, 1] : !g to !w
    %wb = memref.subview %B[0, %i] [16, 16] [1, 1] : !g to !w
    npudev.dma %wa, %a : !w to !v
    npudev.dma %wb, %b : !w to !c
    npudev.dma %c, %wb : !v to !w
    npudev.matmul %a, %b, %c : !v, !c, !v
    npudev.dma %a, %wa : !v to !w
  }
  return
}

// -----

// Staging forwarded through views, to matmuls in scf.if branches (as the
// attention kernels stage a block of keys, whose first block starts the
// sum and the rest accumulate): each buffer is reached only through a
// subview and a cast, whose one DMA fills it and whose other users read
// it; a branch runs at most once, so nothing can run between the DMA and
// either matmul. Neither the copies nor the buffers remain.
!g = memref<64x64xf32, #npudev.space<global>>
!w = memref<?x64xf32, strided<[64, 1], offset: ?>, #npudev.space<global>>
!c = memref<16x64xf32, #npudev.space<cube>>
!s = memref<?x64xf32, strided<[64, 1]>, #npudev.space<cube>>
!r = memref<?x64xf32, strided<[64, 1], offset: ?>, #npudev.space<cube>>
!o = memref<16x16xf32, #npudev.space<cube>>
// CHECK-LABEL: func.func @staged_views_in_branches
// CHECK-SAME: (%[[A:[^:]*]]: memref<64x64xf32>, %[[B:[^:]*]]: memref<64x64xf32>
// CHECK: %[[O:.*]] = memref.alloc() : memref<16x16xf32>
// CHECK-NOT: memref.alloc
// CHECK: %[[WA:.*]] = memref.subview %[[A]]
// CHECK: %[[WB:.*]] = memref.subview %[[B]]
// CHECK: scf.if
// CHECK: %[[CA:.*]] = memref.cast %[[WA]]
// CHECK: func.call @npu_rt_matmul_f32(%[[CA]], %{{.*}}, %{{.*}}, %false)
// CHECK: } else {
// CHECK: %[[CA2:.*]] = memref.cast %[[WA]]
// CHECK: func.call @npu_rt_matmul_f32(%[[CA2]], %{{.*}}, %{{.*}}, %true)
// CHECK-NOT: scf.for
// CHECK: return
func.func @staged_views_in_branches(%A: !g, %B: !g, %i: index, %n: index, %first: i1) {
  npudev.launch tasks(1) {
    %a = npudev.alloc : !c
    %b = npudev.alloc : !c
    %o = npudev.alloc : !o
    %sa = memref.subview %a[0, 0] [%n, 64] [1, 1] : !c to !s
    %va = memref.cast %sa : !s to !r
    %sb = memref.subview %b[0, 0] [%n, 64] [1, 1] : !c to !s
    %vb = memref.cast %sb : !s to !r
    %wa = memref.subview %A[%i, 0] [%n, 64] [1, 1] : !g to !w
    %wb = memref.subview %B[%i, 0] [%n, 64] [1, 1] : !g to !w
    npudev.dma %wa, %va : !w to !r
    npudev.dma %wb, %vb : !w to !r
    scf.if %first {
      npudev.matmul %va, %vb, %o {transpose_b} : !r, !r, !o
    } else {
      npudev.matmul %va, %vb, %o {transpose_b, accumulate} : !r, !r, !o
    }
  }
  return
}

// -----

// Not forwarded: a second view of %a is filled between the first view's
// DMA and the matmul (it may overwrite what the matmul reads), and %b's
// matmul runs in a loop (its iterations run again after the DMA). Both
// buffers and their copies stay.
!g = memref<64x64xf32, #npudev.space<global>>
!w = memref<16x64xf32, strided<[64, 1], offset: ?>, #npudev.space<global>>
!c = memref<32x64xf32, #npudev.space<cube>>
!s = memref<16x64xf32, strided<[64, 1], offset: ?>, #npudev.space<cube>>
!o = memref<16x16xf32, #npudev.space<cube>>
// CHECK-LABEL: func.func @staged_views_kept
// CHECK: %[[BUFA:.*]] = memref.alloc() : memref<32x64xf32>
// CHECK: %[[BUFB:.*]] = memref.alloc() : memref<32x64xf32>
// CHECK: %[[A0:.*]] = memref.subview %[[BUFA]]
// CHECK: %[[A1:.*]] = memref.subview %[[BUFA]]
// CHECK: %[[B0:.*]] = memref.subview %[[BUFB]]
// CHECK: memref.collapse_shape %[[A0]]
// CHECK: memref.collapse_shape %[[A1]]
// CHECK: memref.cast %[[A0]]
// CHECK: func.call @npu_rt_matmul_f32
// CHECK: memref.collapse_shape %[[B0]]
// CHECK: scf.for
// CHECK: memref.cast %[[B0]]
// CHECK: func.call @npu_rt_matmul_f32
func.func @staged_views_kept(%A: !g, %B: !g, %i: index, %j: index, %k: index, %n: index) {
  npudev.launch tasks(1) {
    %a = npudev.alloc : !c
    %b = npudev.alloc : !c
    %o = npudev.alloc : !o
    %a0 = memref.subview %a[%k, 0] [16, 64] [1, 1] : !c to !s
    %a1 = memref.subview %a[%i, 0] [16, 64] [1, 1] : !c to !s
    %b0 = memref.subview %b[%k, 0] [16, 64] [1, 1] : !c to !s
    %wa = memref.subview %A[%k, 0] [16, 64] [1, 1] : !g to !w
    %wb = memref.subview %B[%j, 0] [16, 64] [1, 1] : !g to !w
    npudev.dma %wa, %a0 : !w to !s
    npudev.dma %wb, %a1 : !w to !s
    npudev.matmul %a0, %a1, %o {transpose_b} : !s, !s, !o
    npudev.dma %wb, %b0 : !w to !s
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %t = %c0 to %n step %c1 {
      npudev.matmul %b0, %b0, %o {transpose_b, accumulate} : !s, !s, !o
    }
  }
  return
}

// -----

// Not forwarded: the DMA's source is on chip, and the prefetch after it
// rewrites that source before the matmul runs (only global memory is
// proven unchanged between the two).
!g = memref<16x16xf32, #npudev.space<global>>
!s = memref<16x16xf32, #npudev.space<shared>>
!c = memref<16x16xf32, #npudev.space<cube>>
// CHECK-LABEL: func.func @staged_from_chip
// CHECK: %[[S:.*]] = memref.alloc() : memref<16x16xf32>
// CHECK: %[[BUFA:.*]] = memref.alloc() : memref<16x16xf32>
// CHECK: memref.collapse_shape %[[BUFA]]
// CHECK: %[[CA:.*]] = memref.cast %[[BUFA]]
// CHECK: func.call @npu_rt_matmul_f32(%[[CA]],
func.func @staged_from_chip(%g0: !g, %g1: !g) {
  npudev.launch tasks(1) {
    %s = npudev.alloc : !s
    %a = npudev.alloc : !c
    %o = npudev.alloc : !c
    npudev.dma %g0, %s : !g to !s
    npudev.dma %s, %a : !s to !c
    npudev.dma %g1, %s : !g to !s
    npudev.matmul %a, %a, %o : !c, !c, !c
  }
  return
}
