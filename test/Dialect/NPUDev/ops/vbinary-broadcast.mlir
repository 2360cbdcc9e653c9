// npudev.vbinary_broadcast: a rank-1 operand spread along one dimension,
// per row (along 0: a column vector, softmax's row maxima) or per column
// (along 1: a row vector, a bias). Results worked out by hand; ParityTest
// also compares the two executors' bytes.
// RUN: npu-opt %s --split-input-file --verify-diagnostics | FileCheck %s
// RUN: sed -n '1,/^\/\/ -----/p' %s | npu-run - --random-inputs=0 --print-outputs | FileCheck %s --check-prefix=EXEC
// RUN: sed -n '1,/^\/\/ -----/p' %s | npu-run - --random-inputs=0 --print-outputs --mode=jit | FileCheck %s --check-prefix=EXEC

// x[i, j] = 3 i + j over 2x3; r = [10, 20] per row, c = [1, 2, 3] per
// column. x - r (along 0) = [[-10, -9, -8], [-17, -16, -15]];
// x * c (along 1) = [[0, 2, 6], [3, 8, 15]]; max(x, c) along 1 on i32 =
// [[1, 2, 3], [3, 4, 5]].
// EXEC: arg0 [2, 3] = [-10, -9, -8, -17, -16, -15]
// EXEC-NEXT: arg1 [2, 3] = [0, 2, 6, 3, 8, 15]
// EXEC-NEXT: arg2 [2, 3] = [1, 2, 3, 3, 4, 5]
// CHECK-LABEL: func.func @broadcasts
// CHECK: npudev.vbinary_broadcast <sub> %{{.*}}, %{{.*}}, %{{.*}} along 0 : memref<2x3xf32, #npudev.space<vector>>, memref<2xf32, #npudev.space<vector>>, memref<2x3xf32, #npudev.space<vector>>
// CHECK: npudev.vbinary_broadcast <mul> %{{.*}}, %{{.*}}, %{{.*}} along 1
#v = #npudev.space<vector>
#g = #npudev.space<global>
func.func @broadcasts(%rows: memref<2x3xf32, #g> {npudev.output},
                      %cols: memref<2x3xf32, #g> {npudev.output},
                      %ints: memref<2x3xi32, #g> {npudev.output}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %three = arith.constant 3.0 : f32
  %ten = arith.constant 10.0 : f32
  npudev.launch tasks(1) {
    %x = npudev.alloc : memref<2x3xf32, #v>
    %i = npudev.alloc : memref<2x3xf32, #v>
    npudev.iota %c0, %x {dimension = 1} : memref<2x3xf32, #v>
    npudev.iota %c0, %i {dimension = 0} : memref<2x3xf32, #v>
    npudev.vbinary_scalar <mul> %i, %three, %i : memref<2x3xf32, #v>, f32, memref<2x3xf32, #v>
    npudev.vbinary <add> %x, %i, %x : memref<2x3xf32, #v>, memref<2x3xf32, #v>, memref<2x3xf32, #v>
    %r = npudev.alloc : memref<2xf32, #v>
    npudev.iota %c1, %r : memref<2xf32, #v>
    npudev.vbinary_scalar <mul> %r, %ten, %r : memref<2xf32, #v>, f32, memref<2xf32, #v>
    %c = npudev.alloc : memref<3xf32, #v>
    npudev.iota %c1, %c : memref<3xf32, #v>
    %o = npudev.alloc : memref<2x3xf32, #v>
    npudev.vbinary_broadcast <sub> %x, %r, %o along 0 : memref<2x3xf32, #v>, memref<2xf32, #v>, memref<2x3xf32, #v>
    npudev.dma %o, %rows : memref<2x3xf32, #v> to memref<2x3xf32, #g>
    npudev.vbinary_broadcast <mul> %x, %c, %o along 1 : memref<2x3xf32, #v>, memref<3xf32, #v>, memref<2x3xf32, #v>
    npudev.dma %o, %cols : memref<2x3xf32, #v> to memref<2x3xf32, #g>
    %xi = npudev.alloc : memref<2x3xi32, #v>
    %ci = npudev.alloc : memref<3xi32, #v>
    %oi = npudev.alloc : memref<2x3xi32, #v>
    npudev.vcast %x, %xi : memref<2x3xf32, #v>, memref<2x3xi32, #v>
    npudev.vcast %c, %ci : memref<3xf32, #v>, memref<3xi32, #v>
    npudev.vbinary_broadcast <max> %xi, %ci, %oi along 1 : memref<2x3xi32, #v>, memref<3xi32, #v>, memref<2x3xi32, #v>
    npudev.dma %oi, %ints : memref<2x3xi32, #v> to memref<2x3xi32, #g>
  }
  return
}

// -----

// Random data, the rank-1 operand a strided window (ParityTest).
// CHECK-LABEL: func.func @broadcast_random
func.func @broadcast_random(%x_g: memref<17x40xf32, #npudev.space<global>>,
                            %r_g: memref<34xf32, #npudev.space<global>>,
                            %out: memref<17x40xf32, #npudev.space<global>> {npudev.output}) {
  npudev.launch tasks(1) {
    %x = npudev.alloc : memref<17x40xf32, #npudev.space<vector>>
    %r = npudev.alloc : memref<34xf32, #npudev.space<vector>>
    npudev.dma %x_g, %x : memref<17x40xf32, #npudev.space<global>> to memref<17x40xf32, #npudev.space<vector>>
    npudev.dma %r_g, %r : memref<34xf32, #npudev.space<global>> to memref<34xf32, #npudev.space<vector>>
    %every2 = memref.subview %r[0] [17] [2] : memref<34xf32, #npudev.space<vector>> to memref<17xf32, strided<[2]>, #npudev.space<vector>>
    %o = npudev.alloc : memref<17x40xf32, #npudev.space<vector>>
    npudev.vbinary_broadcast <div> %x, %every2, %o along 0 : memref<17x40xf32, #npudev.space<vector>>, memref<17xf32, strided<[2]>, #npudev.space<vector>>, memref<17x40xf32, #npudev.space<vector>>
    npudev.dma %o, %out : memref<17x40xf32, #npudev.space<vector>> to memref<17x40xf32, #npudev.space<global>>
  }
  return
}

// -----

func.func @broadcast_size(%x: memref<2x3xf32, #npudev.space<vector>>, %r: memref<3xf32, #npudev.space<vector>>) {
  // expected-error @+1 {{'npudev.vbinary_broadcast' op rhs must be rank-1 with one element per index along dimension 0 (2), got 'memref<3xf32, #npudev.space<vector>>'}}
  npudev.vbinary_broadcast <add> %x, %r, %x along 0 : memref<2x3xf32, #npudev.space<vector>>, memref<3xf32, #npudev.space<vector>>, memref<2x3xf32, #npudev.space<vector>>
  return
}

// -----

func.func @broadcast_dimension(%x: memref<2x3xf32, #npudev.space<vector>>, %r: memref<3xf32, #npudev.space<vector>>) {
  // expected-error @+1 {{'npudev.vbinary_broadcast' op broadcasts along dimension 2 of a rank-2 operand}}
  npudev.vbinary_broadcast <add> %x, %r, %x along 2 : memref<2x3xf32, #npudev.space<vector>>, memref<3xf32, #npudev.space<vector>>, memref<2x3xf32, #npudev.space<vector>>
  return
}

// -----

func.func @broadcast_kind(%x: memref<2x3xf32, #npudev.space<vector>>, %r: memref<3xf32, #npudev.space<vector>>) {
  // expected-error @+1 {{'npudev.vbinary_broadcast' op 'and' needs integers, got 'f32'}}
  npudev.vbinary_broadcast <and> %x, %r, %x along 1 : memref<2x3xf32, #npudev.space<vector>>, memref<3xf32, #npudev.space<vector>>, memref<2x3xf32, #npudev.space<vector>>
  return
}

// -----

func.func @broadcast_out_shape(%x: memref<2x3xf32, #npudev.space<vector>>, %r: memref<3xf32, #npudev.space<vector>>, %o: memref<3x2xf32, #npudev.space<vector>>) {
  // expected-error @+1 {{'npudev.vbinary_broadcast' op lhs and out}}
  npudev.vbinary_broadcast <add> %x, %r, %o along 1 : memref<2x3xf32, #npudev.space<vector>>, memref<3xf32, #npudev.space<vector>>, memref<3x2xf32, #npudev.space<vector>>
  return
}
