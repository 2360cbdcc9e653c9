// Inputs npu-layout-align handles that are not plain npu graphs.
// RUN: npu-opt %s --split-input-file --allow-unregistered-dialect --npu-layout-align --npu-verify-layout | FileCheck %s
// RUN: npu-opt %s --split-input-file --allow-unregistered-dialect --npu-layout-align=strategy=greedy --npu-verify-layout | FileCheck %s

// A foreign op pinned with npu.dev_info is placed like any fixed op, all its
// results included.
// CHECK-LABEL: func.func @pinned_foreign_op
// CHECK: %[[IN:.*]] = npu.channel_norm <to_align> %arg0
// CHECK: "foo.split"(%[[IN]]) {{.*}} -> (tensor<2x32xf32, #npu.layout<align>>, tensor<2x32xf32, #npu.layout<align>>)
func.func @pinned_foreign_op(%x: tensor<2x64xf32>) -> tensor<2x32xf32> {
  %0:2 = "foo.split"(%x) {npu.dev_info = #npu.align_mode<align>} : (tensor<2x64xf32>) -> (tensor<2x32xf32>, tensor<2x32xf32>)
  return %0#1 : tensor<2x32xf32>
}

// -----

// Ops without a rule that touch no tensor with a layout are left alone.
// CHECK-LABEL: func.func @scalars
// CHECK: arith.constant 0 : index
// CHECK-NOT: channel_norm
func.func @scalars(%x: tensor<2x64xf32>) -> (index, tensor<2x64xf32>) {
  %c0 = arith.constant 0 : index
  %0 = npu.relu %x : tensor<2x64xf32> -> tensor<2x64xf32>
  return %c0, %0 : index, tensor<2x64xf32>
}

// -----

// Zero-element tensors get layouts and conversions like any other.
// CHECK-LABEL: func.func @empty
// CHECK: npu.channel_norm <to_align> %arg0 : tensor<0x4x4x16xf32, #npu.layout<nalign>> -> tensor<0x4x4x16xf32, #npu.layout<align>>
// CHECK: npu.max_pool {{.*}} -> tensor<0x3x3x16xf32, #npu.layout<align>>
func.func @empty(%x: tensor<0x4x4x16xf32>) -> tensor<0x3x3x16xf32> {
  %0 = npu.max_pool %x {kernel = array<i64: 2, 2>} : tensor<0x4x4x16xf32> -> tensor<0x3x3x16xf32>
  return %0 : tensor<0x3x3x16xf32>
}

// -----

// io-mode=align: graph inputs and outputs are aligned unless declared.
// RUN: npu-opt %s --split-input-file --allow-unregistered-dialect --npu-layout-align=io-mode=align --npu-verify-layout=io-mode=align | FileCheck %s --check-prefix=IO
// IO-LABEL: func.func @io_mode
// IO-SAME: (%{{.*}}: tensor<1x8x8x8xf32, #npu.layout<align>>, %{{.*}}: tensor<1x8x8x8xf32, #npu.layout<nalign>>) -> tensor<1x7x7x8xf32, #npu.layout<align>>
// IO-NEXT: npu.channel_norm <to_align> %arg1
// IO-NEXT: npu.max_pool %arg0
// IO-NEXT: npu.max_pool
// IO-NEXT: npu.add
// IO-NEXT: return
func.func @io_mode(%x: tensor<1x8x8x8xf32>, %y: tensor<1x8x8x8xf32, #npu.layout<nalign>>) -> tensor<1x7x7x8xf32> {
  %0 = npu.max_pool %x {kernel = array<i64: 2, 2>} : tensor<1x8x8x8xf32> -> tensor<1x7x7x8xf32>
  %1 = npu.max_pool %y {kernel = array<i64: 2, 2>} : tensor<1x8x8x8xf32, #npu.layout<nalign>> -> tensor<1x7x7x8xf32>
  %2 = npu.add %0, %1 : (tensor<1x7x7x8xf32>, tensor<1x7x7x8xf32>) -> tensor<1x7x7x8xf32>
  return %2 : tensor<1x7x7x8xf32>
}
