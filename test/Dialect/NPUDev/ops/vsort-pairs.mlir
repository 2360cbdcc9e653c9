// npudev.vsort with values (key-value sort): every test in one file. The
// RUN lines check the verifier's diagnostics and the printed form, then run
// @sort_pairs (the first chunk) in both executors against values worked out
// by hand; ParityTest (test/unittests) also compares the executors' bytes.
// RUN: npu-opt %s --split-input-file --verify-diagnostics | FileCheck %s
// RUN: sed -n '1,/^\/\/ -----/p' %s | npu-run - --random-inputs=0 --print-outputs | FileCheck %s --check-prefix=EXEC
// RUN: sed -n '1,/^\/\/ -----/p' %s | npu-run - --random-inputs=0 --print-outputs --mode=jit | FileCheck %s --check-prefix=EXEC

// i64 keys [5, 3, 5, 1, 3, -2] with their positions as i32 values: equal
// keys keep their input order. f32 keys [2.5, NaN, -1, 2.5] with i64
// values: NaN sorts last.
// EXEC: arg0 [6] = [-2, 1, 3, 3, 5, 5]
// EXEC-NEXT: arg1 [6] = [5, 3, 1, 4, 0, 2]
// EXEC-NEXT: arg2 [4] = [-1, 2.5, 2.5, nan]
// EXEC-NEXT: arg3 [4] = [2, 0, 3, 1]
// CHECK-LABEL: func.func @sort_pairs
// CHECK: npudev.vsort %{{.*}}, %{{.*}} values(%{{.*}}, %{{.*}}) : memref<6xi64, #npudev.space<vector>>, memref<6xi64, #npudev.space<vector>>, memref<6xi32, #npudev.space<vector>>, memref<6xi32, #npudev.space<vector>>
#v = #npudev.space<vector>
#g = #npudev.space<global>
func.func @sort_pairs(%keys: memref<6xi64, #g> {npudev.output},
                      %rows: memref<6xi32, #g> {npudev.output},
                      %fkeys: memref<4xf32, #g> {npudev.output},
                      %frows: memref<4xi64, #g> {npudev.output}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  npudev.launch tasks(1) {
    %k = npudev.alloc : memref<6xi64, #v>
    %k5 = arith.constant 5 : i64
    %k3 = arith.constant 3 : i64
    %k1 = arith.constant 1 : i64
    %km2 = arith.constant -2 : i64
    memref.store %k5, %k[%c0] : memref<6xi64, #v>
    memref.store %k3, %k[%c1] : memref<6xi64, #v>
    memref.store %k5, %k[%c2] : memref<6xi64, #v>
    memref.store %k1, %k[%c3] : memref<6xi64, #v>
    memref.store %k3, %k[%c4] : memref<6xi64, #v>
    memref.store %km2, %k[%c5] : memref<6xi64, #v>
    %p = npudev.alloc : memref<6xi32, #v>
    npudev.iota %c0, %p : memref<6xi32, #v>
    %sk = npudev.alloc : memref<6xi64, #v>
    %sp = npudev.alloc : memref<6xi32, #v>
    npudev.vsort %k, %sk values(%p, %sp) : memref<6xi64, #v>, memref<6xi64, #v>, memref<6xi32, #v>, memref<6xi32, #v>
    npudev.dma %sk, %keys : memref<6xi64, #v> to memref<6xi64, #g>
    npudev.dma %sp, %rows : memref<6xi32, #v> to memref<6xi32, #g>

    %f = npudev.alloc : memref<4xf32, #v>
    %f25 = arith.constant 2.5 : f32
    %nan = arith.constant 0x7FC00000 : f32
    %fm1 = arith.constant -1.0 : f32
    memref.store %f25, %f[%c0] : memref<4xf32, #v>
    memref.store %nan, %f[%c1] : memref<4xf32, #v>
    memref.store %fm1, %f[%c2] : memref<4xf32, #v>
    memref.store %f25, %f[%c3] : memref<4xf32, #v>
    %q = npudev.alloc : memref<4xi64, #v>
    npudev.iota %c0, %q : memref<4xi64, #v>
    %sf = npudev.alloc : memref<4xf32, #v>
    %sq = npudev.alloc : memref<4xi64, #v>
    npudev.vsort %f, %sf values(%q, %sq) : memref<4xf32, #v>, memref<4xf32, #v>, memref<4xi64, #v>, memref<4xi64, #v>
    npudev.dma %sf, %fkeys : memref<4xf32, #v> to memref<4xf32, #g>
    npudev.dma %sq, %frows : memref<4xi64, #v> to memref<4xi64, #g>
  }
  return
}

// -----

func.func @pairs_rank(%k: memref<2x4xi32, #npudev.space<vector>>, %v: memref<2x4xi32, #npudev.space<vector>>) {
  // expected-error @+1 {{'npudev.vsort' op sorts keys with values in rank-1 buffers only, got 'memref<2x4xi32, #npudev.space<vector>>'}}
  npudev.vsort %k, %k values(%v, %v) : memref<2x4xi32, #npudev.space<vector>>, memref<2x4xi32, #npudev.space<vector>>, memref<2x4xi32, #npudev.space<vector>>, memref<2x4xi32, #npudev.space<vector>>
  return
}

// -----

func.func @pairs_length(%k: memref<8xi32, #npudev.space<vector>>, %v: memref<4xi32, #npudev.space<vector>>) {
  // expected-error @+1 {{'npudev.vsort' op keys and values must have one shape, got 'memref<8xi32, #npudev.space<vector>>' and 'memref<4xi32, #npudev.space<vector>>'}}
  npudev.vsort %k, %k values(%v, %v) : memref<8xi32, #npudev.space<vector>>, memref<8xi32, #npudev.space<vector>>, memref<4xi32, #npudev.space<vector>>, memref<4xi32, #npudev.space<vector>>
  return
}

// -----

func.func @pairs_value_type(%k: memref<8xi32, #npudev.space<vector>>, %v: memref<8xf32, #npudev.space<vector>>) {
  // expected-error @+1 {{'npudev.vsort' op values must be i32 or i64, got 'f32'}}
  npudev.vsort %k, %k values(%v, %v) : memref<8xi32, #npudev.space<vector>>, memref<8xi32, #npudev.space<vector>>, memref<8xf32, #npudev.space<vector>>, memref<8xf32, #npudev.space<vector>>
  return
}

// -----

func.func @pairs_together(%k: memref<8xi32, #npudev.space<vector>>, %v: memref<8xi32, #npudev.space<vector>>) {
  // expected-error @+1 {{'npudev.vsort' op takes all its value buffers or none}}
  "npudev.vsort"(%k, %k, %v) {operandSegmentSizes = array<i32: 1, 1, 1, 0>} : (memref<8xi32, #npudev.space<vector>>, memref<8xi32, #npudev.space<vector>>, memref<8xi32, #npudev.space<vector>>) -> ()
  return
}
