// A group's cube and vector tasks wait for each other, so all of them hold
// a core at once. On a unified device of two cores (the `host` device of a
// two-core machine) a group is one cube task and one vector task; a device
// of one core cannot run the launch, and the op says so.
// RUN: npu-opt %s --split-input-file --npu-lower-to-device=device=%S/Inputs/two-core-device.json | FileCheck %s
// RUN: not npu-opt %s --split-input-file --npu-lower-to-device=device=%S/Inputs/one-core-device.json 2>&1 | FileCheck %s --check-prefix=ONE

// CHECK-LABEL: func.func @forward
// CHECK: npudev.mixed_launch cube(1) {
// CHECK: } vector(1) {
// ONE: error: 'npu.flash_attention' op cannot be lowered: its cube and vector tasks wait for each other, so they need two cores, and device 'one-core' has one
func.func @forward(%q: tensor<1x2x256x64xf32>) -> tensor<1x2x256x64xf32> {
  %m, %s, %o = npu.flash_attention %q, %q, %q {input_layout = #npu.attention_layout<BNSD>, head_num = 2, scale = 0.125} : (tensor<1x2x256x64xf32>, tensor<1x2x256x64xf32>, tensor<1x2x256x64xf32>) -> (tensor<1x2x256x8xf32>, tensor<1x2x256x8xf32>, tensor<1x2x256x64xf32>)
  return %o : tensor<1x2x256x64xf32>
}

// -----

// CHECK-LABEL: func.func @backward
// CHECK: npudev.mixed_launch cube(1) {
// CHECK: } vector(1) {
// ONE: error: 'npu.flash_attention_grad' op cannot be lowered: its cube and vector tasks wait for each other, so they need two cores, and device 'one-core' has one
func.func @backward(%q: tensor<1x2x256x64xf32>, %st: tensor<1x2x256x8xf32>) -> tensor<1x2x256x64xf32> {
  %dq, %dk, %dv = npu.flash_attention_grad %q, %q, %q, %q, %st, %st, %q {input_layout = #npu.attention_layout<BNSD>, head_num = 2, scale = 0.125} : (tensor<1x2x256x64xf32>, tensor<1x2x256x64xf32>, tensor<1x2x256x64xf32>, tensor<1x2x256x64xf32>, tensor<1x2x256x8xf32>, tensor<1x2x256x8xf32>, tensor<1x2x256x64xf32>) -> (tensor<1x2x256x64xf32>, tensor<1x2x256x64xf32>, tensor<1x2x256x64xf32>)
  return %dq : tensor<1x2x256x64xf32>
}
