// One negative case per verifier rule of get_indice_pairs and sparse_conv3d.
// RUN: npu-opt %s --split-input-file --verify-diagnostics

func.func @indices_shape(%idx: tensor<10x3xi32>) {
  // expected-error @+1 {{'npu.get_indice_pairs' op indices must be [L, 4] (batch, z, y, x), got 'tensor<10x3xi32>'}}
  %o, %p, %n = npu.get_indice_pairs %idx {batch_size = 1, spatial_shape = array<i64: 4, 4, 4>, kernel_size = array<i64: 3, 3, 3>} : (tensor<10x3xi32>) -> (tensor<?x4xi32>, tensor<27x2x10xi32>, tensor<27xi32>)
  return
}

// -----

func.func @attr_size(%idx: tensor<10x4xi32>) {
  // expected-error @+1 {{'npu.get_indice_pairs' op attribute 'kernel_size' must have 3 elements, got 2}}
  %o, %p, %n = npu.get_indice_pairs %idx {batch_size = 1, spatial_shape = array<i64: 4, 4, 4>, kernel_size = array<i64: 3, 3>} : (tensor<10x4xi32>) -> (tensor<?x4xi32>, tensor<9x2x10xi32>, tensor<9xi32>)
  return
}

// -----

func.func @attr_min(%idx: tensor<10x4xi32>) {
  // expected-error @+1 {{'npu.get_indice_pairs' op attribute 'stride' must have elements >= 1, got [1, 0, 1]}}
  %o, %p, %n = npu.get_indice_pairs %idx {batch_size = 1, spatial_shape = array<i64: 4, 4, 4>, kernel_size = array<i64: 3, 3, 3>, stride = array<i64: 1, 0, 1>} : (tensor<10x4xi32>) -> (tensor<?x4xi32>, tensor<27x2x10xi32>, tensor<27xi32>)
  return
}

// -----

func.func @attr_huge(%idx: tensor<10x4xi32>) {
  // expected-error @+1 {{'npu.get_indice_pairs' op attribute 'padding' must have elements below 2^30, got [0, 9223372036854775807, 0]}}
  %o, %p, %n = npu.get_indice_pairs %idx {batch_size = 1, spatial_shape = array<i64: 4, 4, 4>, kernel_size = array<i64: 3, 3, 3>, padding = array<i64: 0, 9223372036854775807, 0>} : (tensor<10x4xi32>) -> (tensor<?x4xi32>, tensor<27x2x10xi32>, tensor<27xi32>)
  return
}

// -----

func.func @batch_size(%idx: tensor<10x4xi32>) {
  // expected-error @+1 {{'npu.get_indice_pairs' op attribute 'batch_size' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  %o, %p, %n = npu.get_indice_pairs %idx {batch_size = 0, spatial_shape = array<i64: 4, 4, 4>, kernel_size = array<i64: 3, 3, 3>} : (tensor<10x4xi32>) -> (tensor<?x4xi32>, tensor<27x2x10xi32>, tensor<27xi32>)
  return
}

// -----

func.func @kernel_volume(%idx: tensor<10x4xi32>) {
  // expected-error @+1 {{'npu.get_indice_pairs' op kernel volume 4913 exceeds 4096}}
  %o, %p, %n = npu.get_indice_pairs %idx {batch_size = 1, spatial_shape = array<i64: 40, 40, 40>, kernel_size = array<i64: 17, 17, 17>} : (tensor<10x4xi32>) -> (tensor<?x4xi32>, tensor<4913x2x10xi32>, tensor<4913xi32>)
  return
}

// -----

func.func @stride_and_dilation(%idx: tensor<10x4xi32>) {
  // expected-error @+1 {{'npu.get_indice_pairs' op stride and dilation are both != 1 in dimension y}}
  %o, %p, %n = npu.get_indice_pairs %idx {batch_size = 1, spatial_shape = array<i64: 9, 9, 9>, kernel_size = array<i64: 3, 3, 3>, stride = array<i64: 1, 2, 1>, dilation = array<i64: 1, 2, 1>} : (tensor<10x4xi32>) -> (tensor<?x4xi32>, tensor<27x2x10xi32>, tensor<27xi32>)
  return
}

// -----

func.func @empty_output(%idx: tensor<10x4xi32>) {
  // expected-error @+1 {{'npu.get_indice_pairs' op output size in dimension x is not positive (input 2, kernel 3, stride 2, padding 0, dilation 1)}}
  %o, %p, %n = npu.get_indice_pairs %idx {batch_size = 1, spatial_shape = array<i64: 9, 9, 2>, kernel_size = array<i64: 3, 3, 3>, stride = array<i64: 2, 2, 2>} : (tensor<10x4xi32>) -> (tensor<?x4xi32>, tensor<27x2x10xi32>, tensor<27xi32>)
  return
}

// -----

func.func @empty_transposed_output(%idx: tensor<10x4xi32>) {
  // expected-error @+1 {{'npu.get_indice_pairs' op output size in dimension z is not positive (input 1, kernel 1, stride 1, padding 1, dilation 1)}}
  %o, %p, %n = npu.get_indice_pairs %idx {batch_size = 1, spatial_shape = array<i64: 1, 9, 9>, kernel_size = array<i64: 1, 1, 1>, padding = array<i64: 1, 0, 0>, transpose} : (tensor<10x4xi32>) -> (tensor<?x4xi32>, tensor<1x2x10xi32>, tensor<1xi32>)
  return
}

// -----

func.func @subm_stride(%idx: tensor<10x4xi32>) {
  // expected-error @+1 {{'npu.get_indice_pairs' op 'subm' requires stride 1, got [2, 1, 1]}}
  %o, %p, %n = npu.get_indice_pairs %idx {batch_size = 1, spatial_shape = array<i64: 9, 9, 9>, kernel_size = array<i64: 3, 3, 3>, stride = array<i64: 2, 1, 1>, padding = array<i64: 1, 1, 1>, subm} : (tensor<10x4xi32>) -> (tensor<10x4xi32>, tensor<27x2x10xi32>, tensor<27xi32>)
  return
}

// -----

func.func @subm_shape(%idx: tensor<10x4xi32>) {
  // expected-error @+1 {{'npu.get_indice_pairs' op 'subm' requires the output shape [7, 7, 7] to equal the input shape [9, 9, 9] (padding = dilation * (kernel - 1) / 2)}}
  %o, %p, %n = npu.get_indice_pairs %idx {batch_size = 1, spatial_shape = array<i64: 9, 9, 9>, kernel_size = array<i64: 3, 3, 3>, subm} : (tensor<10x4xi32>) -> (tensor<10x4xi32>, tensor<27x2x10xi32>, tensor<27xi32>)
  return
}

// -----

func.func @subm_transpose(%idx: tensor<10x4xi32>) {
  // expected-error @+1 {{'npu.get_indice_pairs' op 'subm' and 'transpose' exclude each other}}
  %o, %p, %n = npu.get_indice_pairs %idx {batch_size = 1, spatial_shape = array<i64: 9, 9, 9>, kernel_size = array<i64: 1, 1, 1>, subm, transpose} : (tensor<10x4xi32>) -> (tensor<10x4xi32>, tensor<1x2x10xi32>, tensor<1xi32>)
  return
}

// -----

func.func @out_padding_without_transpose(%idx: tensor<10x4xi32>) {
  // expected-error @+1 {{'npu.get_indice_pairs' op 'out_padding' needs 'transpose'}}
  %o, %p, %n = npu.get_indice_pairs %idx {batch_size = 1, spatial_shape = array<i64: 9, 9, 9>, kernel_size = array<i64: 3, 3, 3>, stride = array<i64: 2, 2, 2>, out_padding = array<i64: 1, 0, 0>} : (tensor<10x4xi32>) -> (tensor<?x4xi32>, tensor<27x2x10xi32>, tensor<27xi32>)
  return
}

// -----

func.func @out_padding_too_large(%idx: tensor<10x4xi32>) {
  // expected-error @+1 {{'npu.get_indice_pairs' op out_padding 2 in dimension x must be below the stride or the dilation}}
  %o, %p, %n = npu.get_indice_pairs %idx {batch_size = 1, spatial_shape = array<i64: 9, 9, 9>, kernel_size = array<i64: 3, 3, 3>, stride = array<i64: 2, 2, 2>, out_padding = array<i64: 0, 0, 2>, transpose} : (tensor<10x4xi32>) -> (tensor<?x4xi32>, tensor<27x2x10xi32>, tensor<27xi32>)
  return
}

// -----

func.func @volume_overflow(%idx: tensor<10x4xi32>) {
  // expected-error @+1 {{'npu.get_indice_pairs' op batch_size * output volume overflows 64 bits}}
  %o, %p, %n = npu.get_indice_pairs %idx {batch_size = 1000, spatial_shape = array<i64: 1000000000, 1000000000, 1000000000>, kernel_size = array<i64: 1, 1, 1>} : (tensor<10x4xi32>) -> (tensor<?x4xi32>, tensor<1x2x10xi32>, tensor<1xi32>)
  return
}

// -----

func.func @i32_results(%idx: tensor<50000000x4xi32>) {
  // expected-error @+1 {{'npu.get_indice_pairs' op results of 50000000 sites and kernel volume 27 would have 2^31 or more elements (i32 indices)}}
  %o, %p, %n = npu.get_indice_pairs %idx {batch_size = 1, spatial_shape = array<i64: 1000, 1000, 1000>, kernel_size = array<i64: 3, 3, 3>} : (tensor<50000000x4xi32>) -> (tensor<?x4xi32>, tensor<27x2x50000000xi32>, tensor<27xi32>)
  return
}

// -----

func.func @result_types(%idx: tensor<10x4xi32>) {
  // expected-error @+1 {{'npu.get_indice_pairs' op result type}}
  %o, %p, %n = npu.get_indice_pairs %idx {batch_size = 1, spatial_shape = array<i64: 4, 4, 4>, kernel_size = array<i64: 3, 3, 3>} : (tensor<10x4xi32>) -> (tensor<10x4xi32>, tensor<27x2x10xi32>, tensor<27xi32>)
  return
}

// -----

func.func @conv_ranks(%f: tensor<10x16x1xf32>, %w: tensor<27x16x8xf32>, %p: tensor<27x2x10xi32>, %n: tensor<27xi32>, %r: index) {
  // expected-error @+1 {{'npu.sparse_conv3d' op features must have rank 2 ([L, Cin]), got 'tensor<10x16x1xf32>'}}
  %y = npu.sparse_conv3d %f, %w, %p, %n, %r : (tensor<10x16x1xf32>, tensor<27x16x8xf32>, tensor<27x2x10xi32>, tensor<27xi32>, index) -> tensor<?x8xf32>
  return
}

// -----

func.func @conv_weights_k(%f: tensor<10x16xf32>, %w: tensor<9x16x8xf32>, %p: tensor<27x2x10xi32>, %n: tensor<27xi32>, %r: index) {
  // expected-error @+1 {{'npu.sparse_conv3d' op weights' kernel volume and indice_num's size differ: 9 vs 27}}
  %y = npu.sparse_conv3d %f, %w, %p, %n, %r : (tensor<10x16xf32>, tensor<9x16x8xf32>, tensor<27x2x10xi32>, tensor<27xi32>, index) -> tensor<?x8xf32>
  return
}

// -----

func.func @conv_pairs_k(%f: tensor<10x16xf32>, %w: tensor<27x16x8xf32>, %p: tensor<26x2x10xi32>, %n: tensor<27xi32>, %r: index) {
  // expected-error @+1 {{'npu.sparse_conv3d' op indice_pairs' kernel volume and indice_num's size differ: 26 vs 27}}
  %y = npu.sparse_conv3d %f, %w, %p, %n, %r : (tensor<10x16xf32>, tensor<27x16x8xf32>, tensor<26x2x10xi32>, tensor<27xi32>, index) -> tensor<?x8xf32>
  return
}

// -----

func.func @conv_pairs_two(%f: tensor<10x16xf32>, %w: tensor<27x16x8xf32>, %p: tensor<27x3x10xi32>, %n: tensor<27xi32>, %r: index) {
  // expected-error @+1 {{'npu.sparse_conv3d' op indice_pairs' second dimension and 2 differ: 3 vs 2}}
  %y = npu.sparse_conv3d %f, %w, %p, %n, %r : (tensor<10x16xf32>, tensor<27x16x8xf32>, tensor<27x3x10xi32>, tensor<27xi32>, index) -> tensor<?x8xf32>
  return
}

// -----

func.func @conv_cin(%f: tensor<10x12xf32>, %w: tensor<27x16x8xf32>, %p: tensor<27x2x10xi32>, %n: tensor<27xi32>, %r: index) {
  // expected-error @+1 {{'npu.sparse_conv3d' op weights' Cin and features' Cin differ: 16 vs 12}}
  %y = npu.sparse_conv3d %f, %w, %p, %n, %r : (tensor<10x12xf32>, tensor<27x16x8xf32>, tensor<27x2x10xi32>, tensor<27xi32>, index) -> tensor<?x8xf32>
  return
}

// -----

func.func @conv_cout(%f: tensor<10x16xf32>, %w: tensor<27x16x8xf32>, %p: tensor<27x2x10xi32>, %n: tensor<27xi32>, %r: index) {
  // expected-error @+1 {{'npu.sparse_conv3d' op the result's Cout and weights' Cout differ: 4 vs 8}}
  %y = npu.sparse_conv3d %f, %w, %p, %n, %r : (tensor<10x16xf32>, tensor<27x16x8xf32>, tensor<27x2x10xi32>, tensor<27xi32>, index) -> tensor<?x4xf32>
  return
}

// -----

func.func @conv_rows(%f: tensor<11x16xf32>, %w: tensor<27x16x8xf32>, %p: tensor<27x2x10xi32>, %n: tensor<27xi32>, %r: index) {
  // expected-error @+1 {{'npu.sparse_conv3d' op features' rows and indice_pairs' L differ: 11 vs 10}}
  %y = npu.sparse_conv3d %f, %w, %p, %n, %r : (tensor<11x16xf32>, tensor<27x16x8xf32>, tensor<27x2x10xi32>, tensor<27xi32>, index) -> tensor<?x8xf32>
  return
}

// -----

func.func @conv_kernel_volume(%f: tensor<10x16xf32>, %w: tensor<4097x16x8xf32>, %p: tensor<4097x2x10xi32>, %n: tensor<4097xi32>, %r: index) {
  // expected-error @+1 {{'npu.sparse_conv3d' op kernel volume 4097 exceeds 4096}}
  %y = npu.sparse_conv3d %f, %w, %p, %n, %r : (tensor<10x16xf32>, tensor<4097x16x8xf32>, tensor<4097x2x10xi32>, tensor<4097xi32>, index) -> tensor<?x8xf32>
  return
}

// -----

func.func @conv_element_types(%f: tensor<10x16xf16>, %w: tensor<27x16x8xf32>, %p: tensor<27x2x10xi32>, %n: tensor<27xi32>, %r: index) {
  // expected-error @+1 {{'npu.sparse_conv3d' op features, weights and result must share one element type, got 'tensor<10x16xf16>', 'tensor<27x16x8xf32>' and 'tensor<?x8xf32>'}}
  %y = npu.sparse_conv3d %f, %w, %p, %n, %r : (tensor<10x16xf16>, tensor<27x16x8xf32>, tensor<27x2x10xi32>, tensor<27xi32>, index) -> tensor<?x8xf32>
  return
}

// -----

func.func @conv_static_rows(%f: tensor<10x16xf32>, %w: tensor<27x16x8xf32>, %p: tensor<27x2x10xi32>, %n: tensor<27xi32>, %r: index) {
  // expected-error @+1 {{'npu.sparse_conv3d' op result has 5 rows but num_act_out is not that constant; declare the rows '?'}}
  %y = npu.sparse_conv3d %f, %w, %p, %n, %r : (tensor<10x16xf32>, tensor<27x16x8xf32>, tensor<27x2x10xi32>, tensor<27xi32>, index) -> tensor<5x8xf32>
  return
}

// -----

func.func @conv_subm_inverse(%f: tensor<10x16xf32>, %w: tensor<27x16x8xf32>, %p: tensor<27x2x10xi32>, %n: tensor<27xi32>, %r: index) {
  // expected-error @+1 {{'npu.sparse_conv3d' op 'subm' and 'inverse' exclude each other}}
  %y = npu.sparse_conv3d %f, %w, %p, %n, %r {subm, inverse} : (tensor<10x16xf32>, tensor<27x16x8xf32>, tensor<27x2x10xi32>, tensor<27xi32>, index) -> tensor<?x8xf32>
  return
}

// -----

func.func @conv_subm_rows(%f: tensor<10x16xf32>, %w: tensor<27x16x8xf32>, %p: tensor<27x2x10xi32>, %n: tensor<27xi32>) {
  %c9 = arith.constant 9 : index
  // expected-error @+1 {{'npu.sparse_conv3d' op 'subm' needs as many result rows as features rows, got 9 and 10}}
  %y = npu.sparse_conv3d %f, %w, %p, %n, %c9 {subm} : (tensor<10x16xf32>, tensor<27x16x8xf32>, tensor<27x2x10xi32>, tensor<27xi32>, index) -> tensor<9x8xf32>
  return
}
