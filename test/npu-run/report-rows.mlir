// npudev.report_rows when it fires (test/Dialect/NPUDev/ops/report-rows.mlir
// has the verifier and a kernel where it does not): both executors fail as the launch ends, naming the
// smallest row the first report in program order found, whatever the task
// and thread count; the launch after it does not run.
// RUN: not npu-run %s --entry=two_reports --random-inputs=0 2>&1 | FileCheck %s --check-prefix=TWO
// RUN: not npu-run %s --entry=two_reports --random-inputs=0 --mode=jit 2>&1 | FileCheck %s --check-prefix=TWO
// RUN: not npu-run %s --entry=two_reports --random-inputs=0 --mode=jit --jit-threads=2 2>&1 | FileCheck %s --check-prefix=TWO
// RUN: not npu-run %s --entry=later_report --random-inputs=0 2>&1 | FileCheck %s --check-prefix=LATER
// RUN: not npu-run %s --entry=later_report --random-inputs=0 --mode=jit 2>&1 | FileCheck %s --check-prefix=LATER

!g = memref<8xi32, #npudev.space<global>>
!v4 = memref<4xi32, #npudev.space<vector>>

// Rows 0..7 over two tasks of 4. The first report fires on rows >= 6 (task
// 1 only), the second on rows >= 5: the first in program order wins, with
// its smallest row, though the second found a smaller one.
// TWO: rows from 6 on: row 6 is too big
// TWO-NOT: row 5
func.func @two_reports(%out: !g {npudev.output}) {
  npudev.launch tasks(2) {
    %t = npudev.task_id
    %c4 = arith.constant 4 : index
    %start = arith.muli %t, %c4 : index
    %rows = npudev.alloc : !v4
    npudev.iota %start, %rows : !v4
    %none = npudev.alloc : !v4
    %cm1 = arith.constant -1 : i32
    npudev.vfill %cm1, %none : i32, !v4
    %mask = npudev.alloc : !v4
    %picked = npudev.alloc : !v4
    %c6 = arith.constant 6 : i32
    npudev.vcmp_scalar <ge> %rows, %c6, %mask : !v4, i32, !v4
    npudev.vselect %mask, %rows, %none, %picked : !v4, !v4, !v4, !v4
    npudev.report_rows %picked, "rows from 6 on: row {row} is too big" : !v4
    %c5 = arith.constant 5 : i32
    npudev.vcmp_scalar <ge> %rows, %c5, %mask : !v4, i32, !v4
    npudev.vselect %mask, %rows, %none, %picked : !v4, !v4, !v4, !v4
    npudev.report_rows %picked, "rows from 5 on: row {row} is too big" : !v4
    %w = memref.subview %out[%start] [4] [1] : !g to memref<4xi32, strided<[1], offset: ?>, #npudev.space<global>>
    npudev.dma %rows, %w : !v4 to memref<4xi32, strided<[1], offset: ?>, #npudev.space<global>>
  }
  return
}

// A report in the second launch: the first launch's writes stand, the
// error names row 3 (task 0's smallest non-negative entry is 3).
// LATER: row 3 fails
func.func @later_report(%out: !g {npudev.output}) {
  npudev.launch tasks(1) {
    %c0 = arith.constant 0 : index
    %rows = npudev.alloc : !v4
    npudev.iota %c0, %rows : !v4
    %w = memref.subview %out[0] [4] [1] : !g to memref<4xi32, strided<[1]>, #npudev.space<global>>
    npudev.dma %rows, %w : !v4 to memref<4xi32, strided<[1]>, #npudev.space<global>>
  }
  npudev.launch tasks(2) {
    %t = npudev.task_id
    %c3 = arith.constant 3 : index
    %start = arith.addi %t, %c3 : index
    %rows = npudev.alloc : !v4
    npudev.iota %start, %rows : !v4
    npudev.report_rows %rows, "row {row} fails" : !v4
  }
  return
}

