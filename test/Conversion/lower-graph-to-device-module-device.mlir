// npu-lower-to-device reads the device a module names; a device option that
// disagrees with it is an error naming both.
// RUN: npu-opt %s --split-input-file --npu-lower-to-device | FileCheck %s
// RUN: npu-opt %s --split-input-file --npu-lower-to-device=device=ascend910b | FileCheck %s
// RUN: not npu-opt %s --split-input-file --npu-lower-to-device=device=mlu590 2>&1 | FileCheck %s --check-prefix=MISMATCH

// A module with no graph ops is left alone, the device it names included.
// CHECK: module attributes {npudev.device = "ascend910b"}
// CHECK-LABEL: func.func @device_level
// CHECK: npudev.launch tasks(2) on vector
// MISMATCH: error: npu-lower-to-device: the module is compiled for device 'ascend910b' but the device option names 'mlu590'
module attributes {npudev.device = "ascend910b"} {
  func.func @device_level() {
    npudev.launch tasks(2) on vector {
    }
    return
  }
}

// -----

// Graph ops are lowered for the module's device (48 Ascend vector cores),
// which is then recorded in full.
// CHECK: module attributes {npudev.device = {{{.*}}name = "ascend910b"{{.*}}vector_bytes = 196608 : i64{{.*}}}}
// CHECK-LABEL: func.func @graph_level
// CHECK: npudev.launch tasks(48) on vector
module attributes {npudev.device = "ascend910b"} {
  func.func @graph_level(%g: tensor<4xf32>, %i: tensor<4xi32>, %l: tensor<4xi32>, %d: tensor<6x300xf32>) -> tensor<4x300xf32> {
    %r = npu.moe_dispatch_backward_data %g, %i, %l, %d {capacity = 3, num_experts = 2} : (tensor<4xf32>, tensor<4xi32>, tensor<4xi32>, tensor<6x300xf32>) -> tensor<4x300xf32>
    return %r : tensor<4x300xf32>
  }
}
