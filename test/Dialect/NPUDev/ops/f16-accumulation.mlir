// f16 and bf16 reductions and prefix sums accumulate in f32 and round once
// (getAccumulatorType), in both executors: 4096 ones sum to 4096, where an
// f16 accumulator would stall at 2048 (2048 + 1 rounds back to 2048).
// ParityTest also compares the two executors' bytes.
// RUN: npu-opt %s --split-input-file --verify-diagnostics | FileCheck %s
// RUN: sed -n '1,/^\/\/ -----/p' %s | npu-run - --random-inputs=0 --print-outputs | FileCheck %s --check-prefix=EXEC
// RUN: sed -n '1,/^\/\/ -----/p' %s | npu-run - --random-inputs=0 --print-outputs --mode=jit | FileCheck %s --check-prefix=EXEC

// EXEC: arg0 [1] = [4096]
// EXEC-NEXT: arg1 [2] = [3000, 4096]
// EXEC-NEXT: arg2 [1] = [4096]
// CHECK-LABEL: func.func @sums_of_ones
// CHECK: npudev.vreduce <sum>
// CHECK: npudev.vcumsum
#v = #npudev.space<vector>
#g = #npudev.space<global>
func.func @sums_of_ones(%sum: memref<1xf16, #g> {npudev.output},
                        %prefix: memref<2xf16, #g> {npudev.output},
                        %bsum: memref<1xbf16, #g> {npudev.output}) {
  %one = arith.constant 1.0 : f16
  %bone = arith.constant 1.0 : bf16
  npudev.launch tasks(1) {
    %x = npudev.alloc : memref<4096xf16, #v>
    npudev.vfill %one, %x : f16, memref<4096xf16, #v>
    %s = npudev.alloc : memref<1xf16, #v>
    npudev.vreduce <sum> %x, %s : memref<4096xf16, #v>, memref<1xf16, #v>
    npudev.dma %s, %sum : memref<1xf16, #v> to memref<1xf16, #g>
    %p = npudev.alloc : memref<4096xf16, #v>
    npudev.vcumsum %x, %p : memref<4096xf16, #v>, memref<4096xf16, #v>
    %at3000 = memref.subview %p[2999] [1] [1] : memref<4096xf16, #v> to memref<1xf16, strided<[1], offset: 2999>, #v>
    %last = memref.subview %p[4095] [1] [1] : memref<4096xf16, #v> to memref<1xf16, strided<[1], offset: 4095>, #v>
    %p0 = memref.subview %prefix[0] [1] [1] : memref<2xf16, #g> to memref<1xf16, strided<[1]>, #g>
    %p1 = memref.subview %prefix[1] [1] [1] : memref<2xf16, #g> to memref<1xf16, strided<[1], offset: 1>, #g>
    npudev.dma %at3000, %p0 : memref<1xf16, strided<[1], offset: 2999>, #v> to memref<1xf16, strided<[1]>, #g>
    npudev.dma %last, %p1 : memref<1xf16, strided<[1], offset: 4095>, #v> to memref<1xf16, strided<[1], offset: 1>, #g>
    %y = npudev.alloc : memref<4096xbf16, #v>
    npudev.vfill %bone, %y : bf16, memref<4096xbf16, #v>
    %t = npudev.alloc : memref<1xbf16, #v>
    npudev.vreduce <sum> %y, %t : memref<4096xbf16, #v>, memref<1xbf16, #v>
    npudev.dma %t, %bsum : memref<1xbf16, #v> to memref<1xbf16, #g>
  }
  return
}
