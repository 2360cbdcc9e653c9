// npudev.vsort of a rank-2 buffer sorts each innermost row, and the sort
// family takes f16 and bf16 keys: the JIT once refused both, with no reason
// given. The RUN lines check the JIT's lowering (one runtime call per row)
// and run @sort_rows in both executors against values worked out by hand;
// ParityTest (test/unittests) also compares the executors' bytes.
// RUN: npu-opt %s --npu-lower-device-to-loops | FileCheck %s
// RUN: npu-run %s --random-inputs=0 --print-outputs | FileCheck %s --check-prefix=EXEC
// RUN: npu-run %s --random-inputs=0 --print-outputs --mode=jit | FileCheck %s --check-prefix=EXEC

// Rows [3, 1, 2] and [NaN, -1, 0.5]; f16 [0.5, -2, NaN, 1.5]; bf16 keys
// [1.5, -2, 1.5, 0.25] with their positions; f16 runs [-1, 2] and
// [0.5, 2] merged; the unique values of f16 [2, 1, 2, 1] (in place: the
// two past the count keep their values).
// EXEC: arg0 [2, 3] = [1, 2, 3, -1, 0.5, nan]
// EXEC-NEXT: arg1 [4] = [-2, 0.5, 1.5, nan]
// EXEC-NEXT: arg2 [4] = [-2, 0.25, 1.5, 1.5]
// EXEC-NEXT: arg3 [4] = [1, 3, 0, 2]
// EXEC-NEXT: arg4 [4] = [-1, 0.5, 2, 2]
// EXEC-NEXT: arg5 [4] = [1, 2, 2, 1]

// CHECK-LABEL: func.func @sort_rows
// CHECK: scf.for
// CHECK: memref.subview {{.*}} : memref<2x3xf32> to memref<?xf32, strided<[1], offset: ?>>
// CHECK: call @npu_rt_sort_f32
// CHECK: call @npu_rt_sort_f16
// CHECK: call @npu_rt_sort_kv_bf16_i32
// CHECK: call @npu_rt_merge_f16
// CHECK: call @npu_rt_unique_f16
#v = #npudev.space<vector>
#g = #npudev.space<global>
func.func @sort_rows(%rows: memref<2x3xf32, #g> {npudev.output},
                     %halves: memref<4xf16, #g> {npudev.output},
                     %bkeys: memref<4xbf16, #g> {npudev.output},
                     %bpos: memref<4xi32, #g> {npudev.output},
                     %merged: memref<4xf16, #g> {npudev.output},
                     %unique: memref<4xf16, #g> {npudev.output}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  npudev.launch tasks(1) {
    %r = npudev.alloc : memref<2x3xf32, #v>
    %f3 = arith.constant 3.0 : f32
    %f1 = arith.constant 1.0 : f32
    %f2 = arith.constant 2.0 : f32
    %fnan = arith.constant 0x7FC00000 : f32
    %fm1 = arith.constant -1.0 : f32
    %fh = arith.constant 0.5 : f32
    memref.store %f3, %r[%c0, %c0] : memref<2x3xf32, #v>
    memref.store %f1, %r[%c0, %c1] : memref<2x3xf32, #v>
    memref.store %f2, %r[%c0, %c2] : memref<2x3xf32, #v>
    memref.store %fnan, %r[%c1, %c0] : memref<2x3xf32, #v>
    memref.store %fm1, %r[%c1, %c1] : memref<2x3xf32, #v>
    memref.store %fh, %r[%c1, %c2] : memref<2x3xf32, #v>
    %rs = npudev.alloc : memref<2x3xf32, #v>
    npudev.vsort %r, %rs : memref<2x3xf32, #v>, memref<2x3xf32, #v>
    npudev.dma %rs, %rows : memref<2x3xf32, #v> to memref<2x3xf32, #g>

    %h = npudev.alloc : memref<4xf16, #v>
    %h05 = arith.constant 0.5 : f16
    %hm2 = arith.constant -2.0 : f16
    %hnan = arith.constant 0x7E00 : f16
    %h15 = arith.constant 1.5 : f16
    memref.store %h05, %h[%c0] : memref<4xf16, #v>
    memref.store %hm2, %h[%c1] : memref<4xf16, #v>
    memref.store %hnan, %h[%c2] : memref<4xf16, #v>
    memref.store %h15, %h[%c3] : memref<4xf16, #v>
    npudev.vsort %h, %h : memref<4xf16, #v>, memref<4xf16, #v>
    npudev.dma %h, %halves : memref<4xf16, #v> to memref<4xf16, #g>

    %b = npudev.alloc : memref<4xbf16, #v>
    %b15 = arith.constant 1.5 : bf16
    %bm2 = arith.constant -2.0 : bf16
    %b025 = arith.constant 0.25 : bf16
    memref.store %b15, %b[%c0] : memref<4xbf16, #v>
    memref.store %bm2, %b[%c1] : memref<4xbf16, #v>
    memref.store %b15, %b[%c2] : memref<4xbf16, #v>
    memref.store %b025, %b[%c3] : memref<4xbf16, #v>
    %p = npudev.alloc : memref<4xi32, #v>
    npudev.iota %c0, %p : memref<4xi32, #v>
    %bs = npudev.alloc : memref<4xbf16, #v>
    %ps = npudev.alloc : memref<4xi32, #v>
    npudev.vsort %b, %bs values(%p, %ps) : memref<4xbf16, #v>, memref<4xbf16, #v>, memref<4xi32, #v>, memref<4xi32, #v>
    npudev.dma %bs, %bkeys : memref<4xbf16, #v> to memref<4xbf16, #g>
    npudev.dma %ps, %bpos : memref<4xi32, #v> to memref<4xi32, #g>

    %ra = npudev.alloc : memref<2xf16, #v>
    %rb = npudev.alloc : memref<2xf16, #v>
    %hm1 = arith.constant -1.0 : f16
    %h2 = arith.constant 2.0 : f16
    memref.store %hm1, %ra[%c0] : memref<2xf16, #v>
    memref.store %h2, %ra[%c1] : memref<2xf16, #v>
    memref.store %h05, %rb[%c0] : memref<2xf16, #v>
    memref.store %h2, %rb[%c1] : memref<2xf16, #v>
    %m = npudev.alloc : memref<4xf16, #v>
    npudev.vmerge %ra, %rb, %m : memref<2xf16, #v>, memref<2xf16, #v>, memref<4xf16, #v>
    npudev.dma %m, %merged : memref<4xf16, #v> to memref<4xf16, #g>

    %u = npudev.alloc : memref<4xf16, #v>
    %h1 = arith.constant 1.0 : f16
    memref.store %h2, %u[%c0] : memref<4xf16, #v>
    memref.store %h1, %u[%c1] : memref<4xf16, #v>
    memref.store %h2, %u[%c2] : memref<4xf16, #v>
    memref.store %h1, %u[%c3] : memref<4xf16, #v>
    %n = npudev.vunique %u, %u : memref<4xf16, #v>, memref<4xf16, #v>
    npudev.dma %u, %unique : memref<4xf16, #v> to memref<4xf16, #g>
  }
  return
}
