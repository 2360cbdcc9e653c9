// npudev.iota: every test of one op in one file. The RUN line checks the
// verifier's diagnostics and the printed form; ParityTest (test/unittests)
// runs each function of the chunks without expected errors in the simulator
// and the JIT and compares the bytes.
// RUN: npu-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// Row numbers along dimension 0 and column numbers along dimension 1, from
// a task-dependent start, as integers and as floats.
// CHECK-LABEL: func.func @iota
// CHECK: npudev.iota %{{.*}}, %{{.*}} : memref<4x8xi32, #npudev.space<vector>>
// CHECK: npudev.iota %{{.*}}, %{{.*}} {dimension = 1 : i64} : memref<4x8xf32, #npudev.space<vector>>
!gi = memref<2x4x8xi32, #npudev.space<global>>
!gf = memref<2x4x8xf32, #npudev.space<global>>
func.func @iota(%x: !gi, %rows: !gi {npudev.output}, %cols: !gf {npudev.output}) {
  %c3 = arith.constant 3 : index
  npudev.launch tasks(2) {
    %t = npudev.task_id
    %start = arith.muli %t, %c3 : index
    %r = npudev.alloc : memref<4x8xi32, #npudev.space<vector>>
    npudev.iota %start, %r : memref<4x8xi32, #npudev.space<vector>>
    %c = npudev.alloc : memref<4x8xf32, #npudev.space<vector>>
    npudev.iota %start, %c {dimension = 1} : memref<4x8xf32, #npudev.space<vector>>
    %outRows = memref.subview %rows[%t, 0, 0] [1, 4, 8] [1, 1, 1] : !gi to memref<4x8xi32, strided<[8, 1], offset: ?>, #npudev.space<global>>
    npudev.dma %r, %outRows : memref<4x8xi32, #npudev.space<vector>> to memref<4x8xi32, strided<[8, 1], offset: ?>, #npudev.space<global>>
    %outCols = memref.subview %cols[%t, 0, 0] [1, 4, 8] [1, 1, 1] : !gf to memref<4x8xf32, strided<[8, 1], offset: ?>, #npudev.space<global>>
    npudev.dma %c, %outCols : memref<4x8xf32, #npudev.space<vector>> to memref<4x8xf32, strided<[8, 1], offset: ?>, #npudev.space<global>>
  }
  return
}

// -----

func.func @iota_dimension(%start: index) {
  %a = npudev.alloc : memref<4x8xi32, #npudev.space<vector>>
  // expected-error @+1 {{'npudev.iota' op failed to verify that dimension is below the rank of out}}
  npudev.iota %start, %a {dimension = 2} : memref<4x8xi32, #npudev.space<vector>>
  return
}
