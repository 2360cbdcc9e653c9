// Transit buffers on the JIT (test/Conversion/lower-device-to-loops-transit.mlir):
// a scaled copy from x to y and an in-place add on x's own windows, each
// tile's buffer only carrying data between global windows. The JIT reads
// and writes the windows directly (with one thread and with three; checked
// mode keeps the copies); every run gives the simulator's bytes.
// RUN: rm -rf %t && mkdir -p %t/sim %t/jit %t/threads %t/checked
// RUN: npu-run %s --random-inputs=5 --output-dir=%t/sim
// RUN: npu-run %s --random-inputs=5 --output-dir=%t/jit --mode=jit
// RUN: npu-run %s --random-inputs=5 --output-dir=%t/threads --mode=jit --jit-threads=3
// RUN: npu-run %s --random-inputs=5 --output-dir=%t/checked --mode=jit --checked
// RUN: cmp %t/sim/arg0.npy %t/jit/arg0.npy
// RUN: cmp %t/sim/arg2.npy %t/jit/arg2.npy
// RUN: cmp %t/sim/arg0.npy %t/threads/arg0.npy
// RUN: cmp %t/sim/arg2.npy %t/threads/arg2.npy
// RUN: cmp %t/sim/arg0.npy %t/checked/arg0.npy
// RUN: cmp %t/sim/arg2.npy %t/checked/arg2.npy

!g = memref<96xf32, #npudev.space<global>>
!w = memref<8xf32, strided<[1], offset: ?>, #npudev.space<global>>
!v = memref<8xf32, #npudev.space<vector>>

func.func @transit(%x: !g, %b: !g, %y: !g, %a: f32) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c24 = arith.constant 24 : index
  npudev.launch tasks(4) {
    %t = npudev.task_id
    %base = arith.muli %t, %c24 : index
    scf.for %k = %c0 to %c24 step %c8 {
      %off = arith.addi %base, %k : index
      %xs = memref.subview %x[%off] [8] [1] : !g to !w
      %ys = memref.subview %y[%off] [8] [1] : !g to !w
      %buf = npudev.alloc : !v
      npudev.dma %xs, %buf : !w to !v
      npudev.vbinary_scalar <mul> %buf, %a, %buf : !v, f32, !v
      npudev.dma %buf, %ys : !v to !w
    }
  }
  npudev.launch tasks(4) {
    %t = npudev.task_id
    %base = arith.muli %t, %c24 : index
    scf.for %k = %c0 to %c24 step %c8 {
      %off = arith.addi %base, %k : index
      %xs = memref.subview %x[%off] [8] [1] : !g to !w
      %bs = memref.subview %b[%off] [8] [1] : !g to !w
      %buf = npudev.alloc : !v
      %bias = npudev.alloc : !v
      npudev.dma %xs, %buf : !w to !v
      npudev.dma %bs, %bias : !w to !v
      npudev.vbinary <add> %buf, %bias, %buf : !v, !v, !v
      npudev.dma %buf, %xs : !v to !w
    }
  }
  return
}
