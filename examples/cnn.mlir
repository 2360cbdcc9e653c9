// A small CNN-like network in the npu dialect: the running example of the
// README and of `make demo`.
//
//   image -> conv2d -> relu -> max_pool -> slice (upper 32 channels)
//         -> vs_add bias -> sigmoid -> reshape (rank 3) -> reshape (rank 2)
//         -> matmul (+bias) -> softmax -> result
func.func @cnn(%image: tensor<1x32x32x3xf32>) -> tensor<256x10xf32> {
  %w1 = npu.constant dense<0.01> : tensor<64x3x3x3xf32> -> tensor<64x3x3x3xf32>
  %conv = npu.conv2d %image, %w1 {padding = array<i64: 1, 1, 1, 1>}
      : (tensor<1x32x32x3xf32>, tensor<64x3x3x3xf32>) -> tensor<1x32x32x64xf32>
  %relu = npu.relu %conv : tensor<1x32x32x64xf32> -> tensor<1x32x32x64xf32>
  %pool = npu.max_pool %relu {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>}
      : tensor<1x32x32x64xf32> -> tensor<1x16x16x64xf32>
  %upper = npu.slice %pool {start = array<i64: 0, 0, 0, 32>, end = array<i64: 1, 16, 16, 64>}
      : tensor<1x16x16x64xf32> -> tensor<1x16x16x32xf32>
  %bias = npu.constant dense<0.5> : tensor<32xf32> -> tensor<32xf32>
  %biased = npu.vs_add %upper, %bias
      : (tensor<1x16x16x32xf32>, tensor<32xf32>) -> tensor<1x16x16x32xf32>
  %act = npu.sigmoid %biased : tensor<1x16x16x32xf32> -> tensor<1x16x16x32xf32>
  %rows3 = npu.reshape %act : tensor<1x16x16x32xf32> -> tensor<1x256x32xf32>
  %rows = npu.reshape %rows3 : tensor<1x256x32xf32> -> tensor<256x32xf32>
  %w2 = npu.constant dense<0.02> : tensor<32x10xf32> -> tensor<32x10xf32>
  %b2 = npu.constant dense<0.1> : tensor<10xf32> -> tensor<10xf32>
  %logits = npu.matmul %rows, %w2, %b2
      : (tensor<256x32xf32>, tensor<32x10xf32>, tensor<10xf32>) -> tensor<256x10xf32>
  %probs = npu.softmax %logits : tensor<256x10xf32> -> tensor<256x10xf32>
  return %probs : tensor<256x10xf32>
}
