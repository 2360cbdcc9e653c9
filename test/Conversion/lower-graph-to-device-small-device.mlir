// A device too small for a kernel is a diagnostic at lowering time, naming
// the op and the memory it lacks (it used to lower to `scf.for ... step 0`,
// which the JIT ran forever).
// RUN: npu-opt %s --split-input-file --npu-lower-to-device=device=%S/Inputs/four-byte-device.json --verify-diagnostics

// One sample per core: the hidden dimension is split in quarters of vector
// memory, and 4 bytes hold no quarter of a word.
func.func @split_hidden(%g: tensor<1xf32>, %i: tensor<1xi32>, %l: tensor<1xi32>, %d: tensor<6x8xf32>) -> tensor<1x8xf32> {
  // expected-error @+1 {{'npu.moe_dispatch_backward_data' op cannot be lowered for device 'four_bytes': it has 4 bytes of vector memory, the kernel needs at least 16}}
  %r = npu.moe_dispatch_backward_data %g, %i, %l, %d {capacity = 3, num_experts = 2} : (tensor<1xf32>, tensor<1xi32>, tensor<1xi32>, tensor<6x8xf32>) -> tensor<1x8xf32>
  return %r : tensor<1x8xf32>
}

// -----

// More samples than cores, no room for a whole row: two chunk buffers.
func.func @chunked(%g: tensor<4xf32>, %i: tensor<4xi32>, %l: tensor<4xi32>, %d: tensor<6x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'npu.moe_dispatch_backward_data' op cannot be lowered for device 'four_bytes': it has 4 bytes of vector memory, the kernel needs at least 8}}
  %r = npu.moe_dispatch_backward_data %g, %i, %l, %d {capacity = 3, num_experts = 2} : (tensor<4xf32>, tensor<4xi32>, tensor<4xi32>, tensor<6x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

func.func @gate(%i: tensor<4xi32>, %l: tensor<4xi32>, %x: tensor<4x8xf32>, %d: tensor<6x8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'npu.moe_dispatch_backward_gate' op cannot be lowered for device 'four_bytes': it has 4 bytes of vector memory, the kernel needs at least 12}}
  %r = npu.moe_dispatch_backward_gate %i, %l, %x, %d {capacity = 3, num_experts = 2} : (tensor<4xi32>, tensor<4xi32>, tensor<4x8xf32>, tensor<6x8xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Large head sizes shrink the attention tiles until they fit cube memory;
// when one query row and one key cannot, the op says so.
func.func @attention_head_beyond_cube(%q: tensor<1x1x1x65536xf32>) -> tensor<1x1x1x65536xf32> {
  // expected-error @+1 {{'npu.flash_attention' op cannot be lowered: one query row and one key of head size 65536 need 1048584 bytes of cube memory, device 'four_bytes' has 524288}}
  %m, %s, %o = npu.flash_attention %q, %q, %q {input_layout = #npu.attention_layout<BNSD>, head_num = 1, scale = 0.5} : (tensor<1x1x1x65536xf32>, tensor<1x1x1x65536xf32>, tensor<1x1x1x65536xf32>) -> (tensor<1x1x1x8xf32>, tensor<1x1x1x8xf32>, tensor<1x1x1x65536xf32>)
  return %o : tensor<1x1x1x65536xf32>
}

// -----

// An elementwise kernel holds at least five tiles of one element per
// operand and result (the pipeline's second copies included).
func.func @add(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'npu.add' op cannot be lowered for device 'four_bytes': it has 4 bytes of vector memory, the kernel needs at least 28}}
  %r = npu.add %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// A gemm rounding to f16 holds, per element of its vector tiles, the f32
// sum and its rounding.
func.func @matmul(%a: tensor<2x2xf16>, %b: tensor<2x2xf16>) -> tensor<2x2xf16> {
  // expected-error @+1 {{'npu.matmul' op cannot be lowered for device 'four_bytes': it has 4 bytes of vector memory, the kernel needs at least 6}}
  %r = npu.matmul %a, %b : (tensor<2x2xf16>, tensor<2x2xf16>) -> tensor<2x2xf16>
  return %r : tensor<2x2xf16>
}

// -----

// A row is normalised whole in vector memory.
func.func @layer_norm(%x: tensor<2x3xf32>, %g: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'npu.layer_norm' op cannot be lowered for device 'four_bytes': a row of 3 elements needs 80 bytes of vector memory, the device has 4}}
  %r = npu.layer_norm %x, %g, %b : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// grid_sample keeps an image's input plane on chip: 4 x 4 x 1 f32 is 64
// bytes, more than the device's 4.
func.func @grid_sample_plane(%x: tensor<1x4x4x1xf32>, %g: tensor<1x2x2x2xf32>) -> tensor<1x2x2x1xf32> {
  // expected-error @+1 {{'npu.grid_sample' op cannot be lowered for device 'four_bytes': an input plane of 4 x 4 x 1 takes 64 bytes, and with a point's grid and output row it exceeds 4 bytes of vector memory}}
  %r = npu.grid_sample %x, %g : (tensor<1x4x4x1xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x1xf32>
  return %r : tensor<1x2x2x1xf32>
}

// -----

// topk keeps each row's running top k on chip (k values, their positions
// and the merge of two runs), beside a tile of at least k elements.
func.func @topk_k(%x: tensor<2x8xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'npu.topk' op cannot be lowered for device 'four_bytes': k = 3 of rows of 8 'f32' elements needs 168 bytes of vector memory, the device has 4}}
  %v, %i = npu.topk %x {k = 3 : i64, axis = 1 : i64} : tensor<2x8xf32> -> tensor<2x3xf32>, tensor<2x3xi64>
  return %v : tensor<2x3xf32>
}
