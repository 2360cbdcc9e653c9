// Both executors check each argument against the kernel's signature before
// running, with the same messages (issue #13: the JIT overran a 4-element
// array given for memref<64xf32>, crashed on an empty one and misread i32
// data as f32, exit 0).
// RUN: not npu-run %s --input=%S/Inputs/f32-4.npy --random-inputs=0 2>&1 | FileCheck %s --check-prefix=SHORT
// RUN: not npu-run %s --input=%S/Inputs/f32-4.npy --random-inputs=0 --mode=jit 2>&1 | FileCheck %s --check-prefix=SHORT
// RUN: not npu-run %s --input=%S/Inputs/f32-0.npy --random-inputs=0 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: not npu-run %s --input=%S/Inputs/f32-0.npy --random-inputs=0 --mode=jit 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: not npu-run %s --input=%S/Inputs/i32-64.npy --random-inputs=0 2>&1 | FileCheck %s --check-prefix=KIND
// RUN: not npu-run %s --input=%S/Inputs/i32-64.npy --random-inputs=0 --mode=jit 2>&1 | FileCheck %s --check-prefix=KIND
// SHORT: error: {{(cannot run 'double': )?}}argument #0 has shape [4] but the function takes 'memref<64xf32, #npudev.space<global>>'
// EMPTY: error: {{(cannot run 'double': )?}}argument #0 has shape [0] but the function takes 'memref<64xf32, #npudev.space<global>>'
// KIND: error: {{(cannot run 'double': )?}}argument #0 has element type 'f32' but the data is 'i32'

// An --input with no argument to take it was once ignored.
// RUN: not npu-run %s --input=%S/Inputs/f32-4.npy --input=%S/Inputs/f32-4.npy 2>&1 | FileCheck %s --check-prefix=EXTRA
// EXTRA: npu-run: 2 --input files for 'double', which takes 1 argument

// A dynamic dimension takes any length, 0 included: the result is empty.
// RUN: npu-run %s --entry=double_any --input=%S/Inputs/f32-0.npy --random-inputs=0 --print-outputs | FileCheck %s --check-prefix=ANY
// RUN: npu-run %s --entry=double_any --input=%S/Inputs/f32-0.npy --random-inputs=0 --print-outputs --mode=jit | FileCheck %s --check-prefix=ANY
// RUN: npu-run %s --entry=double_any --input=%S/Inputs/f32-4.npy --random-inputs=0 --print-outputs --mode=jit | FileCheck %s --check-prefix=FOUR
// ANY: arg0 [0] = []
// FOUR: arg0 [4] = [2, 4, 6, 8]

func.func @double(%x: memref<64xf32, #npudev.space<global>>) {
  npudev.launch tasks(1) {
    %b = npudev.alloc : memref<64xf32, #npudev.space<vector>>
    npudev.dma %x, %b : memref<64xf32, #npudev.space<global>> to memref<64xf32, #npudev.space<vector>>
    npudev.vbinary <add> %b, %b, %b : memref<64xf32, #npudev.space<vector>>, memref<64xf32, #npudev.space<vector>>, memref<64xf32, #npudev.space<vector>>
    npudev.dma %b, %x : memref<64xf32, #npudev.space<vector>> to memref<64xf32, #npudev.space<global>>
    npudev.end
  }
  return
}

func.func @double_any(%x: memref<?xf32, #npudev.space<global>> {npudev.output}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf32, #npudev.space<global>>
  npudev.launch tasks(1) {
    scf.for %i = %c0 to %n step %c1 {
      %v = memref.load %x[%i] : memref<?xf32, #npudev.space<global>>
      %d = arith.addf %v, %v : f32
      memref.store %d, %x[%i] : memref<?xf32, #npudev.space<global>>
    }
    npudev.end
  }
  return
}
