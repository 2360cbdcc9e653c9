// What npu-layout-align cannot place is rejected with a diagnostic.
// RUN: npu-opt %s --split-input-file --allow-unregistered-dialect --verify-diagnostics --npu-layout-align
// RUN: npu-opt %s --split-input-file --allow-unregistered-dialect --verify-diagnostics --npu-layout-align=strategy=greedy

func.func @unknown_op(%x: tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32> {
  // expected-error @+1 {{'foo.bar' op has no AlignMode rule, so npu-layout-align cannot decide the layout of its tensors; pin one with npu.dev_info}}
  %0 = "foo.bar"(%x) : (tensor<1x4x4x16xf32>) -> tensor<1x4x4x16xf32>
  return %0 : tensor<1x4x4x16xf32>
}

// -----

func.func @foreign_dialect(%x: tensor<2x64xf32>) -> tensor<2x64xf32> {
  // expected-error @+1 {{'arith.addf' op has no AlignMode rule}}
  %0 = arith.addf %x, %x : tensor<2x64xf32>
  return %0 : tensor<2x64xf32>
}

// -----

func.func @nested(%x: tensor<2x64xf32>) -> tensor<2x64xf32> {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'scf.for' op has regions; npu-layout-align handles a flat graph and cannot place the tensors inside}}
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %x) -> (tensor<2x64xf32>) {
    %y = npu.relu %acc : tensor<2x64xf32> -> tensor<2x64xf32>
    scf.yield %y : tensor<2x64xf32>
  }
  return %r : tensor<2x64xf32>
}

// -----

// expected-error @+1 {{'func.func' op npu-layout-align needs a function body with one block}}
func.func @blocks(%x: tensor<2x64xf32>) -> tensor<2x64xf32> {
  "test.br"()[^bb1] : () -> ()
^bb1:
  return %x : tensor<2x64xf32>
}
