// An asynchronous copy still in flight owns what it writes and what it
// reads: touching those bytes before its completion is a race, which a
// synchronous executor would never show. The simulator stops at the racing
// access and names both ops, the buffer and the two cycles.
// RUN: not npu-run %s --entry=read_before_load --random-inputs=0 2>&1 | FileCheck %s --check-prefix=RAW
// RUN: not npu-run %s --entry=overwrite_while_stored --random-inputs=0 2>&1 | FileCheck %s --check-prefix=WAR
// RUN: not npu-run %s --entry=copy_before_load --random-inputs=0 2>&1 | FileCheck %s --check-prefix=DMA-RAW
// RUN: not npu-run %s --entry=scalar_store_while_loaded --random-inputs=0 2>&1 | FileCheck %s --check-prefix=WAW
// RUN: not npu-run %s --entry=read_before_async_load --random-inputs=0 2>&1 | FileCheck %s --check-prefix=ASYNC-RAW
// Waiting first, touching other bytes, or queueing copies behind each other
// on the same in-order engine is not a race:
// RUN: npu-run %s --entry=double_buffer --random-inputs=0 --print-outputs | FileCheck %s --check-prefix=OK

!g = memref<64xf32, #npudev.space<global>>
!v = memref<64xf32, #npudev.space<vector>>
!h = memref<32xf32, strided<[1], offset: ?>, #npudev.space<vector>>
!gh = memref<32xf32, strided<[1], offset: ?>, #npudev.space<global>>

// A vector op reads a buffer whose load has not landed.
// RAW: races.mlir:[[@LINE+6]]:5: error: 'npudev.vunary' op reads bytes of the buffer of 'npudev.alloc' at {{.*}}races.mlir:[[@LINE+4]]:10 that 'npudev.dma_start' is still writing: the copy completes at cycle {{[0-9]+}}, this access is at cycle {{[0-9]+}} (wait for the copy first)
// RAW: races.mlir:[[@LINE+4]]:10: note: the copy
func.func @read_before_load(%x: !g, %y: !g) {
  npudev.launch tasks(1) {
    %a = npudev.alloc : !v
    %t = npudev.dma_start %x, %a : !g to !v
    npudev.vunary <exp> %a, %a : !v, !v
    npudev.wait %t
    npudev.dma %a, %y : !v to !g
  }
  return
}

// A copy issued in an npudev.async (as npu-pipeline-dma-loops issues its
// loads) is in flight until the async's wait, like a dma_start.
// ASYNC-RAW: races.mlir:[[@LINE+8]]:5: error: 'npudev.vunary' op reads bytes of the buffer of 'npudev.alloc' at {{.*}}races.mlir:[[@LINE+4]]:10 that 'npudev.dma' is still writing
// ASYNC-RAW: races.mlir:[[@LINE+5]]:7: note: the copy
func.func @read_before_async_load(%x: !g, %y: !g) {
  npudev.launch tasks(1) {
    %a = npudev.alloc : !v
    %t = npudev.async {
      npudev.dma %x, %a : !g to !v
    }
    npudev.vunary <exp> %a, %a : !v, !v
    npudev.wait %t
    npudev.dma %a, %y : !v to !g
  }
  return
}

// A vector op overwrites the buffer a store is still reading.
// WAR: races.mlir:[[@LINE+9]]:5: error: 'npudev.vfill' op writes bytes of the buffer of 'npudev.alloc' at {{.*}} that 'npudev.dma_start' is still reading
// WAR: note: the copy
func.func @overwrite_while_stored(%y: !g) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  npudev.launch tasks(1) {
    %a = npudev.alloc : !v
    npudev.vfill %zero, %a : f32, !v
    %t = npudev.dma_start %a, %y : !v to !g
    npudev.vfill %one, %a : f32, !v
    npudev.wait %t
  }
  return
}

// A second copy reads what the first is still bringing in, even on the
// same engine: it reads before the first completes.
// DMA-RAW: races.mlir:[[@LINE+5]]:5: error: 'npudev.dma' op reads bytes of the buffer of 'npudev.alloc' at {{.*}} that 'npudev.dma_start' is still writing
func.func @copy_before_load(%x: !g, %y: !g) {
  npudev.launch tasks(1) {
    %a = npudev.alloc : !v
    %t = npudev.dma_start %x, %a : !g to !v
    npudev.dma %a, %y : !v to !g
    npudev.wait %t
  }
  return
}

// A scalar store into the bytes a load is writing; the half the load does
// not touch is free.
// WAW: races.mlir:[[@LINE+10]]:5: error: 'memref.store' op writes bytes of the buffer of 'npudev.alloc' at {{.*}} that 'npudev.dma_start' is still writing
func.func @scalar_store_while_loaded(%x: !g) {
  %c0 = arith.constant 0 : index
  %c40 = arith.constant 40 : index
  %c1 = arith.constant 1.0 : f32
  npudev.launch tasks(1) {
    %a = npudev.alloc : !v
    %low = memref.subview %a[%c0] [32] [1] : !v to !h
    %xl = memref.subview %x[%c0] [32] [1] : !g to !gh
    %t = npudev.dma_start %xl, %low : !gh to !h
    memref.store %c1, %a[%c40] : !v
    memref.store %c1, %a[%c0] : !v
    npudev.wait %t
  }
  return
}

// Two halves double-buffered: each half is loaded while the other is
// processed, and touched only after its wait. Both loads write %a, queued
// on one engine. x = 0, 1, ..., 63 and y = exp(x).
// OK: arg0 [64] = [1, 2.71828175, 7.38905621
func.func @double_buffer(%y: !g {npudev.output}) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %x = memref.alloc() : !g
  npudev.launch tasks(1) {
    %i = npudev.alloc : !v
    npudev.iota %c0, %i : !v
    npudev.dma %i, %x : !v to !g
    %a = npudev.alloc : !v
    %low = memref.subview %a[%c0] [32] [1] : !v to !h
    %high = memref.subview %a[%c32] [32] [1] : !v to !h
    %xl = memref.subview %x[%c0] [32] [1] : !g to !gh
    %xh = memref.subview %x[%c32] [32] [1] : !g to !gh
    %t0 = npudev.dma_start %xl, %low : !gh to !h
    %t1 = npudev.dma_start %xh, %high : !gh to !h
    npudev.wait %t0
    npudev.vunary <exp> %low, %low : !h, !h
    npudev.wait %t1
    npudev.vunary <exp> %high, %high : !h, !h
    npudev.dma %a, %y : !v to !g
  }
  return
}
