// npu-fuse-attention: attention as exporters write it becomes one
// npu.flash_attention in the layout its inputs are already stored in.
// RUN: npu-opt %s --split-input-file --npu-fuse-attention | FileCheck %s

// ViT (nn.MultiheadAttention): q, k, v stored [S, N, D], the heads
// transposed out for the matmuls, q divided by sqrt(D), K^T by a transpose.
// BSND reads the stored tensors; the factor becomes scale; the transposes
// back to [S, N, D] cancel.
// CHECK-LABEL: func.func @vit_style
// CHECK-SAME: (%[[Q:.*]]: tensor<5x2x4xf32>, %[[K:.*]]: tensor<6x2x4xf32>, %[[V:.*]]: tensor<6x2x4xf32>)
// CHECK-DAG: %[[Q4:.*]] = npu.reshape %[[Q]] : tensor<5x2x4xf32> -> tensor<1x5x2x4xf32>
// CHECK-DAG: %[[K4:.*]] = npu.reshape %[[K]] : tensor<6x2x4xf32> -> tensor<1x6x2x4xf32>
// CHECK-DAG: %[[V4:.*]] = npu.reshape %[[V]] : tensor<6x2x4xf32> -> tensor<1x6x2x4xf32>
// CHECK: %{{.*}}, %{{.*}}, %[[OUT:.*]] = npu.flash_attention %[[Q4]], %[[K4]], %[[V4]] {head_num = 2 : i64, input_layout = #npu.attention_layout<BSND>, scale = 5.000000e-01 : f64}
// CHECK-SAME: -> (tensor<1x2x5x8xf32>, tensor<1x2x5x8xf32>, tensor<1x5x2x4xf32>)
// CHECK: %[[R:.*]] = npu.reshape %[[OUT]] : tensor<1x5x2x4xf32> -> tensor<5x8xf32>
// CHECK-NOT: npu.transpose
// CHECK-NOT: npu.softmax
// CHECK: return %[[R]]
func.func @vit_style(%q: tensor<5x2x4xf32>, %k: tensor<6x2x4xf32>, %v: tensor<6x2x4xf32>) -> tensor<5x8xf32> {
  %c = npu.constant dense<2.0> : tensor<f32> -> tensor<f32>
  %qs = npu.vs_div %q, %c : (tensor<5x2x4xf32>, tensor<f32>) -> tensor<5x2x4xf32>
  %qt = npu.transpose %qs, [1, 0, 2] : tensor<5x2x4xf32> -> tensor<2x5x4xf32>
  %kt = npu.transpose %k, [1, 2, 0] : tensor<6x2x4xf32> -> tensor<2x4x6xf32>
  %s = npu.matmul %qt, %kt : (tensor<2x5x4xf32>, tensor<2x4x6xf32>) -> tensor<2x5x6xf32>
  %p = npu.softmax %s {axis = 2 : i64} : tensor<2x5x6xf32> -> tensor<2x5x6xf32>
  %vt = npu.transpose %v, [1, 0, 2] : tensor<6x2x4xf32> -> tensor<2x6x4xf32>
  %o = npu.matmul %p, %vt : (tensor<2x5x6xf32>, tensor<2x6x4xf32>) -> tensor<2x5x4xf32>
  %ot = npu.transpose %o, [1, 0, 2] : tensor<2x5x4xf32> -> tensor<5x2x4xf32>
  %r = npu.reshape %ot : tensor<5x2x4xf32> -> tensor<5x8xf32>
  return %r : tensor<5x8xf32>
}

// -----

// Swin-T: [B, N, S, D] tensors, K used through transpose_rhs, q scaled and
// a relative position bias added. The factor stays on q (pse is added
// before scale), the bias becomes pse as [1, N, S1, S2].
// CHECK-LABEL: func.func @swin_style
// CHECK-SAME: (%[[Q:.*]]: tensor<2x3x4x8xf32>, %[[K:.*]]: tensor<2x3x4x8xf32>, %[[V:.*]]: tensor<2x3x4x8xf32>, %[[BIAS:.*]]: tensor<3x4x4xf32>)
// CHECK: %[[QS:.*]] = npu.vs_mul %[[Q]]
// CHECK: %[[PSE:.*]] = npu.reshape %[[BIAS]] : tensor<3x4x4xf32> -> tensor<1x3x4x4xf32>
// CHECK: %{{.*}}, %{{.*}}, %[[OUT:.*]] = npu.flash_attention %[[QS]], %[[K]], %[[V]] pse %[[PSE]] {head_num = 3 : i64, input_layout = #npu.attention_layout<BNSD>, scale = 1.000000e+00 : f64}
// CHECK: return %[[OUT]]
func.func @swin_style(%q: tensor<2x3x4x8xf32>, %k: tensor<2x3x4x8xf32>, %v: tensor<2x3x4x8xf32>, %bias: tensor<3x4x4xf32>) -> tensor<2x3x4x8xf32> {
  %c = npu.constant dense<0.35> : tensor<f32> -> tensor<f32>
  %qs = npu.vs_mul %q, %c : (tensor<2x3x4x8xf32>, tensor<f32>) -> tensor<2x3x4x8xf32>
  %s = npu.matmul %qs, %k {transpose_rhs} : (tensor<2x3x4x8xf32>, tensor<2x3x4x8xf32>) -> tensor<2x3x4x4xf32>
  %b = npu.vs_add %s, %bias : (tensor<2x3x4x4xf32>, tensor<3x4x4xf32>) -> tensor<2x3x4x4xf32>
  %p = npu.softmax %b {axis = 3 : i64} : tensor<2x3x4x4xf32> -> tensor<2x3x4x4xf32>
  %o = npu.matmul %p, %v : (tensor<2x3x4x4xf32>, tensor<2x3x4x8xf32>) -> tensor<2x3x4x8xf32>
  return %o : tensor<2x3x4x8xf32>
}

// -----

// Shifted windows: the scores are reshaped to [B / nW, nW, N, S, S], a
// float mask (-100 across windows) added, and reshaped back. The bias is
// broadcast to the full scores to follow the reshape; bias and mask sum
// into pse, [B, N, S1, S2].
// CHECK-LABEL: func.func @shifted_window_mask
// CHECK-SAME: %[[BIAS:[^:]*]]: tensor<3x4x4xf32>, %[[MASK:[^:]*]]: tensor<2x1x4x4xf32>
// CHECK: %[[FULL:.*]] = npu.expand %[[BIAS]] {shape = array<i64: 2, 3, 4, 4>}
// CHECK: %[[FULL5:.*]] = npu.reshape %[[FULL]] : tensor<2x3x4x4xf32> -> tensor<1x2x3x4x4xf32>
// CHECK: %[[SUM:.*]] = npu.add %[[FULL5]], %[[MASK]] : (tensor<1x2x3x4x4xf32>, tensor<2x1x4x4xf32>) -> tensor<1x2x3x4x4xf32>
// CHECK: %[[PSE:.*]] = npu.reshape %[[SUM]] : tensor<1x2x3x4x4xf32> -> tensor<2x3x4x4xf32>
// CHECK: npu.flash_attention %{{.*}}, %{{.*}}, %{{.*}} pse %[[PSE]] {head_num = 3 : i64, input_layout = #npu.attention_layout<BNSD>, scale = 1.000000e+00 : f64}
// CHECK-NOT: npu.softmax
func.func @shifted_window_mask(%q: tensor<2x3x4x8xf32>, %k: tensor<2x3x4x8xf32>, %v: tensor<2x3x4x8xf32>, %bias: tensor<3x4x4xf32>, %mask: tensor<2x1x4x4xf32>) -> tensor<2x3x4x8xf32> {
  %s = npu.matmul %q, %k {transpose_rhs} : (tensor<2x3x4x8xf32>, tensor<2x3x4x8xf32>) -> tensor<2x3x4x4xf32>
  %b = npu.vs_add %s, %bias : (tensor<2x3x4x4xf32>, tensor<3x4x4xf32>) -> tensor<2x3x4x4xf32>
  %w = npu.reshape %b : tensor<2x3x4x4xf32> -> tensor<1x2x3x4x4xf32>
  %m = npu.vs_add %w, %mask : (tensor<1x2x3x4x4xf32>, tensor<2x1x4x4xf32>) -> tensor<1x2x3x4x4xf32>
  %u = npu.reshape %m : tensor<1x2x3x4x4xf32> -> tensor<2x3x4x4xf32>
  %p = npu.softmax %u {axis = 3 : i64} : tensor<2x3x4x4xf32> -> tensor<2x3x4x4xf32>
  %o = npu.matmul %p, %v : (tensor<2x3x4x4xf32>, tensor<2x3x4x8xf32>) -> tensor<2x3x4x8xf32>
  return %o : tensor<2x3x4x8xf32>
}

// -----

// Sequence-first tensors [S, B, N, D] transposed to [B, N, S, D]: SBH reads
// them as [S, B, N x D]; the result goes back through one transpose.
// CHECK-LABEL: func.func @sequence_first
// CHECK-SAME: (%[[Q:.*]]: tensor<5x2x3x4xf32>, %[[K:.*]]: tensor<6x2x3x4xf32>, %[[V:.*]]: tensor<6x2x3x4xf32>)
// CHECK-DAG: %[[Q3:.*]] = npu.reshape %[[Q]] : tensor<5x2x3x4xf32> -> tensor<5x2x12xf32>
// CHECK-DAG: %[[K3:.*]] = npu.reshape %[[K]] : tensor<6x2x3x4xf32> -> tensor<6x2x12xf32>
// CHECK-DAG: %[[V3:.*]] = npu.reshape %[[V]] : tensor<6x2x3x4xf32> -> tensor<6x2x12xf32>
// CHECK: %{{.*}}, %{{.*}}, %[[OUT:.*]] = npu.flash_attention %[[Q3]], %[[K3]], %[[V3]] {head_num = 3 : i64, input_layout = #npu.attention_layout<SBH>, scale = 1.000000e+00 : f64}
// CHECK: %[[OUT4:.*]] = npu.reshape %[[OUT]] : tensor<5x2x12xf32> -> tensor<5x2x3x4xf32>
// CHECK: %[[R:.*]] = npu.transpose %[[OUT4]], [1, 2, 0, 3]
// CHECK: return %[[R]]
func.func @sequence_first(%q: tensor<5x2x3x4xf32>, %k: tensor<6x2x3x4xf32>, %v: tensor<6x2x3x4xf32>) -> tensor<2x3x5x4xf32> {
  %qt = npu.transpose %q, [1, 2, 0, 3] : tensor<5x2x3x4xf32> -> tensor<2x3x5x4xf32>
  %kt = npu.transpose %k, [1, 2, 3, 0] : tensor<6x2x3x4xf32> -> tensor<2x3x4x6xf32>
  %vt = npu.transpose %v, [1, 2, 0, 3] : tensor<6x2x3x4xf32> -> tensor<2x3x6x4xf32>
  %s = npu.matmul %qt, %kt : (tensor<2x3x5x4xf32>, tensor<2x3x4x6xf32>) -> tensor<2x3x5x6xf32>
  %p = npu.softmax %s : tensor<2x3x5x6xf32> -> tensor<2x3x5x6xf32>
  %o = npu.matmul %p, %vt : (tensor<2x3x5x6xf32>, tensor<2x3x6x4xf32>) -> tensor<2x3x5x4xf32>
  return %o : tensor<2x3x5x4xf32>
}

// -----

// The three tensors are stored in different orders: BNSD on the
// transposed views (the query's transpose is kept).
// CHECK-LABEL: func.func @mixed_orders
// CHECK-SAME: (%[[Q:.*]]: tensor<2x5x3x4xf32>, %[[K:.*]]: tensor<2x3x6x4xf32>, %[[V:.*]]: tensor<2x3x6x4xf32>)
// CHECK: %[[QT:.*]] = npu.transpose %[[Q]], [0, 2, 1, 3]
// CHECK: npu.flash_attention %[[QT]], %[[K]], %[[V]] {head_num = 3 : i64, input_layout = #npu.attention_layout<BNSD>, scale = 1.000000e+00 : f64}
func.func @mixed_orders(%q: tensor<2x5x3x4xf32>, %k: tensor<2x3x6x4xf32>, %v: tensor<2x3x6x4xf32>) -> tensor<2x3x5x4xf32> {
  %qt = npu.transpose %q, [0, 2, 1, 3] : tensor<2x5x3x4xf32> -> tensor<2x3x5x4xf32>
  %s = npu.matmul %qt, %k {transpose_rhs} : (tensor<2x3x5x4xf32>, tensor<2x3x6x4xf32>) -> tensor<2x3x5x6xf32>
  %p = npu.softmax %s : tensor<2x3x5x6xf32> -> tensor<2x3x5x6xf32>
  %o = npu.matmul %p, %v : (tensor<2x3x5x6xf32>, tensor<2x3x6x4xf32>) -> tensor<2x3x5x4xf32>
  return %o : tensor<2x3x5x4xf32>
}

// -----

// A factor on the scores before a term: scale takes it and pse is the term
// divided by it (scale * (pse + QK) = 0.25 * QK + bias).
// CHECK-LABEL: func.func @scaled_scores_then_bias
// CHECK-SAME: %[[BIAS:[^:]*]]: tensor<1x3x4x4xf32>
// CHECK: %[[INV:.*]] = npu.constant dense<4.000000e+00> : tensor<f32>
// CHECK: %[[PSE:.*]] = npu.vs_mul %[[BIAS]], %[[INV]]
// CHECK: npu.flash_attention %{{.*}}, %{{.*}}, %{{.*}} pse %[[PSE]] {head_num = 3 : i64, input_layout = #npu.attention_layout<BNSD>, scale = 2.500000e-01 : f64}
func.func @scaled_scores_then_bias(%q: tensor<2x3x4x8xf32>, %k: tensor<2x3x4x8xf32>, %v: tensor<2x3x4x8xf32>, %bias: tensor<1x3x4x4xf32>) -> tensor<2x3x4x8xf32> {
  %c = npu.constant dense<0.25> : tensor<f32> -> tensor<f32>
  %s = npu.matmul %q, %k {transpose_rhs} : (tensor<2x3x4x8xf32>, tensor<2x3x4x8xf32>) -> tensor<2x3x4x4xf32>
  %ss = npu.vs_mul %s, %c : (tensor<2x3x4x4xf32>, tensor<f32>) -> tensor<2x3x4x4xf32>
  %b = npu.add %ss, %bias : (tensor<2x3x4x4xf32>, tensor<1x3x4x4xf32>) -> tensor<2x3x4x4xf32>
  %p = npu.softmax %b : tensor<2x3x4x4xf32> -> tensor<2x3x4x4xf32>
  %o = npu.matmul %p, %v : (tensor<2x3x4x4xf32>, tensor<2x3x4x8xf32>) -> tensor<2x3x4x8xf32>
  return %o : tensor<2x3x4x8xf32>
}

// -----

// Not attention, or not fusable: each softmax stays.
// CHECK-LABEL: func.func @not_fused
// CHECK-NOT: npu.flash_attention
// CHECK-COUNT-5: npu.softmax
// CHECK-NOT: npu.flash_attention
func.func @not_fused(%q: tensor<2x3x4x8xf32>, %k: tensor<2x3x4x8xf32>, %v: tensor<2x3x4x8xf32>, %v16: tensor<2x3x4x16xf32>, %kv: tensor<2x1x4x8xf32>)
    -> (tensor<2x3x4x8xf32>, tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>, tensor<2x3x4x16xf32>, tensor<2x3x4x8xf32>, tensor<2x3x4x8xf32>) {
  // The scores have a second user.
  %s0 = npu.matmul %q, %k {transpose_rhs} : (tensor<2x3x4x8xf32>, tensor<2x3x4x8xf32>) -> tensor<2x3x4x4xf32>
  %p0 = npu.softmax %s0 : tensor<2x3x4x4xf32> -> tensor<2x3x4x4xf32>
  %o0 = npu.matmul %p0, %v : (tensor<2x3x4x4xf32>, tensor<2x3x4x8xf32>) -> tensor<2x3x4x8xf32>
  // A softmax over the query axis.
  %s1 = npu.matmul %q, %k {transpose_rhs} : (tensor<2x3x4x8xf32>, tensor<2x3x4x8xf32>) -> tensor<2x3x4x4xf32>
  %p1 = npu.softmax %s1 {axis = 2 : i64} : tensor<2x3x4x4xf32> -> tensor<2x3x4x4xf32>
  %o1 = npu.matmul %p1, %v : (tensor<2x3x4x4xf32>, tensor<2x3x4x8xf32>) -> tensor<2x3x4x8xf32>
  // A value head size other than the query's.
  %s2 = npu.matmul %q, %k {transpose_rhs} : (tensor<2x3x4x8xf32>, tensor<2x3x4x8xf32>) -> tensor<2x3x4x4xf32>
  %p2 = npu.softmax %s2 : tensor<2x3x4x4xf32> -> tensor<2x3x4x4xf32>
  %o2 = npu.matmul %p2, %v16 : (tensor<2x3x4x4xf32>, tensor<2x3x4x16xf32>) -> tensor<2x3x4x16xf32>
  // An activation between the scores and the softmax.
  %s3 = npu.matmul %q, %k {transpose_rhs} : (tensor<2x3x4x8xf32>, tensor<2x3x4x8xf32>) -> tensor<2x3x4x4xf32>
  %r3 = npu.relu %s3 : tensor<2x3x4x4xf32> -> tensor<2x3x4x4xf32>
  %p3 = npu.softmax %r3 : tensor<2x3x4x4xf32> -> tensor<2x3x4x4xf32>
  %o3 = npu.matmul %p3, %v : (tensor<2x3x4x4xf32>, tensor<2x3x4x8xf32>) -> tensor<2x3x4x8xf32>
  // Keys and values broadcast over the heads.
  %s4 = npu.matmul %q, %kv {transpose_rhs} : (tensor<2x3x4x8xf32>, tensor<2x1x4x8xf32>) -> tensor<2x3x4x4xf32>
  %p4 = npu.softmax %s4 : tensor<2x3x4x4xf32> -> tensor<2x3x4x4xf32>
  %o4 = npu.matmul %p4, %v : (tensor<2x3x4x4xf32>, tensor<2x3x4x8xf32>) -> tensor<2x3x4x8xf32>
  return %o0, %s0, %p1, %o2, %o3, %o4 : tensor<2x3x4x8xf32>, tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>, tensor<2x3x4x16xf32>, tensor<2x3x4x8xf32>, tensor<2x3x4x8xf32>
}

// -----

// Three batch dimensions: flash_attention has room for B and N only.
// CHECK-LABEL: func.func @three_batch_dims
// CHECK-NOT: npu.flash_attention
// CHECK: npu.softmax
func.func @three_batch_dims(%q: tensor<2x2x3x4x8xf32>, %k: tensor<2x2x3x4x8xf32>, %v: tensor<2x2x3x4x8xf32>) -> tensor<2x2x3x4x8xf32> {
  %s = npu.matmul %q, %k {transpose_rhs} : (tensor<2x2x3x4x8xf32>, tensor<2x2x3x4x8xf32>) -> tensor<2x2x3x4x4xf32>
  %p = npu.softmax %s {axis = 4 : i64} : tensor<2x2x3x4x4xf32> -> tensor<2x2x3x4x4xf32>
  %o = npu.matmul %p, %v : (tensor<2x2x3x4x4xf32>, tensor<2x2x3x4x8xf32>) -> tensor<2x2x3x4x8xf32>
  return %o : tensor<2x2x3x4x8xf32>
}
