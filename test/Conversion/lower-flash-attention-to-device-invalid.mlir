// What the FlashAttention lowering does not cover yet is an error naming
// the op, never a wrong kernel.
// RUN: npu-opt %s --split-input-file --npu-lower-to-device --verify-diagnostics

func.func @prefix(%q: tensor<1x1x8x8xf32>) -> tensor<1x1x8x8xf32> {
  // expected-error @+1 {{'npu.flash_attention' op cannot be lowered to the device yet with layout TND or sparse_mode 5 to 8}}
  %m, %s, %o = npu.flash_attention %q, %q, %q {input_layout = #npu.attention_layout<BNSD>, head_num = 1, scale = 0.125, sparse_mode = 5, prefix = array<i64: 2>} : (tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>) -> (tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>)
  return %o : tensor<1x1x8x8xf32>
}
