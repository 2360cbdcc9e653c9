// A causal attention layer with grouped-query heads, as a decoder trains
// it: 8 query heads share 2 key/value heads (GQA), 512 tokens, head size
// 64, f16, BSND, causal from the bottom right (sparse_mode 3). Forward,
// then backward from the forward's statistics and a given dY. `make demo`
// lowers it for ascend910b (cube and vector cores), runs the kernels in
// the simulator and through the JIT, and compares the bytes.
func.func @attention_layer(%q: tensor<1x512x8x64xf16>, %k: tensor<1x512x2x64xf16>,
                           %v: tensor<1x512x2x64xf16>, %dy: tensor<1x512x8x64xf16>)
    -> (tensor<1x512x8x64xf16>, tensor<1x512x8x64xf16>, tensor<1x512x2x64xf16>,
        tensor<1x512x2x64xf16>) {
  %max, %sum, %out = npu.flash_attention %q, %k, %v {
      input_layout = #npu.attention_layout<BSND>, head_num = 8,
      scale = 1.250000e-01, sparse_mode = 3}
      : (tensor<1x512x8x64xf16>, tensor<1x512x2x64xf16>, tensor<1x512x2x64xf16>)
      -> (tensor<1x8x512x8xf32>, tensor<1x8x512x8xf32>, tensor<1x512x8x64xf16>)
  %dq, %dk, %dv = npu.flash_attention_grad %q, %k, %v, %dy, %max, %sum, %out {
      input_layout = #npu.attention_layout<BSND>, head_num = 8,
      scale = 1.250000e-01, sparse_mode = 3}
      : (tensor<1x512x8x64xf16>, tensor<1x512x2x64xf16>, tensor<1x512x2x64xf16>,
         tensor<1x512x8x64xf16>, tensor<1x8x512x8xf32>, tensor<1x8x512x8xf32>,
         tensor<1x512x8x64xf16>)
      -> (tensor<1x512x8x64xf16>, tensor<1x512x2x64xf16>, tensor<1x512x2x64xf16>)
  return %out, %dq, %dk, %dv : tensor<1x512x8x64xf16>, tensor<1x512x8x64xf16>,
      tensor<1x512x2x64xf16>, tensor<1x512x2x64xf16>
}
