// npudev.matmul with transpose_a / transpose_b: an operand stored
// transposed multiplies as its transpose, the same products in the same k
// order as the plain form. Results worked out by hand; ParityTest also
// compares the two executors' bytes.
// RUN: npu-opt %s --split-input-file --verify-diagnostics | FileCheck %s
// RUN: sed -n '1,/^\/\/ -----/p' %s | npu-run - --random-inputs=0 --print-outputs | FileCheck %s --check-prefix=EXEC
// RUN: sed -n '1,/^\/\/ -----/p' %s | npu-run - --random-inputs=0 --print-outputs --mode=jit | FileCheck %s --check-prefix=EXEC

// A = [[0, 1, 2], [3, 4, 5]] (2x3, stored as A^T for transpose_a),
// B = [[0, 1], [2, 3], [4, 5]] (3x2, stored as B^T for transpose_b).
// A B = [[10, 13], [28, 40]] in every form; i8 inputs give the same in i32.
// EXEC: arg0 [2, 2] = [10, 13, 28, 40]
// EXEC-NEXT: arg1 [2, 2] = [10, 13, 28, 40]
// EXEC-NEXT: arg2 [2, 2] = [10, 13, 28, 40]
// EXEC-NEXT: arg3 [2, 2] = [10, 13, 28, 40]
// CHECK-LABEL: func.func @transposes
// CHECK: npudev.matmul %{{.*}}, %{{.*}}, %{{.*}} {transpose_a}
// CHECK: npudev.matmul %{{.*}}, %{{.*}}, %{{.*}} {transpose_b}
// CHECK: npudev.matmul %{{.*}}, %{{.*}}, %{{.*}} {transpose_a, transpose_b}
#v = #npudev.space<vector>
#c = #npudev.space<cube>
#g = #npudev.space<global>
func.func @transposes(%plain: memref<2x2xf32, #g> {npudev.output},
                      %ta: memref<2x2xf32, #g> {npudev.output},
                      %tb: memref<2x2xf32, #g> {npudev.output},
                      %both: memref<2x2xi32, #g> {npudev.output}) {
  %c0 = arith.constant 0 : index
  npudev.launch tasks(1) {
    // a[i, k] = 3 i + k; at[k, i] the same values stored transposed.
    %a = npudev.alloc : memref<2x3xf32, #v>
    %at = npudev.alloc : memref<3x2xf32, #v>
    %b = npudev.alloc : memref<3x2xf32, #c>
    %bt = npudev.alloc : memref<2x3xf32, #c>
    %rowA = npudev.alloc : memref<2x3xf32, #v>
    npudev.iota %c0, %a {dimension = 1} : memref<2x3xf32, #v>
    npudev.iota %c0, %rowA {dimension = 0} : memref<2x3xf32, #v>
    %three = arith.constant 3.0 : f32
    npudev.vbinary_scalar <mul> %rowA, %three, %rowA : memref<2x3xf32, #v>, f32, memref<2x3xf32, #v>
    npudev.vbinary <add> %a, %rowA, %a : memref<2x3xf32, #v>, memref<2x3xf32, #v>, memref<2x3xf32, #v>
    npudev.vtranspose %a, %at : memref<2x3xf32, #v>, memref<3x2xf32, #v>
    // b[k, j] = 2 k + j; bt[j, k] the same transposed.
    %bv = npudev.alloc : memref<3x2xf32, #v>
    %rowB = npudev.alloc : memref<3x2xf32, #v>
    %two = arith.constant 2.0 : f32
    npudev.iota %c0, %bv {dimension = 1} : memref<3x2xf32, #v>
    npudev.iota %c0, %rowB {dimension = 0} : memref<3x2xf32, #v>
    npudev.vbinary_scalar <mul> %rowB, %two, %rowB : memref<3x2xf32, #v>, f32, memref<3x2xf32, #v>
    npudev.vbinary <add> %bv, %rowB, %bv : memref<3x2xf32, #v>, memref<3x2xf32, #v>, memref<3x2xf32, #v>
    %btv = npudev.alloc : memref<2x3xf32, #v>
    npudev.vtranspose %bv, %btv : memref<3x2xf32, #v>, memref<2x3xf32, #v>
    npudev.dma %bv, %b : memref<3x2xf32, #v> to memref<3x2xf32, #c>
    npudev.dma %btv, %bt : memref<2x3xf32, #v> to memref<2x3xf32, #c>
    %out = npudev.alloc : memref<2x2xf32, #v>
    npudev.matmul %a, %b, %out : memref<2x3xf32, #v>, memref<3x2xf32, #c>, memref<2x2xf32, #v>
    npudev.dma %out, %plain : memref<2x2xf32, #v> to memref<2x2xf32, #g>
    npudev.matmul %at, %b, %out {transpose_a} : memref<3x2xf32, #v>, memref<3x2xf32, #c>, memref<2x2xf32, #v>
    npudev.dma %out, %ta : memref<2x2xf32, #v> to memref<2x2xf32, #g>
    npudev.matmul %a, %bt, %out {transpose_b} : memref<2x3xf32, #v>, memref<2x3xf32, #c>, memref<2x2xf32, #v>
    npudev.dma %out, %tb : memref<2x2xf32, #v> to memref<2x2xf32, #g>
    // Both transposed, i8 inputs (the generic loop nest in the JIT).
    %at8 = npudev.alloc : memref<3x2xi8, #v>
    %bt8 = npudev.alloc : memref<2x3xi8, #c>
    %bt8v = npudev.alloc : memref<2x3xi8, #v>
    npudev.vcast %at, %at8 : memref<3x2xf32, #v>, memref<3x2xi8, #v>
    npudev.vcast %btv, %bt8v : memref<2x3xf32, #v>, memref<2x3xi8, #v>
    npudev.dma %bt8v, %bt8 : memref<2x3xi8, #v> to memref<2x3xi8, #c>
    %out32 = npudev.alloc : memref<2x2xi32, #v>
    npudev.matmul %at8, %bt8, %out32 {transpose_a, transpose_b} : memref<3x2xi8, #v>, memref<2x3xi8, #c>, memref<2x2xi32, #v>
    npudev.dma %out32, %both : memref<2x2xi32, #v> to memref<2x2xi32, #g>
  }
  return
}

// -----

// Random data in sizes past the JIT micro-kernel's 16-column vector tiles
// (K 37, M 20, N 40): ParityTest runs this and compares the executors'
// bits; the transposed A is read through strides by the vector path.
// CHECK-LABEL: func.func @transposes_random
func.func @transposes_random(%at_g: memref<37x20xf32, #npudev.space<global>>,
                             %b_g: memref<37x40xf32, #npudev.space<global>>,
                             %bt_g: memref<40x37xf32, #npudev.space<global>>,
                             %out_a: memref<20x40xf32, #npudev.space<global>> {npudev.output},
                             %out_b: memref<20x40xf32, #npudev.space<global>> {npudev.output}) {
  npudev.launch tasks(1) {
    %at = npudev.alloc : memref<37x20xf32, #npudev.space<vector>>
    %a = npudev.alloc : memref<20x37xf32, #npudev.space<vector>>
    %b = npudev.alloc : memref<37x40xf32, #npudev.space<cube>>
    %bt = npudev.alloc : memref<40x37xf32, #npudev.space<cube>>
    npudev.dma %at_g, %at : memref<37x20xf32, #npudev.space<global>> to memref<37x20xf32, #npudev.space<vector>>
    npudev.vtranspose %at, %a : memref<37x20xf32, #npudev.space<vector>>, memref<20x37xf32, #npudev.space<vector>>
    npudev.dma %b_g, %b : memref<37x40xf32, #npudev.space<global>> to memref<37x40xf32, #npudev.space<cube>>
    npudev.dma %bt_g, %bt : memref<40x37xf32, #npudev.space<global>> to memref<40x37xf32, #npudev.space<cube>>
    %c = npudev.alloc : memref<20x40xf32, #npudev.space<vector>>
    npudev.matmul %at, %b, %c {transpose_a} : memref<37x20xf32, #npudev.space<vector>>, memref<37x40xf32, #npudev.space<cube>>, memref<20x40xf32, #npudev.space<vector>>
    npudev.dma %c, %out_a : memref<20x40xf32, #npudev.space<vector>> to memref<20x40xf32, #npudev.space<global>>
    npudev.matmul %a, %bt, %c {transpose_b} : memref<20x37xf32, #npudev.space<vector>>, memref<40x37xf32, #npudev.space<cube>>, memref<20x40xf32, #npudev.space<vector>>
    npudev.dma %c, %out_b : memref<20x40xf32, #npudev.space<vector>> to memref<20x40xf32, #npudev.space<global>>
  }
  return
}

// -----

func.func @transpose_b_shapes(%a: memref<2x3xf32, #npudev.space<vector>>, %b: memref<3x2xf32, #npudev.space<cube>>, %c: memref<2x2xf32, #npudev.space<vector>>) {
  // expected-error @+1 {{'npudev.matmul' op shapes do not chain: [M, K] x [N, K]^T -> [M, N] needed, got 'memref<2x3xf32, #npudev.space<vector>>', 'memref<3x2xf32, #npudev.space<cube>>', 'memref<2x2xf32, #npudev.space<vector>>'}}
  npudev.matmul %a, %b, %c {transpose_b} : memref<2x3xf32, #npudev.space<vector>>, memref<3x2xf32, #npudev.space<cube>>, memref<2x2xf32, #npudev.space<vector>>
  return
}

// -----

func.func @transpose_a_shapes(%a: memref<2x3xf32, #npudev.space<vector>>, %b: memref<3x2xf32, #npudev.space<cube>>, %c: memref<2x2xf32, #npudev.space<vector>>) {
  // expected-error @+1 {{'npudev.matmul' op shapes do not chain: [K, M]^T x [K, N] -> [M, N] needed}}
  npudev.matmul %a, %b, %c {transpose_a} : memref<2x3xf32, #npudev.space<vector>>, memref<3x2xf32, #npudev.space<cube>>, memref<2x2xf32, #npudev.space<vector>>
  return
}
