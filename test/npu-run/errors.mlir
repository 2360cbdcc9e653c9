// The simulator stops at the first bad access and names the op, the index
// and the bound; bad command lines and data get a clear message.
// RUN: not npu-run %s --entry=oob_subview --random-inputs=0 2>&1 | FileCheck %s --check-prefix=SUBVIEW
// RUN: not npu-run %s --entry=oob_load --random-inputs=0 2>&1 | FileCheck %s --check-prefix=LOAD
// RUN: not npu-run %s --entry=oob_gather --random-inputs=0 2>&1 | FileCheck %s --check-prefix=GATHER
// RUN: not npu-run %s --entry=oob_dma_scatter --random-inputs=0 2>&1 | FileCheck %s --check-prefix=DMA-SCATTER
// RUN: not npu-run %s --entry=divide_by_zero --random-inputs=0 2>&1 | FileCheck %s --check-prefix=DIV
// RUN: not npu-run %s --entry=shift_too_far --random-inputs=0 2>&1 | FileCheck %s --check-prefix=SHIFT
// RUN: not npu-run %s --entry=rem_overflow --random-inputs=0 2>&1 | FileCheck %s --check-prefix=REM
// RUN: not npu-run %s --entry=on_chip_overflow --device=%S/Inputs/tiny-device.json --random-inputs=0 2>&1 | FileCheck %s --check-prefix=OVERFLOW
// RUN: npu-run %s --entry=on_chip_overflow --random-inputs=0
// RUN: not npu-run %s --entry=unwritten_load --random-inputs=0 2>&1 | FileCheck %s --check-prefix=UNWRITTEN-LOAD
// RUN: not npu-run %s --entry=unwritten_tail --random-inputs=0 2>&1 | FileCheck %s --check-prefix=UNWRITTEN-TAIL
// RUN: not npu-run %s --entry=oob_load 2>&1 | FileCheck %s --check-prefix=NODATA
// RUN: not npu-run %s --entry=oob_load --device=tpu 2>&1 | FileCheck %s --check-prefix=DEVICE
// RUN: not npu-run %s --entry=oob_load --device=%S/Inputs/bad-device.json 2>&1 | FileCheck %s --check-prefix=BAD-DEVICE
// RUN: not npu-run %s --entry=missing 2>&1 | FileCheck %s --check-prefix=ENTRY
// A .npy of the wrong shape:
// RUN: rm -rf %t && npu-run %s --entry=on_chip_overflow --random-inputs=0 --output-dir=%t
// RUN: not npu-run %s --entry=wants_32 --input=%t/arg0.npy 2>&1 | FileCheck %s --check-prefix=SHAPE

!g = memref<64xf32, #npudev.space<global>>
!win = memref<16xf32, strided<[1], offset: ?>, #npudev.space<global>>
!v16 = memref<16xf32, #npudev.space<vector>>

// SUBVIEW: errors.mlir:[[@LINE+7]]:{{[0-9]+}}: error: 'memref.subview' op window of 16 elements at offset 56 with stride 1 exceeds dimension 0 of size 64
func.func @oob_subview(%x: !g) {
  %c14 = arith.constant 14 : index
  npudev.launch tasks(5) {
    %t = npudev.task_id
    // Task 4 reads [56, 72).
    %off = arith.muli %t, %c14 : index
    %w = memref.subview %x[%off] [16] [1] : !g to !win
    %b = npudev.alloc : !v16
    npudev.dma %w, %b : !win to !v16
  }
  return
}

// LOAD: errors.mlir:[[@LINE+4]]:{{[0-9]+}}: error: 'memref.load' op index 64 is out of bounds for dimension 0 of size 64
func.func @oob_load(%x: !g) {
  %c64 = arith.constant 64 : index
  npudev.launch tasks(1) {
    %v = memref.load %x[%c64] : !g
  }
  return
}

// GATHER: error: 'npudev.vgather' op index 16 at position 0 is out of range [0, 16)
func.func @oob_gather(%x: !g) {
  %c16 = arith.constant 16 : i32
  npudev.launch tasks(1) {
    %src = npudev.alloc : memref<16x4xf32, #npudev.space<vector>>
    %idx = npudev.alloc : memref<2xi32, #npudev.space<vector>>
    %out = npudev.alloc : memref<2x4xf32, #npudev.space<vector>>
    npudev.vfill %c16, %idx : i32, memref<2xi32, #npudev.space<vector>>
    npudev.vgather %src[%idx], %out : memref<16x4xf32, #npudev.space<vector>>, memref<2xi32, #npudev.space<vector>>, memref<2x4xf32, #npudev.space<vector>>
  }
  return
}

// A pair table's -1 is skipped; 64 is past the 64 rows.
// DMA-SCATTER: error: 'npudev.dma_scatter' op index 64 at position 1 is out of range [0, 64)
func.func @oob_dma_scatter(%x: !g) {
  %c64 = arith.constant 64 : i32
  %m1 = arith.constant -1 : i32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = memref.expand_shape %x [[0, 1]] output_shape [64, 1] : !g into memref<64x1xf32, #npudev.space<global>>
  npudev.launch tasks(1) {
    %src = npudev.alloc : memref<2x1xf32, #npudev.space<vector>>
    %one = arith.constant 1.0 : f32
    npudev.vfill %one, %src : f32, memref<2x1xf32, #npudev.space<vector>>
    %idx = npudev.alloc : memref<2xi32, #npudev.space<vector>>
    memref.store %m1, %idx[%c0] : memref<2xi32, #npudev.space<vector>>
    memref.store %c64, %idx[%c1] : memref<2xi32, #npudev.space<vector>>
    npudev.dma_scatter %src, %rows[%idx] {add} : memref<2x1xf32, #npudev.space<vector>>, memref<2xi32, #npudev.space<vector>>, memref<64x1xf32, #npudev.space<global>>
  }
  return
}

// DIV: error: 'npudev.vbinary' op divides by zero
func.func @divide_by_zero(%x: !g) {
  %zero = arith.constant 0 : i32
  npudev.launch tasks(1) {
    %a = npudev.alloc : memref<4xi32, #npudev.space<vector>>
    npudev.vfill %zero, %a : i32, memref<4xi32, #npudev.space<vector>>
    npudev.vbinary <div> %a, %a, %a : memref<4xi32, #npudev.space<vector>>, memref<4xi32, #npudev.space<vector>>, memref<4xi32, #npudev.space<vector>>
  }
  return
}

// Vector integer ops share arith's semantics (lib/Simulator/
// IntegerSemantics.cpp): where LLVM gives poison, the simulator an error.
// SHIFT: error: 'npudev.vbinary_scalar' op shifts by at least the bit width
func.func @shift_too_far(%x: !g) {
  %c32 = arith.constant 32 : i32
  npudev.launch tasks(1) {
    %a = npudev.alloc : memref<4xi32, #npudev.space<vector>>
    npudev.vfill %c32, %a : i32, memref<4xi32, #npudev.space<vector>>
    npudev.vbinary_scalar <shl> %a, %c32, %a : memref<4xi32, #npudev.space<vector>>, i32, memref<4xi32, #npudev.space<vector>>
  }
  return
}

// REM: error: 'npudev.vbinary_scalar' op divides the most negative integer by -1, which overflows
func.func @rem_overflow(%x: !g) {
  %min = arith.constant -2147483648 : i32
  %cm1 = arith.constant -1 : i32
  npudev.launch tasks(1) {
    %a = npudev.alloc : memref<4xi32, #npudev.space<vector>>
    npudev.vfill %min, %a : i32, memref<4xi32, #npudev.space<vector>>
    npudev.vbinary_scalar <rem> %a, %cm1, %a : memref<4xi32, #npudev.space<vector>>, i32, memref<4xi32, #npudev.space<vector>>
  }
  return
}

// The kernel fits the mlu590 it was compiled for, not a 1 KiB device.
// OVERFLOW: errors.mlir:[[@LINE+2]]:{{[0-9]+}}: error: 'npudev.launch' op needs 1088 bytes of vector memory at once, but device 'tiny' has 1024
func.func @on_chip_overflow(%x: !g) {
  npudev.launch tasks(2) {
    %a = npudev.alloc : memref<256xf32, #npudev.space<vector>>
    %b = npudev.alloc : !v16
  }
  return
}

// Memory the kernel never wrote is undefined in the JIT: reading it is an
// error naming the op, the buffer and the element.
// UNWRITTEN-LOAD: errors.mlir:[[@LINE+6]]:{{[0-9]+}}: error: 'memref.load' op reads element [2, 3] of the buffer of 'npudev.alloc' at {{.*}}errors.mlir:[[@LINE+5]]:{{[0-9]+}}, which was never written
func.func @unwritten_load(%x: !g) {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  npudev.launch tasks(1) {
    %a = npudev.alloc : memref<4x4xf32, #npudev.space<vector>>
    %v = memref.load %a[%c2, %c3] : memref<4x4xf32, #npudev.space<vector>>
  }
  return
}

// vunique writes only the distinct values; the tail keeps its state.
// UNWRITTEN-TAIL: errors.mlir:[[@LINE+8]]:{{[0-9]+}}: error: 'npudev.vbinary' op reads element [1] of the buffer of 'npudev.alloc' at {{.*}}errors.mlir:[[@LINE+6]]:{{[0-9]+}}, which was never written
func.func @unwritten_tail(%x: !g) {
  %seven = arith.constant 7 : i32
  npudev.launch tasks(1) {
    %in = npudev.alloc : memref<8xi32, #npudev.space<vector>>
    npudev.vfill %seven, %in : i32, memref<8xi32, #npudev.space<vector>>
    %distinct = npudev.alloc : memref<8xi32, #npudev.space<vector>>
    %n = npudev.vunique %in, %distinct : memref<8xi32, #npudev.space<vector>>, memref<8xi32, #npudev.space<vector>>
    npudev.vbinary <add> %distinct, %in, %in : memref<8xi32, #npudev.space<vector>>, memref<8xi32, #npudev.space<vector>>, memref<8xi32, #npudev.space<vector>>
  }
  return
}

// A DMA that consumes its source ends the values there: reading them again
// is an error (the kernel broke its promise), writing them first is not.
// RUN: not npu-run %s --entry=consumed_then_read --random-inputs=0 2>&1 | FileCheck %s --check-prefix=CONSUMED
// RUN: npu-run %s --entry=consumed_then_rewritten --random-inputs=0
// CONSUMED: errors.mlir:[[@LINE+9]]:{{[0-9]+}}: error: 'npudev.vunary' op reads element [0] of the buffer of 'npudev.alloc' at {{.*}}errors.mlir:[[@LINE+4]]:{{[0-9]+}}, which was never written (or not since a DMA consumed it)
func.func @consumed_then_read(%x: !g) {
  %one = arith.constant 1.0 : f32
  npudev.launch tasks(1) {
    %a = npudev.alloc : !v16
    %w = memref.subview %x[0] [16] [1] : !g to memref<16xf32, strided<[1]>, #npudev.space<global>>
    npudev.vfill %one, %a : f32, !v16
    %t = npudev.dma_start %a, %w {consumes_source} : !v16 to memref<16xf32, strided<[1]>, #npudev.space<global>>
    npudev.wait %t
    npudev.vunary <abs> %a, %a : !v16, !v16
  }
  return
}

func.func @consumed_then_rewritten(%x: !g) {
  %one = arith.constant 1.0 : f32
  npudev.launch tasks(1) {
    %a = npudev.alloc : !v16
    %w = memref.subview %x[0] [16] [1] : !g to memref<16xf32, strided<[1]>, #npudev.space<global>>
    npudev.vfill %one, %a : f32, !v16
    %t = npudev.dma_start %a, %w {consumes_source} : !v16 to memref<16xf32, strided<[1]>, #npudev.space<global>>
    npudev.wait %t
    npudev.vfill %one, %a : f32, !v16
    npudev.vunary <abs> %a, %a : !v16, !v16
  }
  return
}

func.func @wants_32(%x: memref<32xf32, #npudev.space<global>>) {
  return
}

// NODATA: npu-run: argument #0 of 'oob_load' has no data: give it with --input, or use --random-inputs
// DEVICE: npu-run: unknown device preset 'tpu' (known: mlu590, ascend910b, host)
// BAD-DEVICE: npu-run: device description '{{.*}}bad-device.json': clusters x (cores_per_cluster + cube_cores_per_cluster) is 4294967296 cores, more than 65536
// ENTRY: npu-run: no function named 'missing'
// SHAPE: error: argument #0 has shape [64] but the function takes 'memref<32xf32, #npudev.space<global>>'

// Program data is a constant global with its value; a mutable one is not
// modelled. (RUN lines here keep the line numbers checked-jit.mlir names.)
// RUN: not npu-run %s --entry=mutable_global --random-inputs=0 2>&1 | FileCheck %s --check-prefix=GLOBAL
memref.global "private" @state : memref<4xf32, #npudev.space<global>> = dense<0.0>
// GLOBAL: errors.mlir:[[@LINE+2]]:{{[0-9]+}}: error: 'memref.get_global' op reads global 'state', which is not a constant with a dense initial value
func.func @mutable_global(%x: memref<4xf32, #npudev.space<global>>) {
  %g = memref.get_global @state : memref<4xf32, #npudev.space<global>>
  return
}
