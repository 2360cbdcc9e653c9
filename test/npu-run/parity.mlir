// Every npudev op, run by the simulator and by the JIT on the same random
// inputs: the outputs are the same bytes (integer and float kernels alike;
// docs/simulator.md says why float results agree bit for bit). The gtest
// ParityTest runs every function of this file the same way and checks that
// together with its scalar table they use every op the simulator models.
// RUN: rm -rf %t && mkdir -p %t/sim %t/jit
// RUN: npu-run %s --entry=ints --random-inputs=7 --output-dir=%t/sim
// RUN: npu-run %s --entry=ints --random-inputs=7 --output-dir=%t/jit --mode=jit
// RUN: cmp %t/sim/arg1.npy %t/jit/arg1.npy
// RUN: npu-run %s --entry=floats --random-inputs=7 --output-dir=%t/sim
// RUN: npu-run %s --entry=floats --random-inputs=7 --output-dir=%t/jit --mode=jit
// RUN: cmp %t/sim/arg1.npy %t/jit/arg1.npy
// RUN: cmp %t/sim/arg2.npy %t/jit/arg2.npy
// RUN: npu-run %s --entry=matmul_f32 --random-inputs=7 --output-dir=%t/sim
// RUN: npu-run %s --entry=matmul_f32 --random-inputs=7 --output-dir=%t/jit --mode=jit
// RUN: cmp %t/sim/arg2.npy %t/jit/arg2.npy
// RUN: npu-run %s --entry=matmul_f32 --random-inputs=7 --output-dir=%t/jit --mode=jit --jit-max-vector-bits=256
// RUN: cmp %t/sim/arg2.npy %t/jit/arg2.npy
// RUN: npu-run %s --entry=matmul_f32 --random-inputs=7 --output-dir=%t/jit --mode=jit --jit-max-vector-bits=128
// RUN: cmp %t/sim/arg2.npy %t/jit/arg2.npy
// RUN: npu-run %s --entry=matmul_half --random-inputs=7 --output-dir=%t/sim
// RUN: npu-run %s --entry=matmul_half --random-inputs=7 --output-dir=%t/jit --mode=jit
// RUN: cmp %t/sim/arg2.npy %t/jit/arg2.npy
// RUN: npu-run %s --entry=matmul_half --random-inputs=7 --output-dir=%t/jit --mode=jit --jit-max-vector-bits=256
// RUN: cmp %t/sim/arg2.npy %t/jit/arg2.npy
// RUN: npu-run %s --entry=matmul_half --random-inputs=7 --output-dir=%t/jit --mode=jit --jit-max-vector-bits=128
// RUN: cmp %t/sim/arg2.npy %t/jit/arg2.npy
// RUN: npu-run %s --entry=carried_token --random-inputs=7 --output-dir=%t/sim
// RUN: npu-run %s --entry=carried_token --random-inputs=7 --output-dir=%t/jit --mode=jit
// RUN: cmp %t/sim/arg1.npy %t/jit/arg1.npy
// RUN: npu-run %s --entry=floats --random-inputs=7 --print-outputs | FileCheck %s
// RUN: npu-run %s --entry=program_data --random-inputs=7 --output-dir=%t/sim
// RUN: npu-run %s --entry=program_data --random-inputs=7 --output-dir=%t/jit --mode=jit
// RUN: cmp %t/sim/arg1.npy %t/jit/arg1.npy
// RUN: npu-run %s --entry=program_data --random-inputs=7 --print-outputs | FileCheck %s --check-prefix=DATA
// The outputs are not trivially equal (say, all zero):
// CHECK: arg1 [16, 8] = [{{-?[0-9.]+}}, {{-?[0-9.]+}}

!gi = memref<16x8xi32, #npudev.space<global>>
!vi = memref<16x8xi32, #npudev.space<vector>>
!ri = memref<8xi32, #npudev.space<vector>>

// Integer kernel: each step folds into %acc, which is written out.
func.func @ints(%x: !gi, %out: !gi {npudev.output}) {
  %c3 = arith.constant 3 : i32
  %c5 = arith.constant 5 : i32
  npudev.launch tasks(2) {
    %a = npudev.alloc : !vi
    %acc = npudev.alloc : !vi
    %tmp = npudev.alloc : !vi
    npudev.dma %x, %a : !gi to !vi
    npudev.vbinary_scalar <mul> %a, %c3, %acc : !vi, i32, !vi
    npudev.vbinary <sub> %acc, %a, %tmp : !vi, !vi, !vi
    npudev.vbinary <max> %tmp, %acc, %acc : !vi, !vi, !vi
    npudev.vbinary_scalar <div> %acc, %c5, %tmp : !vi, i32, !vi
    npudev.vbinary <add> %acc, %tmp, %acc : !vi, !vi, !vi
    npudev.vbinary <and> %acc, %a, %tmp : !vi, !vi, !vi
    npudev.vbinary <or> %acc, %tmp, %acc : !vi, !vi, !vi
    npudev.vbinary <min> %acc, %a, %tmp : !vi, !vi, !vi
    npudev.vunary <neg> %tmp, %tmp : !vi, !vi
    npudev.vunary <abs> %tmp, %tmp : !vi, !vi
    npudev.vunary <relu> %tmp, %tmp : !vi, !vi
    npudev.vbinary <add> %acc, %tmp, %acc : !vi, !vi, !vi
    npudev.vcmp_scalar <ge> %a, %c5, %tmp : !vi, i32, !vi
    npudev.vcmp <lt> %a, %acc, %tmp : !vi, !vi, !vi
    npudev.vselect %tmp, %acc, %a, %acc : !vi, !vi, !vi, !vi
    npudev.vcumsum %acc, %acc : !vi, !vi
    %sums = npudev.alloc : memref<16xi32, #npudev.space<vector>>
    npudev.vreduce <max> %acc, %sums : !vi, memref<16xi32, #npudev.space<vector>>
    // Rows gathered by index (x holds values in [0, 16)).
    %idx = npudev.alloc : !ri
    %row = memref.subview %a[0, 0] [1, 8] [1, 1] : !vi to memref<8xi32, strided<[1]>, #npudev.space<vector>>
    npudev.dma %row, %idx : memref<8xi32, strided<[1]>, #npudev.space<vector>> to !ri
    %picked = npudev.alloc : memref<8x8xi32, #npudev.space<vector>>
    npudev.vgather %acc[%idx], %picked : !vi, !ri, memref<8x8xi32, #npudev.space<vector>>
    npudev.vscatter %picked, %tmp[%idx] : memref<8x8xi32, #npudev.space<vector>>, !ri, !vi
    npudev.vbinary <add> %acc, %tmp, %acc : !vi, !vi, !vi
    %flat = npudev.alloc : memref<128xi32, #npudev.space<vector>>
    %acc128 = memref.collapse_shape %acc [[0, 1]] : !vi into memref<128xi32, #npudev.space<vector>>
    npudev.vsort %acc128, %flat : memref<128xi32, #npudev.space<vector>>, memref<128xi32, #npudev.space<vector>>
    %n = npudev.vunique %flat, %flat : memref<128xi32, #npudev.space<vector>>, memref<128xi32, #npudev.space<vector>>
    %t = npudev.alloc : memref<8x16xi32, #npudev.space<vector>>
    npudev.vtranspose %acc, %t : !vi, memref<8x16xi32, #npudev.space<vector>>
    %t8 = npudev.alloc : memref<8x16xi8, #npudev.space<vector>>
    npudev.vcast %t, %t8 : memref<8x16xi32, #npudev.space<vector>>, memref<8x16xi8, #npudev.space<vector>>
    %w = npudev.alloc : memref<8x16xi8, #npudev.space<cube>>
    npudev.dma %t8, %w : memref<8x16xi8, #npudev.space<vector>> to memref<8x16xi8, #npudev.space<cube>>
    %ai8 = npudev.alloc : memref<16x8xi8, #npudev.space<vector>>
    npudev.vcast %a, %ai8 : !vi, memref<16x8xi8, #npudev.space<vector>>
    %prod = npudev.alloc : memref<16x16xi32, #npudev.space<vector>>
    npudev.matmul %ai8, %w, %prod : memref<16x8xi8, #npudev.space<vector>>, memref<8x16xi8, #npudev.space<cube>>, memref<16x16xi32, #npudev.space<vector>>
    // out = matmul (left half) + sorted distinct values + their count.
    %half = memref.subview %prod[0, 0] [16, 8] [1, 1] : memref<16x16xi32, #npudev.space<vector>> to memref<16x8xi32, strided<[16, 1]>, #npudev.space<vector>>
    npudev.dma %half, %acc : memref<16x8xi32, strided<[16, 1]>, #npudev.space<vector>> to !vi
    %sorted = memref.expand_shape %flat [[0, 1]] output_shape [16, 8] : memref<128xi32, #npudev.space<vector>> into !vi
    npudev.vbinary <add> %acc, %sorted, %acc : !vi, !vi, !vi
    %count = arith.index_cast %n : index to i32
    npudev.vbinary_scalar <add> %acc, %count, %acc : !vi, i32, !vi
    npudev.dma %acc, %out : !vi to !gi
  }
  return
}

!gf = memref<16x8xf32, #npudev.space<global>>
!vf = memref<16x8xf32, #npudev.space<vector>>

// Float kernel: transcendental functions, reductions in index order, f16
// storage, a matmul.
func.func @floats(%x: !gf, %out: !gf {npudev.output}, %sums: memref<16xf32, #npudev.space<global>> {npudev.output}) {
  %half = arith.constant 0.5 : f32
  npudev.launch tasks(1) {
    %a = npudev.alloc : !vf
    %b = npudev.alloc : !vf
    npudev.dma %x, %a : !gf to !vf
    npudev.vunary <exp> %a, %b : !vf, !vf
    npudev.vunary <tanh> %b, %b : !vf, !vf
    npudev.vunary <sigmoid> %b, %b : !vf, !vf
    npudev.vunary <abs> %a, %a : !vf, !vf
    npudev.vunary <sqrt> %a, %a : !vf, !vf
    npudev.vunary <rsqrt> %b, %b : !vf, !vf
    npudev.vbinary <div> %b, %a, %a : !vf, !vf, !vf
    npudev.vunary <log> %b, %b : !vf, !vf
    npudev.vbinary_scalar <min> %a, %half, %a : !vf, f32, !vf
    npudev.vunary <recip> %b, %b : !vf, !vf
    npudev.vbinary <mul> %a, %b, %a : !vf, !vf, !vf
    npudev.vcumsum %a, %a : !vf, !vf
    %s = npudev.alloc : memref<16xf32, #npudev.space<vector>>
    npudev.vreduce <sum> %a, %s : !vf, memref<16xf32, #npudev.space<vector>>
    npudev.dma %s, %sums : memref<16xf32, #npudev.space<vector>> to memref<16xf32, #npudev.space<global>>
    %h = npudev.alloc : memref<16x8xf16, #npudev.space<vector>>
    npudev.vcast %a, %h : !vf, memref<16x8xf16, #npudev.space<vector>>
    %w = npudev.alloc : memref<8x8xf16, #npudev.space<cube>>
    %hs = memref.subview %h[0, 0] [8, 8] [1, 1] : memref<16x8xf16, #npudev.space<vector>> to memref<8x8xf16, strided<[8, 1]>, #npudev.space<vector>>
    npudev.dma %hs, %w : memref<8x8xf16, strided<[8, 1]>, #npudev.space<vector>> to memref<8x8xf16, #npudev.space<cube>>
    npudev.matmul %h, %w, %a {accumulate} : memref<16x8xf16, #npudev.space<vector>>, memref<8x8xf16, #npudev.space<cube>>, !vf
    npudev.dma %a, %out : !vf to !gf
  }
  return
}

// The JIT's f32 micro-kernel against the simulator: with N = 51 the
// 512-bit tiles take 32 + 19 columns (rows 8 + 4 + 1), the 256-bit tiles
// 3 x 16 + 3 (rows 6 + 6 + 1), the scalar tiles 6 x 8 + 3 (rows 4 x 3 + 1);
// accumulate both ways.
!ga = memref<13x20xf32, #npudev.space<global>>
!gb = memref<20x51xf32, #npudev.space<global>>
!gc = memref<13x51xf32, #npudev.space<global>>
func.func @matmul_f32(%a: !ga, %b: !gb, %c: !gc {npudev.output}) {
  npudev.launch tasks(1) {
    %va = npudev.alloc : memref<13x20xf32, #npudev.space<vector>>
    %vb = npudev.alloc : memref<20x51xf32, #npudev.space<cube>>
    %vc = npudev.alloc : memref<13x51xf32, #npudev.space<vector>>
    npudev.dma %a, %va : !ga to memref<13x20xf32, #npudev.space<vector>>
    npudev.dma %b, %vb : !gb to memref<20x51xf32, #npudev.space<cube>>
    npudev.matmul %va, %vb, %vc : memref<13x20xf32, #npudev.space<vector>>, memref<20x51xf32, #npudev.space<cube>>, memref<13x51xf32, #npudev.space<vector>>
    npudev.matmul %va, %vb, %vc {accumulate} : memref<13x20xf32, #npudev.space<vector>>, memref<20x51xf32, #npudev.space<cube>>, memref<13x51xf32, #npudev.space<vector>>
    npudev.dma %vc, %c : memref<13x51xf32, #npudev.space<vector>> to !gc
  }
  return
}

// The f16 and bf16 kernels against the simulator: inputs widened while
// packed; K = 300 spans two depth blocks of the packed kernel (256 + 44);
// transposed operands are strided views. The f32 results then feed an f32
// matmul with a transposed A.
!g16 = memref<9x300xf16, #npudev.space<global>>
!gbf = memref<35x300xbf16, #npudev.space<global>>
!gout = memref<35x35xf32, #npudev.space<global>>
func.func @matmul_half(%a: !g16, %b: !gbf, %c: !gout {npudev.output}) {
  npudev.launch tasks(1) {
    %va = npudev.alloc : memref<9x300xf16, #npudev.space<vector>>
    %vb = npudev.alloc : memref<9x300xf16, #npudev.space<cube>>
    npudev.dma %a, %va : !g16 to memref<9x300xf16, #npudev.space<vector>>
    npudev.dma %a, %vb : !g16 to memref<9x300xf16, #npudev.space<cube>>
    %p = npudev.alloc : memref<9x9xf32, #npudev.space<vector>>
    npudev.matmul %va, %vb, %p {transpose_b} : memref<9x300xf16, #npudev.space<vector>>, memref<9x300xf16, #npudev.space<cube>>, memref<9x9xf32, #npudev.space<vector>>
    %wa = npudev.alloc : memref<35x300xbf16, #npudev.space<vector>>
    %wb = npudev.alloc : memref<35x300xbf16, #npudev.space<cube>>
    npudev.dma %b, %wa : !gbf to memref<35x300xbf16, #npudev.space<vector>>
    npudev.dma %b, %wb : !gbf to memref<35x300xbf16, #npudev.space<cube>>
    %q = npudev.alloc : memref<35x35xf32, #npudev.space<vector>>
    npudev.matmul %wa, %wb, %q {transpose_b} : memref<35x300xbf16, #npudev.space<vector>>, memref<35x300xbf16, #npudev.space<cube>>, memref<35x35xf32, #npudev.space<vector>>
    %pc = npudev.alloc : memref<9x35xf32, #npudev.space<cube>>
    %qs = memref.subview %q[0, 0] [9, 35] [1, 1] : memref<35x35xf32, #npudev.space<vector>> to memref<9x35xf32, strided<[35, 1]>, #npudev.space<vector>>
    npudev.dma %qs, %pc : memref<9x35xf32, strided<[35, 1]>, #npudev.space<vector>> to memref<9x35xf32, #npudev.space<cube>>
    %top = memref.subview %q[0, 0] [9, 35] [1, 1] : memref<35x35xf32, #npudev.space<vector>> to memref<9x35xf32, strided<[35, 1]>, #npudev.space<vector>>
    npudev.matmul %p, %pc, %top {accumulate, transpose_a} : memref<9x9xf32, #npudev.space<vector>>, memref<9x35xf32, #npudev.space<cube>>, memref<9x35xf32, strided<[35, 1]>, #npudev.space<vector>>
    npudev.dma %q, %c : memref<35x35xf32, #npudev.space<vector>> to !gout
  }
  return
}

// Control flow, task queries, asynchronous DMA and host-level memref ops.
!gk = memref<4x8xi32, #npudev.space<global>>
!vk = memref<8xi32, #npudev.space<vector>>
!gkrow = memref<8xi32, strided<[1], offset: ?>, #npudev.space<global>>
func.func @control(%x: !gk, %out: !gk {npudev.output}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %three = arith.constant 3 : i32
  %host = memref.alloc() : memref<4x8xi32>
  memref.copy %x, %host : !gk to memref<4x8xi32>
  npudev.launch tasks(4) {
    %t = npudev.task_id
    %n = npudev.task_dim
    %buf = npudev.alloc : !vk
    %row = memref.subview %x[%t, 0] [1, 8] [1, 1] : !gk to !gkrow
    %in = npudev.dma_start %row, %buf : !gkrow to !vk
    npudev.wait %in
    %tmp = npudev.alloc : !vk
    %ni = arith.index_cast %n : index to i32
    npudev.vfill %ni, %tmp : i32, !vk
    npudev.vbinary <add> %buf, %tmp, %buf : !vk, !vk, !vk
    // Count down from the row's first value in steps of 3.
    %first = memref.load %buf[%c0] : !vk
    %last = scf.while (%v = %first) : (i32) -> i32 {
      %more = arith.cmpi sgt, %v, %zero : i32
      scf.condition(%more) %v : i32
    } do {
    ^bb0(%v: i32):
      %next = arith.subi %v, %three : i32
      scf.yield %next : i32
    }
    %ti = arith.index_cast %t : index to i32
    %parity = arith.andi %ti, %one : i32
    %odd = arith.cmpi ne, %parity, %zero : i32
    %picked = scf.if %odd -> (i32) {
      scf.yield %last : i32
    } else {
      scf.yield %first : i32
    }
    memref.store %picked, %buf[%c0] : !vk
    %len = memref.dim %buf, %c0 : !vk
    %leni = arith.index_cast %len : index to i32
    npudev.vbinary_scalar <add> %buf, %leni, %buf : !vk, i32, !vk
    %outRow = memref.subview %out[%t, 0] [1, 8] [1, 1] : !gk to !gkrow
    %done = npudev.dma_start %buf, %outRow : !vk to !gkrow
    npudev.wait_all
  }
  // Host code after the kernel: out[0, 0] = x[1, 1] through a stack slot.
  %slot = memref.alloca() : memref<1xi32>
  %any = memref.cast %slot : memref<1xi32> to memref<?xi32>
  %v = memref.load %host[%c1, %c1] : memref<4x8xi32>
  memref.store %v, %any[%c0] : memref<?xi32>
  %w = memref.load %slot[%c0] : memref<1xi32>
  memref.store %w, %out[%c0, %c0] : !gk
  memref.dealloc %host : memref<4x8xi32>
  return
}

// Double buffering with the next row's copy carried as a loop token: the
// JIT drops the token (its copies complete at once), the simulator
// overlaps the copy with the add.
func.func @carried_token(%x: !gk, %out: !gk {npudev.output}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  npudev.launch tasks(1) {
    %acc = npudev.alloc : !vk
    %row = npudev.alloc : !vk
    %zero = arith.constant 0 : i32
    npudev.vfill %zero, %acc : i32, !vk
    %first = memref.subview %x[%c0, 0] [1, 8] [1, 1] : !gk to !gkrow
    %t0 = npudev.dma_start %first, %row : !gkrow to !vk
    %t = scf.for %i = %c0 to %c4 step %c1 iter_args(%tok = %t0) -> (!npudev.token) {
      npudev.wait %tok
      npudev.vbinary <add> %acc, %row, %acc : !vk, !vk, !vk
      %i1 = arith.addi %i, %c1 : index
      %more = arith.cmpi slt, %i1, %c4 : index
      %next = scf.if %more -> (!npudev.token) {
        %src = memref.subview %x[%i1, 0] [1, 8] [1, 1] : !gk to !gkrow
        %n = npudev.dma_start %src, %row : !gkrow to !vk
        scf.yield %n : !npudev.token
      } else {
        %dst = memref.subview %out[%c0, 0] [1, 8] [1, 1] : !gk to !gkrow
        %n = npudev.dma_start %acc, %dst : !vk to !gkrow
        scf.yield %n : !npudev.token
      }
      scf.yield %next : !npudev.token
    }
    npudev.wait %t
  }
  return
}

// Program data: a constant global (a large npu.constant's table) read by
// get_global and added to the input in a kernel.
// DATA: arg1 [8] = [{{-?[0-9]+}}, {{-?[0-9]+}}
memref.global "private" constant @table : memref<8xi32, #npudev.space<global>> = dense<[3, -1, 4, -1, 5, -9, 2, 6]>
func.func @program_data(%x: memref<8xi32, #npudev.space<global>>, %out: memref<8xi32, #npudev.space<global>> {npudev.output}) {
  %t = memref.get_global @table : memref<8xi32, #npudev.space<global>>
  npudev.launch tasks(1) {
    %a = npudev.alloc : memref<8xi32, #npudev.space<vector>>
    %b = npudev.alloc : memref<8xi32, #npudev.space<vector>>
    npudev.dma %x, %a : memref<8xi32, #npudev.space<global>> to memref<8xi32, #npudev.space<vector>>
    npudev.dma %t, %b : memref<8xi32, #npudev.space<global>> to memref<8xi32, #npudev.space<vector>>
    npudev.vbinary <add> %a, %b, %a : memref<8xi32, #npudev.space<vector>>, memref<8xi32, #npudev.space<vector>>, memref<8xi32, #npudev.space<vector>>
    npudev.dma %a, %out : memref<8xi32, #npudev.space<vector>> to memref<8xi32, #npudev.space<global>>
  }
  return
}
