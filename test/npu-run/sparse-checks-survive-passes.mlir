// The sparse formats check survives the passes a user may run after it:
// npu-sparse-check-formats, canonicalize and CSE, the whole sparse
// lowering, canonicalize and CSE again, and random data (which breaks
// indptr[0]) still fails in the simulator, the JIT and the checked JIT.
// npudev.report_rows writes the kernel's status (its declared effect); an
// op that only read would be dead to upstream MLIR and the check would
// vanish. test/npu-run/sparse-conv-rows.mlir does the same for sparse
// convolution's site checks.
// RUN: npu-opt %s --npu-sparse-check-formats --canonicalize --cse --npu-sparse-to-device --npu-sparse-lower-iterations --npu-sparse-tile-dense-axis --npu-sparse-stage-runs --npu-sparse-lower-buffers --canonicalize --cse -o %t.sparse.mlir
// RUN: not npu-run %t.sparse.mlir --entry=row_sums --random-inputs=0 2>&1 | FileCheck %s --check-prefix=SPARSE
// RUN: not npu-run %t.sparse.mlir --entry=row_sums --random-inputs=0 --mode=jit 2>&1 | FileCheck %s --check-prefix=SPARSE
// RUN: not npu-run %t.sparse.mlir --entry=row_sums --random-inputs=0 --mode=jit --checked 2>&1 | FileCheck %s --check-prefix=SPARSE
// SPARSE: sparse.axis #1 (sparse_variable): indptr[0] is not 0

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

