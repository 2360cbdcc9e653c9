// Arithmetic from input that overflows is an error naming the op, never a
// crash or a wrapped answer (issue #13).
// RUN: not npu-run %s --entry=huge_stride --random-inputs=1 2>&1 | FileCheck %s --check-prefix=STRIDE
// RUN: not npu-run %s --entry=ceildivsi --random-inputs=0 2>&1 | FileCheck %s --check-prefix=DIV
// RUN: not npu-run %s --entry=floordivsi --random-inputs=0 2>&1 | FileCheck %s --check-prefix=DIV
// RUN: not npu-run %s --entry=divsi --random-inputs=0 2>&1 | FileCheck %s --check-prefix=DIV
// RUN: not npu-run %s --entry=remsi --random-inputs=0 2>&1 | FileCheck %s --check-prefix=DIV
// RUN: not npu-run %s --entry=huge_argument --random-inputs=1 2>&1 | FileCheck %s --check-prefix=HUGE
// RUN: not npu-run %s --entry=wrapping_argument --random-inputs=1 --mode=jit 2>&1 | FileCheck %s --check-prefix=WRAP
// HUGE: npu-run: argument #0 ('memref<1099511627776xf32, #npudev.space<global>>') needs 4398046511104 bytes, more than the global memory of device 'mlu590' (51539607552 bytes)
// WRAP: npu-run: argument #0 ('memref<4611686018427387904xf32, #npudev.space<global>>') needs more bytes than fit in 64 bits, more than the global memory of device 'mlu590' (51539607552 bytes)
// STRIDE: error: 'memref.subview' op window of 2 elements at offset 0 with stride 4611686018427387905 exceeds dimension 0 of size 16
// DIV: error: 'arith.{{(ceildivsi|floordivsi|divsi|remsi)}}' op divides the most negative integer by -1, which overflows

// 4611686018427387905 * 4 bytes wraps to 4 mod 2^64: the element at index
// 1 once read x[1], exit 0.
func.func @huge_stride(%x: memref<16xf32, #npudev.space<global>>, %y: memref<2xf32, #npudev.space<global>> {npudev.output}) {
  npudev.launch tasks(1) {
    %s = memref.subview %x[0] [2] [4611686018427387905] : memref<16xf32, #npudev.space<global>> to memref<2xf32, strided<[4611686018427387905]>, #npudev.space<global>>
    %b = npudev.alloc : memref<2xf32, #npudev.space<vector>>
    npudev.dma %s, %b : memref<2xf32, strided<[4611686018427387905]>, #npudev.space<global>> to memref<2xf32, #npudev.space<vector>>
    npudev.dma %b, %y : memref<2xf32, #npudev.space<vector>> to memref<2xf32, #npudev.space<global>>
    npudev.end
  }
  return
}

// INT64_MIN / -1 once killed the simulator with SIGFPE (ceildivsi,
// floordivsi).
func.func @ceildivsi(%y: memref<1xi64, #npudev.space<global>> {npudev.output}) {
  %a = arith.constant -9223372036854775808 : i64
  %b = arith.constant -1 : i64
  %c0 = arith.constant 0 : index
  npudev.launch tasks(1) {
    %q = arith.ceildivsi %a, %b : i64
    memref.store %q, %y[%c0] : memref<1xi64, #npudev.space<global>>
    npudev.end
  }
  return
}

func.func @floordivsi(%y: memref<1xi64, #npudev.space<global>> {npudev.output}) {
  %a = arith.constant -9223372036854775808 : i64
  %b = arith.constant -1 : i64
  %c0 = arith.constant 0 : index
  npudev.launch tasks(1) {
    %q = arith.floordivsi %a, %b : i64
    memref.store %q, %y[%c0] : memref<1xi64, #npudev.space<global>>
    npudev.end
  }
  return
}

func.func @divsi(%y: memref<1xi64, #npudev.space<global>> {npudev.output}) {
  %a = arith.constant -9223372036854775808 : i64
  %b = arith.constant -1 : i64
  %c0 = arith.constant 0 : index
  npudev.launch tasks(1) {
    %q = arith.divsi %a, %b : i64
    memref.store %q, %y[%c0] : memref<1xi64, #npudev.space<global>>
    npudev.end
  }
  return
}

func.func @remsi(%y: memref<1xi64, #npudev.space<global>> {npudev.output}) {
  %a = arith.constant -9223372036854775808 : i64
  %b = arith.constant -1 : i64
  %c0 = arith.constant 0 : index
  npudev.launch tasks(1) {
    %q = arith.remsi %a, %b : i64
    memref.store %q, %y[%c0] : memref<1xi64, #npudev.space<global>>
    npudev.end
  }
  return
}

// Random data for these once ended in std::length_error or "LLVM ERROR:
// out of memory".
func.func @huge_argument(%x: memref<1099511627776xf32, #npudev.space<global>>) {
  return
}

func.func @wrapping_argument(%x: memref<4611686018427387904xf32, #npudev.space<global>>) {
  return
}
