// NaN results are the same bytes in both executors. maximum and minimum
// return the first NaN operand, quieted (docs/simulator.md, "NaN"): the
// JIT used to pass through whichever NaN x86 code chose and the simulator
// to make +NaN, so FlashAttention with scale 0 and an infinite key wrote
// +NaN in one and -NaN in the other.
// RUN: rm -rf %t && mkdir -p %t/sim %t/jit
// RUN: npu-run %s --entry=min_max --random-inputs=3 --output-dir=%t/sim
// RUN: npu-run %s --entry=min_max --random-inputs=3 --output-dir=%t/jit --mode=jit
// RUN: cmp %t/sim/arg1.npy %t/jit/arg1.npy
// RUN: od -v -A n -t x4 -j 128 %t/sim/arg1.npy | FileCheck %s
// Rows: max(+NaN(1), x), max(x, -NaN(2)), min(-NaN(2), +NaN(1)), relu(-NaN(2)),
// the row maxima of rows 0 and 2, and max(x, x) (no NaN).
// CHECK: 7fc00001 7fc00001 7fc00001 7fc00001
// CHECK: ffc00002 ffc00002 ffc00002 ffc00002
// CHECK: ffc00002 ffc00002 ffc00002 ffc00002
// CHECK: ffc00002 ffc00002 ffc00002 ffc00002
// CHECK: 7fc00001 ffc00002 {{[0-9a-f]+}} {{[0-9a-f]+}}

!g = memref<8x4xf32, #npudev.space<global>>
!v = memref<8x4xf32, #npudev.space<vector>>
!r = memref<4xf32, #npudev.space<vector>>
func.func @min_max(%x: !g, %out: !g {npudev.output}) {
  npudev.launch tasks(1) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c5 = arith.constant 5 : index
    %in = npudev.alloc : !v
    npudev.dma %x, %in : !g to !v
    %o = npudev.alloc : !v
    npudev.dma %x, %o : !g to !v
    %pos = arith.constant 0x7FC00001 : f32
    %neg = arith.constant 0xFFC00002 : f32
    %row0 = memref.subview %o[0, 0] [1, 4] [1, 1] : !v to !r
    %row1 = memref.subview %o[1, 0] [1, 4] [1, 1] : !v to memref<4xf32, strided<[1], offset: 4>, #npudev.space<vector>>
    %row2 = memref.subview %o[2, 0] [1, 4] [1, 1] : !v to memref<4xf32, strided<[1], offset: 8>, #npudev.space<vector>>
    %row3 = memref.subview %o[3, 0] [1, 4] [1, 1] : !v to memref<4xf32, strided<[1], offset: 12>, #npudev.space<vector>>
    %a = npudev.alloc : !r
    %b = npudev.alloc : !r
    npudev.vfill %pos, %a : f32, !r
    npudev.vfill %neg, %b : f32, !r
    %x0 = memref.subview %in[0, 0] [1, 4] [1, 1] : !v to !r
    npudev.vbinary <max> %a, %x0, %row0 : !r, !r, !r
    npudev.vbinary <max> %x0, %b, %row1 : !r, !r, memref<4xf32, strided<[1], offset: 4>, #npudev.space<vector>>
    npudev.vbinary <min> %b, %a, %row2 : !r, !r, memref<4xf32, strided<[1], offset: 8>, #npudev.space<vector>>
    npudev.vunary <relu> %b, %row3 : !r, memref<4xf32, strided<[1], offset: 12>, #npudev.space<vector>>
    // Row 4: the maxima of rows 0 and 2 (NaN), then of the data (a number).
    %top = memref.subview %o[0, 0] [3, 4] [1, 1] : !v to memref<3x4xf32, #npudev.space<vector>>
    %maxima = npudev.alloc : memref<3xf32, #npudev.space<vector>>
    npudev.vreduce <max> %top, %maxima : memref<3x4xf32, #npudev.space<vector>>, memref<3xf32, #npudev.space<vector>>
    %m0 = memref.load %maxima[%c0] : memref<3xf32, #npudev.space<vector>>
    %m2 = memref.load %maxima[%c2] : memref<3xf32, #npudev.space<vector>>
    %s = arith.maximumf %m2, %m0 : f32
    memref.store %m0, %o[%c4, %c0] : !v
    memref.store %s, %o[%c4, %c1] : !v
    npudev.dma %o, %out : !v to !g
  }
  return
}
