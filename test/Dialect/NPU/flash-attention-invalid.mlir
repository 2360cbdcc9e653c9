// Every verifier rule of npu.flash_attention and npu.flash_attention_grad,
// each with its message.
// RUN: npu-opt %s --split-input-file --verify-diagnostics

func.func @rank(%q: tensor<1x4x2x8xf32>, %k: tensor<1x6x2x8xf32>) {
  // expected-error @+1 {{'npu.flash_attention' op query must have rank 3 for layout BSH, got 'tensor<1x4x2x8xf32>'}}
  %m, %s, %o = npu.flash_attention %q, %k, %k {input_layout = #npu.attention_layout<BSH>, head_num = 2, scale = 0.5} : (tensor<1x4x2x8xf32>, tensor<1x6x2x8xf32>, tensor<1x6x2x8xf32>) -> (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x4x2x8xf32>)
  return
}

// -----

func.func @dynamic(%q: tensor<?x4x2x8xf32>, %k: tensor<1x6x2x8xf32>) {
  // expected-error @+1 {{'npu.flash_attention' op query must have a static shape except its sequence length (dimension 1), got 'tensor<?x4x2x8xf32>'}}
  %m, %s, %o = npu.flash_attention %q, %k, %k {input_layout = #npu.attention_layout<BSND>, head_num = 2, scale = 0.5} : (tensor<?x4x2x8xf32>, tensor<1x6x2x8xf32>, tensor<1x6x2x8xf32>) -> (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<?x4x2x8xf32>)
  return
}

// -----

func.func @dynamic_tnd(%q: tensor<?x2x8xf32>, %k: tensor<6x2x8xf32>) {
  // expected-error @+1 {{'npu.flash_attention' op query's rows are read at run time ('tensor<?x2x8xf32>'), so its lengths must be too: give seq_qlen and seq_kvlen instead of actual_seq_qlen and actual_seq_kvlen}}
  %m, %s, %o = npu.flash_attention %q, %k, %k {input_layout = #npu.attention_layout<TND>, head_num = 2, scale = 0.5, actual_seq_qlen = array<i64: 4>, actual_seq_kvlen = array<i64: 6>} : (tensor<?x2x8xf32>, tensor<6x2x8xf32>, tensor<6x2x8xf32>) -> (tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<?x2x8xf32>)
  return
}

// -----

func.func @dynamic_statistics(%q: tensor<1x?x2x8xf32>, %k: tensor<1x?x2x8xf32>) {
  // expected-error @+1 {{'npu.flash_attention' op softmax_max must be shaped [1, 2, ?, 8] (f32), got 'tensor<1x2x4x8xf32>'}}
  %m, %s, %o = npu.flash_attention %q, %k, %k {input_layout = #npu.attention_layout<BSND>, head_num = 2, scale = 0.5} : (tensor<1x?x2x8xf32>, tensor<1x?x2x8xf32>, tensor<1x?x2x8xf32>) -> (tensor<1x2x4x8xf32>, tensor<1x2x?x8xf32>, tensor<1x?x2x8xf32>)
  return
}

// -----

func.func @key_value(%q: tensor<1x4x2x8xf32>, %k: tensor<1x6x2x8xf32>, %v: tensor<1x7x2x8xf32>) {
  // expected-error @+1 {{'npu.flash_attention' op key and value must have one type, got 'tensor<1x6x2x8xf32>' and 'tensor<1x7x2x8xf32>'}}
  %m, %s, %o = npu.flash_attention %q, %k, %v {input_layout = #npu.attention_layout<BSND>, head_num = 2, scale = 0.5} : (tensor<1x4x2x8xf32>, tensor<1x6x2x8xf32>, tensor<1x7x2x8xf32>) -> (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x4x2x8xf32>)
  return
}

// -----

func.func @element_types(%q: tensor<1x4x2x8xf16>, %k: tensor<1x6x2x8xf32>) {
  // expected-error @+1 {{'npu.flash_attention' op query and key must have one element type, got 'f16' and 'f32'}}
  %m, %s, %o = npu.flash_attention %q, %k, %k {input_layout = #npu.attention_layout<BSND>, head_num = 2, scale = 0.5} : (tensor<1x4x2x8xf16>, tensor<1x6x2x8xf32>, tensor<1x6x2x8xf32>) -> (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x4x2x8xf16>)
  return
}

// -----

func.func @hidden(%q: tensor<1x4x30xf32>, %k: tensor<1x6x30xf32>) {
  // expected-error @+1 {{'npu.flash_attention' op query's hidden size 30 is not a multiple of head_num 4}}
  %m, %s, %o = npu.flash_attention %q, %k, %k {input_layout = #npu.attention_layout<BSH>, head_num = 4, scale = 0.5} : (tensor<1x4x30xf32>, tensor<1x6x30xf32>, tensor<1x6x30xf32>) -> (tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>, tensor<1x4x30xf32>)
  return
}

// -----

func.func @kv_hidden(%q: tensor<1x4x16xf32>, %k: tensor<1x6x12xf32>) {
  // expected-error @+1 {{'npu.flash_attention' op key's hidden size 12 is not a multiple of the head size 8}}
  %m, %s, %o = npu.flash_attention %q, %k, %k {input_layout = #npu.attention_layout<BSH>, head_num = 2, scale = 0.5} : (tensor<1x4x16xf32>, tensor<1x6x12xf32>, tensor<1x6x12xf32>) -> (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x4x16xf32>)
  return
}

// -----

func.func @head_size(%q: tensor<1x4x2x8xf32>, %k: tensor<1x6x2x4xf32>) {
  // expected-error @+1 {{'npu.flash_attention' op query and key head sizes differ: 8 vs 4}}
  %m, %s, %o = npu.flash_attention %q, %k, %k {input_layout = #npu.attention_layout<BSND>, head_num = 2, scale = 0.5} : (tensor<1x4x2x8xf32>, tensor<1x6x2x4xf32>, tensor<1x6x2x4xf32>) -> (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x4x2x8xf32>)
  return
}

// -----

func.func @batch(%q: tensor<1x4x2x8xf32>, %k: tensor<2x6x2x8xf32>) {
  // expected-error @+1 {{'npu.flash_attention' op query and key batch sizes differ: 1 vs 2}}
  %m, %s, %o = npu.flash_attention %q, %k, %k {input_layout = #npu.attention_layout<BSND>, head_num = 2, scale = 0.5} : (tensor<1x4x2x8xf32>, tensor<2x6x2x8xf32>, tensor<2x6x2x8xf32>) -> (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x4x2x8xf32>)
  return
}

// -----

func.func @head_num(%q: tensor<1x4x2x8xf32>, %k: tensor<1x6x2x8xf32>) {
  // expected-error @+1 {{'npu.flash_attention' op query has 2 heads but head_num is 4}}
  %m, %s, %o = npu.flash_attention %q, %k, %k {input_layout = #npu.attention_layout<BSND>, head_num = 4, scale = 0.5} : (tensor<1x4x2x8xf32>, tensor<1x6x2x8xf32>, tensor<1x6x2x8xf32>) -> (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x4x2x8xf32>)
  return
}

// -----

func.func @gqa(%q: tensor<1x4x2x8xf32>, %k: tensor<1x6x3x8xf32>) {
  // expected-error @+1 {{'npu.flash_attention' op query heads 2 are not a multiple of key/value heads 3}}
  %m, %s, %o = npu.flash_attention %q, %k, %k {input_layout = #npu.attention_layout<BSND>, head_num = 2, scale = 0.5} : (tensor<1x4x2x8xf32>, tensor<1x6x3x8xf32>, tensor<1x6x3x8xf32>) -> (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x4x2x8xf32>)
  return
}

// -----

func.func @seq_not_tnd(%q: tensor<1x4x2x8xf32>, %k: tensor<1x6x2x8xf32>) {
  // expected-error @+1 {{'npu.flash_attention' op actual_seq_qlen and actual_seq_kvlen are for layout TND only}}
  %m, %s, %o = npu.flash_attention %q, %k, %k {input_layout = #npu.attention_layout<BSND>, head_num = 2, scale = 0.5, actual_seq_qlen = array<i64: 4>, actual_seq_kvlen = array<i64: 6>} : (tensor<1x4x2x8xf32>, tensor<1x6x2x8xf32>, tensor<1x6x2x8xf32>) -> (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x4x2x8xf32>)
  return
}

// -----

func.func @tnd_needs_seq(%q: tensor<8x2x8xf32>, %k: tensor<10x2x8xf32>) {
  // expected-error @+1 {{'npu.flash_attention' op layout TND needs actual_seq_qlen and actual_seq_kvlen}}
  %m, %s, %o = npu.flash_attention %q, %k, %k {input_layout = #npu.attention_layout<TND>, head_num = 2, scale = 0.5} : (tensor<8x2x8xf32>, tensor<10x2x8xf32>, tensor<10x2x8xf32>) -> (tensor<8x2x8xf32>, tensor<8x2x8xf32>, tensor<8x2x8xf32>)
  return
}

// -----

func.func @tnd_batches(%q: tensor<8x2x8xf32>, %k: tensor<10x2x8xf32>) {
  // expected-error @+1 {{'npu.flash_attention' op actual_seq_qlen has 2 batches but actual_seq_kvlen 1}}
  %m, %s, %o = npu.flash_attention %q, %k, %k {input_layout = #npu.attention_layout<TND>, head_num = 2, scale = 0.5, actual_seq_qlen = array<i64: 3, 8>, actual_seq_kvlen = array<i64: 10>} : (tensor<8x2x8xf32>, tensor<10x2x8xf32>, tensor<10x2x8xf32>) -> (tensor<8x2x8xf32>, tensor<8x2x8xf32>, tensor<8x2x8xf32>)
  return
}

// -----

func.func @tnd_cumulative(%q: tensor<8x2x8xf32>, %k: tensor<10x2x8xf32>) {
  // expected-error @+1 {{'npu.flash_attention' op actual_seq_qlen must be cumulative (non-decreasing), but batch 1 ends at 2 before 3}}
  %m, %s, %o = npu.flash_attention %q, %k, %k {input_layout = #npu.attention_layout<TND>, head_num = 2, scale = 0.5, actual_seq_qlen = array<i64: 3, 2>, actual_seq_kvlen = array<i64: 4, 10>} : (tensor<8x2x8xf32>, tensor<10x2x8xf32>, tensor<10x2x8xf32>) -> (tensor<8x2x8xf32>, tensor<8x2x8xf32>, tensor<8x2x8xf32>)
  return
}

// -----

func.func @tnd_total(%q: tensor<8x2x8xf32>, %k: tensor<10x2x8xf32>) {
  // expected-error @+1 {{'npu.flash_attention' op actual_seq_kvlen ends at 9 but the tensor holds 10 rows}}
  %m, %s, %o = npu.flash_attention %q, %k, %k {input_layout = #npu.attention_layout<TND>, head_num = 2, scale = 0.5, actual_seq_qlen = array<i64: 3, 8>, actual_seq_kvlen = array<i64: 4, 9>} : (tensor<8x2x8xf32>, tensor<10x2x8xf32>, tensor<10x2x8xf32>) -> (tensor<8x2x8xf32>, tensor<8x2x8xf32>, tensor<8x2x8xf32>)
  return
}

// -----

func.func @mask_shape(%q: tensor<1x4x2x8xf32>, %k: tensor<1x6x2x8xf32>, %mask: tensor<6x4xi8>) {
  // expected-error @+1 {{'npu.flash_attention' op atten_mask must be shaped [4, 6] or [1, 1, 4, 6] or [1, 2, 4, 6], got 'tensor<6x4xi8>'}}
  %m, %s, %o = npu.flash_attention %q, %k, %k mask %mask {input_layout = #npu.attention_layout<BSND>, head_num = 2, scale = 0.5} : (tensor<1x4x2x8xf32>, tensor<1x6x2x8xf32>, tensor<1x6x2x8xf32>, tensor<6x4xi8>) -> (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x4x2x8xf32>)
  return
}

// -----

func.func @mode1_mask(%q: tensor<1x4x2x8xf32>, %k: tensor<1x6x2x8xf32>) {
  // expected-error @+1 {{'npu.flash_attention' op sparse_mode 1 (all mask) needs atten_mask}}
  %m, %s, %o = npu.flash_attention %q, %k, %k {input_layout = #npu.attention_layout<BSND>, head_num = 2, scale = 0.5, sparse_mode = 1} : (tensor<1x4x2x8xf32>, tensor<1x6x2x8xf32>, tensor<1x6x2x8xf32>) -> (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x4x2x8xf32>)
  return
}

// -----

func.func @pse_tnd(%q: tensor<8x2x8xf32>, %k: tensor<10x2x8xf32>, %pse: tensor<1x2x8x10xf32>) {
  // expected-error @+1 {{'npu.flash_attention' op pse is not supported with layout TND}}
  %m, %s, %o = npu.flash_attention %q, %k, %k pse %pse {input_layout = #npu.attention_layout<TND>, head_num = 2, scale = 0.5, actual_seq_qlen = array<i64: 8>, actual_seq_kvlen = array<i64: 10>} : (tensor<8x2x8xf32>, tensor<10x2x8xf32>, tensor<10x2x8xf32>, tensor<1x2x8x10xf32>) -> (tensor<8x2x8xf32>, tensor<8x2x8xf32>, tensor<8x2x8xf32>)
  return
}

// -----

func.func @pse_type(%q: tensor<1x4x2x8xf32>, %k: tensor<1x6x2x8xf32>, %pse: tensor<1x2x4x6xf16>) {
  // expected-error @+1 {{'npu.flash_attention' op pse must have the query's element type, got 'tensor<1x2x4x6xf16>'}}
  %m, %s, %o = npu.flash_attention %q, %k, %k pse %pse {input_layout = #npu.attention_layout<BSND>, head_num = 2, scale = 0.5} : (tensor<1x4x2x8xf32>, tensor<1x6x2x8xf32>, tensor<1x6x2x8xf32>, tensor<1x2x4x6xf16>) -> (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x4x2x8xf32>)
  return
}

// -----

func.func @pse_shape(%q: tensor<1x4x2x8xf32>, %k: tensor<1x6x2x8xf32>, %pse: tensor<1x1x4x6xf32>) {
  // expected-error @+1 {{'npu.flash_attention' op pse must be shaped [1, 2, 4, 6] or [1, 2, 1, 6] or [1, 2, 4, 6], got 'tensor<1x1x4x6xf32>'}}
  %m, %s, %o = npu.flash_attention %q, %k, %k pse %pse {input_layout = #npu.attention_layout<BSND>, head_num = 2, scale = 0.5} : (tensor<1x4x2x8xf32>, tensor<1x6x2x8xf32>, tensor<1x6x2x8xf32>, tensor<1x1x4x6xf32>) -> (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x4x2x8xf32>)
  return
}

// -----

func.func @keep_prob(%q: tensor<1x4x2x8xf32>, %k: tensor<1x6x2x8xf32>) {
  // expected-error @+1 {{'npu.flash_attention' op keep_prob must be in (0, 1], got 0}}
  %m, %s, %o = npu.flash_attention %q, %k, %k {input_layout = #npu.attention_layout<BSND>, head_num = 2, scale = 0.5, keep_prob = 0.0} : (tensor<1x4x2x8xf32>, tensor<1x6x2x8xf32>, tensor<1x6x2x8xf32>) -> (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x4x2x8xf32>)
  return
}

// -----

func.func @keep_needs_drop(%q: tensor<1x4x2x8xf32>, %k: tensor<1x6x2x8xf32>) {
  // expected-error @+1 {{'npu.flash_attention' op keep_prob 0.5 needs drop_mask}}
  %m, %s, %o = npu.flash_attention %q, %k, %k {input_layout = #npu.attention_layout<BSND>, head_num = 2, scale = 0.5, keep_prob = 0.5} : (tensor<1x4x2x8xf32>, tensor<1x6x2x8xf32>, tensor<1x6x2x8xf32>) -> (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x4x2x8xf32>)
  return
}

// -----

func.func @drop_shape(%q: tensor<1x4x2x8xf32>, %k: tensor<1x6x2x8xf32>, %d: tensor<4x6xi8>) {
  // expected-error @+1 {{'npu.flash_attention' op drop_mask must be shaped [1, 2, 4, 6], got 'tensor<4x6xi8>'}}
  %m, %s, %o = npu.flash_attention %q, %k, %k drop_mask %d {input_layout = #npu.attention_layout<BSND>, head_num = 2, scale = 0.5, keep_prob = 0.5} : (tensor<1x4x2x8xf32>, tensor<1x6x2x8xf32>, tensor<1x6x2x8xf32>, tensor<4x6xi8>) -> (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x4x2x8xf32>)
  return
}

// -----

func.func @drop_tnd(%q: tensor<8x2x8xf32>, %k: tensor<10x2x8xf32>, %d: tensor<1x2x8x10xi8>) {
  // expected-error @+1 {{'npu.flash_attention' op drop_mask is not supported with layout TND}}
  %m, %s, %o = npu.flash_attention %q, %k, %k drop_mask %d {input_layout = #npu.attention_layout<TND>, head_num = 2, scale = 0.5, actual_seq_qlen = array<i64: 8>, actual_seq_kvlen = array<i64: 10>} : (tensor<8x2x8xf32>, tensor<10x2x8xf32>, tensor<10x2x8xf32>, tensor<1x2x8x10xi8>) -> (tensor<8x2x8xf32>, tensor<8x2x8xf32>, tensor<8x2x8xf32>)
  return
}

// -----

func.func @mode7(%q: tensor<1x4x2x8xf32>, %k: tensor<1x6x2x8xf32>) {
  // expected-error @+1 {{'npu.flash_attention' op sparse_mode 7 (causal per packed sequence) needs layout TND}}
  %m, %s, %o = npu.flash_attention %q, %k, %k {input_layout = #npu.attention_layout<BSND>, head_num = 2, scale = 0.5, sparse_mode = 7} : (tensor<1x4x2x8xf32>, tensor<1x6x2x8xf32>, tensor<1x6x2x8xf32>) -> (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x4x2x8xf32>)
  return
}

// -----

func.func @prefix_missing(%q: tensor<1x4x2x8xf32>, %k: tensor<1x6x2x8xf32>) {
  // expected-error @+1 {{'npu.flash_attention' op sparse_mode 5 needs prefix with one entry per batch (1)}}
  %m, %s, %o = npu.flash_attention %q, %k, %k {input_layout = #npu.attention_layout<BSND>, head_num = 2, scale = 0.5, sparse_mode = 5} : (tensor<1x4x2x8xf32>, tensor<1x6x2x8xf32>, tensor<1x6x2x8xf32>) -> (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x4x2x8xf32>)
  return
}

// -----

func.func @prefix_range(%q: tensor<1x4x2x8xf32>, %k: tensor<1x6x2x8xf32>) {
  // expected-error @+1 {{'npu.flash_attention' op prefix[0] = 7 is outside [0, 6]}}
  %m, %s, %o = npu.flash_attention %q, %k, %k {input_layout = #npu.attention_layout<BSND>, head_num = 2, scale = 0.5, sparse_mode = 6, prefix = array<i64: 7>} : (tensor<1x4x2x8xf32>, tensor<1x6x2x8xf32>, tensor<1x6x2x8xf32>) -> (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x4x2x8xf32>)
  return
}

// -----

func.func @prefix_mode(%q: tensor<1x4x2x8xf32>, %k: tensor<1x6x2x8xf32>) {
  // expected-error @+1 {{'npu.flash_attention' op prefix is for sparse_mode 5 and 6 only}}
  %m, %s, %o = npu.flash_attention %q, %k, %k {input_layout = #npu.attention_layout<BSND>, head_num = 2, scale = 0.5, prefix = array<i64: 2>} : (tensor<1x4x2x8xf32>, tensor<1x6x2x8xf32>, tensor<1x6x2x8xf32>) -> (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x4x2x8xf32>)
  return
}

// -----

func.func @sparse_mode(%q: tensor<1x4x2x8xf32>, %k: tensor<1x6x2x8xf32>) {
  // expected-error @+1 {{'npu.flash_attention' op attribute 'sparse_mode' failed to satisfy constraint: 64-bit signless integer attribute whose minimum value is 0 whose maximum value is 8}}
  %m, %s, %o = npu.flash_attention %q, %k, %k {input_layout = #npu.attention_layout<BSND>, head_num = 2, scale = 0.5, sparse_mode = 9} : (tensor<1x4x2x8xf32>, tensor<1x6x2x8xf32>, tensor<1x6x2x8xf32>) -> (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x4x2x8xf32>)
  return
}

// -----

func.func @statistics(%q: tensor<1x4x2x8xf32>, %k: tensor<1x6x2x8xf32>) {
  // expected-error @+1 {{'npu.flash_attention' op softmax_max must be shaped [1, 2, 4, 8] (f32), got 'tensor<1x2x4x1xf32>'}}
  %m, %s, %o = npu.flash_attention %q, %k, %k {input_layout = #npu.attention_layout<BSND>, head_num = 2, scale = 0.5} : (tensor<1x4x2x8xf32>, tensor<1x6x2x8xf32>, tensor<1x6x2x8xf32>) -> (tensor<1x2x4x1xf32>, tensor<1x2x4x8xf32>, tensor<1x4x2x8xf32>)
  return
}

// -----

func.func @output(%q: tensor<1x4x2x8xf32>, %k: tensor<1x6x2x8xf32>) {
  // expected-error @+1 {{'npu.flash_attention' op attention_out must have query's type 'tensor<1x4x2x8xf32>', got 'tensor<1x4x2x8xf16>'}}
  %m, %s, %o = npu.flash_attention %q, %k, %k {input_layout = #npu.attention_layout<BSND>, head_num = 2, scale = 0.5} : (tensor<1x4x2x8xf32>, tensor<1x6x2x8xf32>, tensor<1x6x2x8xf32>) -> (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x4x2x8xf16>)
  return
}

// -----

func.func @grad_dy(%q: tensor<1x4x2x8xf32>, %k: tensor<1x6x2x8xf32>, %dy: tensor<1x4x2x8xf16>, %st: tensor<1x2x4x8xf32>) {
  // expected-error @+1 {{'npu.flash_attention_grad' op dy must have query's type 'tensor<1x4x2x8xf32>', got 'tensor<1x4x2x8xf16>'}}
  %dq, %dk, %dv = npu.flash_attention_grad %q, %k, %k, %dy, %st, %st, %q {input_layout = #npu.attention_layout<BSND>, head_num = 2, scale = 0.5} : (tensor<1x4x2x8xf32>, tensor<1x6x2x8xf32>, tensor<1x6x2x8xf32>, tensor<1x4x2x8xf16>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x4x2x8xf32>) -> (tensor<1x4x2x8xf32>, tensor<1x6x2x8xf32>, tensor<1x6x2x8xf32>)
  return
}

// -----

func.func @grad_dk(%q: tensor<1x4x2x8xf32>, %k: tensor<1x6x2x8xf32>, %st: tensor<1x2x4x8xf32>) {
  // expected-error @+1 {{'npu.flash_attention_grad' op dk must have key's type 'tensor<1x6x2x8xf32>', got 'tensor<1x4x2x8xf32>'}}
  %dq, %dk, %dv = npu.flash_attention_grad %q, %k, %k, %q, %st, %st, %q {input_layout = #npu.attention_layout<BSND>, head_num = 2, scale = 0.5} : (tensor<1x4x2x8xf32>, tensor<1x6x2x8xf32>, tensor<1x6x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x4x2x8xf32>) -> (tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x6x2x8xf32>)
  return
}

// -----

func.func @grad_no_dpse(%q: tensor<1x4x2x8xf32>, %k: tensor<1x6x2x8xf32>, %st: tensor<1x2x4x8xf32>, %pse: tensor<1x2x4x6xf32>) {
  // expected-error @+1 {{'npu.flash_attention_grad' op has pse but no dpse result}}
  %dq, %dk, %dv = npu.flash_attention_grad %q, %k, %k, %q, %st, %st, %q pse %pse {input_layout = #npu.attention_layout<BSND>, head_num = 2, scale = 0.5} : (tensor<1x4x2x8xf32>, tensor<1x6x2x8xf32>, tensor<1x6x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x4x2x8xf32>, tensor<1x2x4x6xf32>) -> (tensor<1x4x2x8xf32>, tensor<1x6x2x8xf32>, tensor<1x6x2x8xf32>)
  return
}

// -----

func.func @grad_statistics(%q: tensor<1x4x2x8xf32>, %k: tensor<1x6x2x8xf32>, %st: tensor<1x2x4x8xf32>, %bad: tensor<1x2x4xf32>) {
  // expected-error @+1 {{'npu.flash_attention_grad' op softmax_sum must be shaped [1, 2, 4, 8] (f32), got 'tensor<1x2x4xf32>'}}
  %dq, %dk, %dv = npu.flash_attention_grad %q, %k, %k, %q, %st, %bad, %q {input_layout = #npu.attention_layout<BSND>, head_num = 2, scale = 0.5} : (tensor<1x4x2x8xf32>, tensor<1x6x2x8xf32>, tensor<1x6x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4xf32>, tensor<1x4x2x8xf32>) -> (tensor<1x4x2x8xf32>, tensor<1x6x2x8xf32>, tensor<1x6x2x8xf32>)
  return
}

// -----

func.func @dynamic_tnd_heads(%q: tensor<4x?x8xf32>, %k: tensor<6x2x8xf32>, %l: tensor<1xi64>) {
  // expected-error @+1 {{'npu.flash_attention' op query must have a static shape except its rows (dimension 0), got 'tensor<4x?x8xf32>'}}
  %m, %s, %o = npu.flash_attention %q, %k, %k seq_qlen %l seq_kvlen %l {input_layout = #npu.attention_layout<TND>, head_num = 2, scale = 0.5} : (tensor<4x?x8xf32>, tensor<6x2x8xf32>, tensor<6x2x8xf32>, tensor<1xi64>, tensor<1xi64>) -> (tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x?x8xf32>)
  return
}

// -----

func.func @tnd_lengths_twice(%q: tensor<4x2x8xf32>, %k: tensor<6x2x8xf32>, %l: tensor<1xi64>) {
  // expected-error @+1 {{'npu.flash_attention' op takes the sequence lengths as attributes or as the seq_qlen and seq_kvlen operands, not both}}
  %m, %s, %o = npu.flash_attention %q, %k, %k seq_qlen %l seq_kvlen %l {input_layout = #npu.attention_layout<TND>, head_num = 2, scale = 0.5, actual_seq_qlen = array<i64: 4>, actual_seq_kvlen = array<i64: 6>} : (tensor<4x2x8xf32>, tensor<6x2x8xf32>, tensor<6x2x8xf32>, tensor<1xi64>, tensor<1xi64>) -> (tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>)
  return
}

// -----

func.func @tnd_lengths_one(%q: tensor<4x2x8xf32>, %k: tensor<6x2x8xf32>, %l: tensor<1xi64>) {
  // expected-error @+1 {{'npu.flash_attention' op layout TND needs both seq_qlen and seq_kvlen}}
  %m, %s, %o = npu.flash_attention %q, %k, %k seq_qlen %l {input_layout = #npu.attention_layout<TND>, head_num = 2, scale = 0.5} : (tensor<4x2x8xf32>, tensor<6x2x8xf32>, tensor<6x2x8xf32>, tensor<1xi64>) -> (tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>)
  return
}

// -----

func.func @tnd_lengths_batches(%q: tensor<4x2x8xf32>, %k: tensor<6x2x8xf32>, %l: tensor<1xi64>, %l2: tensor<2xi64>) {
  // expected-error @+1 {{'npu.flash_attention' op seq_qlen and seq_kvlen must have one static number of batches, got 'tensor<1xi64>' and 'tensor<2xi64>'}}
  %m, %s, %o = npu.flash_attention %q, %k, %k seq_qlen %l seq_kvlen %l2 {input_layout = #npu.attention_layout<TND>, head_num = 2, scale = 0.5} : (tensor<4x2x8xf32>, tensor<6x2x8xf32>, tensor<6x2x8xf32>, tensor<1xi64>, tensor<2xi64>) -> (tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>)
  return
}

// -----

func.func @tnd_lengths_no_batch(%q: tensor<4x2x8xf32>, %k: tensor<6x2x8xf32>, %l: tensor<0xi64>) {
  // expected-error @+1 {{'npu.flash_attention' op seq_qlen and seq_kvlen hold no batch, but query has 'tensor<4x2x8xf32>' and key 'tensor<6x2x8xf32>': their rows must be 0}}
  %m, %s, %o = npu.flash_attention %q, %k, %k seq_qlen %l seq_kvlen %l {input_layout = #npu.attention_layout<TND>, head_num = 2, scale = 0.5} : (tensor<4x2x8xf32>, tensor<6x2x8xf32>, tensor<6x2x8xf32>, tensor<0xi64>, tensor<0xi64>) -> (tensor<4x2x8xf32>, tensor<4x2x8xf32>, tensor<4x2x8xf32>)
  return
}

// -----

func.func @tnd_dynamic_rows_no_batch(%q: tensor<?x2x8xf32>, %k: tensor<0x2x8xf32>, %l: tensor<0xi64>) {
  // expected-error @+1 {{'npu.flash_attention' op seq_qlen and seq_kvlen hold no batch, but query has 'tensor<?x2x8xf32>' and key 'tensor<0x2x8xf32>': their rows must be 0}}
  %m, %s, %o = npu.flash_attention %q, %k, %k seq_qlen %l seq_kvlen %l {input_layout = #npu.attention_layout<TND>, head_num = 2, scale = 0.5} : (tensor<?x2x8xf32>, tensor<0x2x8xf32>, tensor<0x2x8xf32>, tensor<0xi64>, tensor<0xi64>) -> (tensor<?x2x8xf32>, tensor<?x2x8xf32>, tensor<?x2x8xf32>)
  return
}

// -----

func.func @lengths_not_tnd(%q: tensor<1x4x2x8xf32>, %l: tensor<1xi64>) {
  // expected-error @+1 {{'npu.flash_attention' op seq_qlen and seq_kvlen are for layout TND only}}
  %m, %s, %o = npu.flash_attention %q, %q, %q seq_qlen %l seq_kvlen %l {input_layout = #npu.attention_layout<BSND>, head_num = 2, scale = 0.5} : (tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1xi64>, tensor<1xi64>) -> (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x4x2x8xf32>)
  return
}
