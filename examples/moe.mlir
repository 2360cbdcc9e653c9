// A mixture-of-experts layer's dispatch, forward and backward (tutel's
// semantics, as mlu-ops' MoE dispatch backward implements them): 2048
// tokens of hidden size 512 go to 16 experts of capacity 256. `make demo`
// lowers it with npu-lower-to-device and runs it in the simulator and
// through the JIT.
func.func @moe_layer(%gates: tensor<2048xf32>, %indices: tensor<2048xi32>,
                     %locations: tensor<2048xi32>, %tokens: tensor<2048x512xf32>,
                     %grad_dispatch: tensor<4096x512xf32>)
    -> (tensor<4096x512xf32>, tensor<2048x512xf32>, tensor<2048xf32>) {
  // Forward: scatter each token, scaled by its gate, into its expert slot.
  %dispatched = npu.moe_dispatch_forward %gates, %indices, %locations, %tokens
      {capacity = 256, num_experts = 16}
      : (tensor<2048xf32>, tensor<2048xi32>, tensor<2048xi32>, tensor<2048x512xf32>)
      -> tensor<4096x512xf32>
  // Backward to the tokens: gather the slot gradients back, scaled.
  %grad_tokens = npu.moe_dispatch_backward_data %gates, %indices, %locations, %grad_dispatch
      {capacity = 256, num_experts = 16}
      : (tensor<2048xf32>, tensor<2048xi32>, tensor<2048xi32>, tensor<4096x512xf32>)
      -> tensor<2048x512xf32>
  // Backward to the gates: one dot product per token.
  %grad_gates = npu.moe_dispatch_backward_gate %indices, %locations, %tokens, %grad_dispatch
      {capacity = 256, num_experts = 16}
      : (tensor<2048xi32>, tensor<2048xi32>, tensor<2048x512xf32>, tensor<4096x512xf32>)
      -> tensor<2048xf32>
  return %dispatched, %grad_tokens, %grad_gates
      : tensor<4096x512xf32>, tensor<2048x512xf32>, tensor<2048xf32>
}
