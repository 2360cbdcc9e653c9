// The AlignMode rules of the LayoutAlignToNPU design, one by one, as
// npu-annotate-align-mode reports them.
// RUN: npu-opt %s --split-input-file --npu-annotate-align-mode | FileCheck %s
// RUN: npu-opt %s --split-input-file --npu-annotate-align-mode=io-mode=align | FileCheck %s --check-prefix=IO-ALIGN

// ALIGN-only ops: matmul, conv2d, conv3d, pools, reduce, transpose, concat,
// scatter, pad.
// CHECK-LABEL: func.func @align_only
// CHECK-SAME: {npu.align_mode = #npu.align_mode<nalign>}
// IO-ALIGN-LABEL: func.func @align_only
// IO-ALIGN-SAME: {npu.align_mode = #npu.align_mode<align>}
func.func @align_only(%x: tensor<1x8x8x16xf32>, %w: tensor<4x3x3x16xf32>,
                      %v: tensor<1x4x8x8x16xf32>, %w3: tensor<4x3x3x3x16xf32>,
                      %a: tensor<8x16xf32>, %i: tensor<1x8x8x16xi32>) {
  // CHECK: npu.conv2d {{.*}}npu.align_mode = #npu.align_mode<align>
  %0 = npu.conv2d %x, %w : (tensor<1x8x8x16xf32>, tensor<4x3x3x16xf32>) -> tensor<1x6x6x4xf32>
  // CHECK: npu.conv3d {{.*}}npu.align_mode = #npu.align_mode<align>
  %1 = npu.conv3d %v, %w3 : (tensor<1x4x8x8x16xf32>, tensor<4x3x3x3x16xf32>) -> tensor<1x2x6x6x4xf32>
  // CHECK: npu.matmul {{.*}}npu.align_mode = #npu.align_mode<align>
  %2 = npu.matmul %a, %a {transpose_rhs} : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x8xf32>
  // CHECK: npu.max_pool {{.*}}npu.align_mode = #npu.align_mode<align>
  %3 = npu.max_pool %x {kernel = array<i64: 2, 2>} : tensor<1x8x8x16xf32> -> tensor<1x7x7x16xf32>
  // CHECK: npu.avg_pool {{.*}}npu.align_mode = #npu.align_mode<align>
  %4 = npu.avg_pool %x {kernel = array<i64: 2, 2>} : tensor<1x8x8x16xf32> -> tensor<1x7x7x16xf32>
  // CHECK: npu.reduce <sum> {{.*}}npu.align_mode = #npu.align_mode<align>
  %5 = npu.reduce <sum> %x {axes = array<i64: 1>, keepdims} : tensor<1x8x8x16xf32> -> tensor<1x1x8x16xf32>
  // CHECK: npu.transpose {{.*}}npu.align_mode = #npu.align_mode<align>
  %6 = npu.transpose %x, [0, 2, 1, 3] : tensor<1x8x8x16xf32> -> tensor<1x8x8x16xf32>
  // CHECK: npu.concat {{.*}}npu.align_mode = #npu.align_mode<align>
  %7 = npu.concat %x, %x {axis = 3} : (tensor<1x8x8x16xf32>, tensor<1x8x8x16xf32>) -> tensor<1x8x8x32xf32>
  // CHECK: npu.scatter {{.*}}npu.align_mode = #npu.align_mode<align>
  %8 = npu.scatter %x, %i, %x {axis = 3} : (tensor<1x8x8x16xf32>, tensor<1x8x8x16xi32>, tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  // CHECK: npu.pad {{.*}}npu.align_mode = #npu.align_mode<align>
  %9 = npu.pad %x {pad_low = array<i64: 0, 1, 1, 0>, pad_high = array<i64: 0, 1, 1, 0>} : tensor<1x8x8x16xf32> -> tensor<1x10x10x16xf32>
  // CHECK: return {npu.align_mode = #npu.align_mode<nalign>}
  // IO-ALIGN: return {npu.align_mode = #npu.align_mode<align>}
  return
}

// -----

// Everything else adapts (BOTH); constants too.
// CHECK-LABEL: func.func @both
func.func @both(%x: tensor<2x64xf32>) -> tensor<2x64xf16> {
  // CHECK: npu.constant {npu.align_mode = #npu.align_mode<both>}
  %c = npu.constant dense<1.0> : tensor<2x64xf32> -> tensor<2x64xf32>
  // CHECK: npu.add {{.*}}npu.align_mode = #npu.align_mode<both>
  %0 = npu.add %x, %c : (tensor<2x64xf32>, tensor<2x64xf32>) -> tensor<2x64xf32>
  // CHECK: npu.relu {{.*}}npu.align_mode = #npu.align_mode<both>
  %1 = npu.relu %0 : tensor<2x64xf32> -> tensor<2x64xf32>
  // CHECK: npu.gelu {{.*}}npu.align_mode = #npu.align_mode<both>
  %2 = npu.gelu %1 : tensor<2x64xf32> -> tensor<2x64xf32>
  // CHECK: npu.softmax {{.*}}npu.align_mode = #npu.align_mode<both>
  %3 = npu.softmax %2 : tensor<2x64xf32> -> tensor<2x64xf32>
  // CHECK: npu.layer_norm {{.*}}npu.align_mode = #npu.align_mode<both>
  %4 = npu.layer_norm %3, %c, %c {axis = 0} : (tensor<2x64xf32>, tensor<2x64xf32>, tensor<2x64xf32>) -> tensor<2x64xf32>
  // CHECK: npu.reshape {{.*}}npu.align_mode = #npu.align_mode<both>
  %5 = npu.reshape %4 : tensor<2x64xf32> -> tensor<1x2x8x8xf32>
  // CHECK: npu.reshape {{.*}}npu.align_mode = #npu.align_mode<both>
  %6 = npu.reshape %5 : tensor<1x2x8x8xf32> -> tensor<2x64xf32>
  // CHECK: npu.cast {{.*}}npu.align_mode = #npu.align_mode<both>
  %7 = npu.cast %6 : tensor<2x64xf32> -> tensor<2x64xf16>
  return %7 : tensor<2x64xf16>
}

// -----

// Slice: NALIGN exactly when start[C] > 0 and end[C] % 64 == 0.
// CHECK-LABEL: func.func @slice
func.func @slice(%x: tensor<1x4x4x128xf32>) {
  // CHECK: npu.slice {{.*}}npu.align_mode = #npu.align_mode<nalign>
  %0 = npu.slice %x {start = array<i64: 0, 0, 0, 32>, end = array<i64: 1, 4, 4, 64>} : tensor<1x4x4x128xf32> -> tensor<1x4x4x32xf32>
  // CHECK: npu.slice {{.*}}npu.align_mode = #npu.align_mode<nalign>
  %1 = npu.slice %x {start = array<i64: 0, 0, 0, 1>, end = array<i64: 1, 4, 4, 128>} : tensor<1x4x4x128xf32> -> tensor<1x4x4x127xf32>
  // start[C] == 0:
  // CHECK: npu.slice {{.*}}npu.align_mode = #npu.align_mode<align>
  %2 = npu.slice %x {start = array<i64: 0, 0, 0, 0>, end = array<i64: 1, 4, 4, 64>} : tensor<1x4x4x128xf32> -> tensor<1x4x4x64xf32>
  // end[C] not a multiple of 64:
  // CHECK: npu.slice {{.*}}npu.align_mode = #npu.align_mode<align>
  %3 = npu.slice %x {start = array<i64: 0, 0, 0, 32>, end = array<i64: 1, 4, 4, 96>} : tensor<1x4x4x128xf32> -> tensor<1x4x4x64xf32>
  // A slice only in other dimensions:
  // CHECK: npu.slice {{.*}}npu.align_mode = #npu.align_mode<align>
  %4 = npu.slice %x {start = array<i64: 0, 1, 0, 0>, end = array<i64: 1, 3, 4, 128>} : tensor<1x4x4x128xf32> -> tensor<1x2x4x128xf32>
  return
}

// -----

// Odd output rank (1 or 3) cannot be stored aligned, whatever the kernel.
// CHECK-LABEL: func.func @odd_rank
func.func @odd_rank(%x: tensor<1x8x8x16xf32>, %m: tensor<2x4x8xf32>, %n: tensor<2x8x4xf32>) {
  // CHECK: npu.reduce <max> {{.*}}npu.align_mode = #npu.align_mode<nalign>
  %0 = npu.reduce <max> %x {axes = array<i64: 0>} : tensor<1x8x8x16xf32> -> tensor<8x8x16xf32>
  // CHECK: npu.reduce <max> {{.*}}npu.align_mode = #npu.align_mode<nalign>
  %1 = npu.reduce <max> %x {axes = array<i64: 0, 1, 2>} : tensor<1x8x8x16xf32> -> tensor<16xf32>
  // CHECK: npu.matmul {{.*}}npu.align_mode = #npu.align_mode<nalign>
  %2 = npu.matmul %m, %n : (tensor<2x4x8xf32>, tensor<2x8x4xf32>) -> tensor<2x4x4xf32>
  // CHECK: npu.reshape {{.*}}npu.align_mode = #npu.align_mode<nalign>
  %3 = npu.reshape %x : tensor<1x8x8x16xf32> -> tensor<64x16x1xf32>
  // CHECK: npu.constant {npu.align_mode = #npu.align_mode<nalign>}
  %4 = npu.constant dense<0.0> : tensor<16xf32> -> tensor<16xf32>
  // A scalar has no channel to align.
  // CHECK: npu.reduce <sum> {{.*}}npu.align_mode = #npu.align_mode<nalign>
  %6 = npu.reduce <sum> %x {axes = array<i64: 0, 1, 2, 3>} : tensor<1x8x8x16xf32> -> tensor<f32>
  // Rank 2 and 4 keep their kernel's mode.
  // CHECK: npu.reduce <max> {{.*}}npu.align_mode = #npu.align_mode<align>
  %5 = npu.reduce <max> %x {axes = array<i64: 0, 1>} : tensor<1x8x8x16xf32> -> tensor<8x16xf32>
  return
}

// -----

// Broadcast ops follow the producer of their full-size operand.
// CHECK-LABEL: func.func @broadcast
func.func @broadcast(%x: tensor<1x8x8x16xf32>, %w: tensor<16x3x3x16xf32>, %c: tensor<16xf32>) {
  %conv = npu.conv2d %x, %w : (tensor<1x8x8x16xf32>, tensor<16x3x3x16xf32>) -> tensor<1x6x6x16xf32>
  // CHECK: npu.vs_add {{.*}}npu.align_mode = #npu.align_mode<align>
  %0 = npu.vs_add %conv, %c : (tensor<1x6x6x16xf32>, tensor<16xf32>) -> tensor<1x6x6x16xf32>
  // Through a chain of broadcast ops:
  // CHECK: npu.vs_mul {{.*}}npu.align_mode = #npu.align_mode<align>
  %1 = npu.vs_mul %0, %c : (tensor<1x6x6x16xf32>, tensor<16xf32>) -> tensor<1x6x6x16xf32>
  // From a graph input:
  // CHECK: npu.vs_sub {{.*}}npu.align_mode = #npu.align_mode<nalign>
  // IO-ALIGN: npu.vs_sub {{.*}}npu.align_mode = #npu.align_mode<align>
  %2 = npu.vs_sub %x, %c : (tensor<1x8x8x16xf32>, tensor<16xf32>) -> tensor<1x8x8x16xf32>
  // From an adapting op: adapts too.
  %r = npu.relu %x : tensor<1x8x8x16xf32> -> tensor<1x8x8x16xf32>
  // CHECK: npu.vs_max {{.*}}npu.align_mode = #npu.align_mode<both>
  %3 = npu.vs_max %r, %c : (tensor<1x8x8x16xf32>, tensor<16xf32>) -> tensor<1x8x8x16xf32>
  // CHECK: npu.vs_min {{.*}}npu.align_mode = #npu.align_mode<align>
  %4 = npu.vs_min %conv, %c : (tensor<1x6x6x16xf32>, tensor<16xf32>) -> tensor<1x6x6x16xf32>
  // CHECK: npu.vs_div {{.*}}npu.align_mode = #npu.align_mode<align>
  %5 = npu.vs_div %conv, %c : (tensor<1x6x6x16xf32>, tensor<16xf32>) -> tensor<1x6x6x16xf32>
  return
}

// -----

// channel_norm: from its direction, whatever its rank.
// CHECK-LABEL: func.func @channel_norm
func.func @channel_norm(%x: tensor<1x8x8x16xf32>, %v: tensor<16xf32>) {
  // CHECK: npu.channel_norm <to_align> {{.*}}npu.align_mode = #npu.align_mode<align>
  %0 = npu.channel_norm <to_align> %x : tensor<1x8x8x16xf32> -> tensor<1x8x8x16xf32>
  // CHECK: npu.channel_norm <to_nalign> {{.*}}npu.align_mode = #npu.align_mode<nalign>
  %1 = npu.channel_norm <to_nalign> %0 : tensor<1x8x8x16xf32> -> tensor<1x8x8x16xf32>
  // CHECK: npu.channel_norm <to_align> {{.*}}npu.align_mode = #npu.align_mode<align>
  %2 = npu.channel_norm <to_align> %v : tensor<16xf32> -> tensor<16xf32>
  return
}

// -----

// npu.dev_info pins the mode of any op, over every other rule.
// CHECK-LABEL: func.func @dev_info
func.func @dev_info(%x: tensor<1x8x8x16xf32>, %w: tensor<4x3x3x16xf32>) {
  // CHECK: npu.conv2d {{.*}}npu.align_mode = #npu.align_mode<nalign>
  %0 = npu.conv2d %x, %w {npu.dev_info = #npu.align_mode<nalign>} : (tensor<1x8x8x16xf32>, tensor<4x3x3x16xf32>) -> tensor<1x6x6x4xf32>
  // CHECK: npu.relu {{.*}}npu.align_mode = #npu.align_mode<align>
  %1 = npu.relu %x {npu.dev_info = #npu.align_mode<align>} : tensor<1x8x8x16xf32> -> tensor<1x8x8x16xf32>
  // A pinned producer decides a broadcast op's mode.
  %c = npu.constant dense<1.0> : tensor<16xf32> -> tensor<16xf32>
  // CHECK: npu.vs_add {{.*}}npu.align_mode = #npu.align_mode<align>
  %2 = npu.vs_add %1, %c : (tensor<1x8x8x16xf32>, tensor<16xf32>) -> tensor<1x8x8x16xf32>
  // CHECK: return {npu.align_mode = #npu.align_mode<align>, npu.dev_info
  return {npu.dev_info = #npu.align_mode<align>}
}

// -----

// Ops of other dialects have no rule: UNKNOWN.
// CHECK-LABEL: func.func @foreign
func.func @foreign(%x: tensor<4x4xf32>) {
  // CHECK: arith.addf {{.*}}npu.align_mode = #npu.align_mode<unknown>
  %0 = arith.addf %x, %x : tensor<4x4xf32>
  return
}

// -----

// Sparse convolution works on point lists and index tables, which are never
// stored channel-aligned: NALIGN even for rank-2 results.
// CHECK-LABEL: func.func @sparse_conv
// CHECK: npu.get_indice_pairs {{.*}}npu.align_mode = #npu.align_mode<nalign>
// CHECK: npu.sparse_conv3d {{.*}}npu.align_mode = #npu.align_mode<nalign>
func.func @sparse_conv(%idx: tensor<7x4xi32>, %f: tensor<7x16xf32>, %w: tensor<27x16x32xf32>) -> tensor<7x32xf32> {
  %o, %p, %n = npu.get_indice_pairs %idx {batch_size = 1, spatial_shape = array<i64: 5, 5, 5>, kernel_size = array<i64: 3, 3, 3>, padding = array<i64: 1, 1, 1>, subm} : (tensor<7x4xi32>) -> (tensor<7x4xi32>, tensor<27x2x7xi32>, tensor<27xi32>)
  %c7 = arith.constant 7 : index
  %y = npu.sparse_conv3d %f, %w, %p, %n, %c7 : (tensor<7x16xf32>, tensor<27x16x32xf32>, tensor<27x2x7xi32>, tensor<27xi32>, index) -> tensor<7x32xf32>
  return %y : tensor<7x32xf32>
}

// -----

// The ops ONNX networks brought in: elementwise ones adapt (BOTH); resize
// and scatter_nd have ALIGN-only kernels; gather adapts when it moves whole
// rows and is NALIGN when it picks channels out of the innermost dimension
// (axis 3, or -1: the attribute is signed).
// CHECK-LABEL: func.func @imported_ops
// CHECK: npu.hard_swish {{.*}}npu.align_mode = #npu.align_mode<both>
// CHECK: npu.clip {{.*}}npu.align_mode = #npu.align_mode<both>
// CHECK: npu.select {{.*}}npu.align_mode = #npu.align_mode<both>
// CHECK: npu.expand {{.*}}npu.align_mode = #npu.align_mode<both>
// CHECK: npu.resize {{.*}}npu.align_mode = #npu.align_mode<align>
// CHECK: npu.gather {{.*}}{axis = 1 : i64, npu.align_mode = #npu.align_mode<both>}
// CHECK: npu.gather {{.*}}{axis = 3 : i64, npu.align_mode = #npu.align_mode<nalign>}
// CHECK: npu.gather {{.*}}{axis = -1 : i64, npu.align_mode = #npu.align_mode<nalign>}
// CHECK: npu.scatter_nd {{.*}}npu.align_mode = #npu.align_mode<align>
func.func @imported_ops(%x: tensor<1x8x8x64xf32>, %c: tensor<1x8x8x64xi1>, %i: tensor<2xi64>, %idx: tensor<1x1xi64>, %u: tensor<1x8x8x64xf32>) {
  %0 = npu.hard_swish %x : tensor<1x8x8x64xf32> -> tensor<1x8x8x64xf32>
  %1 = npu.clip %0 {min = 0.0 : f64, max = 6.0 : f64} : tensor<1x8x8x64xf32> -> tensor<1x8x8x64xf32>
  %2 = npu.select %c, %1, %x : (tensor<1x8x8x64xi1>, tensor<1x8x8x64xf32>, tensor<1x8x8x64xf32>) -> tensor<1x8x8x64xf32>
  %3 = npu.expand %2 {shape = array<i64: 2, 1, 1, 1>} : tensor<1x8x8x64xf32> -> tensor<2x8x8x64xf32>
  %4 = npu.resize %3 <linear> {size = array<i64: 16, 16>} : tensor<2x8x8x64xf32> -> tensor<2x16x16x64xf32>
  %5 = npu.gather %4, %i {axis = 1} : (tensor<2x16x16x64xf32>, tensor<2xi64>) -> tensor<2x2x16x64xf32>
  %6 = npu.gather %4, %i {axis = 3} : (tensor<2x16x16x64xf32>, tensor<2xi64>) -> tensor<2x16x16x2xf32>
  %8 = npu.gather %4, %i {axis = -1} : (tensor<2x16x16x64xf32>, tensor<2xi64>) -> tensor<2x16x16x2xf32>
  %7 = npu.scatter_nd %x, %idx, %u : (tensor<1x8x8x64xf32>, tensor<1x1xi64>, tensor<1x8x8x64xf32>) -> tensor<1x8x8x64xf32>
  return
}

// -----

// A weight argument (npu.weight) adapts whatever the io-mode, and so does a
// broadcast op that follows it.
// CHECK-LABEL: func.func @weight_arguments
// CHECK-SAME: %{{.*}}: tensor<1x8x8x16xf32> {npu.align_mode = #npu.align_mode<nalign>}
// CHECK-SAME: %{{.*}}: tensor<1x8x8x16xf32> {npu.align_mode = #npu.align_mode<both>, npu.weight}
// IO-ALIGN-LABEL: func.func @weight_arguments
// IO-ALIGN-SAME: %{{.*}}: tensor<1x8x8x16xf32> {npu.align_mode = #npu.align_mode<align>}
// IO-ALIGN-SAME: %{{.*}}: tensor<1x8x8x16xf32> {npu.align_mode = #npu.align_mode<both>, npu.weight}
func.func @weight_arguments(%x: tensor<1x8x8x16xf32>, %w: tensor<1x8x8x16xf32> {npu.weight}, %c: tensor<16xf32>) {
  // CHECK: npu.vs_mul {{.*}}npu.align_mode = #npu.align_mode<nalign>
  // IO-ALIGN: npu.vs_mul {{.*}}npu.align_mode = #npu.align_mode<align>
  %0 = npu.vs_mul %x, %c : (tensor<1x8x8x16xf32>, tensor<16xf32>) -> tensor<1x8x8x16xf32>
  // CHECK: npu.vs_mul {{.*}}npu.align_mode = #npu.align_mode<both>
  // IO-ALIGN: npu.vs_mul {{.*}}npu.align_mode = #npu.align_mode<both>
  %1 = npu.vs_mul %w, %c : (tensor<1x8x8x16xf32>, tensor<16xf32>) -> tensor<1x8x8x16xf32>
  return
}
