// npu.flash_attention to one npudev.mixed_launch: the template and tiling
// key recorded shape by shape (docs/flash-attention.md gives the rules; the
// digits below are worked out by hand from them), cube tasks computing
// Q K^T and P V, vector tasks the online softmax, with cross-core flags.
// RUN: npu-opt %s --split-input-file --npu-lower-to-device=device=ascend910b | FileCheck %s --check-prefixes=CHECK,ASC
// RUN: npu-opt %s --split-input-file --npu-lower-to-device | FileCheck %s --check-prefixes=CHECK,MLU

// S2 = 4096 > 1024: the S1S2 template, 128-row blocks (8 heads x 64
// blocks of 64 rows exceed the 48 vector cores), s2 inner 1024 on
// ascend910b (2048 on mlu590, whose vector memory is larger). Without a
// mask and with 128 items of 256 rows, at least 4 per group, an item takes
// a block for each of its two vector cores (s1 inner 256) and each K and V
// chunk, of 64 keys, serves both (L1 reuse). Key digits, least significant
// first: UB0 S1 = 3, UB1 S2 = 4, Block none = 9, ImplMode 0, DataType
// f16 = 0, Format BNSD = 2, Sparse none = 1, BIG_DOUBLE_BUFFER = 2, then
// zeros up to enableL1Reuse = 1.
// CHECK-LABEL: func.func @s1s2_f16_bnsd
// ASC: npudev.mixed_launch cube(24) {
// MLU: npudev.mixed_launch cube(16) {
// CHECK-NEXT: npudev.task_id
// CHECK-NEXT: npudev.alloc : memref<256x128xf16, #npudev.space<cube>>
// CHECK-NEXT: npudev.alloc : memref<64x128xf16, #npudev.space<cube>>
// CHECK-NEXT: npudev.alloc : memref<64x128xf16, #npudev.space<cube>>
// CHECK-NEXT: npudev.alloc : memref<256x64xf32, #npudev.space<cube>>
// An item visits its key blocks from a rotated start, the fractional part
// of its query block times the golden ratio (in 16-bit fixed point) scaled
// to its blocks, so that the cores sharing a head start far apart.
// CHECK: %[[SPREAD:.*]] = arith.muli %{{.*}}, %c40503 : index
// CHECK-NEXT: %[[FRACTION:.*]] = arith.remsi %[[SPREAD]], %c65536 : index
// CHECK: %[[SCALED:.*]] = arith.muli %[[FRACTION]], %[[BLOCKS:.*]] : index
// CHECK-NEXT: %[[START:.*]] = arith.divsi %[[SCALED]], %{{.*}} : index
// CHECK: scf.for %[[KB:.*]] = %{{.*}} to %[[BLOCKS]] step
// CHECK: %[[SHIFTED:.*]] = arith.addi %[[KB]], %[[START]] : index
// CHECK-NEXT: arith.remsi %[[SHIFTED]], %[[BLOCKS]] : index
// Flags: a vector task's 0 (scores ready) and 1 (output ready); the
// cube's flag v, one per vector task of the group.
// A cube step waits for the probabilities of the step two behind; then
// one loop computes this step's scores and that step's output, chunk by
// chunk (when both have as many chunks; otherwise one loop after the
// other); then that output and these scores are signalled.
// CHECK: npudev.wait_flag 0
// CHECK-NEXT: npudev.wait_flag 1
// CHECK: scf.for
// CHECK: npudev.matmul {{.*}} {transpose_b}
// CHECK-NOT: scf.for
// CHECK: npudev.matmul {{.*}} {accumulate}
// CHECK: npudev.set_flag 1 for vector
// CHECK: npudev.set_flag 0 for vector
// ASC: } vector(48) {
// MLU: } vector(32) {
// CHECK: npudev.wait_flag 0
// CHECK: npudev.vreduce <max>
// CHECK: npudev.vunary <exp>
// CHECK: npudev.set_flag 0 for cube
// CHECK: npudev.set_flag 1 for cube
// CHECK: npudev.wait_flag 1
// An item's rows, chunk by chunk: out rounded and m, l spread into the
// copies of the chunk's parity, one wait_all (for the chunk before), then
// three stores left in flight; one wait_all after the last chunk.
// CHECK: %[[OUT:.*]] = memref.subview %{{.*}}[%[[COPY:.*]], %{{.*}}, %{{.*}}] [1, %{{.*}}, 128] [1, 1, 1] : memref<2x{{[0-9]+}}x128xf16
// CHECK-NEXT: npudev.vcast %{{.*}}, %[[OUT]]
// CHECK-NEXT: %[[M:.*]] = memref.subview %{{.*}}[%[[COPY]], {{.*}} : memref<2x{{[0-9]+}}x8xf32
// CHECK-NEXT: %[[L:.*]] = memref.subview %{{.*}}[%[[COPY]], {{.*}} : memref<2x{{[0-9]+}}x8xf32
// CHECK: npudev.wait_all
// CHECK-NOT: npudev.dma %
// CHECK: npudev.dma_start %[[OUT]]
// CHECK-NOT: npudev.dma %
// CHECK: npudev.dma_start %[[M]]
// CHECK-NOT: npudev.dma %
// CHECK: npudev.dma_start %[[L]]
// CHECK-NEXT: }
// CHECK-NEXT: npudev.wait_all
// ASC: npudev.tiling = {groups = 24 : i64, s1_inner = 256 : i64, s2_inner = 1024 : i64, step = "s1s2", strategy = "flash_attention", template = "s1s2", tiling_key = "10000001000021200943"}
// MLU: npudev.tiling = {groups = 16 : i64, s1_inner = 256 : i64, s2_inner = 2048 : i64, step = "s1s2", strategy = "flash_attention", template = "s1s2", tiling_key = "10000001000021200943"}
func.func @s1s2_f16_bnsd(%q: tensor<1x8x4096x128xf16>) -> tensor<1x8x4096x128xf16> {
  %m, %s, %o = npu.flash_attention %q, %q, %q {input_layout = #npu.attention_layout<BNSD>, head_num = 8, scale = 0.088} : (tensor<1x8x4096x128xf16>, tensor<1x8x4096x128xf16>, tensor<1x8x4096x128xf16>) -> (tensor<1x8x4096x8xf32>, tensor<1x8x4096x8xf32>, tensor<1x8x4096x128xf16>)
  return %o : tensor<1x8x4096x128xf16>
}

// -----

// 128 < S2 <= 1024: the S1 template, the whole key length in one block.
// Digits: S1 = 3, none, none, 0, bf16 = 2, BSND (BSH) = 0, causal = 3, 2.
// CHECK-LABEL: func.func @s1_bf16_bsh_causal
// CHECK: template = "s1", tiling_key = "10000000000023020993"
func.func @s1_bf16_bsh_causal(%q: tensor<2x512x512xbf16>) -> tensor<2x512x512xbf16> {
  %m, %s, %o = npu.flash_attention %q, %q, %q {input_layout = #npu.attention_layout<BSH>, head_num = 4, scale = 0.088, sparse_mode = 2} : (tensor<2x512x512xbf16>, tensor<2x512x512xbf16>, tensor<2x512x512xbf16>) -> (tensor<2x4x512x8xf32>, tensor<2x4x512x8xf32>, tensor<2x512x512xbf16>)
  return %o : tensor<2x512x512xbf16>
}

// -----

// S2 <= 128 and 64 x 64 <= 65536: the B template; 8 (batch, head) items,
// so 8 groups. Digits: B = 0, none, none, 0, f32 = 1, SBND (SBH) = 1,
// band (mode 4's pre/next tokens) = 4, 2. (Mode 0 takes the tokens only
// with a mask, as CANN does.)
// CHECK-LABEL: func.func @b_f32_sbh_band
// CHECK: npudev.mixed_launch cube(8)
// CHECK: template = "b", tiling_key = "10000000000024110990"
func.func @b_f32_sbh_band(%q: tensor<64x4x128xf32>) -> tensor<64x4x128xf32> {
  %m, %s, %o = npu.flash_attention %q, %q, %q {input_layout = #npu.attention_layout<SBH>, head_num = 2, scale = 0.125, sparse_mode = 4, pre_tokens = 8, next_tokens = 0} : (tensor<64x4x128xf32>, tensor<64x4x128xf32>, tensor<64x4x128xf32>) -> (tensor<4x2x64x8xf32>, tensor<4x2x64x8xf32>, tensor<64x4x128xf32>)
  return %o : tensor<64x4x128xf32>
}


// -----

// The backward: a zero tile for the cube's sums, then two mixed launches:
// each query row's statistics and D = rowsum(P dP') over the key blocks (S
// and dP on the cube, nothing summed there), and dQ / dK / dV over key
// blocks; dQ's partial sums added up; and the f16 outputs rounded from
// their f32 sums. B N2 = 8 does not exceed the 24 AI cores and the groups are
// large: FAG template s1s2_bn2gs1s2 (16000). Key digits: UB0 S1 = 3, UB1
// S2 = 4, Block S2 = 4, ImplMode 0, f16 = 0, BNSD = 2, causal = 3,
// BIG_DOUBLE_BUFFER = 2.
// CHECK-LABEL: func.func @grad_f16_causal
// CHECK: step = "zeros", strategy = "flash_attention_grad"
// Launch 1's runs of items (a start per group and an end), the query
// rows each (group, head) pair reached, and each head's first and last
// group, filled by host loops; dQ's partial sums, one per (group, head)
// pair a run can make, G + 8 - 1, not filled: a step that first reaches
// a query block sets its rows, and the sum reads only reached rows.
// ASC: memref.alloc() : memref<25x2xi64, #npudev.space<global>>
// ASC-NEXT: memref.alloc() : memref<31x2xi64, #npudev.space<global>>
// MLU: memref.alloc() : memref<17x2xi64, #npudev.space<global>>
// MLU-NEXT: memref.alloc() : memref<23x2xi64, #npudev.space<global>>
// CHECK-NEXT: memref.alloc() : memref<8x2xi64, #npudev.space<global>>
// CHECK: scf.for
// ASC: memref.alloc() : memref<31x1x4096x128xf32, #npudev.space<global>>
// MLU: memref.alloc() : memref<23x1x4096x128xf32, #npudev.space<global>>
// CHECK-NOT: step = "zero_dq_parts"
// ASC: npudev.mixed_launch cube(24)
// MLU: npudev.mixed_launch cube(16)
// A step's cube copies move in pairs. K and V, which vary by step in this
// launch, have a ring of five tiles (steps t - 3 to t + 1), Q and dY one;
// S and dP have two sets. Step 0's loads start before the loop, which
// carries the token of each step's pair. Iteration t waits for the vector
// tasks' step t - 4 (the statistics take nothing into cube sums, so this
// launch runs four steps ahead, with four workspace slots; the others
// three), starts step t + 1's pair, waits for step t's alone (not for step
// t - 1's stores, which stay in flight), computes S and dP into their set
// and stores each as it is computed, then tells the vector tasks without
// waiting (the flag is set when the stores are done).
// CHECK: npudev.alloc : memref<1x{{[0-9]+}}x128xf16, #npudev.space<cube>>
// CHECK-NEXT: npudev.alloc : memref<1x{{[0-9]+}}x128xf16, #npudev.space<cube>>
// CHECK-NEXT: npudev.alloc : memref<5x{{[0-9]+}}x128xf16, #npudev.space<cube>>
// CHECK-NEXT: npudev.alloc : memref<5x{{[0-9]+}}x128xf16, #npudev.space<cube>>
// CHECK-NEXT: %[[STILE:.*]] = npudev.alloc : memref<2x{{[0-9]+}}x{{[0-9]+}}xf32, #npudev.space<cube>>
// CHECK-NEXT: %[[DPTILE:.*]] = npudev.alloc : memref<2x{{[0-9]+}}x{{[0-9]+}}xf32, #npudev.space<cube>>
// CHECK: %[[FIRST:.*]] = scf.if %{{.*}} -> (!npudev.token) {
// CHECK: npudev.dma_start {{.*}}#npudev.space<cube>>
// CHECK: %[[FIRSTV:.*]] = npudev.dma_start {{.*}}#npudev.space<cube>>
// CHECK-NEXT: scf.yield %[[FIRSTV]]
// CHECK-NOT: npudev.wait
// CHECK: scf.for %{{.*}} iter_args(%[[PAIR:.*]] = %[[FIRST]]) -> (!npudev.token)
// CHECK-NOT: npudev.wait_all
// CHECK: arith.subi %{{.*}}, %c4
// CHECK: scf.if
// CHECK-NEXT: npudev.wait_flag 0
// CHECK-NEXT: npudev.wait_flag 1
// CHECK: %[[NEXT:.*]] = scf.if %{{.*}} -> (!npudev.token) {
// CHECK: npudev.dma_start {{.*}}#npudev.space<cube>>
// CHECK: npudev.dma_start {{.*}}#npudev.space<cube>>
// CHECK-NOT: npudev.wait_all
// CHECK: npudev.wait %[[PAIR]]
// CHECK-NEXT: scf.if
// CHECK: %[[S:.*]] = memref.subview %[[STILE]][
// CHECK: npudev.matmul %{{.*}}, %{{.*}}, %[[S]] {transpose_b}
// CHECK: npudev.dma_start %{{.*}} : memref<?x?xf32, {{.*}}#npudev.space<cube>> to
// CHECK: %[[DP:.*]] = memref.subview %[[DPTILE]][
// CHECK-NEXT: npudev.matmul %{{.*}}, %{{.*}}, %[[DP]] {transpose_b}
// CHECK: npudev.dma_start %{{.*}} : memref<?x?xf32, {{.*}}#npudev.space<cube>> to
// CHECK-NOT: npudev.wait
// CHECK: npudev.set_flag 0 for
// CHECK: npudev.set_flag 0 for
// CHECK-NOT: npudev.matmul
// CHECK: scf.yield %[[NEXT]]
// Square blocks of 128 do not fit cube memory with D 128; 64 do, and each
// launch doubles the axis its items span: 128 query rows by 64 keys for
// the statistics and dQ, 64 rows by 128 keys for dK / dV.
// CHECK: s1_inner = 128 : i64, s2_inner = 64 : i64, step = "statistics", strategy = "flash_attention_grad", template = "s1s2_bn2gs1s2", tiling_key = "10000000000023200443"
// Launch 1 sums dQ too (step "dq_dk_dv"), into partial sums in global
// memory, zero filled, one per (group, head), which a last vector launch
// adds up into dq: no launch computes S and dP for dQ alone. Its items go
// in contiguous runs balanced by work. Its f32 sums (dK, dV, and a tile of partial dQ
// rows) leave room for one set of S and dP. Iteration 0 waits for the
// item's loads; iteration t waits for the previous store of dP (copies
// complete in order), not for the partial rows of dQ it stored last. The
// iteration starts loading step t - 3's P' and dS before it computes step
// t, and its sums wait for those loads alone. It then waits for the
// previous partial store, loads the step's partial rows (unless no earlier
// item of the run reached its query block) while dV and dK take P' and
// dS, sets them to dS K or adds it, and starts storing them back.
// CHECK: npudev.mixed_launch
// CHECK: npudev.alloc : memref<1x{{[0-9]+}}x{{[0-9]+}}xf32, #npudev.space<cube>>
// CHECK: %[[PARTIAL:.*]] = npudev.alloc : memref<64x128xf32, #npudev.space<cube>>
// CHECK: npudev.wait_all
// CHECK-NEXT: %[[DONE:.*]] = npudev.async
// CHECK: scf.for %{{.*}} iter_args(%[[STORED:.*]] = %[[DONE]], %[[ADDED:.*]] = %[[DONE]]) -> (!npudev.token, !npudev.token)
// CHECK: npudev.wait %[[STORED]]
// CHECK: %[[TAKING:.*]] = scf.if %{{.*}} -> (!npudev.token) {
// CHECK-NEXT: npudev.wait_flag 0
// CHECK-NEXT: npudev.wait_flag 1
// CHECK: npudev.dma_start
// CHECK: %[[DS:.*]] = npudev.dma_start
// CHECK-NEXT: scf.yield %[[DS]]
// CHECK: scf.if
// CHECK: npudev.matmul {{.*}} {transpose_b}
// CHECK: npudev.dma_start {{.*}}#npudev.space<cube>> to
// CHECK: npudev.matmul {{.*}} {transpose_b}
// CHECK: %[[DP:.*]] = npudev.dma_start {{.*}}#npudev.space<cube>> to
// CHECK-NOT: npudev.wait
// CHECK: npudev.set_flag 0 for
// CHECK: npudev.set_flag 0 for
// CHECK-NEXT: scf.yield %[[DP]]
// CHECK: scf.if %{{.*}} -> (!npudev.token) {
// CHECK: %[[INTO:.*]] = memref.subview
// CHECK-NEXT: npudev.wait %[[ADDED]]
// CHECK: %[[LOADED:.*]] = scf.if %{{.*}} -> (!npudev.token) {
// CHECK-NEXT: npudev.async
// CHECK: } else {
// CHECK: %[[LOAD:.*]] = npudev.dma_start %{{.*}}, %[[INTO]] : memref<?x128xf32, {{.*}}#npudev.space<global>> to memref<?x128xf32, {{.*}}#npudev.space<cube>>
// CHECK-NEXT: scf.yield %[[LOAD]]
// CHECK: npudev.wait %[[TAKING]]
// CHECK: npudev.matmul {{.*}} {transpose_a}
// CHECK: npudev.matmul {{.*}} {transpose_a}
// CHECK: npudev.wait %[[LOADED]]
// CHECK: scf.if %{{.*}} {
// CHECK-NEXT: npudev.matmul %{{.*}}, %{{.*}}, %[[INTO]] :
// CHECK-NEXT: } else {
// CHECK-NEXT: npudev.matmul %{{.*}}, %{{.*}}, %[[INTO]] {accumulate}
// CHECK: %[[BACK:.*]] = npudev.dma_start %[[INTO]]
// CHECK-NEXT: scf.yield %[[BACK]]
// CHECK: s1_inner = 64 : i64, s2_inner = 128 : i64, step = "dq_dk_dv", strategy = "flash_attention_grad", template = "s1s2_bn2gs1s2", tiling_key = "10000000000023200443"
// The partials of the groups that touched a head are added in group
// order, four loading together, each only over the rows its run reached
// (read from a copy of the head's rows of the reach table), and rounded
// into dq.
// CHECK-NOT: npudev.mixed_launch
// CHECK: npudev.launch tasks({{[0-9]+}}) on vector attributes {npudev.tiling = {chunk = {{[0-9]+}} : i64, step = "dq_sum"
// CHECK: %[[PARTS:.*]] = npudev.alloc : memref<4x{{[0-9]+}}x128xf32, #npudev.space<vector>>
// CHECK: %[[REACH:.*]] = npudev.alloc : memref<{{[0-9]+}}x2xi64, #npudev.space<vector>>
// CHECK: npudev.dma %{{.*}}, %{{.*}} : memref<?x2xi64, {{.*}}#npudev.space<global>> to memref<?x2xi64, {{.*}}#npudev.space<vector>>
// CHECK: scf.for %{{.*}} step %c4
// CHECK: scf.for
// CHECK: memref.load %{{.*}} : memref<?x2xi64
// CHECK: scf.if
// CHECK: npudev.dma_start %{{.*}}, %{{.*}} : memref<?x128xf32, {{.*}}#npudev.space<global>> to memref<?x128xf32, {{.*}}#npudev.space<vector>>
// CHECK: npudev.wait_all
// CHECK-NEXT: scf.for
// CHECK: scf.if
// CHECK: npudev.vbinary <add>
// CHECK: npudev.vcast
// CHECK-NOT: step = "round_dq"
// CHECK: step = "round_dk"
// CHECK: step = "round_dv"
func.func @grad_f16_causal(%q: tensor<1x8x4096x128xf16>, %st: tensor<1x8x4096x8xf32>) -> (tensor<1x8x4096x128xf16>, tensor<1x8x4096x128xf16>, tensor<1x8x4096x128xf16>) {
  %dq, %dk, %dv = npu.flash_attention_grad %q, %q, %q, %q, %st, %st, %q {input_layout = #npu.attention_layout<BNSD>, head_num = 8, scale = 0.088, sparse_mode = 2} : (tensor<1x8x4096x128xf16>, tensor<1x8x4096x128xf16>, tensor<1x8x4096x128xf16>, tensor<1x8x4096x128xf16>, tensor<1x8x4096x8xf32>, tensor<1x8x4096x8xf32>, tensor<1x8x4096x128xf16>) -> (tensor<1x8x4096x128xf16>, tensor<1x8x4096x128xf16>, tensor<1x8x4096x128xf16>)
  return %dq, %dk, %dv : tensor<1x8x4096x128xf16>, tensor<1x8x4096x128xf16>, tensor<1x8x4096x128xf16>
}

// -----

// recompute_statistics = false: a vector launch takes D = rowsum(dY * O)
// from dy (%arg1) and attention_in (%arg4), in f32, in place of the
// statistics launch, and the dQ / dK / dV launch reads column 0 of
// softmax_max (%arg2) and softmax_sum (%arg3). It is the only mixed
// launch: S and dP are computed once.
// CHECK-LABEL: func.func @grad_reads_statistics
// CHECK-NOT: step = "statistics"
// CHECK: npudev.launch tasks({{[0-9]+}}) on vector attributes {npudev.tiling = {chunk = {{[0-9]+}} : i64, step = "row_dots"
// CHECK: memref.subview %arg1[
// CHECK-NEXT: npudev.dma_start
// CHECK: memref.subview %arg4[
// CHECK-NEXT: npudev.dma_start
// CHECK: npudev.wait_all
// CHECK-NEXT: npudev.vcast
// CHECK-NEXT: npudev.vcast
// CHECK: npudev.vbinary <mul>
// CHECK-NEXT: npudev.vreduce <sum>
// CHECK: npudev.mixed_launch
// CHECK: memref.subview %arg2[
// CHECK: strided<[8], offset: ?>, #npudev.space<global>> to
// CHECK: memref.subview %arg3[
// CHECK: step = "dq_dk_dv"
// CHECK-NOT: npudev.mixed_launch
// CHECK: step = "dq_sum"
// CHECK-NOT: npudev.mixed_launch
func.func @grad_reads_statistics(%q: tensor<1x2x256x64xf16>, %dy: tensor<1x2x256x64xf16>, %max: tensor<1x2x256x8xf32>, %sum: tensor<1x2x256x8xf32>, %o: tensor<1x2x256x64xf16>) -> (tensor<1x2x256x64xf16>, tensor<1x2x256x64xf16>, tensor<1x2x256x64xf16>) {
  %dq, %dk, %dv = npu.flash_attention_grad %q, %q, %q, %dy, %max, %sum, %o {input_layout = #npu.attention_layout<BNSD>, head_num = 2, scale = 0.125, recompute_statistics = false} : (tensor<1x2x256x64xf16>, tensor<1x2x256x64xf16>, tensor<1x2x256x64xf16>, tensor<1x2x256x64xf16>, tensor<1x2x256x8xf32>, tensor<1x2x256x8xf32>, tensor<1x2x256x64xf16>) -> (tensor<1x2x256x64xf16>, tensor<1x2x256x64xf16>, tensor<1x2x256x64xf16>)
  return %dq, %dk, %dv : tensor<1x2x256x64xf16>, tensor<1x2x256x64xf16>, tensor<1x2x256x64xf16>
}

// -----

// Small scores, f32, SBH, an atten_mask and a pse shared by the query rows:
// N2 G S1 S2 = 2 * 1 * 32 * 48 = 3072 < 8192, FAG template bn2gs1s2_b
// (10000). Digits: B = 0, none = 9, B = 0, 0, f32 = 1, SBND = 1, all = 0,
// 2, ND = 0, no dropout = 0, mask = 1, pse = 1. dpse of [B, N1, 1, S2] is summed
// by the dQ / dK / dV launch's cube, ones^T dS, into dpse itself (f32).
// CHECK-LABEL: func.func @grad_f32_pse_one_row
// CHECK: step = "zero_dpse"
// CHECK: step = "ones"
// CHECK: npudev.mixed_launch
// CHECK: npudev.matmul %{{.*}}, %{{.*}}, %{{.*}} {accumulate, transpose_a}
// CHECK: npudev.matmul %{{.*}}, %{{.*}}, %{{.*}} {accumulate} : memref<1x?xf32
// CHECK: step = "dq_dk_dv", strategy = "flash_attention_grad", template = "bn2gs1s2_b", tiling_key = "10000000110020110090"
// CHECK-NOT: round_dpse
// CHECK: return
func.func @grad_f32_pse_one_row(%q: tensor<32x2x64xf32>, %k: tensor<48x2x64xf32>, %st: tensor<2x2x32x8xf32>, %mask: tensor<32x48xi1>, %pse: tensor<2x2x1x48xf32>) -> tensor<2x2x1x48xf32> {
  %dq, %dk, %dv, %dpse = npu.flash_attention_grad %q, %k, %k, %q, %st, %st, %q mask %mask pse %pse {input_layout = #npu.attention_layout<SBH>, head_num = 2, scale = 0.125, sparse_mode = 1} : (tensor<32x2x64xf32>, tensor<48x2x64xf32>, tensor<48x2x64xf32>, tensor<32x2x64xf32>, tensor<2x2x32x8xf32>, tensor<2x2x32x8xf32>, tensor<32x2x64xf32>, tensor<32x48xi1>, tensor<2x2x1x48xf32>) -> (tensor<32x2x64xf32>, tensor<48x2x64xf32>, tensor<48x2x64xf32>, tensor<2x2x1x48xf32>)
  return %dpse : tensor<2x2x1x48xf32>
}

// -----

// A bf16 pse shared by the batches: summed in f32 scratch by the dQ
// launch's vector tasks (read, add, write back), then rounded. Its sum
// needs one task per element in batch order, which the dQ launch's items
// give: dQ is not summed with dK and dV here, and S and dP are computed
// for it again.
// CHECK-LABEL: func.func @grad_bf16_pse_one_batch
// CHECK: step = "zero_dpse"
// CHECK-NOT: step = "ones"
// CHECK: step = "dk_dv"
// CHECK: npudev.mixed_launch
// CHECK: npudev.vbinary <add>
// CHECK: step = "dq"
// CHECK: step = "round_dv"
// CHECK: step = "round_dpse"
func.func @grad_bf16_pse_one_batch(%q: tensor<2x2x40x64xbf16>, %st: tensor<2x2x40x8xf32>, %pse: tensor<1x2x40x40xbf16>) -> tensor<1x2x40x40xbf16> {
  %dq, %dk, %dv, %dpse = npu.flash_attention_grad %q, %q, %q, %q, %st, %st, %q pse %pse {input_layout = #npu.attention_layout<BNSD>, head_num = 2, scale = 0.125} : (tensor<2x2x40x64xbf16>, tensor<2x2x40x64xbf16>, tensor<2x2x40x64xbf16>, tensor<2x2x40x64xbf16>, tensor<2x2x40x8xf32>, tensor<2x2x40x8xf32>, tensor<2x2x40x64xbf16>, tensor<1x2x40x40xbf16>) -> (tensor<2x2x40x64xbf16>, tensor<2x2x40x64xbf16>, tensor<2x2x40x64xbf16>, tensor<1x2x40x40xbf16>)
  return %dpse : tensor<1x2x40x40xbf16>
}

// -----

// Batches with one sequence length and band compute their fields from the
// batch index: no per-batch table, so 2^24 batches lower to a kernel of the
// same size as one (it used to store nine constants per batch).
// CHECK-LABEL: func.func @many_batches
// CHECK-NOT: xi64, #npudev.space<global>>
// CHECK: npudev.mixed_launch
// CHECK-NOT: memref.store {{.*}}#npudev.space<global>>
// CHECK: return
func.func @many_batches(%q: tensor<16777216x1x1x8xf16>) -> tensor<16777216x1x1x8xf16> {
  %m, %s, %o = npu.flash_attention %q, %q, %q {input_layout = #npu.attention_layout<BNSD>, head_num = 1, scale = 0.5} : (tensor<16777216x1x1x8xf16>, tensor<16777216x1x1x8xf16>, tensor<16777216x1x1x8xf16>) -> (tensor<16777216x1x1x8xf32>, tensor<16777216x1x1x8xf32>, tensor<16777216x1x1x8xf16>)
  return %o : tensor<16777216x1x1x8xf16>
}

// -----

// S1 and S2 read at run time (the sequence axis of query and key): a check
// launch (each length within i32, value's keys as many as key's), then the
// template rule on the lengths, in the order docs/flash-attention.md gives
// it, choosing among four kernels: b, s1, and s1s2 with 64 and with 128
// query rows per item (8 heads' items against the 48 vector cores).
// CHECK-LABEL: func.func @run_time_lengths
// CHECK: strategy = "check_sizes"
// CHECK: "'npu.flash_attention' query has sequence length {row}, past 2^31 - 1 (positions are i32)"
// CHECK: "'npu.flash_attention' key has sequence length {row}, past 2^31 - 1 (positions are i32)"
// CHECK: "'npu.flash_attention' value has {row} keys, key has a different number"
// CHECK: %[[S1:.*]] = memref.dim %arg0, %c2
// CHECK: %[[S2:.*]] = memref.dim %arg1, %c2
// ASC: %[[FITS_BLOCK:.*]] = arith.cmpi slt, %[[S2]], %c1025
// MLU: %[[FITS_BLOCK:.*]] = arith.cmpi slt, %[[S2]], %c2049
// CHECK: scf.if %[[FITS_BLOCK]]
// CHECK: %[[NARROW:.*]] = arith.cmpi slt, %[[S2]], %c129
// CHECK: %[[B:.*]] = arith.andi %[[NARROW]]
// CHECK: scf.if %[[B]]
// CHECK: npudev.mixed_launch
// CHECK: step = "b", strategy = "flash_attention", template = "b"
// CHECK: } else {
// CHECK: npudev.mixed_launch
// CHECK: step = "s1", strategy = "flash_attention", template = "s1"
// CHECK: } else {
// CHECK: %[[ITEMS:.*]] = arith.muli %c8, %{{.*}}
// CHECK: arith.cmpi slt, %[[ITEMS]], %c49
// CHECK: npudev.mixed_launch
// CHECK: s1_inner = 64 : i64, {{.*}}step = "s1s2"
// CHECK: } else {
// CHECK: npudev.mixed_launch
// CHECK: s1_inner = 128 : i64, {{.*}}step = "s1s2"
func.func @run_time_lengths(%q: tensor<1x8x?x128xf16>, %k: tensor<1x2x?x128xf16>, %v: tensor<1x2x?x128xf16>) -> tensor<1x8x?x128xf16> {
  %m, %s, %o = npu.flash_attention %q, %k, %v {input_layout = #npu.attention_layout<BNSD>, head_num = 8, scale = 0.088, sparse_mode = 3} : (tensor<1x8x?x128xf16>, tensor<1x2x?x128xf16>, tensor<1x2x?x128xf16>) -> (tensor<1x8x?x8xf32>, tensor<1x8x?x8xf32>, tensor<1x8x?x128xf16>)
  return %o : tensor<1x8x?x128xf16>
}

// -----

// TND with its cumulative lengths as data: a check launch per operand
// (cumulative, ending at the rows), host loops for the longest sequences
// (the template rule's S1 and S2), then, per kernel, a host loop reading
// the ends into the per-batch table before the launch; mode 7's cut batch
// (the last with queries) is found by one more loop.
// CHECK-LABEL: func.func @packed_lengths_as_data
// CHECK: "'npu.flash_attention' seq_qlen holds no cumulative lengths ending at the 24 rows: batch {row}"
// CHECK: "'npu.flash_attention' seq_kvlen holds no cumulative lengths ending at the 30 rows: batch {row}"
// CHECK: %[[LONGEST_Q:.*]] = scf.for {{.*}} -> (index)
// CHECK: memref.load %arg2
// CHECK: arith.maxsi
// CHECK: %[[LONGEST_KV:.*]] = scf.for {{.*}} -> (index)
// CHECK: memref.load %arg3
// CHECK: scf.if
// CHECK: %[[TABLE:.*]] = memref.alloc() : memref<4x9xi64, #npudev.space<global>>
// CHECK: %[[CUT:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %c-1) -> (index)
// CHECK: scf.for %[[B:.*]] = %c0{{.*}} to %c4
// CHECK: memref.load %arg2[%[[B]]]
// CHECK: arith.cmpi eq, %[[B]], %[[CUT]]
// CHECK: memref.store %{{.*}}, %[[TABLE]][%[[B]], %c8]
// CHECK: npudev.mixed_launch
func.func @packed_lengths_as_data(%q: tensor<24x2x16xf16>, %k: tensor<30x1x16xf16>, %ql: tensor<4xi64>, %kl: tensor<4xi64>) -> tensor<24x2x16xf16> {
  %m, %s, %o = npu.flash_attention %q, %k, %k seq_qlen %ql seq_kvlen %kl {input_layout = #npu.attention_layout<TND>, head_num = 2, scale = 0.25, sparse_mode = 7, next_tokens = 1} : (tensor<24x2x16xf16>, tensor<30x1x16xf16>, tensor<30x1x16xf16>, tensor<4xi64>, tensor<4xi64>) -> (tensor<24x2x8xf32>, tensor<24x2x8xf32>, tensor<24x2x16xf16>)
  return %o : tensor<24x2x16xf16>
}

// -----

// The inputs shaped by S1 and S2 take them at run time too: the check
// launch compares their sizes with the query's and the key's.
// CHECK-LABEL: func.func @optional_inputs_run_time_lengths
// CHECK: "'npu.flash_attention' atten_mask has length {row} in dimension 2, query a different one"
// CHECK: "'npu.flash_attention' atten_mask has length {row} in dimension 3, key a different one"
// CHECK: "'npu.flash_attention' pse has length {row} in dimension 3, key a different one"
// CHECK: "'npu.flash_attention' drop_mask has length {row} in dimension 2, query a different one"
// CHECK: "'npu.flash_attention' drop_mask has length {row} in dimension 3, key a different one"
// CHECK: npudev.mixed_launch
func.func @optional_inputs_run_time_lengths(%q: tensor<1x2x?x64xf16>, %k: tensor<1x1x?x64xf16>, %mask: tensor<1x1x?x?xi8>, %pse: tensor<1x2x1x?xf16>, %drop: tensor<1x2x?x?xi8>) -> tensor<1x2x?x64xf16> {
  %m, %s, %o = npu.flash_attention %q, %k, %k mask %mask pse %pse drop_mask %drop {input_layout = #npu.attention_layout<BNSD>, head_num = 2, scale = 0.125, keep_prob = 0.9, pre_tokens = 7, next_tokens = 3} : (tensor<1x2x?x64xf16>, tensor<1x1x?x64xf16>, tensor<1x1x?x64xf16>, tensor<1x1x?x?xi8>, tensor<1x2x1x?xf16>, tensor<1x2x?x?xi8>) -> (tensor<1x2x?x8xf32>, tensor<1x2x?x8xf32>, tensor<1x2x?x64xf16>)
  return %o : tensor<1x2x?x64xf16>
}
