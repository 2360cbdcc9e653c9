// The checked JIT stops where the simulator does: a CSR row sum lowered
// for the host (no launches), indptr ending at 2^31 - 1 for 4 indices. The
// position loop's bound comes from the bad data; the first read past
// indices fails, and the loop leaves (it used to run out its 2^31 skipped
// iterations: 13 s here, minutes for a few such rows). `timeout` turns a
// regression into a missing message.
// RUN: npu-opt %s --npu-sparse-lower-iterations --npu-sparse-lower-buffers -o %t.mlir
// RUN: not npu-run %t.mlir --input=%S/Inputs/indptr-2p31.npy,%S/Inputs/i32-0123.npy --random-inputs=1 2>&1 | FileCheck %s
// RUN: not timeout 60 npu-run %t.mlir --input=%S/Inputs/indptr-2p31.npy,%S/Inputs/i32-0123.npy --random-inputs=1 --mode=jit --checked 2>&1 | FileCheck %s
// CHECK: 'memref.load' op index 4 is out of bounds for dimension 0 of size 4

func.func @row_sums(%indptr: memref<4xi32>, %indices: memref<4xi32>, %a: memref<4xf32>, %c: memref<3xf32>) {
  %i = sparse.axis dense_fixed length 3
  %j = sparse.axis sparse_variable parent %i length 4 indptr %indptr : memref<4xi32> indices %indices : memref<4xi32> sorted
  %A = sparse.buffer %a [%i, %j] : memref<4xf32> -> !sparse.buffer<2 x f32>
  %C = sparse.buffer %c [%i] : memref<3xf32> -> !sparse.buffer<1 x f32>
  sparse.iteration [%i, %j] [#sparse.iterator<spatial>, #sparse.iterator<reduction>] init {
  ^bb0(%vi: index):
    %zero = arith.constant 0.0 : f32
    sparse.store %zero, %C[%vi] : !sparse.buffer<1 x f32>
  } do {
  ^bb0(%vi: index, %vj: index):
    %x = sparse.load %A[%vi, %vj] : !sparse.buffer<2 x f32>
    %acc = sparse.load %C[%vi] : !sparse.buffer<1 x f32>
    %s = arith.addf %acc, %x : f32
    sparse.store %s, %C[%vi] : !sparse.buffer<1 x f32>
  }
  return
}
