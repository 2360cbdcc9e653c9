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
