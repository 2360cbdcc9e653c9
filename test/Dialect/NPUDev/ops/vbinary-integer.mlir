// npudev.vbinary's integer-only kinds: xor, rem (signed, truncating, as
// arith.remsi), shl, shrs (arithmetic) and shru (logical), with arith's
// semantics in both executors; results worked out by hand. ParityTest
// also compares the two executors' bytes; test/npu-run/errors.mlir has the
// faults (a shift by the width, the overflowing remainder).
// RUN: npu-opt %s --split-input-file --verify-diagnostics | FileCheck %s
// RUN: sed -n '1,/^\/\/ -----/p' %s | npu-run - --random-inputs=0 --print-outputs | FileCheck %s --check-prefix=EXEC
// RUN: sed -n '1,/^\/\/ -----/p' %s | npu-run - --random-inputs=0 --print-outputs --mode=jit | FileCheck %s --check-prefix=EXEC

// a = 5 i - 7 = [-7, -2, 3, 8].
// EXEC: arg0 [4] = [-1, -2, 0, 2]
// EXEC-NEXT: arg1 [4] = [-4, -5, 6, 13]
// EXEC-NEXT: arg2 [4] = [-28, -8, 12, 32]
// EXEC-NEXT: arg3 [4] = [-4, -1, 1, 4]
// EXEC-NEXT: arg4 [4] = [15, 15, 0, 0]
// EXEC-NEXT: arg5 [4] = [-7, -4, 12, 64]
// CHECK-LABEL: func.func @integer_kinds
// CHECK: npudev.vbinary_scalar <rem>
// CHECK: npudev.vbinary_scalar <xor>
// CHECK: npudev.vbinary_scalar <shl>
// CHECK: npudev.vbinary_scalar <shrs>
// CHECK: npudev.vbinary_scalar <shru>
// CHECK: npudev.vbinary <shl>
#v = #npudev.space<vector>
#g = #npudev.space<global>
func.func @integer_kinds(%rem: memref<4xi32, #g> {npudev.output},
                         %xor: memref<4xi32, #g> {npudev.output},
                         %shl: memref<4xi32, #g> {npudev.output},
                         %shrs: memref<4xi32, #g> {npudev.output},
                         %shru: memref<4xi32, #g> {npudev.output},
                         %shlv: memref<4xi32, #g> {npudev.output}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c5 = arith.constant 5 : i32
  %c7 = arith.constant 7 : i32
  %c28 = arith.constant 28 : i32
  npudev.launch tasks(1) {
    %i = npudev.alloc : memref<4xi32, #v>
    npudev.iota %c0, %i : memref<4xi32, #v>
    %a = npudev.alloc : memref<4xi32, #v>
    npudev.vbinary_scalar <mul> %i, %c5, %a : memref<4xi32, #v>, i32, memref<4xi32, #v>
    npudev.vbinary_scalar <sub> %a, %c7, %a : memref<4xi32, #v>, i32, memref<4xi32, #v>
    %o = npudev.alloc : memref<4xi32, #v>
    npudev.vbinary_scalar <rem> %a, %c3, %o : memref<4xi32, #v>, i32, memref<4xi32, #v>
    npudev.dma %o, %rem : memref<4xi32, #v> to memref<4xi32, #g>
    npudev.vbinary_scalar <xor> %a, %c5, %o : memref<4xi32, #v>, i32, memref<4xi32, #v>
    npudev.dma %o, %xor : memref<4xi32, #v> to memref<4xi32, #g>
    npudev.vbinary_scalar <shl> %a, %c2, %o : memref<4xi32, #v>, i32, memref<4xi32, #v>
    npudev.dma %o, %shl : memref<4xi32, #v> to memref<4xi32, #g>
    npudev.vbinary_scalar <shrs> %a, %c1, %o : memref<4xi32, #v>, i32, memref<4xi32, #v>
    npudev.dma %o, %shrs : memref<4xi32, #v> to memref<4xi32, #g>
    npudev.vbinary_scalar <shru> %a, %c28, %o : memref<4xi32, #v>, i32, memref<4xi32, #v>
    npudev.dma %o, %shru : memref<4xi32, #v> to memref<4xi32, #g>
    npudev.vbinary <shl> %a, %i, %o : memref<4xi32, #v>, memref<4xi32, #v>, memref<4xi32, #v>
    npudev.dma %o, %shlv : memref<4xi32, #v> to memref<4xi32, #g>
  }
  return
}

// -----

func.func @xor_floats(%x: memref<4xf32, #npudev.space<vector>>) {
  // expected-error @+1 {{'npudev.vbinary' op 'xor' needs integers, got 'f32'}}
  npudev.vbinary <xor> %x, %x, %x : memref<4xf32, #npudev.space<vector>>, memref<4xf32, #npudev.space<vector>>, memref<4xf32, #npudev.space<vector>>
  return
}

// -----

func.func @shift_floats(%x: memref<4xf32, #npudev.space<vector>>, %s: f32) {
  // expected-error @+1 {{'npudev.vbinary_scalar' op 'shru' needs integers, got 'f32'}}
  npudev.vbinary_scalar <shru> %x, %s, %x : memref<4xf32, #npudev.space<vector>>, f32, memref<4xf32, #npudev.space<vector>>
  return
}
