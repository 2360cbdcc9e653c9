// One negative case per verifier rule of the npu dialect.
// RUN: npu-opt %s --split-input-file --verify-diagnostics

func.func @conv_input_rank(%x: tensor<8x8x16xf32>, %w: tensor<4x3x3x16xf32>) {
  // expected-error @+1 {{'npu.conv2d' op input must have rank 4 (N, spatial..., C), got 3}}
  %0 = npu.conv2d %x, %w : (tensor<8x8x16xf32>, tensor<4x3x3x16xf32>) -> tensor<1x6x6x4xf32>
  return
}

// -----

func.func @conv3d_input_rank(%x: tensor<1x8x8x16xf32>, %w: tensor<4x3x3x3x16xf32>) {
  // expected-error @+1 {{'npu.conv3d' op input must have rank 5 (N, spatial..., C), got 4}}
  %0 = npu.conv3d %x, %w : (tensor<1x8x8x16xf32>, tensor<4x3x3x3x16xf32>) -> tensor<1x6x6x6x4xf32>
  return
}

// -----

func.func @conv_filter_rank(%x: tensor<1x8x8x16xf32>, %w: tensor<4x3x16xf32>) {
  // expected-error @+1 {{'npu.conv2d' op filter must have rank 4 (O, spatial..., I), got 3}}
  %0 = npu.conv2d %x, %w : (tensor<1x8x8x16xf32>, tensor<4x3x16xf32>) -> tensor<1x6x6x4xf32>
  return
}

// -----

func.func @conv_element_type(%x: tensor<1x8x8x16xf32>, %w: tensor<4x3x3x16xf16>) {
  // expected-error @+1 {{'npu.conv2d' op operands must have the same element type, got 'f32' and 'f16'}}
  %0 = npu.conv2d %x, %w : (tensor<1x8x8x16xf32>, tensor<4x3x3x16xf16>) -> tensor<1x6x6x4xf32>
  return
}

// -----

func.func @conv_strides_size(%x: tensor<1x8x8x16xf32>, %w: tensor<4x3x3x16xf32>) {
  // expected-error @+1 {{'npu.conv2d' op attribute 'strides' must have 2 elements, got 3}}
  %0 = npu.conv2d %x, %w {strides = array<i64: 1, 1, 1>} : (tensor<1x8x8x16xf32>, tensor<4x3x3x16xf32>) -> tensor<1x6x6x4xf32>
  return
}

// -----

func.func @conv_strides_positive(%x: tensor<1x8x8x16xf32>, %w: tensor<4x3x3x16xf32>) {
  // expected-error @+1 {{'npu.conv2d' op attribute 'strides' must have elements >= 1, got [1, 0]}}
  %0 = npu.conv2d %x, %w {strides = array<i64: 1, 0>} : (tensor<1x8x8x16xf32>, tensor<4x3x3x16xf32>) -> tensor<1x6x6x4xf32>
  return
}

// -----

func.func @conv_padding_negative(%x: tensor<1x8x8x16xf32>, %w: tensor<4x3x3x16xf32>) {
  // expected-error @+1 {{'npu.conv2d' op attribute 'padding' must have elements >= 0, got [0, -1, 0, 0]}}
  %0 = npu.conv2d %x, %w {padding = array<i64: 0, -1, 0, 0>} : (tensor<1x8x8x16xf32>, tensor<4x3x3x16xf32>) -> tensor<1x6x6x4xf32>
  return
}

// -----

func.func @conv_dilations(%x: tensor<1x8x8x16xf32>, %w: tensor<4x3x3x16xf32>) {
  // expected-error @+1 {{'npu.conv2d' op attribute 'dilations' must have elements >= 1, got [0, 1]}}
  %0 = npu.conv2d %x, %w {dilations = array<i64: 0, 1>} : (tensor<1x8x8x16xf32>, tensor<4x3x3x16xf32>) -> tensor<1x6x6x4xf32>
  return
}

// -----

func.func @conv_groups_positive(%x: tensor<1x8x8x16xf32>, %w: tensor<4x3x3x16xf32>) {
  // expected-error @+1 {{'npu.conv2d' op attribute 'groups' must be >= 1, got 0}}
  %0 = npu.conv2d %x, %w {groups = 0} : (tensor<1x8x8x16xf32>, tensor<4x3x3x16xf32>) -> tensor<1x6x6x4xf32>
  return
}

// -----

func.func @conv_groups_input(%x: tensor<1x8x8x15xf32>, %w: tensor<4x3x3x5xf32>) {
  // expected-error @+1 {{'npu.conv2d' op input channels (15) must be divisible by groups (2)}}
  %0 = npu.conv2d %x, %w {groups = 2} : (tensor<1x8x8x15xf32>, tensor<4x3x3x5xf32>) -> tensor<1x6x6x4xf32>
  return
}

// -----

func.func @conv_groups_output(%x: tensor<1x8x8x16xf32>, %w: tensor<5x3x3x8xf32>) {
  // expected-error @+1 {{'npu.conv2d' op output channels (5) must be divisible by groups (2)}}
  %0 = npu.conv2d %x, %w {groups = 2} : (tensor<1x8x8x16xf32>, tensor<5x3x3x8xf32>) -> tensor<1x6x6x5xf32>
  return
}

// -----

func.func @conv_filter_channels(%x: tensor<1x8x8x16xf32>, %w: tensor<4x3x3x8xf32>) {
  // expected-error @+1 {{'npu.conv2d' op filter input channels (8) times groups (1) must equal input channels (16)}}
  %0 = npu.conv2d %x, %w : (tensor<1x8x8x16xf32>, tensor<4x3x3x8xf32>) -> tensor<1x6x6x4xf32>
  return
}

// -----

// 4 x 2^62 wrapped to 0, which equalled the empty input's channels
// (issue #13).
func.func @conv_filter_channels_overflow(%x: tensor<1x8x8x0xf32>, %w: tensor<0x3x3x4xf32>) {
  // expected-error @+1 {{'npu.conv2d' op filter input channels (4) times groups (4611686018427387904) must equal input channels (0)}}
  %0 = npu.conv2d %x, %w {groups = 4611686018427387904} : (tensor<1x8x8x0xf32>, tensor<0x3x3x4xf32>) -> tensor<1x6x6x0xf32>
  return
}

// -----

func.func @conv_padding_overflow(%x: tensor<1x8x8x16xf32>, %w: tensor<4x3x3x16xf32>) {
  // expected-error @+1 {{'npu.conv2d' op spatial dimension 0 of size 8 padded by (9223372036854775807, 0) with kernel extent 3 and dilation 1 has extents that do not fit in 64 bits}}
  %0 = npu.conv2d %x, %w {padding = array<i64: 9223372036854775807, 0, 0, 0>} : (tensor<1x8x8x16xf32>, tensor<4x3x3x16xf32>) -> tensor<1x6x6x4xf32>
  return
}

// -----

func.func @conv_dilation_overflow(%x: tensor<1x8x8x16xf32>, %w: tensor<4x3x3x16xf32>) {
  // expected-error @+1 {{'npu.conv2d' op spatial dimension 1 of size 8 padded by (0, 0) with kernel extent 3 and dilation 4611686018427387904 has extents that do not fit in 64 bits}}
  %0 = npu.conv2d %x, %w {dilations = array<i64: 1, 4611686018427387904>} : (tensor<1x8x8x16xf32>, tensor<4x3x3x16xf32>) -> tensor<1x6x6x4xf32>
  return
}

// -----

func.func @conv_bias(%x: tensor<1x8x8x16xf32>, %w: tensor<4x3x3x16xf32>, %b: tensor<5xf32>) {
  // expected-error @+1 {{'npu.conv2d' op bias must have shape [4], got [5]}}
  %0 = npu.conv2d %x, %w, %b : (tensor<1x8x8x16xf32>, tensor<4x3x3x16xf32>, tensor<5xf32>) -> tensor<1x6x6x4xf32>
  return
}

// -----

func.func @conv_kernel_extent(%x: tensor<1x8x8x16xf32>, %w: tensor<4x0x3x16xf32>) {
  // expected-error @+1 {{'npu.conv2d' op kernel extent 0 of spatial dimension 0 must be positive}}
  %0 = npu.conv2d %x, %w : (tensor<1x8x8x16xf32>, tensor<4x0x3x16xf32>) -> tensor<1x6x6x4xf32>
  return
}

// -----

func.func @conv_window_fits(%x: tensor<1x2x8x16xf32>, %w: tensor<4x3x3x16xf32>) {
  // expected-error @+1 {{'npu.conv2d' op spatial dimension 0 of size 2 padded by (0, 0) is smaller than the dilated kernel extent 3}}
  %0 = npu.conv2d %x, %w : (tensor<1x2x8x16xf32>, tensor<4x3x3x16xf32>) -> tensor<1x0x6x4xf32>
  return
}

// -----

func.func @conv_result_type(%x: tensor<1x8x8x16xf32>, %w: tensor<4x3x3x16xf32>) {
  // expected-error @+1 {{'npu.conv2d' op result type 'tensor<1x8x8x4xf32>' differs from the inferred 'tensor<1x6x6x4xf32>'}}
  %0 = npu.conv2d %x, %w : (tensor<1x8x8x16xf32>, tensor<4x3x3x16xf32>) -> tensor<1x8x8x4xf32>
  return
}

// -----

func.func @matmul_rank(%a: tensor<8xf32>, %b: tensor<8x4xf32>) {
  // expected-error @+1 {{'npu.matmul' op operands must have rank >= 2, got 1 and 2}}
  %0 = npu.matmul %a, %b : (tensor<8xf32>, tensor<8x4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @matmul_element_type(%a: tensor<2x8xf32>, %b: tensor<8x4xi32>) {
  // expected-error @+1 {{'npu.matmul' op operands must have the same element type, got 'f32' and 'i32'}}
  %0 = npu.matmul %a, %b : (tensor<2x8xf32>, tensor<8x4xi32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @matmul_contraction(%a: tensor<2x8xf32>, %b: tensor<7x4xf32>) {
  // expected-error @+1 {{'npu.matmul' op contraction sizes differ: lhs has K = 8, rhs has K = 7}}
  %0 = npu.matmul %a, %b : (tensor<2x8xf32>, tensor<7x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @matmul_batch(%a: tensor<3x2x8xf32>, %b: tensor<2x8x4xf32>) {
  // expected-error @+1 {{'npu.matmul' op batch dimensions [3] and [2] are not broadcast-compatible}}
  %0 = npu.matmul %a, %b : (tensor<3x2x8xf32>, tensor<2x8x4xf32>) -> tensor<3x2x4xf32>
  return
}

// -----

func.func @matmul_bias(%a: tensor<2x8xf32>, %b: tensor<8x4xf32>, %c: tensor<2x4xf32>) {
  // expected-error @+1 {{'npu.matmul' op bias must have shape [4], got [2, 4]}}
  %0 = npu.matmul %a, %b, %c : (tensor<2x8xf32>, tensor<8x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

func.func @pool_rank(%x: tensor<8x8x16xf32>) {
  // expected-error @+1 {{'npu.max_pool' op input must have rank 4 (N, H, W, C), got 3}}
  %0 = npu.max_pool %x {kernel = array<i64: 2, 2>} : tensor<8x8x16xf32> -> tensor<7x7x16xf32>
  return
}

// -----

func.func @pool_kernel(%x: tensor<1x8x8x16xf32>) {
  // expected-error @+1 {{'npu.avg_pool' op attribute 'kernel' must have 2 elements, got 1}}
  %0 = npu.avg_pool %x {kernel = array<i64: 2>} : tensor<1x8x8x16xf32> -> tensor<1x7x7x16xf32>
  return
}

// -----

func.func @pool_strides(%x: tensor<1x8x8x16xf32>) {
  // expected-error @+1 {{'npu.max_pool' op attribute 'strides' must have elements >= 1, got [0, 1]}}
  %0 = npu.max_pool %x {kernel = array<i64: 2, 2>, strides = array<i64: 0, 1>} : tensor<1x8x8x16xf32> -> tensor<1x7x7x16xf32>
  return
}

// -----

func.func @pool_padding(%x: tensor<1x8x8x16xf32>) {
  // expected-error @+1 {{'npu.max_pool' op padding of spatial dimension 1 must be smaller than the kernel extent 2, got [0, 0, 2, 0]}}
  %0 = npu.max_pool %x {kernel = array<i64: 2, 2>, padding = array<i64: 0, 0, 2, 0>} : tensor<1x8x8x16xf32> -> tensor<1x7x9x16xf32>
  return
}

// -----

func.func @pool_window(%x: tensor<1x8x1x16xf32>) {
  // expected-error @+1 {{'npu.max_pool' op spatial dimension 1 of size 1 padded by (0, 0) is smaller than the dilated kernel extent 2}}
  %0 = npu.max_pool %x {kernel = array<i64: 2, 2>} : tensor<1x8x1x16xf32> -> tensor<1x7x1x16xf32>
  return
}

// -----

func.func @reduce_empty_axes(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'npu.reduce' op attribute 'axes' must not be empty}}
  %0 = npu.reduce <sum> %x {axes = array<i64>} : tensor<2x4xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @reduce_axis_range(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'npu.reduce' op attribute 'axes' = 2 is out of range [0, 2) for a rank-2 input}}
  %0 = npu.reduce <sum> %x {axes = array<i64: 2>} : tensor<2x4xf32> -> tensor<2xf32>
  return
}

// -----

func.func @reduce_repeated_axis(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{'npu.reduce' op attribute 'axes' repeats axis 1}}
  %0 = npu.reduce <max> %x {axes = array<i64: 1, 1>} : tensor<2x4xf32> -> tensor<2xf32>
  return
}

// -----

func.func @reduce_kind(%x: tensor<2x4xf32>) {
  // expected-error @+2 {{expected ::npu::graph::ReduceKind to be one of: sum, max, min, mean}}
  // expected-error @+1 {{failed to parse NPU_ReduceKindAttr parameter 'value'}}
  %0 = npu.reduce <prod> %x {axes = array<i64: 1>} : tensor<2x4xf32> -> tensor<2xf32>
  return
}

// -----

func.func @transpose_perms(%x: tensor<2x3x4xf32>) {
  // expected-error @+1 {{'npu.transpose' op attribute 'perms' [0, 2, 2] is not a permutation of [0, 3)}}
  %0 = npu.transpose %x, [0, 2, 2] : tensor<2x3x4xf32> -> tensor<2x4x4xf32>
  return
}

// -----

func.func @concat_no_inputs() {
  // expected-error @+1 {{'npu.concat' op needs at least one input}}
  %0 = npu.concat {axis = 0} : () -> tensor<1xf32>
  return
}

// -----

func.func @concat_axis(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'npu.concat' op attribute 'axis' = 2 is out of range [0, 2) for a rank-2 input}}
  %0 = npu.concat %a, %a {axis = 2} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return
}

// -----

func.func @concat_rank(%a: tensor<2x3xf32>, %b: tensor<2x3x1xf32>) {
  // expected-error @+1 {{'npu.concat' op input #1 has rank 3, input #0 has rank 2}}
  %0 = npu.concat %a, %b {axis = 1} : (tensor<2x3xf32>, tensor<2x3x1xf32>) -> tensor<2x6xf32>
  return
}

// -----

func.func @concat_dims(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>) {
  // expected-error @+1 {{'npu.concat' op input #1 has size 4 in dimension 0 where input #0 has 2 (only axis 1 may differ)}}
  %0 = npu.concat %a, %b {axis = 1} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x6xf32>
  return
}

// -----

func.func @concat_element_type(%a: tensor<2x3xf32>, %b: tensor<2x3xf16>) {
  // expected-error @+1 {{'npu.concat' op operands must have the same element type, got 'f32' and 'f16'}}
  %0 = npu.concat %a, %b {axis = 1} : (tensor<2x3xf32>, tensor<2x3xf16>) -> tensor<2x6xf32>
  return
}

// -----

func.func @scatter_index_type(%d: tensor<2x3xf32>, %i: tensor<2x3xf32>) {
  // expected-error @+1 {{'npu.scatter' op operand #1 must be ranked tensor of signless integer values}}
  %0 = npu.scatter %d, %i, %d {axis = 0} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @scatter_shapes(%d: tensor<2x3xf32>, %i: tensor<2x2xi32>, %u: tensor<2x3xf32>) {
  // expected-error @+1 {{'npu.scatter' op indices [2, 2] and updates [2, 3] must have one shape of the data's rank 2}}
  %0 = npu.scatter %d, %i, %u {axis = 0} : (tensor<2x3xf32>, tensor<2x2xi32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @scatter_axis(%d: tensor<2x3xf32>, %i: tensor<2x3xi32>) {
  // expected-error @+1 {{'npu.scatter' op attribute 'axis' = -1 is out of range [0, 2) for a rank-2 input}}
  %0 = npu.scatter %d, %i, %d {axis = -1} : (tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @pad_size(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'npu.pad' op attribute 'pad_low' must have 2 elements, got 1}}
  %0 = npu.pad %x {pad_low = array<i64: 1>, pad_high = array<i64: 0, 0>} : tensor<2x3xf32> -> tensor<3x3xf32>
  return
}

// -----

func.func @pad_negative(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'npu.pad' op attribute 'pad_high' must have elements >= 0, got [0, -1]}}
  %0 = npu.pad %x {pad_low = array<i64: 0, 0>, pad_high = array<i64: 0, -1>} : tensor<2x3xf32> -> tensor<2x2xf32>
  return
}

// -----

func.func @slice_order(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'npu.slice' op dimension 1: need 0 <= start (5) <= end (4) <= size (8)}}
  %0 = npu.slice %x {start = array<i64: 0, 5>, end = array<i64: 2, 4>} : tensor<2x8xf32> -> tensor<2x0xf32>
  return
}

// -----

func.func @slice_bound(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'npu.slice' op dimension 1: need 0 <= start (0) <= end (9) <= size (8)}}
  %0 = npu.slice %x {start = array<i64: 0, 0>, end = array<i64: 2, 9>} : tensor<2x8xf32> -> tensor<2x9xf32>
  return
}

// -----

func.func @slice_start_negative(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'npu.slice' op attribute 'start' must have elements >= 0, got [-1, 0]}}
  %0 = npu.slice %x {start = array<i64: -1, 0>, end = array<i64: 2, 8>} : tensor<2x8xf32> -> tensor<3x8xf32>
  return
}

// -----

func.func @slice_sizes(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'npu.slice' op attribute 'end' must have 2 elements, got 1}}
  %0 = npu.slice %x {start = array<i64: 0, 0>, end = array<i64: 2>} : tensor<2x8xf32> -> tensor<2x8xf32>
  return
}

// -----

func.func @slice_strides(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'npu.slice' op attribute 'strides' must have elements >= 1, got [1, 0]}}
  %0 = npu.slice %x {start = array<i64: 0, 0>, end = array<i64: 2, 8>, strides = array<i64: 1, 0>} : tensor<2x8xf32> -> tensor<2x8xf32>
  return
}

// -----

func.func @reshape_count(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'npu.reshape' op cannot reshape 16 elements [2, 8] into 15 elements [3, 5]}}
  %0 = npu.reshape %x : tensor<2x8xf32> -> tensor<3x5xf32>
  return
}

// -----

func.func @reshape_element_type(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'npu.reshape' op result element type 'f16' differs from the input's 'f32'}}
  %0 = npu.reshape %x : tensor<2x8xf32> -> tensor<16xf16>
  return
}

// -----

func.func @cast_shape(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'npu.cast' op result shape [8, 2] differs from the input's [2, 8]}}
  %0 = npu.cast %x : tensor<2x8xf32> -> tensor<8x2xf16>
  return
}

// -----

func.func @constant_type() {
  // expected-error @+1 {{'npu.constant' op result type 'tensor<3xf32>' differs from the inferred 'tensor<2xf32>'}}
  %0 = npu.constant dense<1.0> : tensor<2xf32> -> tensor<3xf32>
  return
}

// -----

func.func @channel_norm_input(%x: tensor<1x2x2x3xf32, #npu.layout<align>>) {
  // expected-error @+1 {{'npu.channel_norm' op converts to_align but its input is already align}}
  %0 = npu.channel_norm <to_align> %x : tensor<1x2x2x3xf32, #npu.layout<align>> -> tensor<1x2x2x3xf32, #npu.layout<align>>
  return
}

// -----

func.func @channel_norm_result(%x: tensor<1x2x2x3xf32, #npu.layout<align>>) {
  // expected-error @+1 {{'npu.channel_norm' op converts to_nalign but its result is declared align}}
  %0 = npu.channel_norm <to_nalign> %x : tensor<1x2x2x3xf32, #npu.layout<align>> -> tensor<1x2x2x3xf32, #npu.layout<align>>
  return
}

// -----

func.func @channel_norm_shape(%x: tensor<1x2x2x3xf32>) {
  // expected-error @+1 {{'npu.channel_norm' op result type 'tensor<1x2x2x4xf32>' differs from the inferred 'tensor<1x2x2x3xf32>'}}
  %0 = npu.channel_norm <to_align> %x : tensor<1x2x2x3xf32> -> tensor<1x2x2x4xf32>
  return
}

// -----

func.func @float_only(%x: tensor<2x8xi32>) {
  // expected-error @+1 {{'npu.exp' op operand #0 must be ranked tensor of floating-point values}}
  %0 = npu.exp %x : tensor<2x8xi32> -> tensor<2x8xi32>
  return
}

// -----

func.func @unary_result(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'npu.relu' op result type 'tensor<8x2xf32>' differs from the inferred 'tensor<2x8xf32>'}}
  %0 = npu.relu %x : tensor<2x8xf32> -> tensor<8x2xf32>
  return
}

// -----

func.func @element_types_only(%x: tensor<2x8xcomplex<f32>>) {
  // expected-error @+1 {{'npu.relu' op operand #0 must be ranked tensor of floating-point or signless integer values}}
  %0 = npu.relu %x : tensor<2x8xcomplex<f32>> -> tensor<2x8xcomplex<f32>>
  return
}

// -----

func.func @binary_broadcast(%a: tensor<2x8xf32>, %b: tensor<3x8xf32>) {
  // expected-error @+1 {{'npu.add' op operand shapes [2, 8] and [3, 8] are not broadcast-compatible}}
  %0 = npu.add %a, %b : (tensor<2x8xf32>, tensor<3x8xf32>) -> tensor<2x8xf32>
  return
}

// -----

func.func @binary_element_type(%a: tensor<2x8xf32>, %b: tensor<2x8xi32>) {
  // expected-error @+1 {{'npu.mul' op operands must have the same element type, got 'f32' and 'i32'}}
  %0 = npu.mul %a, %b : (tensor<2x8xf32>, tensor<2x8xi32>) -> tensor<2x8xf32>
  return
}

// -----

func.func @vector_scalar_shape(%x: tensor<2x1xf32>, %c: tensor<8xf32>) {
  // expected-error @+1 {{'npu.vs_add' op scalar operand of shape [8] must broadcast onto the input shape [2, 1] without changing it}}
  %0 = npu.vs_add %x, %c : (tensor<2x1xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return
}

// -----

func.func @softmax_axis(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'npu.softmax' op attribute 'axis' = 2 is out of range [-2, 2) for a rank-2 input}}
  %0 = npu.softmax %x {axis = 2} : tensor<2x8xf32> -> tensor<2x8xf32>
  return
}

// -----

func.func @layer_norm_axis(%x: tensor<2x8xf32>, %g: tensor<8xf32>) {
  // expected-error @+1 {{'npu.layer_norm' op attribute 'axis' = -3 is out of range [-2, 2) for a rank-2 input}}
  %0 = npu.layer_norm %x, %g, %g {axis = -3} : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return
}

// -----

func.func @layer_norm_gamma(%x: tensor<2x8xf32>, %g: tensor<4xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{'npu.layer_norm' op gamma must be [8] of 'f32', got 'tensor<4xf32>'}}
  %0 = npu.layer_norm %x, %g, %b : (tensor<2x8xf32>, tensor<4xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return
}

// -----

func.func @layer_norm_beta(%x: tensor<2x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf16>) {
  // expected-error @+1 {{'npu.layer_norm' op beta must be [8] of 'f32', got 'tensor<8xf16>'}}
  %0 = npu.layer_norm %x, %g, %b : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf16>) -> tensor<2x8xf32>
  return
}

// -----

func.func @layer_norm_epsilon(%x: tensor<2x8xf32>, %g: tensor<8xf32>) {
  // expected-error @+1 {{'npu.layer_norm' op attribute 'epsilon' must be positive, got 0}}
  %0 = npu.layer_norm %x, %g, %g {epsilon = 0.0 : f32} : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return
}

// -----

// expected-error @+1 {{#npu.layout must be align or nalign, got both}}
func.func @layout_mode(%x: tensor<2x8xf32, #npu.layout<both>>) {
  return
}

// -----

// expected-error @+1 {{#npu.layout<align> needs a tensor of rank 2 or at least 4 (the aligned Cx form), got rank 3}}
func.func @layout_rank(%x: tensor<2x8x4xf32, #npu.layout<align>>) {
  return
}

// -----

func.func @dev_info_type(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'npu.dev_info' must be an #npu.align_mode attribute, got "align"}}
  %0 = npu.relu %x {npu.dev_info = "align"} : tensor<2x8xf32> -> tensor<2x8xf32>
  return
}

// -----

func.func @dev_info_mode(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{'npu.dev_info' must pin align or nalign, got both}}
  %0 = npu.relu %x {npu.dev_info = #npu.align_mode<both>} : tensor<2x8xf32> -> tensor<2x8xf32>
  return
}

// -----

func.func @unknown_attribute(%x: tensor<2x8xf32>) {
  // expected-error @+1 {{unknown npu attribute 'npu.devinfo'}}
  %0 = npu.relu %x {npu.devinfo = #npu.align_mode<align>} : tensor<2x8xf32> -> tensor<2x8xf32>
  return
}

// -----


// Every unary op: float-only ones reject integers, the others check shape.
func.func @gelu_float_only(%x: tensor<4xi8>) {
  // expected-error @+1 {{'npu.gelu' op operand #0 must be ranked tensor of floating-point values}}
  %0 = npu.gelu %x : tensor<4xi8> -> tensor<4xi8>
  return
}

// -----

func.func @log_float_only(%x: tensor<4xi8>) {
  // expected-error @+1 {{'npu.log' op operand #0 must be ranked tensor of floating-point values}}
  %0 = npu.log %x : tensor<4xi8> -> tensor<4xi8>
  return
}

// -----

func.func @tanh_float_only(%x: tensor<4xi8>) {
  // expected-error @+1 {{'npu.tanh' op operand #0 must be ranked tensor of floating-point values}}
  %0 = npu.tanh %x : tensor<4xi8> -> tensor<4xi8>
  return
}

// -----

func.func @sigmoid_float_only(%x: tensor<4xi8>) {
  // expected-error @+1 {{'npu.sigmoid' op operand #0 must be ranked tensor of floating-point values}}
  %0 = npu.sigmoid %x : tensor<4xi8> -> tensor<4xi8>
  return
}

// -----

func.func @sqrt_float_only(%x: tensor<4xi8>) {
  // expected-error @+1 {{'npu.sqrt' op operand #0 must be ranked tensor of floating-point values}}
  %0 = npu.sqrt %x : tensor<4xi8> -> tensor<4xi8>
  return
}

// -----

func.func @rsqrt_float_only(%x: tensor<4xi8>) {
  // expected-error @+1 {{'npu.rsqrt' op operand #0 must be ranked tensor of floating-point values}}
  %0 = npu.rsqrt %x : tensor<4xi8> -> tensor<4xi8>
  return
}

// -----

func.func @neg_shape(%x: tensor<4xi8>) {
  // expected-error @+1 {{'npu.neg' op result type 'tensor<5xi8>' differs from the inferred 'tensor<4xi8>'}}
  %0 = npu.neg %x : tensor<4xi8> -> tensor<5xi8>
  return
}

// -----

func.func @abs_shape(%x: tensor<4xi8>) {
  // expected-error @+1 {{'npu.abs' op result type 'tensor<5xi8>' differs from the inferred 'tensor<4xi8>'}}
  %0 = npu.abs %x : tensor<4xi8> -> tensor<5xi8>
  return
}

// -----

func.func @sub_broadcast(%a: tensor<2x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'npu.sub' op operand shapes [2, 3] and [4] are not broadcast-compatible}}
  %0 = npu.sub %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @div_broadcast(%a: tensor<2x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'npu.div' op operand shapes [2, 3] and [4] are not broadcast-compatible}}
  %0 = npu.div %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @max_broadcast(%a: tensor<2x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'npu.max' op operand shapes [2, 3] and [4] are not broadcast-compatible}}
  %0 = npu.max %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @min_broadcast(%a: tensor<2x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'npu.min' op operand shapes [2, 3] and [4] are not broadcast-compatible}}
  %0 = npu.min %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @vs_sub_shape(%x: tensor<2x3xf32>, %s: tensor<2x1x3xf32>) {
  // expected-error @+1 {{'npu.vs_sub' op scalar operand of shape [2, 1, 3] must broadcast onto the input shape [2, 3] without changing it}}
  %0 = npu.vs_sub %x, %s : (tensor<2x3xf32>, tensor<2x1x3xf32>) -> tensor<2x2x3xf32>
  return
}

// -----

func.func @vs_mul_shape(%x: tensor<2x3xf32>, %s: tensor<2x1x3xf32>) {
  // expected-error @+1 {{'npu.vs_mul' op scalar operand of shape [2, 1, 3] must broadcast onto the input shape [2, 3] without changing it}}
  %0 = npu.vs_mul %x, %s : (tensor<2x3xf32>, tensor<2x1x3xf32>) -> tensor<2x2x3xf32>
  return
}

// -----

func.func @vs_div_shape(%x: tensor<2x3xf32>, %s: tensor<2x1x3xf32>) {
  // expected-error @+1 {{'npu.vs_div' op scalar operand of shape [2, 1, 3] must broadcast onto the input shape [2, 3] without changing it}}
  %0 = npu.vs_div %x, %s : (tensor<2x3xf32>, tensor<2x1x3xf32>) -> tensor<2x2x3xf32>
  return
}

// -----

func.func @vs_max_shape(%x: tensor<2x3xf32>, %s: tensor<2x1x3xf32>) {
  // expected-error @+1 {{'npu.vs_max' op scalar operand of shape [2, 1, 3] must broadcast onto the input shape [2, 3] without changing it}}
  %0 = npu.vs_max %x, %s : (tensor<2x3xf32>, tensor<2x1x3xf32>) -> tensor<2x2x3xf32>
  return
}

// -----

func.func @vs_min_shape(%x: tensor<2x3xf32>, %s: tensor<2x1x3xf32>) {
  // expected-error @+1 {{'npu.vs_min' op scalar operand of shape [2, 1, 3] must broadcast onto the input shape [2, 3] without changing it}}
  %0 = npu.vs_min %x, %s : (tensor<2x3xf32>, tensor<2x1x3xf32>) -> tensor<2x2x3xf32>
  return
}

// -----

func.func @vs_element_type(%x: tensor<2x3xf32>, %s: tensor<3xf16>) {
  // expected-error @+1 {{'npu.vs_add' op operands must have the same element type, got 'f32' and 'f16'}}
  %0 = npu.vs_add %x, %s : (tensor<2x3xf32>, tensor<3xf16>) -> tensor<2x3xf32>
  return
}

// -----

// The parameter checks of mlu-ops' MoE dispatch backward
// (mluOpMoeDispatchBackwardData).
func.func @moe_gates_type(%g: tensor<8xf64>, %i: tensor<8xi32>, %d: tensor<12x16xf64>) {
  // expected-error @+1 {{'npu.moe_dispatch_backward_data' op operand #0 must be ranked tensor of 32-bit float or 16-bit float or bfloat16 type values}}
  %0 = npu.moe_dispatch_backward_data %g, %i, %i, %d {capacity = 6, num_experts = 2} : (tensor<8xf64>, tensor<8xi32>, tensor<8xi32>, tensor<12x16xf64>) -> tensor<8x16xf64>
  return
}

// -----

// Gates and data share one float type (tutel's single dtype).
func.func @moe_mixed_float_types(%g: tensor<8xf16>, %i: tensor<8xi32>, %d: tensor<12x16xf32>) {
  // expected-error @+1 {{'npu.moe_dispatch_backward_data' op dispatch has element type 'f32', gates has 'f16': the float operands must share one type}}
  %0 = npu.moe_dispatch_backward_data %g, %i, %i, %d {capacity = 6, num_experts = 2} : (tensor<8xf16>, tensor<8xi32>, tensor<8xi32>, tensor<12x16xf32>) -> tensor<8x16xf32>
  return
}

// -----

func.func @moe_gate_input_types(%i: tensor<8xi32>, %x: tensor<8x16xbf16>, %d: tensor<12x16xf16>) {
  // expected-error @+1 {{'npu.moe_dispatch_backward_gate' op dispatch has element type 'f16', input has 'bf16': the float operands must share one type}}
  %0 = npu.moe_dispatch_backward_gate %i, %i, %x, %d {capacity = 6, num_experts = 2} : (tensor<8xi32>, tensor<8xi32>, tensor<8x16xbf16>, tensor<12x16xf16>) -> tensor<8xbf16>
  return
}

// -----

// The result has the operands' float type.
func.func @moe_result_type(%g: tensor<8xbf16>, %i: tensor<8xi32>, %x: tensor<8x16xbf16>) {
  // expected-error @+1 {{'npu.moe_dispatch_forward' op result type 'tensor<12x16xf32>' differs from the inferred 'tensor<12x16xbf16>'}}
  %0 = npu.moe_dispatch_forward %g, %i, %i, %x {capacity = 6, num_experts = 2} : (tensor<8xbf16>, tensor<8xi32>, tensor<8xi32>, tensor<8x16xbf16>) -> tensor<12x16xf32>
  return
}

// -----

func.func @moe_indices_type(%g: tensor<8xf32>, %i: tensor<8xi64>, %l: tensor<8xi32>, %d: tensor<12x16xf32>) {
  // expected-error @+1 {{'npu.moe_dispatch_backward_data' op operand #1 must be ranked tensor of 32-bit signless integer values}}
  %0 = npu.moe_dispatch_backward_data %g, %i, %l, %d {capacity = 6, num_experts = 2} : (tensor<8xf32>, tensor<8xi64>, tensor<8xi32>, tensor<12x16xf32>) -> tensor<8x16xf32>
  return
}

// -----

func.func @moe_samples(%g: tensor<7xf32>, %i: tensor<8xi32>, %d: tensor<12x16xf32>) {
  // expected-error @+1 {{'npu.moe_dispatch_backward_data' op gates has 7 samples, indices has 8}}
  %0 = npu.moe_dispatch_backward_data %g, %i, %i, %d {capacity = 6, num_experts = 2} : (tensor<7xf32>, tensor<8xi32>, tensor<8xi32>, tensor<12x16xf32>) -> tensor<8x16xf32>
  return
}

// -----

func.func @moe_rank(%g: tensor<8xf32>, %i: tensor<8x1xi32>, %l: tensor<8xi32>, %d: tensor<12x16xf32>) {
  // expected-error @+1 {{'npu.moe_dispatch_backward_data' op indices must have rank 1 ([samples]), got 'tensor<8x1xi32>'}}
  %0 = npu.moe_dispatch_backward_data %g, %i, %l, %d {capacity = 6, num_experts = 2} : (tensor<8xf32>, tensor<8x1xi32>, tensor<8xi32>, tensor<12x16xf32>) -> tensor<8x16xf32>
  return
}

// -----

func.func @moe_dispatch_rows(%g: tensor<8xf32>, %i: tensor<8xi32>, %d: tensor<12x16xf32>) {
  // expected-error @+1 {{'npu.moe_dispatch_backward_data' op dispatch has 12 rows, expected 10 (num_experts * capacity)}}
  %0 = npu.moe_dispatch_backward_data %g, %i, %i, %d {capacity = 5, num_experts = 2} : (tensor<8xf32>, tensor<8xi32>, tensor<8xi32>, tensor<12x16xf32>) -> tensor<8x16xf32>
  return
}

// -----

func.func @moe_hidden(%g: tensor<8xf32>, %i: tensor<8xi32>, %x: tensor<8x15xf32>, %d: tensor<12x16xf32>) {
  // expected-error @+1 {{'npu.moe_dispatch_backward_gate' op dispatch and input disagree on hidden: 16 vs 15}}
  %0 = npu.moe_dispatch_backward_gate %i, %i, %x, %d {capacity = 6, num_experts = 2} : (tensor<8xi32>, tensor<8xi32>, tensor<8x15xf32>, tensor<12x16xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @moe_input_rows(%g: tensor<8xf32>, %i: tensor<8xi32>, %x: tensor<9x16xf32>) {
  // expected-error @+1 {{'npu.moe_dispatch_forward' op input has 9 rows, expected 8 (samples)}}
  %0 = npu.moe_dispatch_forward %g, %i, %i, %x {capacity = 6, num_experts = 2} : (tensor<8xf32>, tensor<8xi32>, tensor<8xi32>, tensor<9x16xf32>) -> tensor<12x16xf32>
  return
}

// -----

func.func @moe_capacity(%g: tensor<8xf32>, %i: tensor<8xi32>, %d: tensor<12x16xf32>) {
  // expected-error @+1 {{'npu.moe_dispatch_backward_data' op attribute 'capacity' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %0 = npu.moe_dispatch_backward_data %g, %i, %i, %d {capacity = -6, num_experts = 2} : (tensor<8xf32>, tensor<8xi32>, tensor<8xi32>, tensor<12x16xf32>) -> tensor<8x16xf32>
  return
}

// -----

// moe_combine's per-sample operands are [k, samples].
func.func @moe_combine_rank(%g: tensor<8xf32>, %i: tensor<2x8xi32>, %d: tensor<12x16xf32>) {
  // expected-error @+1 {{'npu.moe_combine' op gates must have rank 2 ([k, samples]), got 'tensor<8xf32>'}}
  %0 = npu.moe_combine %g, %i, %i, %d {capacity = 6, num_experts = 2} : (tensor<8xf32>, tensor<2x8xi32>, tensor<2x8xi32>, tensor<12x16xf32>) -> tensor<8x16xf32>
  return
}

// -----

func.func @moe_combine_slots(%g: tensor<3x8xf32>, %i: tensor<2x8xi32>, %d: tensor<12x16xf32>) {
  // expected-error @+1 {{'npu.moe_combine' op gates has 3 slots per sample (k), indices has 2}}
  %0 = npu.moe_combine %g, %i, %i, %d {capacity = 6, num_experts = 2} : (tensor<3x8xf32>, tensor<2x8xi32>, tensor<2x8xi32>, tensor<12x16xf32>) -> tensor<8x16xf32>
  return
}

// -----

func.func @moe_combine_samples(%g: tensor<2x8xf32>, %i: tensor<2x8xi32>, %l: tensor<2x7xi32>, %d: tensor<12x16xf32>) {
  // expected-error @+1 {{'npu.moe_combine' op locations has 7 samples, indices has 8}}
  %0 = npu.moe_combine %g, %i, %l, %d {capacity = 6, num_experts = 2} : (tensor<2x8xf32>, tensor<2x8xi32>, tensor<2x7xi32>, tensor<12x16xf32>) -> tensor<8x16xf32>
  return
}

// -----

func.func @moe_result(%g: tensor<8xf32>, %i: tensor<8xi32>, %d: tensor<12x16xf32>) {
  // expected-error @+1 {{'npu.moe_dispatch_backward_data' op result type 'tensor<8x15xf32>' differs from the inferred 'tensor<8x16xf32>'}}
  %0 = npu.moe_dispatch_backward_data %g, %i, %i, %d {capacity = 6, num_experts = 2} : (tensor<8xf32>, tensor<8xi32>, tensor<8xi32>, tensor<12x16xf32>) -> tensor<8x15xf32>
  return
}

// -----

// expected-error @+1 {{argument 0: 'npu.weight' must be a unit attribute, got true}}
func.func @weight_not_unit(%w: tensor<4x4xf32> {npu.weight = true}) {
  return
}

// -----

// expected-error @+1 {{argument 0: 'npu.onnx_name' must be a string, got 3}}
func.func @onnx_name_not_string(%w: tensor<4x4xf32> {npu.onnx_name = 3}) {
  return
}

// -----

// expected-error @+1 {{argument 0: 'npu.onnx_perm' must be a permutation (array<i64>), got array<i64: 0, 0>}}
func.func @onnx_perm_repeats(%w: tensor<4x4xf32> {npu.onnx_perm = array<i64: 0, 0>}) {
  return
}

// -----

// expected-error @+1 {{argument 0: 'npu.onnx_perm' must be a permutation of the argument's dimensions, got array<i64: 1, 0>}}
func.func @onnx_perm_rank(%w: tensor<4x4x4x4xf32> {npu.onnx_perm = array<i64: 1, 0>}) {
  return
}

// -----

// expected-error @+1 {{argument 0: 'npu.align_mode' must be an #npu.align_mode attribute, got "align"}}
func.func @arg_align_mode(%w: tensor<4x4xf32> {npu.align_mode = "align"}) {
  return
}

// -----

// expected-error @+1 {{argument 1: unknown npu argument attribute 'npu.weights'}}
func.func @unknown_argument_attribute(%x: tensor<4x4xf32>, %w: tensor<4x4xf32> {npu.weights}) {
  return
}

// -----

// expected-error @+1 {{result 0: unknown npu result attribute 'npu.weight'}}
func.func @unknown_result_attribute(%x: tensor<4x4xf32>) -> (tensor<4x4xf32> {npu.weight}) {
  return %x : tensor<4x4xf32>
}

// -----

// expected-error @+1 {{result 0: 'npu.onnx_name' must be a string, got 1}}
func.func @result_onnx_name(%x: tensor<4x4xf32>) -> (tensor<4x4xf32> {npu.onnx_name = 1}) {
  return %x : tensor<4x4xf32>
}
