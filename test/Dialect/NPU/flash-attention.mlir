// npu.flash_attention and npu.flash_attention_grad: every layout, GQA,
// optional inputs; printed and parsed back.
// RUN: npu-opt %s --split-input-file | npu-opt | FileCheck %s

// BSH: [B, S, N x D]; 8 query heads read 2 key/value heads (GQA).
// CHECK-LABEL: func.func @bsh_gqa
// CHECK: npu.flash_attention %{{.*}}, %{{.*}}, %{{.*}} {head_num = 8 : i64, input_layout = #npu.attention_layout<BSH>, scale = 1.250000e-01 : f64}
func.func @bsh_gqa(%q: tensor<2x16x512xf16>, %k: tensor<2x32x128xf16>, %v: tensor<2x32x128xf16>) -> tensor<2x16x512xf16> {
  %m, %s, %o = npu.flash_attention %q, %k, %v {input_layout = #npu.attention_layout<BSH>, head_num = 8, scale = 0.125} : (tensor<2x16x512xf16>, tensor<2x32x128xf16>, tensor<2x32x128xf16>) -> (tensor<2x8x16x8xf32>, tensor<2x8x16x8xf32>, tensor<2x16x512xf16>)
  return %o : tensor<2x16x512xf16>
}

// -----

// SBH with every optional input; BNSD and BSND with an S1 x S2 mask.
// CHECK-LABEL: func.func @optional_inputs
// CHECK: npu.flash_attention {{.*}} mask %{{.*}} pse %{{.*}} drop_mask %{{.*}} {{.*}}keep_prob = 9.000000e-01
// CHECK: input_layout = #npu.attention_layout<BNSD>{{.*}}sparse_mode = 3
// CHECK: input_layout = #npu.attention_layout<BSND>
func.func @optional_inputs(%q: tensor<16x2x64xf32>, %k: tensor<24x2x64xf32>, %mask: tensor<2x1x16x24xi8>, %pse: tensor<2x1x1x24xf32>, %drop: tensor<2x1x16x24xi8>,
                           %q4: tensor<2x4x16x72xbf16>, %k4: tensor<2x1x24x72xbf16>, %mask2: tensor<16x24xi1>,
                           %q5: tensor<2x16x4x72xbf16>, %k5: tensor<2x24x4x72xbf16>) {
  %m, %s, %o = npu.flash_attention %q, %k, %k mask %mask pse %pse drop_mask %drop {input_layout = #npu.attention_layout<SBH>, head_num = 1, scale = 0.125, keep_prob = 0.9} : (tensor<16x2x64xf32>, tensor<24x2x64xf32>, tensor<24x2x64xf32>, tensor<2x1x16x24xi8>, tensor<2x1x1x24xf32>, tensor<2x1x16x24xi8>) -> (tensor<2x1x16x8xf32>, tensor<2x1x16x8xf32>, tensor<16x2x64xf32>)
  %m4, %s4, %o4 = npu.flash_attention %q4, %k4, %k4 {input_layout = #npu.attention_layout<BNSD>, head_num = 4, scale = 0.1, sparse_mode = 3} : (tensor<2x4x16x72xbf16>, tensor<2x1x24x72xbf16>, tensor<2x1x24x72xbf16>) -> (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x72xbf16>)
  %m5, %s5, %o5 = npu.flash_attention %q5, %k5, %k5 mask %mask2 {input_layout = #npu.attention_layout<BSND>, head_num = 4, scale = 0.1, sparse_mode = 1} : (tensor<2x16x4x72xbf16>, tensor<2x24x4x72xbf16>, tensor<2x24x4x72xbf16>, tensor<16x24xi1>) -> (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x16x4x72xbf16>)
  return
}

// -----

// TND: two packed sequences of 3 and 5 queries (7 and 9 keys); statistics
// are [T1, N1, 8]. The backward op gives dpse only with pse, and reads the
// given statistics with recompute_statistics = false (true, the default,
// is not printed).
// CHECK-LABEL: func.func @tnd_and_grad
// CHECK: actual_seq_kvlen = array<i64: 7, 16>, actual_seq_qlen = array<i64: 3, 8>
// CHECK: npu.flash_attention_grad
// CHECK-SAME: recompute_statistics = false
// CHECK: npu.flash_attention_grad {{.*}} pse
// CHECK-NOT: recompute_statistics
func.func @tnd_and_grad(%q: tensor<8x2x64xf16>, %k: tensor<16x1x64xf16>,
                        %q4: tensor<1x2x8x64xf32>, %k4: tensor<1x2x8x64xf32>, %st: tensor<1x2x8x8xf32>, %pse: tensor<1x2x8x8xf32>) {
  %m, %s, %o = npu.flash_attention %q, %k, %k {input_layout = #npu.attention_layout<TND>, head_num = 2, scale = 0.125, sparse_mode = 7, actual_seq_qlen = array<i64: 3, 8>, actual_seq_kvlen = array<i64: 7, 16>} : (tensor<8x2x64xf16>, tensor<16x1x64xf16>, tensor<16x1x64xf16>) -> (tensor<8x2x8xf32>, tensor<8x2x8xf32>, tensor<8x2x64xf16>)
  %dq, %dk, %dv = npu.flash_attention_grad %q, %k, %k, %o, %m, %s, %o {input_layout = #npu.attention_layout<TND>, head_num = 2, scale = 0.125, actual_seq_qlen = array<i64: 3, 8>, actual_seq_kvlen = array<i64: 7, 16>, recompute_statistics = false} : (tensor<8x2x64xf16>, tensor<16x1x64xf16>, tensor<16x1x64xf16>, tensor<8x2x64xf16>, tensor<8x2x8xf32>, tensor<8x2x8xf32>, tensor<8x2x64xf16>) -> (tensor<8x2x64xf16>, tensor<16x1x64xf16>, tensor<16x1x64xf16>)
  %dq4, %dk4, %dv4, %dpse = npu.flash_attention_grad %q4, %k4, %k4, %q4, %st, %st, %q4 pse %pse {input_layout = #npu.attention_layout<BNSD>, head_num = 2, scale = 0.125, recompute_statistics = true} : (tensor<1x2x8x64xf32>, tensor<1x2x8x64xf32>, tensor<1x2x8x64xf32>, tensor<1x2x8x64xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x64xf32>, tensor<1x2x8x8xf32>) -> (tensor<1x2x8x64xf32>, tensor<1x2x8x64xf32>, tensor<1x2x8x64xf32>, tensor<1x2x8x8xf32>)
  return
}

// -----

// A batch of 2^40 in the types: the verifier keeps nothing per batch
// outside TND, so it answers at once rather than running out of memory.
// CHECK-LABEL: func.func @huge_batch
// CHECK: npu.flash_attention {{.*}} tensor<1099511627776x2x4x8xf32>
func.func @huge_batch(%q: tensor<1099511627776x2x4x8xf32>) -> tensor<1099511627776x2x4x8xf32> {
  %m, %s, %o = npu.flash_attention %q, %q, %q {input_layout = #npu.attention_layout<BNSD>, head_num = 2, scale = 0.5} : (tensor<1099511627776x2x4x8xf32>, tensor<1099511627776x2x4x8xf32>, tensor<1099511627776x2x4x8xf32>) -> (tensor<1099511627776x2x4x8xf32>, tensor<1099511627776x2x4x8xf32>, tensor<1099511627776x2x4x8xf32>)
  return %o : tensor<1099511627776x2x4x8xf32>
}

// -----

// Sequence lengths read at run time (S1 and S2 apart), every layout with a
// sequence axis; the statistics follow S1.
// CHECK-LABEL: func.func @run_time_lengths
// CHECK: (tensor<?x1x64xf16>, tensor<?x1x64xf16>, tensor<?x1x64xf16>) -> (tensor<1x1x?x8xf32>, tensor<1x1x?x8xf32>, tensor<?x1x64xf16>)
// CHECK: (tensor<1x2x?x16xf32>, tensor<1x2x?x16xf32>, tensor<1x2x?x16xf32>) -> (tensor<1x2x?x8xf32>, tensor<1x2x?x8xf32>, tensor<1x2x?x16xf32>)
func.func @run_time_lengths(%q: tensor<?x1x64xf16>, %k: tensor<?x1x64xf16>, %bq: tensor<1x2x?x16xf32>, %bk: tensor<1x2x?x16xf32>) {
  %m, %s, %o = npu.flash_attention %q, %k, %k {input_layout = #npu.attention_layout<SBH>, head_num = 1, scale = 0.125, sparse_mode = 3} : (tensor<?x1x64xf16>, tensor<?x1x64xf16>, tensor<?x1x64xf16>) -> (tensor<1x1x?x8xf32>, tensor<1x1x?x8xf32>, tensor<?x1x64xf16>)
  %m2, %s2, %o2 = npu.flash_attention %bq, %bk, %bk {input_layout = #npu.attention_layout<BNSD>, head_num = 2, scale = 0.25} : (tensor<1x2x?x16xf32>, tensor<1x2x?x16xf32>, tensor<1x2x?x16xf32>) -> (tensor<1x2x?x8xf32>, tensor<1x2x?x8xf32>, tensor<1x2x?x16xf32>)
  return
}

// -----

// TND's cumulative lengths as data: the seq_qlen and seq_kvlen operands,
// [B] i64, in place of the attributes.
// CHECK-LABEL: func.func @packed_lengths_as_data
// CHECK: npu.flash_attention %{{.*}}, %{{.*}}, %{{.*}} seq_qlen %{{.*}} seq_kvlen %{{.*}} {head_num = 2 : i64, input_layout = #npu.attention_layout<TND>
// CHECK: npu.flash_attention_grad {{.*}} seq_qlen %{{.*}} seq_kvlen %{{.*}} {head_num = 2 : i64, input_layout = #npu.attention_layout<TND>
func.func @packed_lengths_as_data(%q: tensor<24x2x16xf32>, %k: tensor<30x1x16xf32>, %ql: tensor<4xi64>, %kl: tensor<4xi64>, %st: tensor<24x2x8xf32>) {
  %m, %s, %o = npu.flash_attention %q, %k, %k seq_qlen %ql seq_kvlen %kl {input_layout = #npu.attention_layout<TND>, head_num = 2, scale = 0.25, sparse_mode = 3} : (tensor<24x2x16xf32>, tensor<30x1x16xf32>, tensor<30x1x16xf32>, tensor<4xi64>, tensor<4xi64>) -> (tensor<24x2x8xf32>, tensor<24x2x8xf32>, tensor<24x2x16xf32>)
  %dq, %dk, %dv = npu.flash_attention_grad %q, %k, %k, %q, %st, %st, %q seq_qlen %ql seq_kvlen %kl {input_layout = #npu.attention_layout<TND>, head_num = 2, scale = 0.25} : (tensor<24x2x16xf32>, tensor<30x1x16xf32>, tensor<30x1x16xf32>, tensor<24x2x16xf32>, tensor<24x2x8xf32>, tensor<24x2x8xf32>, tensor<24x2x16xf32>, tensor<4xi64>, tensor<4xi64>) -> (tensor<24x2x16xf32>, tensor<30x1x16xf32>, tensor<30x1x16xf32>)
  return
}
