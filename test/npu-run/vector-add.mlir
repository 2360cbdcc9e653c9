// A tiled vector add: 4 tasks, each adding 16 elements in two tiles of 8
// through vector-space buffers. Inputs are made on the host: x[i] = i,
// y[i] = 2i, so out[i] = 3i.
// RUN: npu-run %s --random-inputs=1 --print-outputs | FileCheck %s
// RUN: npu-run %s --random-inputs=1 --print-outputs --mode=jit | FileCheck %s
// RUN: npu-run %s --random-inputs=1 --report | FileCheck %s --check-prefix=REPORT

// CHECK: arg0 [64] = [0, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30, 33, 36, 39, 42, 45, 48, 51, 54, 57, 60, 63, 66, 69, 72, 75, 78, 81, 84, 87, 90, 93, 96, 99, 102, 105, 108, 111, 114, 117, 120, 123, 126, 129, 132, 135, 138, 141, 144, 147, 150, 153, 156, 159, 162, 165, 168, 171, 174, 177, 180, 183, 186, 189]
// REPORT: cores used:{{ *}}4
// REPORT: global bytes moved:{{ *}}768
// REPORT: vector bytes:{{ *}}256

!global = memref<64xf32, #npudev.space<global>>
!tile = memref<8xf32, #npudev.space<vector>>
!window = memref<8xf32, strided<[1], offset: ?>, #npudev.space<global>>

func.func @vadd(%out: !global) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %two = arith.constant 2.0 : f32
  %x = memref.alloc() : !global
  %y = memref.alloc() : !global
  scf.for %i = %c0 to %c64 step %c1 {
    %ii = arith.index_cast %i : index to i32
    %xi = arith.sitofp %ii : i32 to f32
    %yi = arith.mulf %xi, %two : f32
    memref.store %xi, %x[%i] : !global
    memref.store %yi, %y[%i] : !global
  }
  npudev.launch tasks(4) {
    %t = npudev.task_id
    %base = arith.muli %t, %c16 : index
    scf.for %k = %c0 to %c16 step %c8 {
      %off = arith.addi %base, %k : index
      %xs = memref.subview %x[%off] [8] [1] : !global to !window
      %ys = memref.subview %y[%off] [8] [1] : !global to !window
      %zs = memref.subview %out[%off] [8] [1] : !global to !window
      %bx = npudev.alloc : !tile
      %by = npudev.alloc : !tile
      npudev.dma %xs, %bx : !window to !tile
      npudev.dma %ys, %by : !window to !tile
      npudev.vbinary <add> %bx, %by, %bx : !tile, !tile, !tile
      npudev.dma %bx, %zs : !tile to !window
    }
  }
  memref.dealloc %x : !global
  memref.dealloc %y : !global
  return
}
