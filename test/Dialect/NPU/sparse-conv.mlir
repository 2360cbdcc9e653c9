// Round trip of the sparse convolution ops: printed, reparsed, and through
// the generic form.
// RUN: npu-opt %s --split-input-file | FileCheck %s
// RUN: npu-opt %s --split-input-file | npu-opt --split-input-file | FileCheck %s
// RUN: npu-opt %s --split-input-file --mlir-print-op-generic | npu-opt --split-input-file | FileCheck %s

// CHECK-LABEL: func @default_mode
// CHECK: npu.get_indice_pairs %{{.*}} {batch_size = 4 : i64, kernel_size = array<i64: 3, 3, 3>, padding = array<i64: 0, 1, 1>, spatial_shape = array<i64: 11, 360, 360>, stride = array<i64: 2, 2, 2>} : (tensor<100x4xi32>) -> (tensor<?x4xi32>, tensor<27x2x100xi32>, tensor<27xi32>)
func.func @default_mode(%idx: tensor<100x4xi32>) -> (tensor<?x4xi32>, tensor<27x2x100xi32>, tensor<27xi32>) {
  %o, %p, %n = npu.get_indice_pairs %idx {batch_size = 4, spatial_shape = array<i64: 11, 360, 360>, kernel_size = array<i64: 3, 3, 3>, stride = array<i64: 2, 2, 2>, padding = array<i64: 0, 1, 1>} : (tensor<100x4xi32>) -> (tensor<?x4xi32>, tensor<27x2x100xi32>, tensor<27xi32>)
  return %o, %p, %n : tensor<?x4xi32>, tensor<27x2x100xi32>, tensor<27xi32>
}

// -----

// subm keeps the input sites: out_indices has L rows.
// CHECK-LABEL: func @subm
// CHECK: npu.get_indice_pairs %{{.*}} {{.*}}subm{{.*}} : (tensor<7x4xi32>) -> (tensor<7x4xi32>, tensor<27x2x7xi32>, tensor<27xi32>)
// CHECK: npu.sparse_conv3d %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {subm} : (tensor<7x16xf32>, tensor<27x16x32xf32>, tensor<27x2x7xi32>, tensor<27xi32>, index) -> tensor<7x32xf32>
func.func @subm(%idx: tensor<7x4xi32>, %f: tensor<7x16xf32>, %w: tensor<27x16x32xf32>) -> tensor<7x32xf32> {
  %o, %p, %n = npu.get_indice_pairs %idx {batch_size = 1, spatial_shape = array<i64: 5, 5, 5>, kernel_size = array<i64: 3, 3, 3>, padding = array<i64: 1, 1, 1>, subm} : (tensor<7x4xi32>) -> (tensor<7x4xi32>, tensor<27x2x7xi32>, tensor<27xi32>)
  %c7 = arith.constant 7 : index
  %y = npu.sparse_conv3d %f, %w, %p, %n, %c7 {subm} : (tensor<7x16xf32>, tensor<27x16x32xf32>, tensor<27x2x7xi32>, tensor<27xi32>, index) -> tensor<7x32xf32>
  return %y : tensor<7x32xf32>
}

// -----

// A transposed convolution with out_padding, then the inverse conv of a
// default one with its dynamic row count.
// CHECK-LABEL: func @transpose_inverse
// CHECK: npu.get_indice_pairs {{.*}}transpose{{.*}} -> (tensor<?x4xi32>, tensor<8x2x9xi32>, tensor<8xi32>)
// CHECK: npu.sparse_conv3d {{.*}} {inverse} : (tensor<?x8xf16>, tensor<8x8x4xf16>, tensor<8x2x9xi32>, tensor<8xi32>, index) -> tensor<?x4xf16>
func.func @transpose_inverse(%idx: tensor<9x4xi32>, %f: tensor<?x8xf16>, %w: tensor<8x8x4xf16>, %rows: index) -> tensor<?x4xf16> {
  %o, %p, %n = npu.get_indice_pairs %idx {batch_size = 2, spatial_shape = array<i64: 4, 4, 4>, kernel_size = array<i64: 2, 2, 2>, stride = array<i64: 2, 2, 2>, out_padding = array<i64: 1, 0, 1>, transpose} : (tensor<9x4xi32>) -> (tensor<?x4xi32>, tensor<8x2x9xi32>, tensor<8xi32>)
  %y = npu.sparse_conv3d %f, %w, %p, %n, %rows {inverse} : (tensor<?x8xf16>, tensor<8x8x4xf16>, tensor<8x2x9xi32>, tensor<8xi32>, index) -> tensor<?x4xf16>
  return %y : tensor<?x4xf16>
}
