// npu-pipeline-dma-loops: a plain tile loop (load, compute, store) becomes a
// software pipeline on upstream's scf loop pipelining; loops it cannot
// pipeline safely are left as they were.
// RUN: npu-opt %s --split-input-file --npu-pipeline-dma-loops --verify-diagnostics | FileCheck %s
// RUN: npu-opt %s --split-input-file --npu-pipeline-dma-loops=stages=3 2>/dev/null | FileCheck %s --check-prefix=THREE
// RUN: not npu-opt %s --split-input-file --npu-pipeline-dma-loops=stages=5 2>&1 | FileCheck %s --check-prefix=BAD
// The first kernel in both executors, pipelined: y = 2 x for x = 0 .. 1023.
// RUN: sed -n '1,/^\/\/ -----/p' %s | npu-opt --npu-pipeline-dma-loops | npu-run - --random-inputs=1 --print-outputs | FileCheck %s --check-prefix=EXEC
// RUN: sed -n '1,/^\/\/ -----/p' %s | npu-opt --npu-pipeline-dma-loops | npu-run - --random-inputs=1 --print-outputs --mode=jit | FileCheck %s --check-prefix=EXEC

// BAD: npu-pipeline-dma-loops: stages must be between 2 and 4, got 5
// EXEC: arg0 [1024] = [0, 2, 4, 6, 8, 10, 12, 14,
// EXEC-SAME: 2040, 2042, 2044, 2046]

#v = #npudev.space<vector>
#g = #npudev.space<global>
!w = memref<128xf32, strided<[1], offset: ?>, #g>

// Two copies of the tile, the first load before the loop, each iteration
// starting the next tile's load before waiting for its own; the last
// iteration peeled after the loop.
// CHECK-LABEL: func.func @scale
// CHECK: npudev.launch
// CHECK: npudev.launch
// CHECK-NEXT: %[[A:.*]] = npudev.alloc : memref<128xf32, #npudev.space<vector>>
// CHECK-NEXT: %[[B:.*]] = npudev.alloc : memref<128xf32, #npudev.space<vector>>
// CHECK: %[[FIRST:.*]] = arith.select %{{.*}}, %[[A]], %[[B]]
// CHECK: %[[T0:.*]] = npudev.dma_start %{{.*}}, %[[FIRST]]
// CHECK: %[[LOOP:.*]]:2 = scf.for {{.*}} iter_args(%[[T:.*]] = %[[T0]], %[[CUR:.*]] = %[[FIRST]]) -> (!npudev.token, memref<128xf32, #npudev.space<vector>>)
// CHECK: %[[NEXT:.*]] = arith.select %{{.*}}, %[[A]], %[[B]]
// CHECK: %[[TN:.*]] = npudev.dma_start %{{.*}}, %[[NEXT]]
// CHECK-NEXT: npudev.wait %[[T]]
// CHECK-NEXT: npudev.vbinary_scalar <mul> %[[CUR]]
// CHECK: npudev.dma %[[CUR]]
// CHECK: scf.yield %[[TN]], %[[NEXT]]
// CHECK: npudev.wait %[[LOOP]]#0
// CHECK-NEXT: npudev.vbinary_scalar <mul> %[[LOOP]]#1
// THREE-LABEL: func.func @scale
// THREE: npudev.launch
// THREE-COUNT-3: npudev.alloc : memref<128xf32, #npudev.space<vector>>
// THREE: npudev.dma_start
// THREE: npudev.dma_start
// THREE: scf.for
func.func @scale(%y: memref<1024xf32, #g> {npudev.output}) {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %c1024 = arith.constant 1024 : index
  %two = arith.constant 2.0 : f32
  %x = memref.alloc() : memref<1024xf32, #g>
  npudev.launch tasks(1) {
    %i = npudev.alloc : memref<1024xf32, #v>
    npudev.iota %c0, %i : memref<1024xf32, #v>
    npudev.dma %i, %x : memref<1024xf32, #v> to memref<1024xf32, #g>
  }
  npudev.launch tasks(1) {
    %buf = npudev.alloc : memref<128xf32, #v>
    scf.for %k = %c0 to %c1024 step %c128 {
      %w = memref.subview %x[%k] [128] [1] : memref<1024xf32, #g> to !w
      npudev.dma %w, %buf : !w to memref<128xf32, #v>
      npudev.vbinary_scalar <mul> %buf, %two, %buf : memref<128xf32, #v>, f32, memref<128xf32, #v>
      %o = memref.subview %y[%k] [128] [1] : memref<1024xf32, #g> to !w
      npudev.dma %buf, %o : memref<128xf32, #v> to !w
    }
  }
  memref.dealloc %x : memref<1024xf32, #g>
  return
}

// -----

// The loop stores into the memref it loads: the next tiles' loads would
// read before this tile's store lands. Left synchronous.
// CHECK-LABEL: func.func @in_place
// CHECK-NOT: npudev.dma_start
#v = #npudev.space<vector>
#g = #npudev.space<global>
!w = memref<128xf32, strided<[1], offset: ?>, #g>
func.func @in_place(%x: memref<1024xf32, #g>) {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %c1024 = arith.constant 1024 : index
  %two = arith.constant 2.0 : f32
  npudev.launch tasks(1) {
    %buf = npudev.alloc : memref<128xf32, #v>
    scf.for %k = %c0 to %c1024 step %c128 {
      %w = memref.subview %x[%k] [128] [1] : memref<1024xf32, #g> to !w
      npudev.dma %w, %buf : !w to memref<128xf32, #v>
      npudev.vbinary_scalar <mul> %buf, %two, %buf : memref<128xf32, #v>, f32, memref<128xf32, #v>
      npudev.dma %buf, %w : memref<128xf32, #v> to !w
    }
  }
  return
}

// -----

// A second copy of the 512-byte tile does not fit 768 bytes of vector
// memory: the loop stays synchronous, and a remark says why.
// CHECK-LABEL: func.func @too_big
// CHECK-NOT: npudev.dma_start
#v = #npudev.space<vector>
#g = #npudev.space<global>
!w = memref<128xf32, strided<[1], offset: ?>, #g>
module attributes {npudev.device = {name = "small", vector_bytes = 768 : i64}} {
  func.func @too_big(%x: memref<1024xf32, #g>, %y: memref<1024xf32, #g>) {
    %c0 = arith.constant 0 : index
    %c128 = arith.constant 128 : index
    %c1024 = arith.constant 1024 : index
    npudev.launch tasks(1) {
      %buf = npudev.alloc : memref<128xf32, #v>
      // expected-remark @+1 {{pipelined with 1 stage of the 2 asked: more copies of its loaded buffers do not fit, or it has fewer iterations}}
      scf.for %k = %c0 to %c1024 step %c128 {
        %w = memref.subview %x[%k] [128] [1] : memref<1024xf32, #g> to !w
        npudev.dma %w, %buf : !w to memref<128xf32, #v>
        %o = memref.subview %y[%k] [128] [1] : memref<1024xf32, #g> to !w
        npudev.dma %buf, %o : memref<128xf32, #v> to !w
      }
    }
    return
  }
}

// -----

// A trip count known only at run time: not pipelined in this version.
// CHECK-LABEL: func.func @dynamic
// CHECK-NOT: npudev.dma_start
#v = #npudev.space<vector>
#g = #npudev.space<global>
!w = memref<128xf32, strided<[1], offset: ?>, #g>
func.func @dynamic(%x: memref<1024xf32, #g>, %y: memref<1024xf32, #g>, %n: index) {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  npudev.launch tasks(1) {
    %buf = npudev.alloc : memref<128xf32, #v>
    scf.for %k = %c0 to %n step %c128 {
      %w = memref.subview %x[%k] [128] [1] : memref<1024xf32, #g> to !w
      npudev.dma %w, %buf : !w to memref<128xf32, #v>
      %o = memref.subview %y[%k] [128] [1] : memref<1024xf32, #g> to !w
      npudev.dma %buf, %o : memref<128xf32, #v> to !w
    }
  }
  return
}
