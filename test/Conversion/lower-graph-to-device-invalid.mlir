// npu-lower-to-device rejects what it cannot lower, naming the op.
// RUN: npu-opt %s --split-input-file --npu-lower-to-device --verify-diagnostics
// RUN: not npu-opt %s --npu-lower-to-device=device=tpu 2>&1 | FileCheck %s --check-prefix=DEVICE
// RUN: not npu-opt %s --npu-lower-to-device=sparse-conv-strategy=hash 2>&1 | FileCheck %s --check-prefix=STRATEGY

// RUN: not npu-opt %s --split-input-file --npu-lower-to-device=sparse-conv-strategy=grid 2>&1 | FileCheck %s --check-prefix=GRID

// STRATEGY: error: npu-lower-to-device: sparse-conv-strategy must be auto, grid or sort, got 'hash'
// GRID: error: 'npu.get_indice_pairs' op the grid strategy needs 137438953472 bytes of global memory for its grid, more than the 51539607552 of device 'mlu590'

// DEVICE: error: npu-lower-to-device: unknown device preset 'tpu' (known: mlu590, ascend910b, host)

// Tensor math of another dialect has no kernels; npu.exp has.
func.func @no_kernel(%x: tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32> {
  // expected-error @+1 {{'math.exp' op has no device lowering}}
  %r = math.exp %x : tensor<1x4x4x8xf32>
  return %r : tensor<1x4x4x8xf32>
}

// -----

func.func @integer_pow(%x: tensor<4x8xi32>, %y: tensor<4x8xi32>) -> tensor<4x8xi32> {
  // expected-error @+1 {{'npu.pow' op cannot be lowered to the device: an integer pow needs a constant exponent in [0, 8]}}
  %r = npu.pow %x, %y : (tensor<4x8xi32>, tensor<4x8xi32>) -> tensor<4x8xi32>
  return %r : tensor<4x8xi32>
}

// -----


func.func @softmax_inner_axis(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'npu.softmax' op cannot be lowered to the device: softmax over axis 0 of 'tensor<4x8xf32>' (only the last axis is lowered)}}
  %r = npu.softmax %x {axis = 0 : i64} : tensor<4x8xf32> -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----


// The MoE kernels read the number of samples at run time, not hidden.
func.func @dynamic_hidden(%g: tensor<?xf32>, %i: tensor<?xi32>, %l: tensor<?xi32>, %d: tensor<6x?xf32>) -> tensor<?x?xf32> {
  // expected-error @+1 {{'npu.moe_dispatch_backward_data' op cannot be lowered to the device: dispatch has type 'tensor<6x?xf32>'; only the number of samples may be dynamic}}
  %c = npu.moe_dispatch_backward_data %g, %i, %l, %d {capacity = 3, num_experts = 2} : (tensor<?xf32>, tensor<?xi32>, tensor<?xi32>, tensor<6x?xf32>) -> tensor<?x?xf32>
  return %c : tensor<?x?xf32>
}

// -----

// An op whose kernels take static shapes gets no size read at run time.
func.func @dynamic_reduce(%x: tensor<?x8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'npu.reduce' op cannot be lowered to the device: operand #0 ('tensor<?x8xf32>') has a size read at run time, and its kernels take static shapes}}
  %r = npu.reduce <sum> %x {axes = array<i64: 0>} : tensor<?x8xf32> -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// Only the number of sites of a sparse convolution may be dynamic.
func.func @dynamic_weights(%f: tensor<4x2xf32>, %w: tensor<?x2x3xf32>, %p: tensor<1x2x4xi32>, %n: tensor<1xi32>) -> tensor<4x3xf32> {
  %c4 = arith.constant 4 : index
  // expected-error @+1 {{'npu.sparse_conv3d' op cannot be lowered to the device: 'tensor<?x2x3xf32>' has a dynamic size; only the number of sites may be dynamic}}
  %y = npu.sparse_conv3d %f, %w, %p, %n, %c4 : (tensor<4x2xf32>, tensor<?x2x3xf32>, tensor<1x2x4xi32>, tensor<1xi32>, index) -> tensor<4x3xf32>
  return %y : tensor<4x3xf32>
}

// -----

// A result size its op does not state in terms of its operands' cannot be
// allocated.
func.func @unknown_result_size(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  // expected-error @+1 {{'npu.hard_swish' op cannot be lowered to the device: dimension 0 of result #0 is neither static nor the size of an argument}}
  %r = npu.hard_swish %x : tensor<?x8xf32> -> tensor<?x8xf32>
  return %r : tensor<?x8xf32>
}


// -----

func.func @unbounded_rows(%idx: tensor<4x4xi32>, %f: tensor<4x2xf32>, %w: tensor<1x2x3xf32>) -> tensor<?x3xf32> {
  %o, %p, %n = npu.get_indice_pairs %idx {batch_size = 1 : i64, spatial_shape = array<i64: 3, 3, 3>, kernel_size = array<i64: 1, 1, 1>} : (tensor<4x4xi32>) -> (tensor<?x4xi32>, tensor<1x2x4xi32>, tensor<1xi32>)
  %c0 = arith.constant 0 : index
  %m = tensor.dim %o, %c0 : tensor<?x4xi32>
  %more = arith.addi %m, %m : index
  // expected-error @+1 {{'npu.sparse_conv3d' op cannot be lowered to the device: num_act_out has no known upper bound (use tensor.dim of get_indice_pairs' out_indices or a constant)}}
  %y = npu.sparse_conv3d %f, %w, %p, %n, %more : (tensor<4x2xf32>, tensor<1x2x3xf32>, tensor<1x2x4xi32>, tensor<1xi32>, index) -> tensor<?x3xf32>
  return %y : tensor<?x3xf32>
}

// -----

// A grid of 4 x 2048^3 i32 cells (128 GiB): auto takes the sort strategy,
// a forced grid (the GRID run above) is an error.
func.func @grid_requested(%idx: tensor<4x4xi32>) -> tensor<1xi32> {
  %o, %p, %n = npu.get_indice_pairs %idx {batch_size = 4 : i64, spatial_shape = array<i64: 2048, 2048, 2048>, kernel_size = array<i64: 1, 1, 1>} : (tensor<4x4xi32>) -> (tensor<?x4xi32>, tensor<1x2x4xi32>, tensor<1xi32>)
  return %n : tensor<1xi32>
}

// -----

// Every tensor lives in global memory: one larger than the device's is
// refused before any kernel is sized from it (a batch of 2^40).
// expected-error @+1 {{'func.func' op cannot be lowered for device 'mlu590': value of type 'tensor<1099511627776x2x4x8xf32>' needs 281474976710656 bytes of global memory, the device has 51539607552}}
func.func @beyond_global_memory(%q: tensor<1099511627776x2x4x8xf32>) -> tensor<1099511627776x2x4x8xf32> {
  %m, %s, %o = npu.flash_attention %q, %q, %q {input_layout = #npu.attention_layout<BNSD>, head_num = 2, scale = 0.5} : (tensor<1099511627776x2x4x8xf32>, tensor<1099511627776x2x4x8xf32>, tensor<1099511627776x2x4x8xf32>) -> (tensor<1099511627776x2x4x8xf32>, tensor<1099511627776x2x4x8xf32>, tensor<1099511627776x2x4x8xf32>)
  return %o : tensor<1099511627776x2x4x8xf32>
}

// -----

// A size whose bytes overflow int64.
// expected-error @+1 {{'func.func' op cannot be lowered for device 'mlu590': value of type 'tensor<4611686018427387904x4xf32>' needs more than 2^63 bytes of global memory, the device has 51539607552}}
func.func @bytes_overflow(%x: tensor<4611686018427387904x4xf32>) -> tensor<4611686018427387904x4xf32> {
  return %x : tensor<4611686018427387904x4xf32>
}

// -----

func.func @grid_sample_f64(%x: tensor<1x4x4x1xf64>, %g: tensor<1x2x2x2xf64>) -> tensor<1x2x2x1xf64> {
  // expected-error @+1 {{'npu.grid_sample' op cannot be lowered to the device: points are sampled in f64 from f16, bf16 or f32, got 'f64'}}
  %r = npu.grid_sample %x, %g : (tensor<1x4x4x1xf64>, tensor<1x2x2x2xf64>) -> tensor<1x2x2x1xf64>
  return %r : tensor<1x2x2x1xf64>
}

// -----

// TND's lengths as data leave a read mask without its positions.
func.func @packed_lengths_with_mask(%q: tensor<4x2x8xf32>, %l: tensor<1xi64>, %mask: tensor<?x?xi8>) -> tensor<4x2x8xf32> {
  // expected-error @+1 {{'npu.flash_attention' op cannot be lowered with sequence lengths read at run time: an atten_mask the mode reads needs them known when the kernel is built}}
  %m, %s, %o = npu.flash_attention %q, %q, %q mask %mask seq_qlen %l seq_kvlen %l {input_layout = #npu.attention_layout<TND>, head_num = 2, scale = 0.5, sparse_mode = 1} : (tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<?x?xi8>, tensor<1xi64>, tensor<1xi64>) -> (tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>)
  return %o : tensor<4x2x8xf32>
}

// -----

// npu.map_batch's body is one sample's graph of static shapes: a value of
// a size read at run time (defined above it) cannot be read there.
func.func @map_batch_dynamic_value(%x: tensor<?x4xf32>, %w: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %y = npu.map_batch(%x) : (tensor<?x4xf32>) -> tensor<?x4xf32> {
  ^bb0(%s: tensor<1x4xf32>):
    // expected-error @+1 {{'npu.relu' op cannot be lowered in an npu.map_batch: value of type 'tensor<?x4xf32>' has a size read at run time, and the body is one sample's graph of static shapes}}
    %r = npu.relu %w : tensor<?x4xf32> -> tensor<?x4xf32>
    npu.yield %s : tensor<1x4xf32>
  }
  return %y : tensor<?x4xf32>
}
