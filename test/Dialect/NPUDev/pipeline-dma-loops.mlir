// npu-pipeline-dma-loops: a plain tile loop (load, compute, store) becomes a
// software pipeline on upstream's scf loop pipelining; loops it cannot
// pipeline safely are left as they were.
// RUN: npu-opt %s --split-input-file --npu-pipeline-dma-loops=stages=2 --verify-diagnostics | FileCheck %s
// RUN: npu-opt %s --split-input-file --npu-pipeline-dma-loops=stages=3 2>/dev/null | FileCheck %s --check-prefix=THREE
// RUN: npu-opt %s --split-input-file --npu-pipeline-dma-loops 2>/dev/null | FileCheck %s --check-prefix=DEVICE
// RUN: not npu-opt %s --split-input-file --npu-pipeline-dma-loops=stages=5 2>&1 | FileCheck %s --check-prefix=BAD
// The first two kernels in both executors, pipelined with 2 and 4 stages:
// y = 2 x for x = 0 .. 1023, and for x = 0 .. 599 in four tasks whose
// trip counts (0 to 3 tiles, the last partial) are known only at run time.
// RUN: sed -n '1,/^\/\/ -----/p' %s | npu-opt --npu-pipeline-dma-loops | npu-run - --random-inputs=1 --print-outputs | FileCheck %s --check-prefix=EXEC
// RUN: sed -n '1,/^\/\/ -----/p' %s | npu-opt --npu-pipeline-dma-loops | npu-run - --random-inputs=1 --print-outputs --mode=jit | FileCheck %s --check-prefix=EXEC
// RUN: sed -n '/^\/\/ DYNAMIC-KERNEL/,/^\/\/ -----/p' %s | npu-opt --npu-pipeline-dma-loops=stages=2 | npu-run - --random-inputs=1 --print-outputs | FileCheck %s --check-prefix=EXEC-DYN
// RUN: sed -n '/^\/\/ DYNAMIC-KERNEL/,/^\/\/ -----/p' %s | npu-opt --npu-pipeline-dma-loops=stages=4 | npu-run - --random-inputs=1 --print-outputs | FileCheck %s --check-prefix=EXEC-DYN
// RUN: sed -n '/^\/\/ DYNAMIC-KERNEL/,/^\/\/ -----/p' %s | npu-opt --npu-pipeline-dma-loops=stages=4 | npu-run - --random-inputs=1 --print-outputs --mode=jit | FileCheck %s --check-prefix=EXEC-DYN
// RUN: sed -n '/^\/\/ ROW-UPDATE-KERNEL/,/^\/\/ -----/p' %s | npu-opt --npu-pipeline-dma-loops=stages=3 | npu-run - --random-inputs=1 --print-outputs | FileCheck %s --check-prefix=EXEC
// RUN: sed -n '/^\/\/ ROW-UPDATE-KERNEL/,/^\/\/ -----/p' %s | npu-opt --npu-pipeline-dma-loops=stages=3 | npu-run - --random-inputs=1 --print-outputs --mode=jit | FileCheck %s --check-prefix=EXEC
// A gather behind the load of its indices, pipelined, gives what it gives
// unpipelined:
// RUN: sed -n '/^\/\/ GATHER-KERNEL/,/^\/\/ -----/p' %s | npu-run - --random-inputs=1 --print-outputs > %t.gather
// RUN: sed -n '/^\/\/ GATHER-KERNEL/,/^\/\/ -----/p' %s | npu-opt --npu-pipeline-dma-loops=stages=3 | npu-run - --random-inputs=1 --print-outputs | diff %t.gather -
// RUN: sed -n '/^\/\/ GATHER-KERNEL/,/^\/\/ -----/p' %s | npu-opt --npu-pipeline-dma-loops=stages=3 | npu-run - --random-inputs=1 --print-outputs --mode=jit | diff %t.gather -
// Rows filled from one tile, then a row stored and read back in the same
// iteration, pipelined, give what they give unpipelined (reading the row
// back ahead of its store would give the old rows):
// RUN: sed -n '/^\/\/ FILL-KERNEL/,/^\/\/ -----/p' %s | npu-run - --random-inputs=1 --print-outputs > %t.fill
// RUN: sed -n '/^\/\/ FILL-KERNEL/,/^\/\/ -----/p' %s | npu-opt --npu-pipeline-dma-loops=stages=2 | npu-run - --random-inputs=1 --print-outputs | diff %t.fill -
// RUN: sed -n '/^\/\/ FILL-KERNEL/,/^\/\/ -----/p' %s | npu-opt --npu-pipeline-dma-loops=stages=2 | npu-run - --random-inputs=1 --print-outputs --mode=jit | diff %t.fill -
// Rows at offsets no affine function gives, read ahead on their copy's
// promise, give what they give unpipelined:
// RUN: sed -n '/^\/\/ PRIVATE-KERNEL/,/^\/\/ -----/p' %s | npu-run - --random-inputs=1 --print-outputs > %t.private
// RUN: sed -n '/^\/\/ PRIVATE-KERNEL/,/^\/\/ -----/p' %s | npu-opt --npu-pipeline-dma-loops=stages=2 | npu-run - --random-inputs=1 --print-outputs | diff %t.private -
// RUN: sed -n '/^\/\/ PRIVATE-KERNEL/,/^\/\/ -----/p' %s | npu-opt --npu-pipeline-dma-loops=stages=2 | npu-run - --random-inputs=1 --print-outputs --mode=jit | diff %t.private -
// A tile used by a row loop and by the loop over the row's later chunks,
// pipelined, gives what it gives unpipelined:
// RUN: sed -n '/^\/\/ FIRST-AND-REST-KERNEL/,/^\/\/ -----/p' %s | npu-run - --random-inputs=1 --print-outputs > %t.rest
// RUN: sed -n '/^\/\/ FIRST-AND-REST-KERNEL/,/^\/\/ -----/p' %s | npu-opt --npu-pipeline-dma-loops=stages=2 | npu-run - --random-inputs=1 --print-outputs | diff %t.rest -
// RUN: sed -n '/^\/\/ FIRST-AND-REST-KERNEL/,/^\/\/ -----/p' %s | npu-opt --npu-pipeline-dma-loops=stages=2 | npu-run - --random-inputs=1 --print-outputs --mode=jit | diff %t.rest -
// A window of a loaded tile, pipelined, gives what it gives unpipelined:
// RUN: sed -n '/^\/\/ WINDOW-KERNEL/,$p' %s | npu-run - --random-inputs=1 --print-outputs > %t.window
// RUN: sed -n '/^\/\/ WINDOW-KERNEL/,$p' %s | npu-opt --npu-pipeline-dma-loops=stages=2 | npu-run - --random-inputs=1 --print-outputs | diff %t.window -
// RUN: sed -n '/^\/\/ WINDOW-KERNEL/,$p' %s | npu-opt --npu-pipeline-dma-loops=stages=2 | npu-run - --random-inputs=1 --print-outputs --mode=jit | diff %t.window -
// The nested loops, pipelined, give what they give unpipelined:
// RUN: sed -n '/^\/\/ NESTED-KERNEL/,/^\/\/ -----/p' %s | npu-run - --random-inputs=1 --print-outputs > %t.plain
// RUN: sed -n '/^\/\/ NESTED-KERNEL/,/^\/\/ -----/p' %s | npu-opt --npu-pipeline-dma-loops=stages=2 | npu-run - --random-inputs=1 --print-outputs | diff %t.plain -
// RUN: sed -n '/^\/\/ NESTED-KERNEL/,/^\/\/ -----/p' %s | npu-opt --npu-pipeline-dma-loops=stages=2 | npu-run - --random-inputs=1 --print-outputs --mode=jit | diff %t.plain -

// BAD: npu-pipeline-dma-loops: stages must be between 2 and 4 (0: the device's choice), got 5
// EXEC: arg0 [1024] = [0, 2, 4, 6, 8, 10, 12, 14,
// EXEC-SAME: 2040, 2042, 2044, 2046]
// EXEC-DYN: arg0 [600] = [0, 2, 4, 6, 8, 10, 12, 14,
// EXEC-DYN-SAME: 1192, 1194, 1196, 1198]

#v = #npudev.space<vector>
#g = #npudev.space<global>
!w = memref<128xf32, strided<[1], offset: ?>, #g>

// Two copies of the tile; the first load issued before the loop, each
// iteration issuing the next tile's load before waiting for its own, its
// store left in flight; the last iteration peeled after the loop.
// CHECK-LABEL: func.func @scale
// CHECK: npudev.launch
// CHECK: npudev.launch
// CHECK-NEXT: %[[A:.*]] = npudev.alloc : memref<128xf32, #npudev.space<vector>>
// CHECK-NEXT: %[[B:.*]] = npudev.alloc : memref<128xf32, #npudev.space<vector>>
// CHECK: %[[FIRST:.*]] = arith.select %{{.*}}, %[[A]], %[[B]]
// CHECK: %[[T0:.*]] = npudev.async {
// CHECK-NEXT: memref.subview
// CHECK-NEXT: npudev.dma %{{.*}}, %[[FIRST]]
// CHECK: %[[LOOP:.*]]:2 = scf.for {{.*}} iter_args(%[[T:.*]] = %[[T0]], %[[CUR:.*]] = %[[FIRST]]) -> (!npudev.token, memref<128xf32, #npudev.space<vector>>)
// CHECK: %[[NEXT:.*]] = arith.select %{{.*}}, %[[A]], %[[B]]
// CHECK: %[[TN:.*]] = npudev.async {
// CHECK: npudev.dma %{{.*}}, %[[NEXT]]
// CHECK: npudev.wait %[[T]]
// CHECK-NEXT: npudev.vbinary_scalar <mul> %[[CUR]]
// CHECK: npudev.dma_start %[[CUR]]
// CHECK: scf.yield %[[TN]], %[[NEXT]]
// CHECK: npudev.wait %[[LOOP]]#0
// CHECK-NEXT: npudev.vbinary_scalar <mul> %[[LOOP]]#1
// CHECK: npudev.dma_start %[[LOOP]]#1
// CHECK-NEXT: npudev.wait_all
// THREE-LABEL: func.func @scale
// THREE: npudev.launch
// THREE-COUNT-3: npudev.alloc : memref<128xf32, #npudev.space<vector>>
// THREE: npudev.async
// THREE: npudev.async
// THREE: scf.for
// A 512-byte tile crosses mlu590's DMA engine in far less than its latency:
// the device asks for the most stages, four.
// DEVICE-LABEL: func.func @scale
// DEVICE: npudev.launch
// DEVICE-COUNT-4: npudev.alloc : memref<128xf32, #npudev.space<vector>>
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

// DYNAMIC-KERNEL
// Task t scales its t * 100 elements, from 50 t (t - 1), in tiles of 128
// rows into a window of the buffer: 0 to 3 tiles, known only at run time.
// The next tile's load (window, address and all) runs under scf.if, so the
// loop is right for any trip count; no iteration is peeled. The stores it
// leaves in flight are waited for after it only if it ran: had it not, it
// started none, and a wait_all would also wait for the copies a pipeline
// around it issued ahead.
// CHECK-LABEL: func.func @dynamic
// CHECK: npudev.launch tasks(4)
// CHECK-COUNT-2: npudev.alloc : memref<128xf32, #npudev.space<vector>>
// CHECK: npudev.async {
// CHECK-NEXT: scf.if
// CHECK: memref.subview
// CHECK: npudev.dma
// CHECK: scf.for
// CHECK: npudev.async {
// CHECK-NEXT: scf.if
// CHECK: npudev.dma
// CHECK: npudev.wait
// CHECK: npudev.dma_start
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[RAN:.*]] = arith.cmpi slt, %c0, %[[LEN:.*]] : index
// CHECK-NEXT: scf.if %[[RAN]] {
// CHECK-NEXT: npudev.wait_all
// CHECK-NEXT: }
#v = #npudev.space<vector>
#g = #npudev.space<global>
!gw = memref<?xf32, strided<[1], offset: ?>, #g>
!vw = memref<?xf32, strided<[1]>, #v>
func.func @dynamic(%y: memref<600xf32, #g> {npudev.output}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c50 = arith.constant 50 : index
  %c100 = arith.constant 100 : index
  %c128 = arith.constant 128 : index
  %two = arith.constant 2.0 : f32
  %x = memref.alloc() : memref<600xf32, #g>
  npudev.launch tasks(1) {
    %i = npudev.alloc : memref<600xf32, #v>
    npudev.iota %c0, %i : memref<600xf32, #v>
    npudev.dma %i, %x : memref<600xf32, #v> to memref<600xf32, #g>
  }
  npudev.launch tasks(4) {
    %t = npudev.task_id
    %len = arith.muli %t, %c100 : index
    %tm1 = arith.subi %t, %c1 : index
    %tt = arith.muli %t, %tm1 : index
    %start = arith.muli %tt, %c50 : index
    %buf = npudev.alloc : memref<128xf32, #v>
    scf.for %k = %c0 to %len step %c128 {
      %left = arith.subi %len, %k : index
      %rows = arith.minsi %left, %c128 : index
      %at = arith.addi %start, %k : index
      %src = memref.subview %x[%at] [%rows] [1] : memref<600xf32, #g> to !gw
      %tile = memref.subview %buf[0] [%rows] [1] : memref<128xf32, #v> to !vw
      npudev.dma %src, %tile : !gw to !vw
      npudev.vbinary_scalar <mul> %tile, %two, %tile : !vw, f32, !vw
      %dst = memref.subview %y[%at] [%rows] [1] : memref<600xf32, #g> to !gw
      npudev.dma %tile, %dst : !vw to !gw
    }
  }
  memref.dealloc %x : memref<600xf32, #g>
  return
}

// -----

// ROW-UPDATE-KERNEL
// Each iteration loads a row, updates it and stores it back: the loop
// writes what it loads, but its window moves a whole row each iteration,
// so the next rows' loads never meet a store. Pipelined, and right in
// both executors (x = iota, doubled in place, copied out).
// CHECK-LABEL: func.func @in_place
// CHECK: npudev.async
// CHECK: scf.for
// CHECK: npudev.async
// CHECK: npudev.dma_start
#v = #npudev.space<vector>
#g = #npudev.space<global>
!w = memref<128xf32, strided<[1], offset: ?>, #g>
func.func @in_place(%y: memref<1024xf32, #g> {npudev.output}) {
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
      npudev.dma %buf, %w : memref<128xf32, #v> to !w
    }
  }
  npudev.launch tasks(1) {
    %o = npudev.alloc : memref<1024xf32, #v>
    npudev.dma %x, %o : memref<1024xf32, #g> to memref<1024xf32, #v>
    npudev.dma %o, %y : memref<1024xf32, #v> to memref<1024xf32, #g>
  }
  memref.dealloc %x : memref<1024xf32, #g>
  return
}

// -----

// The same update through windows of 256 elements that move 128 per
// iteration: the next window's load would read half of this one's store
// before it lands. Left synchronous.
// CHECK-LABEL: func.func @overlapping_rows
// CHECK-NOT: npudev.async
#v = #npudev.space<vector>
#g = #npudev.space<global>
!w = memref<256xf32, strided<[1], offset: ?>, #g>
func.func @overlapping_rows(%x: memref<1152xf32, #g>) {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %c1024 = arith.constant 1024 : index
  %two = arith.constant 2.0 : f32
  npudev.launch tasks(1) {
    %buf = npudev.alloc : memref<256xf32, #v>
    scf.for %k = %c0 to %c1024 step %c128 {
      %w = memref.subview %x[%k] [256] [1] : memref<1152xf32, #g> to !w
      npudev.dma %w, %buf : !w to memref<256xf32, #v>
      npudev.vbinary_scalar <mul> %buf, %two, %buf : memref<256xf32, #v>, f32, memref<256xf32, #v>
      npudev.dma %buf, %w : memref<256xf32, #v> to !w
    }
  }
  return
}

// -----

// Windows of two elements 64 apart, moved 64 per iteration: each spans 65
// elements, so the next one's first element is this one's last. Left
// synchronous.
// CHECK-LABEL: func.func @strided_overlap
// CHECK-NOT: npudev.async
#v = #npudev.space<vector>
#g = #npudev.space<global>
!w = memref<2xf32, strided<[64], offset: ?>, #g>
func.func @strided_overlap(%x: memref<1152xf32, #g>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c1024 = arith.constant 1024 : index
  %two = arith.constant 2.0 : f32
  npudev.launch tasks(1) {
    %buf = npudev.alloc : memref<2xf32, #v>
    scf.for %k = %c0 to %c1024 step %c64 {
      %w = memref.subview %x[%k] [2] [64] : memref<1152xf32, #g> to !w
      npudev.dma %w, %buf : !w to memref<2xf32, #v>
      npudev.vbinary_scalar <mul> %buf, %two, %buf : memref<2xf32, #v>, f32, memref<2xf32, #v>
      npudev.dma %buf, %w : memref<2xf32, #v> to !w
    }
  }
  return
}

// -----

// Rows gathered by an index the loop reads from an on-chip table it never
// writes: the index is read again, an iteration ahead, inside the async.
// CHECK-LABEL: func.func @gather_rows
// CHECK: npudev.async {
// CHECK: memref.load
// CHECK: npudev.dma
#v = #npudev.space<vector>
#g = #npudev.space<global>
!w = memref<128xf32, strided<[1], offset: ?>, #g>
func.func @gather_rows(%x: memref<8192xf32, #g>, %idx: memref<16xindex, #g>, %y: memref<2048xf32, #g>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c128 = arith.constant 128 : index
  npudev.launch tasks(1) {
    %table = npudev.alloc : memref<16xindex, #v>
    npudev.dma %idx, %table : memref<16xindex, #g> to memref<16xindex, #v>
    %row = npudev.alloc : memref<128xf32, #v>
    scf.for %r = %c0 to %c16 step %c1 {
      %i = memref.load %table[%r] : memref<16xindex, #v>
      %at = arith.muli %i, %c128 : index
      %w = memref.subview %x[%at] [128] [1] : memref<8192xf32, #g> to !w
      npudev.dma %w, %row : !w to memref<128xf32, #v>
      %out = arith.muli %r, %c128 : index
      %o = memref.subview %y[%out] [128] [1] : memref<2048xf32, #g> to !w
      npudev.dma %row, %o : memref<128xf32, #v> to !w
    }
  }
  return
}

// -----

// Each iteration reads what the one before loaded: another copy would break
// that, so the buffer keeps one and its load stays synchronous.
// CHECK-LABEL: func.func @carried
// CHECK-COUNT-1: npudev.alloc
// CHECK-NOT: npudev.alloc
// CHECK-NOT: npudev.async
#v = #npudev.space<vector>
#g = #npudev.space<global>
!w = memref<128xf32, strided<[1], offset: ?>, #g>
func.func @carried(%x: memref<1024xf32, #g>, %y: memref<128xf32, #g>) {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %c1024 = arith.constant 1024 : index
  npudev.launch tasks(1) {
    %buf = npudev.alloc : memref<128xf32, #v>
    npudev.dma %y, %buf : memref<128xf32, #g> to memref<128xf32, #v>
    scf.for %k = %c0 to %c1024 step %c128 {
      npudev.dma %buf, %y : memref<128xf32, #v> to memref<128xf32, #g>
      %w = memref.subview %x[%k] [128] [1] : memref<1024xf32, #g> to !w
      npudev.dma %w, %buf : !w to memref<128xf32, #v>
    }
  }
  return
}

// -----

// One buffer, two loops that each load it before they read it: one runs
// after the other, so they share its second copy.
// CHECK-LABEL: func.func @two_loops
// CHECK-COUNT-2: npudev.alloc : memref<128xf32, #npudev.space<vector>>
// CHECK-NOT: npudev.alloc
// CHECK: scf.for
// CHECK: scf.for
#v = #npudev.space<vector>
#g = #npudev.space<global>
!w = memref<128xf32, strided<[1], offset: ?>, #g>
func.func @two_loops(%x: memref<1024xf32, #g>, %y: memref<1024xf32, #g>) {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %c1024 = arith.constant 1024 : index
  npudev.launch tasks(1) {
    %buf = npudev.alloc : memref<128xf32, #v>
    scf.for %k = %c0 to %c1024 step %c128 {
      %w = memref.subview %x[%k] [128] [1] : memref<1024xf32, #g> to !w
      npudev.dma %w, %buf : !w to memref<128xf32, #v>
      %o = memref.subview %y[%k] [128] [1] : memref<1024xf32, #g> to !w
      npudev.dma %buf, %o : memref<128xf32, #v> to !w
    }
    scf.for %k = %c0 to %c1024 step %c128 {
      %w = memref.subview %y[%k] [128] [1] : memref<1024xf32, #g> to !w
      npudev.dma %w, %buf : !w to memref<128xf32, #v>
      npudev.vunary <exp> %buf, %buf : memref<128xf32, #v>, memref<128xf32, #v>
    }
  }
  return
}

// -----

// Nested loops that load one buffer do not share its copies: the inner loop
// selects between the outer loop's current copy and one of its own. Taking
// the outer loop's other copy would overwrite the tile its next iteration
// is loading.
// NESTED-KERNEL
// CHECK-LABEL: func.func @nested_loops
// CHECK-COUNT-3: npudev.alloc : memref<128xf32, #npudev.space<vector>>
// CHECK-NOT: npudev.alloc
// CHECK: %[[OUTER:.*]]:2 = scf.for {{.*}} iter_args({{.*}}, %[[CUR:.*]] = %{{.*}})
// CHECK: arith.select %{{.*}}, %[[CUR]], %[[OWN:.*]] : memref<128xf32
#v = #npudev.space<vector>
#g = #npudev.space<global>
!w = memref<128xf32, strided<[1], offset: ?>, #g>
func.func @nested_loops(%x: memref<1024xf32, #g>, %y: memref<8192xf32, #g>, %z: memref<8192xf32, #g>) {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %c1024 = arith.constant 1024 : index
  npudev.launch tasks(1) {
    %buf = npudev.alloc : memref<128xf32, #v>
    scf.for %i = %c0 to %c1024 step %c128 {
      %w = memref.subview %x[%i] [128] [1] : memref<1024xf32, #g> to !w
      npudev.dma %w, %buf : !w to memref<128xf32, #v>
      %o = memref.subview %z[%i] [128] [1] : memref<8192xf32, #g> to !w
      npudev.dma %buf, %o : memref<128xf32, #v> to !w
      scf.for %k = %c0 to %c1024 step %c128 {
        %r = arith.addi %i, %k : index
        %v = memref.subview %y[%r] [128] [1] : memref<8192xf32, #g> to !w
        npudev.dma %v, %buf : !w to memref<128xf32, #v>
        npudev.vunary <exp> %buf, %buf : memref<128xf32, #v>, memref<128xf32, #v>
      }
    }
  }
  return
}

// -----

// A second copy of the 512-byte tile does not fit 768 bytes of vector
// memory: the loop stays synchronous, and a remark says why.
// CHECK-LABEL: func.func @too_big
// CHECK-NOT: npudev.async
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
      // expected-remark @+1 {{pipelined with 1 stage of the 2 asked: more copies of its buffers do not fit, or it has fewer iterations}}
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

// The iteration fills the buffer before loading part of it: issuing the
// next load ahead would put it before that fill. The load stays.
// CHECK-LABEL: func.func @filled_first
// CHECK-NOT: npudev.async
#v = #npudev.space<vector>
#g = #npudev.space<global>
!w = memref<64xf32, strided<[1], offset: ?>, #g>
!t = memref<64xf32, strided<[1]>, #v>
func.func @filled_first(%x: memref<1024xf32, #g>, %y: memref<2048xf32, #g>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c1024 = arith.constant 1024 : index
  %zero = arith.constant 0.0 : f32
  npudev.launch tasks(1) {
    %buf = npudev.alloc : memref<128xf32, #v>
    scf.for %k = %c0 to %c1024 step %c64 {
      npudev.vfill %zero, %buf : f32, memref<128xf32, #v>
      %w = memref.subview %x[%k] [64] [1] : memref<1024xf32, #g> to !w
      %half = memref.subview %buf[0] [64] [1] : memref<128xf32, #v> to !t
      npudev.dma %w, %half : !w to !t
      %k2 = arith.addi %k, %k : index
      %o = memref.subview %y[%k2] [128] [1] : memref<2048xf32, #g> to memref<128xf32, strided<[1], offset: ?>, #g>
      npudev.dma %buf, %o : memref<128xf32, #v> to memref<128xf32, strided<[1], offset: ?>, #g>
    }
  }
  return
}

// -----

// A matmul without `accumulate` only writes its product tile, so the tile
// carries nothing between iterations: it gets a second copy and its store
// is left in flight. With `accumulate` the tile is read as well (the sum
// of the iterations so far) and keeps its one copy.
// CHECK-LABEL: func.func @product_tiles
// CHECK: npudev.launch tasks(1) on cube
// CHECK-COUNT-2: npudev.alloc : memref<16x16xf32, #npudev.space<cube>>
// CHECK-NOT: npudev.alloc : memref<16x16xf32, #npudev.space<cube>>
// CHECK: scf.for
// CHECK: npudev.matmul
// CHECK-NOT: npudev.dma %
// CHECK: npudev.dma_start
// CHECK: npudev.wait_all
// CHECK: npudev.launch tasks(1) on cube
// CHECK-COUNT-1: npudev.alloc : memref<16x16xf32, #npudev.space<cube>>
// CHECK-NOT: npudev.alloc : memref<16x16xf32, #npudev.space<cube>>
// CHECK-NOT: npudev.dma_start
#c = #npudev.space<cube>
#g = #npudev.space<global>
!k = memref<16x16xf16, strided<[16, 1], offset: ?>, #g>
!o = memref<16x16xf32, strided<[16, 1], offset: ?>, #g>
func.func @product_tiles(%q: memref<16x16xf16, #g>, %keys: memref<128x16xf16, #g>, %s: memref<128x16xf32, #g>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c128 = arith.constant 128 : index
  npudev.launch tasks(1) on cube {
    %qt = npudev.alloc : memref<16x16xf16, #c>
    %kt = npudev.alloc : memref<16x16xf16, #c>
    %st = npudev.alloc : memref<16x16xf32, #c>
    npudev.dma %q, %qt : memref<16x16xf16, #g> to memref<16x16xf16, #c>
    scf.for %j = %c0 to %c128 step %c16 {
      %kw = memref.subview %keys[%j, 0] [16, 16] [1, 1] : memref<128x16xf16, #g> to !k
      npudev.dma %kw, %kt : !k to memref<16x16xf16, #c>
      npudev.matmul %qt, %kt, %st {transpose_b} : memref<16x16xf16, #c>, memref<16x16xf16, #c>, memref<16x16xf32, #c>
      %sw = memref.subview %s[%j, 0] [16, 16] [1, 1] : memref<128x16xf32, #g> to !o
      npudev.dma %st, %sw : memref<16x16xf32, #c> to !o
    }
  }
  npudev.launch tasks(1) on cube {
    %qt = npudev.alloc : memref<16x16xf16, #c>
    %kt = npudev.alloc : memref<16x16xf16, #c>
    %st = npudev.alloc : memref<16x16xf32, #c>
    npudev.dma %q, %qt : memref<16x16xf16, #g> to memref<16x16xf16, #c>
    scf.for %j = %c0 to %c128 step %c16 {
      %kw = memref.subview %keys[%j, 0] [16, 16] [1, 1] : memref<128x16xf16, #g> to !k
      npudev.dma %kw, %kt : !k to memref<16x16xf16, #c>
      npudev.matmul %qt, %kt, %st {accumulate, transpose_b} : memref<16x16xf16, #c>, memref<16x16xf16, #c>, memref<16x16xf32, #c>
      %sw = memref.subview %s[%j, 0] [16, 16] [1, 1] : memref<128x16xf32, #g> to !o
      npudev.dma %st, %sw : memref<16x16xf32, #c> to !o
    }
  }
  return
}

// -----

// A tile loaded as [rows, columns, channels] and read as the matrix [rows x
// columns, channels] through memref.collapse_shape (a convolution's pixels
// over several output rows): the reshape names the elements the load wrote,
// so the tile is still iteration-local and gets its second copy.
// CHECK-LABEL: func.func @reshaped_tile
// CHECK: npudev.launch tasks(1) on cube
// CHECK-COUNT-2: npudev.alloc : memref<2x8x16xf16, #npudev.space<cube>>
// CHECK: npudev.async
// CHECK: scf.for
// CHECK: npudev.async
// CHECK: npudev.wait
// CHECK: memref.collapse_shape
// CHECK: npudev.matmul
#c = #npudev.space<cube>
#g = #npudev.space<global>
!rows = memref<2x8x16xf16, strided<[256, 32, 1], offset: ?>, #g>
func.func @reshaped_tile(%x: memref<8x16x16xf16, #g>, %w: memref<16x16xf16, #g>, %s: memref<16x16xf32, #g>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  npudev.launch tasks(1) on cube {
    %a = npudev.alloc : memref<2x8x16xf16, #c>
    %b = npudev.alloc : memref<16x16xf16, #c>
    %sum = npudev.alloc : memref<16x16xf32, #c>
    npudev.dma %w, %b : memref<16x16xf16, #g> to memref<16x16xf16, #c>
    scf.for %r = %c0 to %c8 step %c2 {
      %win = memref.subview %x[%r, 0, 0] [2, 8, 16] [1, 2, 1] : memref<8x16x16xf16, #g> to !rows
      npudev.dma %win, %a : !rows to memref<2x8x16xf16, #c>
      %m = memref.collapse_shape %a [[0, 1], [2]] : memref<2x8x16xf16, #c> into memref<16x16xf16, #c>
      npudev.matmul %m, %b, %sum {accumulate} : memref<16x16xf16, #c>, memref<16x16xf16, #c>, memref<16x16xf32, #c>
    }
    npudev.dma %sum, %s : memref<16x16xf32, #c> to memref<16x16xf32, #g>
  }
  return
}

// -----

// GATHER-KERNEL
// Rows of a table gathered by indices loaded in the same iteration: the
// indices' load is issued two iterations ahead (stage 0), the gather one
// ahead (stage 1) once they are in, and the compute waits for the gather
// alone.
// THREE-LABEL: func.func @gather_rows
// THREE-COUNT-3: npudev.alloc : memref<4xi32, #npudev.space<vector>>
// THREE-COUNT-3: npudev.alloc : memref<4x8xf32, #npudev.space<vector>>
// THREE: %[[I0:.*]] = npudev.async {
// THREE: npudev.dma %{{.*}}, %[[X0:.*]] : memref<4xi32
// THREE: %[[I1:.*]] = npudev.async {
// THREE: npudev.wait %[[I0]]
// THREE-NEXT: %[[G0:.*]] = npudev.async {
// THREE-NEXT: npudev.dma_gather %{{.*}}[%[[X0]]]
// THREE: scf.for {{.*}} iter_args(%[[I:[a-z0-9]+]] = %[[I1]], %[[X:[a-z0-9]+]] = {{.*}}, %[[G:[a-z0-9]+]] = %[[G0]])
// THREE: npudev.async {
// THREE: npudev.dma %{{.*}} : memref<4xi32, strided<[1], offset: ?>, #npudev.space<global>> to memref<4xi32
// THREE: npudev.wait %[[I]]
// THREE-NEXT: npudev.async {
// THREE-NEXT: npudev.dma_gather %{{.*}}[%[[X]]]
// THREE: npudev.wait %[[G]]
// THREE-NEXT: npudev.vbinary_scalar <mul>
#v = #npudev.space<vector>
#g = #npudev.space<global>
func.func @gather_rows(%idx: memref<64xi32, #g>, %table: memref<16x8xf32, #g>, %out: memref<64x8xf32, #g> {npudev.output}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %two = arith.constant 2.0 : f32
  npudev.launch tasks(1) {
    %it = npudev.alloc : memref<4xi32, #v>
    %rows = npudev.alloc : memref<4x8xf32, #v>
    scf.for %r = %c0 to %c16 step %c1 {
      %o = arith.muli %r, %c4 : index
      %w = memref.subview %idx[%o] [4] [1] : memref<64xi32, #g> to memref<4xi32, strided<[1], offset: ?>, #g>
      npudev.dma %w, %it : memref<4xi32, strided<[1], offset: ?>, #g> to memref<4xi32, #v>
      npudev.dma_gather %table[%it], %rows : memref<16x8xf32, #g>, memref<4xi32, #v>, memref<4x8xf32, #v>
      npudev.vbinary_scalar <mul> %rows, %two, %rows : memref<4x8xf32, #v>, f32, memref<4x8xf32, #v>
      %ow = memref.subview %out[%o, 0] [4, 8] [1, 1] : memref<64x8xf32, #g> to memref<4x8xf32, strided<[8, 1], offset: ?>, #g>
      npudev.dma %rows, %ow : memref<4x8xf32, #v> to memref<4x8xf32, strided<[8, 1], offset: ?>, #g>
    }
  }
  return
}

// -----

// FILL-KERNEL
// Rows copied out of a tile the loop never writes, into memory nothing
// else in the loop touches, stay in flight: no copy waits for the one
// before, one wait_all after the loop. A row stored and then read back in
// the same iteration is neither read ahead nor left in flight.
// CHECK-LABEL: func.func @fill_rows
// CHECK: npudev.vfill
// CHECK-NEXT: scf.for
// CHECK: npudev.dma_start
// CHECK-NEXT: }
// CHECK-NEXT: npudev.wait_all
// CHECK-NEXT: scf.for
// CHECK-NOT: npudev.async
// CHECK: npudev.dma %{{.*}}, %{{.*}} : memref<4x8xf32, #npudev.space<vector>> to
// CHECK-NEXT: npudev.dma %{{.*}}, %{{.*}} : memref<4x8xf32, strided<[8, 1], offset: ?>, #npudev.space<global>> to
#v = #npudev.space<vector>
#g = #npudev.space<global>
func.func @fill_rows(%out: memref<64x8xf32, #g> {npudev.output}, %back: memref<64x8xf32, #g> {npudev.output}, %copy: memref<64x8xf32, #g> {npudev.output}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  npudev.launch tasks(1) {
    %tile = npudev.alloc : memref<4x8xf32, #v>
    %seen = npudev.alloc : memref<4x8xf32, #v>
    npudev.vfill %zero, %tile : f32, memref<4x8xf32, #v>
    scf.for %r = %c0 to %c16 step %c1 {
      %o = arith.muli %r, %c4 : index
      %w = memref.subview %out[%o, 0] [4, 8] [1, 1] : memref<64x8xf32, #g> to memref<4x8xf32, strided<[8, 1], offset: ?>, #g>
      npudev.dma %tile, %w : memref<4x8xf32, #v> to memref<4x8xf32, strided<[8, 1], offset: ?>, #g>
    }
    scf.for %r = %c0 to %c16 step %c1 {
      %o = arith.muli %r, %c4 : index
      %w = memref.subview %back[%o, 0] [4, 8] [1, 1] : memref<64x8xf32, #g> to memref<4x8xf32, strided<[8, 1], offset: ?>, #g>
      npudev.dma %tile, %w : memref<4x8xf32, #v> to memref<4x8xf32, strided<[8, 1], offset: ?>, #g>
      npudev.dma %w, %seen : memref<4x8xf32, strided<[8, 1], offset: ?>, #g> to memref<4x8xf32, #v>
      %cw = memref.subview %copy[%o, 0] [4, 8] [1, 1] : memref<64x8xf32, #g> to memref<4x8xf32, strided<[8, 1], offset: ?>, #g>
      npudev.dma %seen, %cw : memref<4x8xf32, #v> to memref<4x8xf32, strided<[8, 1], offset: ?>, #g>
    }
  }
  return
}

// -----

// PRIVATE-KERNEL
// A row read, doubled and written back, at a row no affine function of
// the iteration gives (5 r mod 16): the pass cannot tell that no other
// iteration writes it, so the row is read ahead only on its copy's
// private_window promise.
// CHECK-LABEL: func.func @private_rows
// CHECK: npudev.async {
// CHECK: npudev.dma %{{.*}}, %{{.*}} {private_window}
// CHECK: scf.for
// CHECK: npudev.async {
// CHECK: npudev.dma %{{.*}}, %{{.*}} {private_window}
#v = #npudev.space<vector>
#g = #npudev.space<global>
func.func @private_rows(%data: memref<64xf32, #g> {npudev.output}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c16 = arith.constant 16 : index
  %two = arith.constant 2.0 : f32
  npudev.launch tasks(1) {
    %t = npudev.alloc : memref<4xf32, #v>
    scf.for %r = %c0 to %c16 step %c1 {
      %p = arith.muli %r, %c5 : index
      %row = arith.remui %p, %c16 : index
      %o = arith.muli %row, %c4 : index
      %w = memref.subview %data[%o] [4] [1] : memref<64xf32, #g> to memref<4xf32, strided<[1], offset: ?>, #g>
      npudev.dma %w, %t {private_window} : memref<4xf32, strided<[1], offset: ?>, #g> to memref<4xf32, #v>
      npudev.vbinary_scalar <mul> %t, %two, %t : memref<4xf32, #v>, f32, memref<4xf32, #v>
      npudev.dma %t, %w : memref<4xf32, #v> to memref<4xf32, strided<[1], offset: ?>, #g>
    }
  }
  return
}

// -----

// CHECK-LABEL: func.func @shared_rows
// CHECK-NOT: npudev.async
// CHECK: return
#v = #npudev.space<vector>
#g = #npudev.space<global>
func.func @shared_rows(%data: memref<64xf32, #g> {npudev.output}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c16 = arith.constant 16 : index
  %two = arith.constant 2.0 : f32
  npudev.launch tasks(1) {
    %t = npudev.alloc : memref<4xf32, #v>
    scf.for %r = %c0 to %c16 step %c1 {
      %p = arith.muli %r, %c5 : index
      %row = arith.remui %p, %c16 : index
      %o = arith.muli %row, %c4 : index
      %w = memref.subview %data[%o] [4] [1] : memref<64xf32, #g> to memref<4xf32, strided<[1], offset: ?>, #g>
      npudev.dma %w, %t : memref<4xf32, strided<[1], offset: ?>, #g> to memref<4xf32, #v>
      npudev.vbinary_scalar <mul> %t, %two, %t : memref<4xf32, #v>, f32, memref<4xf32, #v>
      npudev.dma %t, %w : memref<4xf32, #v> to memref<4xf32, strided<[1], offset: ?>, #g>
    }
  }
  return
}

// -----

// A copy out inside npudev.async is what the async's token stands for: it
// stays synchronous there.
// CHECK-LABEL: func.func @async_fill
// CHECK: npudev.async {
// CHECK-NEXT: npudev.dma %{{.*}}, %{{.*}} : memref<4x8xf32, #npudev.space<vector>> to
#v = #npudev.space<vector>
#g = #npudev.space<global>
func.func @async_fill(%out: memref<64x8xf32, #g> {npudev.output}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  npudev.launch tasks(1) {
    %tile = npudev.alloc : memref<4x8xf32, #v>
    npudev.vfill %zero, %tile : f32, memref<4x8xf32, #v>
    scf.for %r = %c0 to %c16 step %c1 {
      %o = arith.muli %r, %c4 : index
      %w = memref.subview %out[%o, 0] [4, 8] [1, 1] : memref<64x8xf32, #g> to memref<4x8xf32, strided<[8, 1], offset: ?>, #g>
      %t = npudev.async {
        npudev.dma %tile, %w : memref<4x8xf32, #v> to memref<4x8xf32, strided<[8, 1], offset: ?>, #g>
      }
      npudev.wait %t
    }
  }
  return
}

// -----

// FIRST-AND-REST-KERNEL
// A row's first chunk in the row loop and its later chunks in a nested
// loop, through one tile: the nested loop writes (a window of) the tile
// before it reads it, so it takes nothing from the row loop, and the row
// loop may give the tile copies and load its first chunk ahead; the
// nested loop is pipelined too.
// CHECK-LABEL: func.func @first_and_rest
// CHECK-COUNT-3: npudev.alloc : memref<4xf32, #npudev.space<vector>>
// CHECK: npudev.async {
// CHECK: scf.for {{.*}} iter_args
// CHECK: npudev.async {
// CHECK: scf.for {{.*}} iter_args
#v = #npudev.space<vector>
#g = #npudev.space<global>
func.func @first_and_rest(%x: memref<256xf32, #g>, %y: memref<256xf32, #g> {npudev.output}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %two = arith.constant 2.0 : f32
  npudev.launch tasks(1) {
    %t = npudev.alloc : memref<4xf32, #v>
    scf.for %r = %c0 to %c16 step %c1 {
      %o = arith.muli %r, %c16 : index
      %w = memref.subview %x[%o] [4] [1] : memref<256xf32, #g> to memref<4xf32, strided<[1], offset: ?>, #g>
      npudev.dma %w, %t : memref<4xf32, strided<[1], offset: ?>, #g> to memref<4xf32, #v>
      npudev.vbinary_scalar <mul> %t, %two, %t : memref<4xf32, #v>, f32, memref<4xf32, #v>
      %u = memref.subview %y[%o] [4] [1] : memref<256xf32, #g> to memref<4xf32, strided<[1], offset: ?>, #g>
      npudev.dma %t, %u : memref<4xf32, #v> to memref<4xf32, strided<[1], offset: ?>, #g>
      scf.for %c = %c4 to %c16 step %c4 {
        %p = arith.addi %o, %c : index
        %tc = memref.subview %t[0] [2] [1] : memref<4xf32, #v> to memref<2xf32, strided<[1]>, #v>
        %wc = memref.subview %x[%p] [2] [1] : memref<256xf32, #g> to memref<2xf32, strided<[1], offset: ?>, #g>
        npudev.dma %wc, %tc : memref<2xf32, strided<[1], offset: ?>, #g> to memref<2xf32, strided<[1]>, #v>
        npudev.vbinary_scalar <mul> %tc, %two, %tc : memref<2xf32, strided<[1]>, #v>, f32, memref<2xf32, strided<[1]>, #v>
        %uc = memref.subview %y[%p] [2] [1] : memref<256xf32, #g> to memref<2xf32, strided<[1], offset: ?>, #g>
        npudev.dma %tc, %uc : memref<2xf32, strided<[1]>, #v> to memref<2xf32, strided<[1], offset: ?>, #g>
      }
    }
  }
  return
}

// -----

// A window of the tile an iteration loaded is data of that iteration too
// (the masked columns of a row of scores): the tile gets its copies and the
// loop is pipelined.
// WINDOW-KERNEL
// CHECK-LABEL: func.func @window_of_loaded_tile
// CHECK-COUNT-2: npudev.alloc : memref<128xf32, #npudev.space<vector>>
// CHECK: npudev.async
// CHECK: scf.for
// CHECK: npudev.async
// CHECK: npudev.wait
// CHECK: npudev.vbinary_scalar
// CHECK: npudev.dma_start
#v = #npudev.space<vector>
#g = #npudev.space<global>
!w = memref<128xf32, strided<[1], offset: ?>, #g>
func.func @window_of_loaded_tile(%x: memref<1024xf32, #g>, %y: memref<1024xf32, #g> {npudev.output}) {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %c1024 = arith.constant 1024 : index
  %zero = arith.constant 0.0 : f32
  npudev.launch tasks(1) {
    %t = npudev.alloc : memref<128xf32, #v>
    scf.for %i = %c0 to %c1024 step %c128 {
      %w = memref.subview %x[%i] [128] [1] : memref<1024xf32, #g> to !w
      npudev.dma %w, %t : !w to memref<128xf32, #v>
      %high = memref.subview %t[64] [64] [1] : memref<128xf32, #v> to memref<64xf32, strided<[1], offset: 64>, #v>
      npudev.vbinary_scalar <mul> %high, %zero, %high : memref<64xf32, strided<[1], offset: 64>, #v>, f32, memref<64xf32, strided<[1], offset: 64>, #v>
      %o = memref.subview %y[%i] [128] [1] : memref<1024xf32, #g> to !w
      npudev.dma %t, %o : memref<128xf32, #v> to !w
    }
  }
  return
}
