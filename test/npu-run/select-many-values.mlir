// arith.select after many values: the simulator once held a reference
// into its value map across the write of the result, and the map grew
// (issue #13: a use after free with forty-odd constants). 48 constants,
// then selects of the first and the last: y = [0 + 47, 47 + 0] as i32.
// RUN: npu-run %s --random-inputs=0 --print-outputs | FileCheck %s
// RUN: npu-run %s --random-inputs=0 --print-outputs --mode=jit | FileCheck %s
// CHECK: arg0 [2] = [47, 47]
func.func @many_values(%y: memref<2xi32, #npudev.space<global>> {npudev.output}) {
  npudev.launch tasks(1) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c3 = arith.constant 3 : i32
    %c4 = arith.constant 4 : i32
    %c5 = arith.constant 5 : i32
    %c6 = arith.constant 6 : i32
    %c7 = arith.constant 7 : i32
    %c8 = arith.constant 8 : i32
    %c9 = arith.constant 9 : i32
    %c10 = arith.constant 10 : i32
    %c11 = arith.constant 11 : i32
    %c12 = arith.constant 12 : i32
    %c13 = arith.constant 13 : i32
    %c14 = arith.constant 14 : i32
    %c15 = arith.constant 15 : i32
    %c16 = arith.constant 16 : i32
    %c17 = arith.constant 17 : i32
    %c18 = arith.constant 18 : i32
    %c19 = arith.constant 19 : i32
    %c20 = arith.constant 20 : i32
    %c21 = arith.constant 21 : i32
    %c22 = arith.constant 22 : i32
    %c23 = arith.constant 23 : i32
    %c24 = arith.constant 24 : i32
    %c25 = arith.constant 25 : i32
    %c26 = arith.constant 26 : i32
    %c27 = arith.constant 27 : i32
    %c28 = arith.constant 28 : i32
    %c29 = arith.constant 29 : i32
    %c30 = arith.constant 30 : i32
    %c31 = arith.constant 31 : i32
    %c32 = arith.constant 32 : i32
    %c33 = arith.constant 33 : i32
    %c34 = arith.constant 34 : i32
    %c35 = arith.constant 35 : i32
    %c36 = arith.constant 36 : i32
    %c37 = arith.constant 37 : i32
    %c38 = arith.constant 38 : i32
    %c39 = arith.constant 39 : i32
    %c40 = arith.constant 40 : i32
    %c41 = arith.constant 41 : i32
    %c42 = arith.constant 42 : i32
    %c43 = arith.constant 43 : i32
    %c44 = arith.constant 44 : i32
    %c45 = arith.constant 45 : i32
    %c46 = arith.constant 46 : i32
    %c47 = arith.constant 47 : i32
    %t = arith.constant true
    %f = arith.constant false
    %a = arith.select %t, %c0, %c47 : i32
    %b = arith.select %f, %c0, %c47 : i32
    %s0 = arith.addi %a, %c47 : i32
    %s1 = arith.addi %b, %c0 : i32
    %i0 = arith.constant 0 : index
    %i1 = arith.constant 1 : index
    memref.store %s0, %y[%i0] : memref<2xi32, #npudev.space<global>>
    memref.store %s1, %y[%i1] : memref<2xi32, #npudev.space<global>>
    npudev.end
  }
  return
}
