// npudev.vmerge: every test in one file. The RUN lines check the verifier's
// diagnostics and the printed form, then run @merge (the first chunk) in
// both executors against values worked out by hand; ParityTest
// (test/unittests) also compares the executors' bytes.
// RUN: npu-opt %s --split-input-file --verify-diagnostics | FileCheck %s
// RUN: sed -n '1,/^\/\/ -----/p' %s | npu-run - --random-inputs=0 --print-outputs | FileCheck %s --check-prefix=EXEC
// RUN: sed -n '1,/^\/\/ -----/p' %s | npu-run - --random-inputs=0 --print-outputs --mode=jit | FileCheck %s --check-prefix=EXEC

// a = [1, 3, 3, 7] with values [0, 1, 2, 3], b = [2, 3, 8] with values
// [10, 11, 12]: equal keys take a's first. Keys only, f32: [-1, NaN] and
// [0.5]; NaN sorts last.
// EXEC: arg0 [7] = [1, 2, 3, 3, 3, 7, 8]
// EXEC-NEXT: arg1 [7] = [0, 10, 1, 2, 11, 3, 12]
// EXEC-NEXT: arg2 [3] = [-1, 0.5, nan]
// CHECK-LABEL: func.func @merge
// CHECK: npudev.vmerge %{{.*}}, %{{.*}}, %{{.*}} values(%{{.*}}, %{{.*}}, %{{.*}}) : memref<4xi32, #npudev.space<vector>>, memref<3xi32, #npudev.space<vector>>, memref<7xi32, #npudev.space<vector>>, memref<4xi64, #npudev.space<vector>>, memref<3xi64, #npudev.space<vector>>, memref<7xi64, #npudev.space<vector>>
// CHECK: npudev.vmerge %{{.*}}, %{{.*}}, %{{.*}} : memref<2xf32, #npudev.space<vector>>, memref<1xf32, #npudev.space<vector>>, memref<3xf32, #npudev.space<vector>>
#v = #npudev.space<vector>
#g = #npudev.space<global>
func.func @merge(%keys: memref<7xi32, #g> {npudev.output},
                 %rows: memref<7xi64, #g> {npudev.output},
                 %fkeys: memref<3xf32, #g> {npudev.output}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c10 = arith.constant 10 : index
  npudev.launch tasks(1) {
    %k1 = arith.constant 1 : i32
    %k2 = arith.constant 2 : i32
    %k3 = arith.constant 3 : i32
    %k7 = arith.constant 7 : i32
    %k8 = arith.constant 8 : i32
    %a = npudev.alloc : memref<4xi32, #v>
    memref.store %k1, %a[%c0] : memref<4xi32, #v>
    memref.store %k3, %a[%c1] : memref<4xi32, #v>
    memref.store %k3, %a[%c2] : memref<4xi32, #v>
    memref.store %k7, %a[%c3] : memref<4xi32, #v>
    %b = npudev.alloc : memref<3xi32, #v>
    memref.store %k2, %b[%c0] : memref<3xi32, #v>
    memref.store %k3, %b[%c1] : memref<3xi32, #v>
    memref.store %k8, %b[%c2] : memref<3xi32, #v>
    %va = npudev.alloc : memref<4xi64, #v>
    npudev.iota %c0, %va : memref<4xi64, #v>
    %vb = npudev.alloc : memref<3xi64, #v>
    npudev.iota %c10, %vb : memref<3xi64, #v>
    %out = npudev.alloc : memref<7xi32, #v>
    %vout = npudev.alloc : memref<7xi64, #v>
    npudev.vmerge %a, %b, %out values(%va, %vb, %vout) : memref<4xi32, #v>, memref<3xi32, #v>, memref<7xi32, #v>, memref<4xi64, #v>, memref<3xi64, #v>, memref<7xi64, #v>
    npudev.dma %out, %keys : memref<7xi32, #v> to memref<7xi32, #g>
    npudev.dma %vout, %rows : memref<7xi64, #v> to memref<7xi64, #g>

    %fm1 = arith.constant -1.0 : f32
    %nan = arith.constant 0x7FC00000 : f32
    %half = arith.constant 0.5 : f32
    %fa = npudev.alloc : memref<2xf32, #v>
    memref.store %fm1, %fa[%c0] : memref<2xf32, #v>
    memref.store %nan, %fa[%c1] : memref<2xf32, #v>
    %fb = npudev.alloc : memref<1xf32, #v>
    memref.store %half, %fb[%c0] : memref<1xf32, #v>
    %fout = npudev.alloc : memref<3xf32, #v>
    npudev.vmerge %fa, %fb, %fout : memref<2xf32, #v>, memref<1xf32, #v>, memref<3xf32, #v>
    npudev.dma %fout, %fkeys : memref<3xf32, #v> to memref<3xf32, #g>
  }
  return
}

// -----

func.func @merge_out_size(%a: memref<4xi32, #npudev.space<vector>>, %b: memref<3xi32, #npudev.space<vector>>, %o: memref<6xi32, #npudev.space<vector>>) {
  // expected-error @+1 {{'npudev.vmerge' op out must hold both runs: 4 + 3 elements, got 6}}
  npudev.vmerge %a, %b, %o : memref<4xi32, #npudev.space<vector>>, memref<3xi32, #npudev.space<vector>>, memref<6xi32, #npudev.space<vector>>
  return
}

// -----

func.func @merge_rank(%a: memref<2x2xi32, #npudev.space<vector>>, %b: memref<3xi32, #npudev.space<vector>>, %o: memref<7xi32, #npudev.space<vector>>) {
  // expected-error @+1 {{'npudev.vmerge' op merges rank-1 buffers, got 'memref<2x2xi32, #npudev.space<vector>>'}}
  npudev.vmerge %a, %b, %o : memref<2x2xi32, #npudev.space<vector>>, memref<3xi32, #npudev.space<vector>>, memref<7xi32, #npudev.space<vector>>
  return
}

// -----

func.func @merge_element_type(%a: memref<4xi32, #npudev.space<vector>>, %b: memref<3xi64, #npudev.space<vector>>, %o: memref<7xi32, #npudev.space<vector>>) {
  // expected-error @+1 {{'npudev.vmerge' op operands must have one element type, got 'i32' and 'i64'}}
  npudev.vmerge %a, %b, %o : memref<4xi32, #npudev.space<vector>>, memref<3xi64, #npudev.space<vector>>, memref<7xi32, #npudev.space<vector>>
  return
}

// -----

func.func @merge_values(%a: memref<4xi32, #npudev.space<vector>>, %b: memref<3xi32, #npudev.space<vector>>, %o: memref<7xi32, #npudev.space<vector>>, %v: memref<4xi32, #npudev.space<vector>>) {
  // expected-error @+1 {{'npudev.vmerge' op takes all its value buffers or none}}
  "npudev.vmerge"(%a, %b, %o, %v) {operandSegmentSizes = array<i32: 1, 1, 1, 1, 0, 0>} : (memref<4xi32, #npudev.space<vector>>, memref<3xi32, #npudev.space<vector>>, memref<7xi32, #npudev.space<vector>>, memref<4xi32, #npudev.space<vector>>) -> ()
  return
}
