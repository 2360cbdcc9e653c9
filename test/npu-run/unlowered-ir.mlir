// Both executors refuse what neither can run, with one message: ops
// outside kernel IR, here the sparse dialect before its lowering. The JIT
// used to fail in LLVM translation ("builtin.unrealized_conversion_cast")
// on an iteration and to run a lone sparse.axis with exit 0, where the
// simulator refused it.
// RUN: not npu-run %s --entry=row_sums --random-inputs=1 2>&1 | FileCheck %s
// RUN: not npu-run %s --entry=row_sums --random-inputs=1 --mode=jit 2>&1 | FileCheck %s
// RUN: not npu-run %s --entry=copy --random-inputs=1 2>&1 | FileCheck %s
// RUN: not npu-run %s --entry=copy --random-inputs=1 --mode=jit 2>&1 | FileCheck %s
// CHECK: unlowered-ir.mlir:[[# @LINE + 7]]:8: error: 'sparse.axis' op is not kernel IR: both executors run npudev, arith, math, scf, memref and func ops; lower the sparse dialect first
// CHECK-NOT: error

// @copy is kernel IR, but the module is not: the JIT compiles all of it,
// so the simulator checks all of it too.

func.func @row_sums(%indptr: memref<4xi32>, %indices: memref<4xi32>, %a: memref<4xf32>, %c: memref<3xf32>) {
  %i = sparse.axis dense_fixed length 3
  %j = sparse.axis sparse_variable parent %i length 4 indptr %indptr : memref<4xi32> indices %indices : memref<4xi32> sorted
  %A = sparse.buffer %a [%i, %j] : memref<4xf32> -> !sparse.buffer<2 x f32>
  %C = sparse.buffer %c [%i] : memref<3xf32> -> !sparse.buffer<1 x f32>
  sparse.iteration [%i, %j] [#sparse.iterator<spatial>, #sparse.iterator<reduction>] do {
  ^bb0(%vi: index, %vj: index):
    %x = sparse.load %A[%vi, %vj] : !sparse.buffer<2 x f32>
    sparse.store %x, %C[%vi] : !sparse.buffer<1 x f32>
  }
  return
}

func.func @copy(%x: memref<4xf32, #npudev.space<global>>, %y: memref<4xf32, #npudev.space<global>> {npudev.output}) {
  npudev.launch tasks(1) {
    %a = npudev.alloc : memref<4xf32, #npudev.space<vector>>
    npudev.dma %x, %a : memref<4xf32, #npudev.space<global>> to memref<4xf32, #npudev.space<vector>>
    npudev.dma %a, %y : memref<4xf32, #npudev.space<vector>> to memref<4xf32, #npudev.space<global>>
  }
  return
}
