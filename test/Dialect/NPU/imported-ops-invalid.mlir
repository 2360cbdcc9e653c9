// One negative case per verifier rule of the ops ONNX networks need.
// RUN: npu-opt %s --split-input-file --verify-diagnostics

func.func @clip_bounds(%x: tensor<2xf32>) {
  // expected-error @+1 {{'npu.clip' op needs min <= max, got min = 6.000000e+00 and max = 0.000000e+00}}
  %0 = npu.clip %x {min = 6.0 : f64, max = 0.0 : f64} : tensor<2xf32> -> tensor<2xf32>
  return
}

// -----

func.func @erf_integer(%x: tensor<2xi32>) {
  // expected-error @+1 {{'npu.erf' op operand #0 must be ranked tensor of floating-point values}}
  %0 = npu.erf %x : tensor<2xi32> -> tensor<2xi32>
  return
}

// -----

func.func @equal_broadcast(%a: tensor<2x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'npu.equal' op operand shapes [2, 3] and [4] are not broadcast-compatible}}
  %0 = npu.equal %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xi1>
  return
}

// -----

func.func @equal_result(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'npu.equal' op result #0 must be ranked tensor of 1-bit signless integer values}}
  %0 = npu.equal %a, %a : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @select_values(%c: tensor<2x3xi1>, %a: tensor<2x3xf32>, %b: tensor<2x3xf16>) {
  // expected-error @+1 {{'npu.select' op operands must have the same element type, got 'f32' and 'f16'}}
  %0 = npu.select %c, %a, %b : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf16>) -> tensor<2x3xf32>
  return
}

// -----

func.func @select_condition(%c: tensor<4xi1>, %a: tensor<2x3xf32>) {
  // expected-error @+1 {{'npu.select' op condition shape [4] does not broadcast with the values' shape [2, 3]}}
  %0 = npu.select %c, %a, %a : (tensor<4xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @gather_axis(%x: tensor<2x5xf32>, %i: tensor<3xi64>) {
  // expected-error @+1 {{'npu.gather' op attribute 'axis' = 2 is out of range [-2, 2) for a rank-2 input}}
  %0 = npu.gather %x, %i {axis = 2} : (tensor<2x5xf32>, tensor<3xi64>) -> tensor<2x3xf32>
  return
}

// -----

func.func @gather_indices(%x: tensor<2x5xf32>, %i: tensor<3xf32>) {
  // expected-error @+1 {{'npu.gather' op operand #1 must be ranked tensor of signless integer values}}
  %0 = npu.gather %x, %i {axis = 1} : (tensor<2x5xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @expand_shape(%x: tensor<2x5xf32>) {
  // expected-error @+1 {{'npu.expand' op input shape [2, 5] does not broadcast with 'shape' [3, 5]}}
  %0 = npu.expand %x {shape = array<i64: 3, 5>} : tensor<2x5xf32> -> tensor<3x5xf32>
  return
}

// -----

func.func @expand_negative(%x: tensor<2x5xf32>) {
  // expected-error @+1 {{'npu.expand' op attribute 'shape' must have elements >= 0, got [-1, 5]}}
  %0 = npu.expand %x {shape = array<i64: -1, 5>} : tensor<2x5xf32> -> tensor<2x5xf32>
  return
}

// -----

func.func @scatter_nd_depth(%d: tensor<4x3xf32>, %i: tensor<2x3xi64>, %u: tensor<2xf32>) {
  // expected-error @+1 {{'npu.scatter_nd' op indices [2, 3] must have rank >= 1 and a static last dimension in [1, 2] (the rank of data)}}
  %0 = npu.scatter_nd %d, %i, %u : (tensor<4x3xf32>, tensor<2x3xi64>, tensor<2xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @scatter_nd_updates(%d: tensor<4x3xf32>, %i: tensor<2x1xi64>, %u: tensor<2x4xf32>) {
  // expected-error @+1 {{'npu.scatter_nd' op updates must have shape [2, 3] (indices.shape[:-1] ++ data.shape[k:]), got [2, 4]}}
  %0 = npu.scatter_nd %d, %i, %u : (tensor<4x3xf32>, tensor<2x1xi64>, tensor<2x4xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @resize_rank(%x: tensor<8x10x3xf32>) {
  // expected-error @+1 {{'npu.resize' op input must have rank 4 (N, H, W, C), got 3}}
  %0 = npu.resize %x <linear> {size = array<i64: 16, 20>} : tensor<8x10x3xf32> -> tensor<16x20x3xf32>
  return
}

// -----

func.func @resize_size(%x: tensor<1x8x10x3xf32>) {
  // expected-error @+1 {{'npu.resize' op attribute 'size' must have 2 elements, got 3}}
  %0 = npu.resize %x <linear> {size = array<i64: 16, 20, 3>} : tensor<1x8x10x3xf32> -> tensor<1x16x20x3xf32>
  return
}

// -----

func.func @resize_empty(%x: tensor<1x0x10x3xf32>) {
  // expected-error @+1 {{'npu.resize' op cannot resize an empty spatial dimension 0 to 4}}
  %0 = npu.resize %x <nearest> {size = array<i64: 4, 20>} : tensor<1x0x10x3xf32> -> tensor<1x4x20x3xf32>
  return
}

// -----

func.func @grid_sample_input_rank(%x: tensor<8x10x3xf32>, %g: tensor<1x4x4x2xf32>) {
  // expected-error @+1 {{'npu.grid_sample' op input must have rank 4 (N, H, W, C), got 3}}
  %0 = npu.grid_sample %x, %g : (tensor<8x10x3xf32>, tensor<1x4x4x2xf32>) -> tensor<1x4x4x3xf32>
  return
}

// -----

func.func @grid_sample_grid_shape(%x: tensor<1x8x10x3xf32>, %g: tensor<1x4x4x3xf32>) {
  // expected-error @+1 {{'npu.grid_sample' op grid must have shape [N, H_out, W_out, 2], got [1, 4, 4, 3]}}
  %0 = npu.grid_sample %x, %g : (tensor<1x8x10x3xf32>, tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
  return
}

// -----

func.func @grid_sample_images(%x: tensor<2x8x10x3xf32>, %g: tensor<1x4x4x2xf32>) {
  // expected-error @+1 {{'npu.grid_sample' op grid has 1 images, the input 2}}
  %0 = npu.grid_sample %x, %g : (tensor<2x8x10x3xf32>, tensor<1x4x4x2xf32>) -> tensor<2x4x4x3xf32>
  return
}

// -----

func.func @grid_sample_types(%x: tensor<1x8x10x3xf32>, %g: tensor<1x4x4x2xf16>) {
  // expected-error @+1 {{'npu.grid_sample' op grid and input element types differ}}
  %0 = npu.grid_sample %x, %g : (tensor<1x8x10x3xf32>, tensor<1x4x4x2xf16>) -> tensor<1x4x4x3xf32>
  return
}

// -----

func.func @grid_sample_empty_plane(%x: tensor<1x0x4x1xf32>, %g: tensor<1x2x2x2xf32>) {
  // expected-error @+1 {{'npu.grid_sample' op cannot sample an empty input plane (0 x 4) at 4 points}}
  %0 = npu.grid_sample %x, %g : (tensor<1x0x4x1xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x1xf32>
  return
}

// -----

func.func @topk_axis(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'npu.topk' op attribute 'axis' = 2 is out of range [0, 2) for a rank-2 input}}
  %v, %i = npu.topk %x {k = 3 : i64, axis = 2 : i64} : tensor<2x8xf32> -> tensor<2x3xf32>, tensor<2x3xi64>
  return
}

// -----

func.func @topk_k_past_axis(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'npu.topk' op k = 9 must be in [0, 8], the size of axis 1}}
  %v, %i = npu.topk %x {k = 9 : i64, axis = 1 : i64} : tensor<2x8xf32> -> tensor<2x9xf32>, tensor<2x9xi64>
  return
}

// -----

func.func @topk_negative_k(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'npu.topk' op k = -1 must be in [0, 8], the size of axis 1}}
  %v, %i = npu.topk %x {k = -1 : i64, axis = 1 : i64} : tensor<2x8xf32> -> tensor<2x0xf32>, tensor<2x0xi64>
  return
}

// -----

func.func @topk_integer_input(%x: tensor<2x8xi32>) {
  // expected-error @+1 {{'npu.topk' op operand #0 must be ranked tensor of floating-point values}}
  %v, %i = npu.topk %x {k = 3 : i64, axis = 1 : i64} : tensor<2x8xi32> -> tensor<2x3xi32>, tensor<2x3xi64>
  return
}

// -----

func.func @topk_result_shape(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'npu.topk' op result type 'tensor<2x4xf32>', 'tensor<2x3xi64>' differs from the inferred 'tensor<2x3xf32>', 'tensor<2x3xi64>'}}
  %v, %i = npu.topk %x {k = 3 : i64, axis = 1 : i64} : tensor<2x8xf32> -> tensor<2x4xf32>, tensor<2x3xi64>
  return
}

// -----

func.func @compare_shapes(%a: tensor<2x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'npu.greater_equal' op operand shapes [2, 3] and [4] are not broadcast-compatible}}
  %0 = npu.greater_equal %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xi1>
  return
}

// -----

func.func @and_of_floats(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'npu.and' op operand #0 must be ranked tensor of 1-bit signless integer values}}
  %0 = npu.and %a, %a : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}
