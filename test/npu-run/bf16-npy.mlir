// bfloat16 has no .npy dtype: npu-run reads a bf16 argument from a float32
// .npy, rounding to nearest even, and writes bf16 outputs as float32
// (exactly). Input [1, 1 + 2^-8, 3, -2.5]: 1 + 2^-8 is half a bf16 ulp
// above 1, so it rounds (to even) to 1; doubled: [2, 2, 6, -5].
// RUN: rm -rf %t && npu-run %s --input=%S/Inputs/bf16-in.npy --random-inputs=0 --print-outputs --output-dir=%t | FileCheck %s
// RUN: npu-run %s --input=%S/Inputs/bf16-in.npy --random-inputs=0 --print-outputs --mode=jit | FileCheck %s
// RUN: head -c 64 %t/arg1.npy | FileCheck %s --check-prefix=HEADER
// And the float32 file written reads back as the same bf16 values.
// RUN: npu-run %s --input=%t/arg1.npy --random-inputs=0 --print-outputs | FileCheck %s --check-prefix=AGAIN
// CHECK: arg1 [4] = [2, 2, 6, -5]
// HEADER: 'descr': '<f4'
// AGAIN: arg1 [4] = [4, 4, 12, -10]
func.func @double(%x: memref<4xbf16, #npudev.space<global>>,
                  %y: memref<4xbf16, #npudev.space<global>> {npudev.output}) {
  %two = arith.constant 2.0 : bf16
  npudev.launch tasks(1) {
    %b = npudev.alloc : memref<4xbf16, #npudev.space<vector>>
    npudev.dma %x, %b : memref<4xbf16, #npudev.space<global>> to memref<4xbf16, #npudev.space<vector>>
    npudev.vbinary_scalar <mul> %b, %two, %b : memref<4xbf16, #npudev.space<vector>>, bf16, memref<4xbf16, #npudev.space<vector>>
    npudev.dma %b, %y : memref<4xbf16, #npudev.space<vector>> to memref<4xbf16, #npudev.space<global>>
  }
  return
}
