// Integers of any width wrap as LLVM's do, in both executors: 7 + 1 in i4
// is -8 (the simulator used to give 8).
// RUN: npu-run %s --random-inputs=0 --print-outputs | FileCheck %s
// RUN: npu-run %s --random-inputs=0 --print-outputs --mode=jit | FileCheck %s

// CHECK: arg0 [3] = [-8, 7, -1]
func.func @i4(%out: memref<3xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %seven = arith.constant 7 : i4
  %one = arith.constant 1 : i4
  %sum = arith.addi %seven, %one : i4
  %wide = arith.extsi %sum : i4 to i32
  memref.store %wide, %out[%c0] : memref<3xi32>
  // -8 - 1 wraps back to 7.
  %back = arith.subi %sum, %one : i4
  %backWide = arith.extsi %back : i4 to i32
  memref.store %backWide, %out[%c1] : memref<3xi32>
  // i1 true is -1 when sign-extended.
  %true = arith.constant true
  %minusOne = arith.extsi %true : i1 to i32
  memref.store %minusOne, %out[%c2] : memref<3xi32>
  return
}
