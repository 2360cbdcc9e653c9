// npudev.report_rows: the verifier's rules, the printed form, and a kernel
// whose rows are all negative, so it completes in both executors (run here
// and by ParityTest); test/npu-run/report-rows.mlir has the reports that fire.
// RUN: npu-opt %s --split-input-file --verify-diagnostics | FileCheck %s
// A report writes the kernel's status, so canonicalize and CSE keep it
// (and what computes its rows) though nothing else reads them.
// RUN: sed -n '1,/^\/\/ -----/p' %s | npu-opt --canonicalize --cse | FileCheck %s --check-prefix=KEPT
// RUN: sed -n '1,/^\/\/ -----/p' %s | npu-run - --random-inputs=0 --print-outputs | FileCheck %s --check-prefix=EXEC
// RUN: sed -n '1,/^\/\/ -----/p' %s | npu-run - --random-inputs=0 --print-outputs --mode=jit | FileCheck %s --check-prefix=EXEC

// rows = -1 - x: negative for the data (x >= 0), so nothing fires and the
// kernel writes its rows out.
// EXEC: arg1 [8] = [-{{[0-9]+}}, -{{[0-9]+}}, -{{[0-9]+}}, -{{[0-9]+}}, -{{[0-9]+}}, -{{[0-9]+}}, -{{[0-9]+}}, -{{[0-9]+}}]
// KEPT-LABEL: func.func @quiet
// KEPT: npudev.report_rows %{{.*}}, "row {row} fails"
// KEPT: npudev.report_rows %{{.*}}, "unread row {row}"
// CHECK-LABEL: func.func @quiet
// CHECK: npudev.report_rows %{{.*}}, "row {row} fails" : memref<4xi32, #npudev.space<vector>>
#v = #npudev.space<vector>
#g = #npudev.space<global>
func.func @quiet(%x: memref<8xi32, #g>, %out: memref<8xi32, #g> {npudev.output}) {
  npudev.launch tasks(2) {
    %t = npudev.task_id
    %c4 = arith.constant 4 : index
    %start = arith.muli %t, %c4 : index
    %in = memref.subview %x[%start] [4] [1] : memref<8xi32, #g> to memref<4xi32, strided<[1], offset: ?>, #g>
    %rows = npudev.alloc : memref<4xi32, #v>
    npudev.dma %in, %rows : memref<4xi32, strided<[1], offset: ?>, #g> to memref<4xi32, #v>
    %cm1 = arith.constant -1 : i32
    npudev.vbinary_scalar <mul> %rows, %cm1, %rows : memref<4xi32, #v>, i32, memref<4xi32, #v>
    npudev.vbinary_scalar <add> %rows, %cm1, %rows : memref<4xi32, #v>, i32, memref<4xi32, #v>
    npudev.report_rows %rows, "row {row} fails" : memref<4xi32, #v>
    %unread = npudev.alloc : memref<4xi32, #v>
    npudev.vbinary_scalar <add> %rows, %cm1, %unread : memref<4xi32, #v>, i32, memref<4xi32, #v>
    npudev.report_rows %unread, "unread row {row}" : memref<4xi32, #v>
    %w = memref.subview %out[%start] [4] [1] : memref<8xi32, #g> to memref<4xi32, strided<[1], offset: ?>, #g>
    npudev.dma %rows, %w : memref<4xi32, #v> to memref<4xi32, strided<[1], offset: ?>, #g>
  }
  return
}

// -----

func.func @report_outside_launch() {
  %rows = npudev.alloc : memref<4xi32, #npudev.space<vector>>
  // expected-error @+1 {{'npudev.report_rows' op must be inside an npudev.launch}}
  npudev.report_rows %rows, "row {row}" : memref<4xi32, #npudev.space<vector>>
  return
}

// -----

func.func @report_without_row() {
  npudev.launch tasks(1) {
    %rows = npudev.alloc : memref<4xi32, #npudev.space<vector>>
    // expected-error @+1 {{'npudev.report_rows' op message must say where the row goes with '{row}'}}
    npudev.report_rows %rows, "a bad row" : memref<4xi32, #npudev.space<vector>>
  }
  return
}

// -----

func.func @report_float_rows() {
  npudev.launch tasks(1) {
    %rows = npudev.alloc : memref<4xf32, #npudev.space<vector>>
    // expected-error @+1 {{'npudev.report_rows' op takes a rank-1 buffer of row numbers, got 'memref<4xf32, #npudev.space<vector>>'}}
    npudev.report_rows %rows, "row {row}" : memref<4xf32, #npudev.space<vector>>
  }
  return
}

// -----

func.func @report_matrix() {
  npudev.launch tasks(1) {
    %rows = npudev.alloc : memref<2x2xi32, #npudev.space<vector>>
    // expected-error @+1 {{'npudev.report_rows' op takes a rank-1 buffer of row numbers, got 'memref<2x2xi32, #npudev.space<vector>>'}}
    npudev.report_rows %rows, "row {row}" : memref<2x2xi32, #npudev.space<vector>>
  }
  return
}
