// channel_norm folds.
// RUN: npu-opt %s --split-input-file --canonicalize | FileCheck %s

// A conversion of a constant is the constant, stored in the new layout.
// CHECK-LABEL: func.func @fold_constant
// CHECK-NEXT: %[[C:.*]] = npu.constant dense<1.000000e+00> : tensor<2x64xf32> -> tensor<2x64xf32, #npu.layout<align>>
// CHECK-NEXT: return %[[C]]
func.func @fold_constant() -> tensor<2x64xf32, #npu.layout<align>> {
  %c = npu.constant dense<1.0> : tensor<2x64xf32> -> tensor<2x64xf32, #npu.layout<nalign>>
  %0 = npu.channel_norm <to_align> %c : tensor<2x64xf32, #npu.layout<nalign>> -> tensor<2x64xf32, #npu.layout<align>>
  return %0 : tensor<2x64xf32, #npu.layout<align>>
}

// -----

// to_align then to_nalign (and the reverse) is the original value.
// CHECK-LABEL: func.func @round_trip
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x4x8xf32, #npu.layout<nalign>>, %[[Y:.*]]: tensor<1x4x4x8xf32, #npu.layout<align>>)
// CHECK-NEXT: return %[[X]], %[[Y]]
func.func @round_trip(%x: tensor<1x4x4x8xf32, #npu.layout<nalign>>, %y: tensor<1x4x4x8xf32, #npu.layout<align>>)
    -> (tensor<1x4x4x8xf32, #npu.layout<nalign>>, tensor<1x4x4x8xf32, #npu.layout<align>>) {
  %0 = npu.channel_norm <to_align> %x : tensor<1x4x4x8xf32, #npu.layout<nalign>> -> tensor<1x4x4x8xf32, #npu.layout<align>>
  %1 = npu.channel_norm <to_nalign> %0 : tensor<1x4x4x8xf32, #npu.layout<align>> -> tensor<1x4x4x8xf32, #npu.layout<nalign>>
  %2 = npu.channel_norm <to_nalign> %y : tensor<1x4x4x8xf32, #npu.layout<align>> -> tensor<1x4x4x8xf32, #npu.layout<nalign>>
  %3 = npu.channel_norm <to_align> %2 : tensor<1x4x4x8xf32, #npu.layout<nalign>> -> tensor<1x4x4x8xf32, #npu.layout<align>>
  return %1, %3 : tensor<1x4x4x8xf32, #npu.layout<nalign>>, tensor<1x4x4x8xf32, #npu.layout<align>>
}

// -----

// Rank-1 (and rank-3, rank-0) tensors are dense either way: no-op.
// CHECK-LABEL: func.func @not_alignable
// CHECK-SAME: (%[[V:.*]]: tensor<16xf32>, %[[W:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: return %[[V]], %[[W]]
func.func @not_alignable(%v: tensor<16xf32>, %w: tensor<2x3x4xf32>) -> (tensor<16xf32>, tensor<2x3x4xf32>) {
  %0 = npu.channel_norm <to_align> %v : tensor<16xf32> -> tensor<16xf32>
  %1 = npu.channel_norm <to_nalign> %w : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  return %0, %1 : tensor<16xf32>, tensor<2x3x4xf32>
}

// -----

// A single conversion of a value that may be aligned stays.
// CHECK-LABEL: func.func @keeps_real_conversion
// CHECK: npu.channel_norm <to_align>
func.func @keeps_real_conversion(%x: tensor<1x4x4x8xf32, #npu.layout<nalign>>) -> tensor<1x4x4x8xf32, #npu.layout<align>> {
  %0 = npu.channel_norm <to_align> %x : tensor<1x4x4x8xf32, #npu.layout<nalign>> -> tensor<1x4x4x8xf32, #npu.layout<align>>
  return %0 : tensor<1x4x4x8xf32, #npu.layout<align>>
}

// -----

// Transposes: the identity folds away, two in a row become one.
// CHECK-LABEL: func.func @transpose_folds
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK: %[[T:.*]] = npu.transpose %[[X]], [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
// CHECK-NEXT: return %[[X]], %[[T]]
func.func @transpose_folds(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<4x2x3xf32>) {
  %id = npu.transpose %x, [0, 1, 2] : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  %a = npu.transpose %x, [1, 0, 2] : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
  %b = npu.transpose %a, [2, 1, 0] : tensor<3x2x4xf32> -> tensor<4x2x3xf32>
  return %id, %b : tensor<2x3x4xf32>, tensor<4x2x3xf32>
}

// -----

// Reshapes: to the same type folds away, two in a row become one.
// CHECK-LABEL: func.func @reshape_folds
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK: %[[R:.*]] = npu.reshape %[[X]] : tensor<2x3x4xf32> -> tensor<24xf32>
// CHECK-NEXT: return %[[X]], %[[R]]
func.func @reshape_folds(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<24xf32>) {
  %same = npu.reshape %x : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  %a = npu.reshape %x : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %b = npu.reshape %a : tensor<6x4xf32> -> tensor<24xf32>
  return %same, %b : tensor<2x3x4xf32>, tensor<24xf32>
}
