// npu-lower-to-device: npu.map_batch becomes a host loop over the samples.
// The batch is the first input's leading size, checked against the other
// inputs' by a launch; every buffer the body needs is allocated once,
// before the loop; in each iteration a `sample` launch copies each input's
// rows of the sample into its buffer, the body's kernels run, and one
// copies the yielded rows into the result.
// RUN: npu-opt %s --npu-lower-to-device --canonicalize --cse | FileCheck %s
// RUN: npu-opt %s --npu-lower-to-device --canonicalize --cse | FileCheck %s --check-prefix=LOOP

// CHECK-LABEL: func.func @map_batch
// CHECK-SAME: (%[[X:.*]]: memref<?x4xf32, #npudev.space<global>>, %[[Z:.*]]: memref<?x4xf32, #npudev.space<global>>, %[[W:.*]]: memref<4xf32, #npudev.space<global>>, %[[Y:.*]]: memref<?x2x4xf32, #npudev.space<global>> {npudev.output, npudev.sizes = array<i64: 0, 0, 2>})
// CHECK: npudev.report_rows %{{.*}}, "'npu.map_batch' input #1 has {row} samples, input #0 a different number: the inputs share their batch"
// CHECK: %[[B:.*]] = memref.dim %[[X]], %c0
// CHECK: %[[XS:.*]] = memref.alloc() : memref<1x4xf32, #npudev.space<global>>
// CHECK: %[[ZS:.*]] = memref.alloc() : memref<1x4xf32, #npudev.space<global>>
// CHECK: scf.for %[[S:.*]] = %c0 to %[[B]] step %c1 {
// CHECK: memref.subview %[[X]][%[[S]], 0] [1, 4] [1, 1]
// CHECK: npudev.launch {{.*}}strategy = "sample"
// CHECK: memref.subview %[[Z]][%[[S]], 0] [1, 4] [1, 1]
// CHECK: npudev.launch {{.*}}strategy = "sample"
// CHECK: npudev.launch {{.*}}strategy = "concat"
// CHECK: %[[ROW:.*]] = arith.muli %[[S]], %c2 : index
// CHECK: memref.subview %[[Y]][%[[ROW]], 0, 0] [2, 2, 4] [1, 1, 1]
// CHECK: npudev.launch {{.*}}strategy = "sample"
// CHECK: }
// CHECK: memref.dealloc %[[XS]]
// No buffer is allocated in the loop.
// LOOP: scf.for
// LOOP-NOT: memref.alloc
// LOOP: memref.dealloc
func.func @map_batch(%x: tensor<?x4xf32>, %z: tensor<?x4xf32>, %w: tensor<4xf32>) -> tensor<?x2x4xf32> {
  %y = npu.map_batch(%x, %z) : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x2x4xf32> {
  ^bb0(%s: tensor<1x4xf32>, %t: tensor<1x4xf32>):
    %a = npu.add %s, %w : (tensor<1x4xf32>, tensor<4xf32>) -> tensor<1x4xf32>
    %c = npu.concat %a, %t {axis = 0 : i64} : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<2x4xf32>
    %r = npu.reshape %c : tensor<2x4xf32> -> tensor<2x1x4xf32>
    %e = npu.expand %r {shape = array<i64: 2, 2, 4>} : tensor<2x1x4xf32> -> tensor<2x2x4xf32>
    npu.yield %e : tensor<2x2x4xf32>
  }
  return %y : tensor<?x2x4xf32>
}

// With a chunk region of 4 samples: a loop over the B / 4 whole chunks,
// each copying 4 rows in and out, then the body's loop over the samples
// left, from 4 * (B / 4). Each loop allocates its buffers only when it
// runs, and frees them after it, so both sets are never live at once.
// CHECK-LABEL: func.func @map_batch_chunk
// CHECK-SAME: (%[[X:.*]]: memref<?x4xf32, #npudev.space<global>>, %{{.*}}: memref<4xf32, #npudev.space<global>>, %[[Y:.*]]: memref<?x4xf32, #npudev.space<global>>
// CHECK: %[[CHUNKS:.*]] = arith.divui %[[B:.*]], %c4
// CHECK: %[[ANY:.*]] = arith.cmpi ugt, %[[CHUNKS]], %c0
// CHECK: scf.if %[[ANY]] {
// CHECK: %[[CX:.*]] = memref.alloc() : memref<4x4xf32, #npudev.space<global>>
// CHECK: scf.for %[[C:.*]] = %c0 to %[[CHUNKS]] step %c1 {
// CHECK: %[[ROW:.*]] = arith.muli %[[C]], %c4 : index
// CHECK: memref.subview %[[X]][%[[ROW]], 0] [4, 4] [1, 1]
// CHECK: npudev.launch {{.*}}strategy = "sample"
// CHECK: memref.subview %[[Y]][%[[ROW]], 0] [4, 4] [1, 1]
// CHECK: npudev.launch {{.*}}strategy = "sample"
// CHECK: }
// CHECK: memref.dealloc %[[CX]]
// CHECK: }
// CHECK: %[[FIRST:.*]] = arith.muli %[[CHUNKS]], %c4 : index
// CHECK: %[[LEFT:.*]] = arith.cmpi ult, %[[FIRST]], %[[B]]
// CHECK: scf.if %[[LEFT]] {
// CHECK: %[[SX:.*]] = memref.alloc() : memref<1x4xf32, #npudev.space<global>>
// CHECK: scf.for %[[S:.*]] = %[[FIRST]] to %[[B]] step %c1 {
// CHECK: memref.subview %[[X]][%[[S]], 0] [1, 4] [1, 1]
// CHECK: }
// CHECK: memref.dealloc %[[SX]]
// CHECK: }
// CHECK: return
func.func @map_batch_chunk(%x: tensor<?x4xf32>, %w: tensor<4xf32>) -> tensor<?x4xf32> {
  %y = npu.map_batch(%x) : (tensor<?x4xf32>) -> tensor<?x4xf32> {
  ^bb0(%s: tensor<1x4xf32>):
    %a = npu.add %s, %w : (tensor<1x4xf32>, tensor<4xf32>) -> tensor<1x4xf32>
    npu.yield %a : tensor<1x4xf32>
  } chunk {
  ^bb0(%s: tensor<4x4xf32>):
    %a = npu.add %s, %w : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4x4xf32>
    npu.yield %a : tensor<4x4xf32>
  }
  return %y : tensor<?x4xf32>
}
