// npu-lower-to-device rejects what it cannot lower, naming the op.
// RUN: npu-opt %s --split-input-file --npu-lower-to-device --verify-diagnostics
// RUN: not npu-opt %s --npu-lower-to-device=device=tpu 2>&1 | FileCheck %s --check-prefix=DEVICE
// RUN: not npu-opt %s --npu-lower-to-device=sparse-conv-strategy=hash 2>&1 | FileCheck %s --check-prefix=STRATEGY

// RUN: not npu-opt %s --split-input-file --npu-lower-to-device=sparse-conv-strategy=grid 2>&1 | FileCheck %s --check-prefix=GRID

// STRATEGY: error: npu-lower-to-device: sparse-conv-strategy must be auto, grid or sort, got 'hash'
// GRID: error: 'npu.get_indice_pairs' op the grid strategy needs 137438953472 bytes of global memory for its grid, more than the 51539607552 of device 'mlu590'

// DEVICE: error: npu-lower-to-device: unknown device preset 'tpu' (known: mlu590, ascend910b)

func.func @no_kernel(%d: tensor<4x3xf32>, %i: tensor<2x1xi64>, %u: tensor<2x3xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{'npu.scatter_nd' op has no device lowering}}
  %r = npu.scatter_nd %d, %i, %u : (tensor<4x3xf32>, tensor<2x1xi64>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// -----

func.func @integer_pow(%x: tensor<4x8xi32>, %y: tensor<4x8xi32>) -> tensor<4x8xi32> {
  // expected-error @+1 {{'npu.pow' op cannot be lowered to the device: an integer pow needs a constant exponent in [0, 8]}}
  %r = npu.pow %x, %y : (tensor<4x8xi32>, tensor<4x8xi32>) -> tensor<4x8xi32>
  return %r : tensor<4x8xi32>
}

// -----

// A constant is stored element by element up to 256 elements (a splat of
// any size is filled by a launch); weights belong in arguments.
func.func @large_constant() -> tensor<257xf32> {
  // expected-error @+1 {{'npu.constant' op cannot be lowered to the device: a constant of 257 elements (more than 256 that are not all equal); pass weights as arguments, as npu-import-onnx does by default}}
  %c = npu.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0, 32.0, 33.0, 34.0, 35.0, 36.0, 37.0, 38.0, 39.0, 40.0, 41.0, 42.0, 43.0, 44.0, 45.0, 46.0, 47.0, 48.0, 49.0, 50.0, 51.0, 52.0, 53.0, 54.0, 55.0, 56.0, 57.0, 58.0, 59.0, 60.0, 61.0, 62.0, 63.0, 64.0, 65.0, 66.0, 67.0, 68.0, 69.0, 70.0, 71.0, 72.0, 73.0, 74.0, 75.0, 76.0, 77.0, 78.0, 79.0, 80.0, 81.0, 82.0, 83.0, 84.0, 85.0, 86.0, 87.0, 88.0, 89.0, 90.0, 91.0, 92.0, 93.0, 94.0, 95.0, 96.0, 97.0, 98.0, 99.0, 100.0, 101.0, 102.0, 103.0, 104.0, 105.0, 106.0, 107.0, 108.0, 109.0, 110.0, 111.0, 112.0, 113.0, 114.0, 115.0, 116.0, 117.0, 118.0, 119.0, 120.0, 121.0, 122.0, 123.0, 124.0, 125.0, 126.0, 127.0, 128.0, 129.0, 130.0, 131.0, 132.0, 133.0, 134.0, 135.0, 136.0, 137.0, 138.0, 139.0, 140.0, 141.0, 142.0, 143.0, 144.0, 145.0, 146.0, 147.0, 148.0, 149.0, 150.0, 151.0, 152.0, 153.0, 154.0, 155.0, 156.0, 157.0, 158.0, 159.0, 160.0, 161.0, 162.0, 163.0, 164.0, 165.0, 166.0, 167.0, 168.0, 169.0, 170.0, 171.0, 172.0, 173.0, 174.0, 175.0, 176.0, 177.0, 178.0, 179.0, 180.0, 181.0, 182.0, 183.0, 184.0, 185.0, 186.0, 187.0, 188.0, 189.0, 190.0, 191.0, 192.0, 193.0, 194.0, 195.0, 196.0, 197.0, 198.0, 199.0, 200.0, 201.0, 202.0, 203.0, 204.0, 205.0, 206.0, 207.0, 208.0, 209.0, 210.0, 211.0, 212.0, 213.0, 214.0, 215.0, 216.0, 217.0, 218.0, 219.0, 220.0, 221.0, 222.0, 223.0, 224.0, 225.0, 226.0, 227.0, 228.0, 229.0, 230.0, 231.0, 232.0, 233.0, 234.0, 235.0, 236.0, 237.0, 238.0, 239.0, 240.0, 241.0, 242.0, 243.0, 244.0, 245.0, 246.0, 247.0, 248.0, 249.0, 250.0, 251.0, 252.0, 253.0, 254.0, 255.0, 256.0]> : tensor<257xf32> -> tensor<257xf32>
  return %c : tensor<257xf32>
}

// -----

func.func @softmax_inner_axis(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'npu.softmax' op cannot be lowered to the device: softmax over axis 0 of 'tensor<4x8xf32>' (only the last axis is lowered)}}
  %r = npu.softmax %x {axis = 0 : i64} : tensor<4x8xf32> -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// An operand broadcast between dimensions it keeps ([3, 1, 9] onto
// [3, 5, 9]) is no tile of the result's [rows, W] view.
func.func @broadcast_inside(%a: tensor<3x1x9xf32>, %b: tensor<1x5x1xf32>) -> tensor<3x5x9xf32> {
  // expected-error @+1 {{'npu.add' op cannot be lowered to the device: broadcasting 'tensor<3x1x9xf32>' and 'tensor<1x5x1xf32>' to 'tensor<3x5x9xf32>' needs an operand broadcast between dimensions it keeps (supported: leading and trailing broadcasts)}}
  %r = npu.add %a, %b : (tensor<3x1x9xf32>, tensor<1x5x1xf32>) -> tensor<3x5x9xf32>
  return %r : tensor<3x5x9xf32>
}

// -----

// expected-error @+1 {{'func.func' op cannot be lowered to the device: value of type 'tensor<?xf32>' is not a statically shaped tensor}}
func.func @dynamic(%g: tensor<?xf32>, %i: tensor<4xi32>, %l: tensor<4xi32>, %d: tensor<6x8xf32>) -> tensor<4x8xf32> {
  %c = npu.moe_dispatch_backward_data %g, %i, %l, %d {capacity = 3, num_experts = 2} : (tensor<?xf32>, tensor<4xi32>, tensor<4xi32>, tensor<6x8xf32>) -> tensor<4x8xf32>
  return %c : tensor<4x8xf32>
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
