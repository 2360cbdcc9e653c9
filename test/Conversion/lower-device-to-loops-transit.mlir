// Transit buffers: on the host, an elementwise op whose buffer only carries
// data from one global window to another reads and writes those windows.
// RUN: npu-opt %s --split-input-file --npu-lower-device-to-loops=outline-launches=false | FileCheck %s
// Off (the JIT's checked mode), every copy stays.
// RUN: npu-opt %s --split-input-file "--npu-lower-device-to-loops=forward-transits=false outline-launches=false" | FileCheck %s --check-prefix=KEPT

!g = memref<64xf32, #npudev.space<global>>
!w = memref<16xf32, strided<[1], offset: ?>, #npudev.space<global>>
!v = memref<16xf32, #npudev.space<vector>>
// DMA in, scale in place, DMA out: one loop from x's window to y's, and no
// buffer.
// CHECK-LABEL: func.func @scaled_copy
// CHECK-SAME: (%[[X:[^:]*]]: memref<64xf32>, %[[Y:[^:]*]]: memref<64xf32>
// CHECK-NOT: memref.alloc
// CHECK: %[[XS:.*]] = memref.subview %[[X]]
// CHECK: %[[YS:.*]] = memref.subview %[[Y]]
// CHECK: scf.for %[[I:.*]] =
// CHECK-NEXT: %[[V:.*]] = memref.load %[[XS]][%[[I]]]
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[V]]
// CHECK-NEXT: memref.store %[[P]], %[[YS]][%[[I]]]
// CHECK-NOT: scf.for
// CHECK: return
// KEPT-LABEL: func.func @scaled_copy
// KEPT: memref.alloc() : memref<16xf32>
// KEPT-COUNT-3: scf.for
func.func @scaled_copy(%x: !g, %y: !g, %i: index, %a: f32) {
  npudev.launch tasks(1) {
    %buf = npudev.alloc : !v
    %xs = memref.subview %x[%i] [16] [1] : !g to !w
    %ys = memref.subview %y[%i] [16] [1] : !g to !w
    npudev.dma %xs, %buf : !w to !v
    npudev.vbinary_scalar <mul> %buf, %a, %buf : !v, f32, !v
    npudev.dma %buf, %ys : !v to !w
  }
  return
}

// -----

!g = memref<64xf32, #npudev.space<global>>
!w = memref<16xf32, strided<[1], offset: ?>, #npudev.space<global>>
!v = memref<16xf32, #npudev.space<vector>>
// A binary op with another on-chip operand, in place on one global window
// (reading element i before writing it), with an on-chip copy between the
// DMAs: the bias buffer stays, the transit buffer goes.
// CHECK-LABEL: func.func @in_place_window
// CHECK-SAME: (%[[X:[^:]*]]: memref<64xf32>
// CHECK: %[[B:.*]] = memref.alloc() : memref<16xf32>
// CHECK-NOT: memref.alloc
// CHECK: %[[XS:.*]] = memref.subview %[[X]]
// CHECK: scf.for
// CHECK: scf.for %[[I:.*]] =
// CHECK-NEXT: %[[V:.*]] = memref.load %[[XS]][%[[I]]]
// CHECK-NEXT: %[[W:.*]] = memref.load %[[B]][%[[I]]]
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[V]], %[[W]]
// CHECK-NEXT: memref.store %[[S]], %[[XS]][%[[I]]]
func.func @in_place_window(%x: !g, %bias: !g, %i: index) {
  npudev.launch tasks(1) {
    %buf = npudev.alloc : !v
    %b = npudev.alloc : !v
    %xs = memref.subview %x[%i] [16] [1] : !g to !w
    %bs = memref.subview %bias[%i] [16] [1] : !g to !w
    npudev.dma %xs, %buf : !w to !v
    npudev.dma %bs, %b : !w to !v
    npudev.vbinary <add> %buf, %b, %buf : !v, !v, !v
    npudev.dma %buf, %xs : !v to !w
  }
  return
}

// -----

!g = memref<64xf32, #npudev.space<global>>
!w = memref<16xf32, strided<[1], offset: ?>, #npudev.space<global>>
!v = memref<16xf32, #npudev.space<vector>>
// Not forwarded:
//  - @read_again: the buffer is read after the op (a reduction);
//  - @overlapping: two windows of one argument at different offsets may
//    overlap, so the element loop could read what it wrote;
//  - @global_write_between: a DMA between them writes global memory;
//  - @op_before_dma: the op runs before the DMA fills the buffer.
// CHECK-LABEL: func.func @read_again
// CHECK: memref.alloc() : memref<16xf32>
// CHECK-COUNT-3: scf.for
func.func @read_again(%x: !g, %y: !g, %s: memref<1xf32, #npudev.space<vector>>, %i: index, %a: f32) {
  npudev.launch tasks(1) {
    %buf = npudev.alloc : !v
    %xs = memref.subview %x[%i] [16] [1] : !g to !w
    %ys = memref.subview %y[%i] [16] [1] : !g to !w
    npudev.dma %xs, %buf : !w to !v
    npudev.vbinary_scalar <mul> %buf, %a, %buf : !v, f32, !v
    npudev.dma %buf, %ys : !v to !w
    npudev.vreduce <sum> %buf, %s : !v, memref<1xf32, #npudev.space<vector>>
  }
  return
}
// CHECK-LABEL: func.func @overlapping
// CHECK: memref.alloc() : memref<16xf32>
// CHECK-COUNT-3: scf.for
func.func @overlapping(%x: !g, %i: index, %a: f32) {
  npudev.launch tasks(1) {
    %buf = npudev.alloc : !v
    %c1 = arith.constant 1 : index
    %j = arith.addi %i, %c1 : index
    %xs = memref.subview %x[%i] [16] [1] : !g to !w
    %ys = memref.subview %x[%j] [16] [1] : !g to !w
    npudev.dma %xs, %buf : !w to !v
    npudev.vbinary_scalar <mul> %buf, %a, %buf : !v, f32, !v
    npudev.dma %buf, %ys : !v to !w
  }
  return
}
// CHECK-LABEL: func.func @global_write_between
// CHECK: memref.alloc() : memref<16xf32>
// CHECK: memref.alloc() : memref<16xf32>
func.func @global_write_between(%x: !g, %y: !g, %i: index, %a: f32) {
  npudev.launch tasks(1) {
    %buf = npudev.alloc : !v
    %other = npudev.alloc : !v
    %xs = memref.subview %x[%i] [16] [1] : !g to !w
    %ys = memref.subview %y[%i] [16] [1] : !g to !w
    npudev.dma %xs, %buf : !w to !v
    npudev.dma %other, %xs : !v to !w
    npudev.vbinary_scalar <mul> %buf, %a, %buf : !v, f32, !v
    npudev.dma %buf, %ys : !v to !w
  }
  return
}
// CHECK-LABEL: func.func @op_before_dma
// CHECK: memref.alloc() : memref<16xf32>
// CHECK-COUNT-3: scf.for
func.func @op_before_dma(%x: !g, %y: !g, %i: index, %a: f32) {
  npudev.launch tasks(1) {
    %buf = npudev.alloc : !v
    %xs = memref.subview %x[%i] [16] [1] : !g to !w
    %ys = memref.subview %y[%i] [16] [1] : !g to !w
    npudev.vbinary_scalar <mul> %buf, %a, %buf : !v, f32, !v
    npudev.dma %xs, %buf : !w to !v
    npudev.dma %buf, %ys : !v to !w
  }
  return
}

// -----

!g = memref<8x64xf32, #npudev.space<global>>
!w = memref<4x64xf32, strided<[64, 1], offset: ?>, #npudev.space<global>>
!v = memref<4x64xf32, #npudev.space<vector>>
!s = memref<4xf32, #npudev.space<vector>>
// A tile scaled row by row in place, then copied out by a DMA that
// consumes it: the product loop stores into y's window (whose offset is
// computed between the two ops), and no copy loop is left. The tile's
// buffer stays: a DMA fills it.
// CHECK-LABEL: func.func @consumed_write_back
// CHECK-SAME: (%[[X:[^:]*]]: memref<8x64xf32>, %[[Y:[^:]*]]: memref<8x64xf32>
// CHECK: %[[T:.*]] = memref.alloc() : memref<4x64xf32>
// CHECK: %[[YS:.*]] = memref.subview %[[Y]]
// CHECK: scf.for %[[I:.*]] =
// CHECK-NEXT: scf.for %[[J:.*]] =
// CHECK-NEXT: %[[V:.*]] = memref.load %[[T]][%[[I]], %[[J]]]
// CHECK-NEXT: %[[G:.*]] = memref.load
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[V]], %[[G]]
// CHECK-NEXT: memref.store %[[P]], %[[YS]][%[[I]], %[[J]]]
// CHECK-NOT: scf.for
// CHECK: return
// Checked mode keeps the copy: one loop over the window's rows, which lie
// back to back.
// KEPT-LABEL: func.func @consumed_write_back
// KEPT-COUNT-3: scf.for
// KEPT: %[[WINDOW:.*]] = memref.collapse_shape %{{.*}} {{\[\[}}0, 1]] : memref<4x64xf32, strided<[64, 1], offset: ?>> into memref<256xf32, strided<[1], offset: ?>>
// KEPT-NEXT: scf.for %[[K:.*]] =
// KEPT-NEXT: %[[E:.*]] = memref.load
// KEPT-NEXT: memref.store %[[E]], %[[WINDOW]][%[[K]]]
func.func @consumed_write_back(%x: !g, %y: !g, %i: index, %gates: !s) {
  npudev.launch tasks(1) {
    %tile = npudev.alloc : !v
    %xs = memref.subview %x[%i, 0] [4, 64] [1, 1] : !g to !w
    npudev.dma %xs, %tile : !w to !v
    npudev.vbinary_broadcast <mul> %tile, %gates, %tile along 0 : !v, !s, !v
    %c4 = arith.constant 4 : index
    %j = arith.addi %i, %c4 : index
    %ys = memref.subview %y[%j, 0] [4, 64] [1, 1] : !g to !w
    %t = npudev.dma_start %tile, %ys {consumes_source} : !v to !w
    npudev.wait_all
  }
  return
}

// -----

!g = memref<8x64xf32, #npudev.space<global>>
!w = memref<4x64xf32, strided<[64, 1], offset: ?>, #npudev.space<global>>
!v = memref<4x64xf32, #npudev.space<vector>>
!s = memref<4xf32, #npudev.space<vector>>
// Not forwarded, the copy loop stays:
//  - @not_consumed: the DMA makes no promise, so the tile's values may be
//    read again;
//  - @token_waited: the DMA's token is used (erasing it would need a
//    replacement);
//  - @store_between: an op with memory effects stands between them.
// CHECK-LABEL: func.func @not_consumed
// CHECK-COUNT-3: scf.for
func.func @not_consumed(%x: !g, %y: !g, %i: index, %gates: !s) {
  npudev.launch tasks(1) {
    %tile = npudev.alloc : !v
    %xs = memref.subview %x[%i, 0] [4, 64] [1, 1] : !g to !w
    %ys = memref.subview %y[%i, 0] [4, 64] [1, 1] : !g to !w
    npudev.dma %xs, %tile : !w to !v
    npudev.vbinary_broadcast <mul> %tile, %gates, %tile along 0 : !v, !s, !v
    %t = npudev.dma_start %tile, %ys : !v to !w
    npudev.wait_all
  }
  return
}
// CHECK-LABEL: func.func @token_waited
// CHECK-COUNT-3: scf.for
func.func @token_waited(%x: !g, %y: !g, %i: index, %gates: !s) {
  npudev.launch tasks(1) {
    %tile = npudev.alloc : !v
    %xs = memref.subview %x[%i, 0] [4, 64] [1, 1] : !g to !w
    %ys = memref.subview %y[%i, 0] [4, 64] [1, 1] : !g to !w
    npudev.dma %xs, %tile : !w to !v
    npudev.vbinary_broadcast <mul> %tile, %gates, %tile along 0 : !v, !s, !v
    %t = npudev.dma_start %tile, %ys {consumes_source} : !v to !w
    npudev.wait %t
  }
  return
}
// CHECK-LABEL: func.func @store_between
// CHECK-COUNT-3: scf.for
func.func @store_between(%x: !g, %y: !g, %i: index, %gates: !s, %f: f32) {
  npudev.launch tasks(1) {
    %tile = npudev.alloc : !v
    %xs = memref.subview %x[%i, 0] [4, 64] [1, 1] : !g to !w
    %ys = memref.subview %y[%i, 0] [4, 64] [1, 1] : !g to !w
    npudev.dma %xs, %tile : !w to !v
    npudev.vbinary_broadcast <mul> %tile, %gates, %tile along 0 : !v, !s, !v
    memref.store %f, %gates[%i] : !s
    %t = npudev.dma_start %tile, %ys {consumes_source} : !v to !w
    npudev.wait_all
  }
  return
}

// -----

// Staged matmul inputs are forwarded with the transits, and kept with
// them (checked mode keeps every copy as written).
!g = memref<64x64xf32, #npudev.space<global>>
!w = memref<16x16xf32, strided<[64, 1], offset: ?>, #npudev.space<global>>
!c = memref<16x16xf32, #npudev.space<cube>>
// CHECK-LABEL: func.func @staged_matmul
// CHECK-SAME: (%[[A:[^:]*]]: memref<64x64xf32>
// CHECK: %[[O:.*]] = memref.alloc() : memref<16x16xf32>
// CHECK-NOT: memref.alloc
// CHECK: %[[WA:.*]] = memref.subview %[[A]]
// CHECK: %[[CA:.*]] = memref.cast %[[WA]]
// CHECK: %[[CB:.*]] = memref.cast %[[WA]]
// CHECK: func.call @npu_rt_matmul_f32(%[[CA]], %[[CB]],
// KEPT-LABEL: func.func @staged_matmul
// KEPT: %[[BUF:.*]] = memref.alloc() : memref<16x16xf32>
// KEPT: %[[CA:.*]] = memref.cast %[[BUF]]
// KEPT: %[[CB:.*]] = memref.cast %[[BUF]]
// KEPT: func.call @npu_rt_matmul_f32(%[[CA]], %[[CB]],
func.func @staged_matmul(%A: !g, %i: index) {
  npudev.launch tasks(1) {
    %a = npudev.alloc : !c
    %o = npudev.alloc : !c
    %wa = memref.subview %A[%i, 0] [16, 16] [1, 1] : !g to !w
    npudev.dma %wa, %a : !w to !c
    npudev.matmul %a, %a, %o : !c, !c, !c
  }
  return
}
