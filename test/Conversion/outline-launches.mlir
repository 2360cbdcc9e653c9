// Each launch becomes a private, non-inlined function of the values its
// body uses from above (constants cloned in), called where it stood, so
// that LLVM compiles a network as many small functions.
// RUN: npu-opt %s --npu-lower-device-to-loops | FileCheck %s
// RUN: npu-opt %s --npu-lower-to-llvm | FileCheck %s --check-prefix=LLVM

// CHECK-LABEL: func.func @two_launches
// CHECK-SAME: (%[[X:.*]]: memref<64xf32>, %[[N:.*]]: index)
// CHECK: call @__npu_launch_0(%[[N]], %[[X]]) : (index, memref<64xf32>) -> ()
// CHECK: call @__npu_launch_1(%[[X]]) : (memref<64xf32>) -> ()
// CHECK-NOT: scf.parallel
// CHECK: return
// CHECK: func.func private @__npu_launch_0(%[[B:.*]]: index, %[[A:.*]]: memref<64xf32>) attributes {no_inline}
// CHECK: %[[C16:.*]] = arith.constant 16 : index
// CHECK: scf.parallel
// CHECK: arith.muli %{{.*}}, %[[C16]]
// CHECK: arith.addi %{{.*}}, %[[B]]
// CHECK: func.func private @__npu_launch_1(%{{.*}}: memref<64xf32>) attributes {no_inline}
// CHECK: scf.parallel

// LLVM: llvm.func @two_launches
// LLVM: llvm.call @__npu_launch_0
// LLVM: llvm.func @__npu_launch_0({{.*}}) attributes {no_inline, sym_visibility = "private"}
func.func @two_launches(%x: memref<64xf32, #npudev.space<global>>, %n: index) {
  %c16 = arith.constant 16 : index
  npudev.launch tasks(4) {
    %t = npudev.task_id
    %o = arith.muli %t, %c16 : index
    %off = arith.addi %o, %n : index
    %w = memref.subview %x[%off] [16] [1] : memref<64xf32, #npudev.space<global>> to memref<16xf32, strided<[1], offset: ?>, #npudev.space<global>>
    %b = npudev.alloc : memref<16xf32, #npudev.space<vector>>
    npudev.dma %w, %b : memref<16xf32, strided<[1], offset: ?>, #npudev.space<global>> to memref<16xf32, #npudev.space<vector>>
    npudev.vunary <exp> %b, %b : memref<16xf32, #npudev.space<vector>>, memref<16xf32, #npudev.space<vector>>
    npudev.dma %b, %w : memref<16xf32, #npudev.space<vector>> to memref<16xf32, strided<[1], offset: ?>, #npudev.space<global>>
  }
  npudev.launch tasks(1) {
    %b = npudev.alloc : memref<64xf32, #npudev.space<vector>>
    npudev.dma %x, %b : memref<64xf32, #npudev.space<global>> to memref<64xf32, #npudev.space<vector>>
    npudev.vunary <neg> %b, %b : memref<64xf32, #npudev.space<vector>>, memref<64xf32, #npudev.space<vector>>
    npudev.dma %b, %x : memref<64xf32, #npudev.space<vector>> to memref<64xf32, #npudev.space<global>>
  }
  return
}
