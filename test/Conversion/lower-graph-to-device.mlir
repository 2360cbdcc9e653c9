// npu-lower-to-device: graph ops to npudev kernels sized for the device.
// RUN: npu-opt %s --split-input-file --npu-lower-to-device | FileCheck %s --check-prefixes=CHECK,MLU
// RUN: npu-opt %s --split-input-file --npu-lower-to-device=device=ascend910b | FileCheck %s --check-prefixes=CHECK,ASC
// RUN: npu-opt %s --split-input-file --npu-lower-to-device=device=%S/../npu-run/Inputs/tiny-device.json | FileCheck %s --check-prefixes=CHECK,TINY

// Tensors become global memrefs, the result an output argument, and the
// module records the whole device it was lowered for.
// MLU: module attributes {npudev.device = {clock_ghz = 1.500000e+00 : f64, clusters = 12 : i64, cores_per_cluster = 4 : i64, cube_bytes = 524288 : i64, cube_cores_per_cluster = 0 : i64, cube_macs_per_cycle = 2.048000e+03 : f64, dma_burst_bytes = 64 : i64, dma_gbps = 115.20833333333333 : f64, dma_l2_read_gbps = 115.20833333333333 : f64, dma_l2_write_gbps = 115.20833333333333 : f64, dma_latency_cycles = 3.000000e+02 : f64, dma_max_outstanding = 16 : i64, dma_out_engine = 0 : i64, global_bytes = 51539607552 : i64, global_gbps = 2.765000e+03 : f64, global_load_cycles = 4.810000e+02 : f64, l2_bytes = 50331648 : i64, l2_gbps = 8.295000e+03 : f64, l2_latency_cycles = 1.500000e+02 : f64, l2_line_bytes = 128 : i64, l2_ways = 16 : i64, name = "mlu590", scalar_cycles = 1.000000e+00 : f64, shared_bytes = 4194304 : i64, vector_bytes = 524288 : i64, vector_bytes_per_cycle = 4.080000e+02 : f64, vector_issue_cycles = 1.600000e+01 : f64}}
// ASC: module attributes {npudev.device = {{{.*}}clusters = 24 : i64, cores_per_cluster = 2 : i64{{.*}}name = "ascend910b"{{.*}}vector_bytes = 196608 : i64{{.*}}}}
// TINY: module attributes {npudev.device = {{{.*}}clusters = 1 : i64, cores_per_cluster = 2 : i64{{.*}}name = "tiny"{{.*}}vector_bytes = 1024 : i64{{.*}}}}
// CHECK-LABEL: func.func @few_samples
// CHECK-SAME: (%{{.*}}: memref<4xf32, #npudev.space<global>>, %{{.*}}: memref<4xi32, #npudev.space<global>>, %{{.*}}: memref<4xi32, #npudev.space<global>>, %{{.*}}: memref<6x300xf32, #npudev.space<global>>, %{{.*}}: memref<4x300xf32, #npudev.space<global>> {npudev.output})
// Kernel 1 of mlu-ops' MoE dispatch backward: no more samples than cores,
// so cores split the hidden dimension; a chunk is a quarter of vector
// memory.
// MLU: npudev.launch tasks(48) on vector attributes {npudev.tiling = {deal_h = 300 : i64, deal_s = 1 : i64, strategy = "split_hidden"}}
// ASC: npudev.launch tasks(48) on vector attributes {npudev.tiling = {deal_h = 300 : i64, deal_s = 1 : i64, strategy = "split_hidden"}}
// With two cores and 1 KiB, four samples are many and a row too long.
// TINY: npudev.launch tasks(2) on vector attributes {npudev.tiling = {deal_h = 128 : i64, deal_s = 1 : i64, strategy = "split_samples_chunked"}}
// CHECK-NOT: npu.moe
// CHECK: return
// CHECK-NOT: npu.moe
func.func @few_samples(%g: tensor<4xf32>, %i: tensor<4xi32>, %l: tensor<4xi32>, %d: tensor<6x300xf32>) -> tensor<4x300xf32> {
  %r = npu.moe_dispatch_backward_data %g, %i, %l, %d {capacity = 3, num_experts = 2} : (tensor<4xf32>, tensor<4xi32>, tensor<4xi32>, tensor<6x300xf32>) -> tensor<4x300xf32>
  return %r : tensor<4x300xf32>
}

// -----

// The first network shape of mlu-ops' MoE dispatch backward: samples > cores,
// whole rows fit, so each core takes a range of samples in two-slot tiles of
// deal_s rows, as many as vector memory holds: 512 KiB on mlu590, 192 KiB on
// ascend910b.
// CHECK-LABEL: func.func @mlu_ops_shape
// MLU: npudev.launch tasks(48) on vector attributes {npudev.tiling = {deal_h = 512 : i64, deal_s = 126 : i64, strategy = "split_samples"}}
// MLU: npudev.alloc : memref<2x126x512xf32, #npudev.space<vector>>
// MLU: npudev.dma_start
// MLU: npudev.wait_all
// ASC: npudev.launch tasks(48) on vector attributes {npudev.tiling = {deal_h = 512 : i64, deal_s = 47 : i64, strategy = "split_samples"}}
// ASC: npudev.alloc : memref<2x47x512xf32, #npudev.space<vector>>
// TINY: npudev.launch tasks(2) on vector attributes {npudev.tiling = {deal_h = 128 : i64, deal_s = 1 : i64, strategy = "split_samples_chunked"}}
func.func @mlu_ops_shape(%g: tensor<18432xf32>, %i: tensor<18432xi32>, %l: tensor<18432xi32>, %d: tensor<23040x512xf32>) -> tensor<18432x512xf32> {
  %r = npu.moe_dispatch_backward_data %g, %i, %l, %d {capacity = 11520, num_experts = 2} : (tensor<18432xf32>, tensor<18432xi32>, tensor<18432xi32>, tensor<23040x512xf32>) -> tensor<18432x512xf32>
  return %r : tensor<18432x512xf32>
}

// -----

// That mlu-ops shape for the forward and the gate gradient, in 4-byte words
// W of vector memory (131072 mlu590, 49152 ascend910b, 256 tiny).
// forward: each core owns 480 dispatch rows (23040 / 48) with a winner
// and a gate each (2 * 481 words), scans the samples in two-slot tiles of
// deal_m = W / 88 (11 words per sample) and fills its rows in two-slot
// tiles of deal_r = (W - 963 - 11 deal_m) / 1025 rows (a row's two slots
// and a word saying whether it is a zero row). On tiny, 15 rows
// per chunk (W / 16 - 1) and rows written one at a time, in chunks of the
// 256 - 32 - 22 words left. backward_gate: two-slot tiles of deal_s = W /
// 2058 samples (a dispatch row and an input row in each slot, 2048 words,
// plus 10 words of per-sample state).
// CHECK-LABEL: func.func @mlu_ops_forward_and_gate
// MLU: npudev.launch tasks(48) on vector attributes {npudev.tiling = {deal_h = 0 : i64, deal_m = 1489 : i64, deal_r = 110 : i64, deal_w = 480 : i64, strategy = "gather_rows"}}
// MLU: npudev.vscatter
// MLU: npudev.launch tasks(48) on vector attributes {npudev.tiling = {deal_h = 512 : i64, deal_s = 63 : i64, strategy = "dot_tiles"}}
// MLU: npudev.vreduce
// ASC: npudev.launch tasks(48) on vector attributes {npudev.tiling = {deal_h = 0 : i64, deal_m = 558 : i64, deal_r = 41 : i64, deal_w = 480 : i64, strategy = "gather_rows"}}
// ASC: npudev.launch tasks(48) on vector attributes {npudev.tiling = {deal_h = 512 : i64, deal_s = 23 : i64, strategy = "dot_tiles"}}
// TINY: npudev.launch tasks(2) on vector attributes {npudev.tiling = {deal_h = 202 : i64, deal_m = 2 : i64, deal_r = 0 : i64, deal_w = 15 : i64, strategy = "gather_rows_chunked"}}
// TINY: npudev.launch tasks(2) on vector attributes {npudev.tiling = {deal_h = 127 : i64, deal_s = 1 : i64, strategy = "dot_per_sample"}}
func.func @mlu_ops_forward_and_gate(%g: tensor<18432xf32>, %i: tensor<18432xi32>, %l: tensor<18432xi32>, %x: tensor<18432x512xf32>) -> (tensor<23040x512xf32>, tensor<18432xf32>) {
  %d = npu.moe_dispatch_forward %g, %i, %l, %x {capacity = 11520, num_experts = 2} : (tensor<18432xf32>, tensor<18432xi32>, tensor<18432xi32>, tensor<18432x512xf32>) -> tensor<23040x512xf32>
  %gg = npu.moe_dispatch_backward_gate %i, %l, %x, %d {capacity = 11520, num_experts = 2} : (tensor<18432xi32>, tensor<18432xi32>, tensor<18432x512xf32>, tensor<23040x512xf32>) -> tensor<18432xf32>
  return %d, %gg : tensor<23040x512xf32>, tensor<18432xf32>
}

// -----

// moe_combine with that mlu-ops shape and top-2 routing: two-slot tiles of
// deal_s samples, two pipeline tiles (one per slot j) per sample tile,
// summed in one [deal, hidden] buffer: deal = W / (11 + 3 * 512) (11
// words of per-sample state, two gathered rows and the sum): 84 on mlu590,
// 31 on ascend910b. Tiles are then shrunk so that each of the 48 tasks has
// the same number (its share of 384 samples in ceil(384 / deal) tiles):
// deal_s = 77 and 30. tiny holds no row, so one sample at a time in chunks
// of W / 2.
// CHECK-LABEL: func.func @mlu_ops_combine
// A tile's zero rows (dropped slots) are counted; when one vfill of the
// whole tile costs less than one per zero row (mlu590: 16 cycles to issue a
// vector op, 5 for a row of 512 f32; in sixteenths, 256 + 80 n < 336 z),
// the tile is filled once and the kept rows gathered over it.
// Task t takes sample tiles t, t + 48, ... (240 tiles of 77 samples, five
// each: (287 - t) / 48), not a contiguous share: tile u / 2 starts at
// sample (t + 48 (u / 2)) 77.
// MLU: npudev.launch tasks(48) on vector attributes {npudev.tiling = {deal_h = 512 : i64, deal_s = 77 : i64, strategy = "combine_tiles"}}
// MLU: %[[T:.*]] = npudev.task_id
// MLU: %[[LEFT:.*]] = arith.subi %c287{{.*}}, %[[T]] : index
// MLU: %[[COUNT:.*]] = arith.divsi %[[LEFT]], %c48{{.*}} : index
// MLU: arith.muli %[[COUNT]], %c2{{.*}} : index
// MLU: %[[SKIP:.*]] = arith.muli %{{.*}}, %c48{{.*}} : index
// MLU-NEXT: %[[NUM:.*]] = arith.addi %[[T]], %[[SKIP]] : index
// MLU: arith.muli %[[NUM]], %c77{{.*}} : index
// MLU: npudev.vcmp_scalar <lt> %{{.*}}, %c0_i32{{.*}}, %[[Z:.*]] :
// MLU: npudev.vreduce <sum> %[[Z]], %[[COUNT:.*]] :
// MLU: memref.load %[[COUNT]]
// MLU: %[[ONE:.*]] = arith.addi %c256, %{{.*}} : index
// MLU: %[[EACH:.*]] = arith.muli %{{.*}}, %c336 : index
// MLU: %[[WHOLE:.*]] = arith.cmpi slt, %[[ONE]], %[[EACH]] : index
// MLU: scf.if %[[WHOLE]] {
// MLU-NEXT: npudev.vfill {{.*}} memref<?x512xf32
// MLU: npudev.dma_start
// MLU: arith.cmpi sge, %[[ONE]], %[[EACH]] : index
// MLU-NEXT: scf.if
// MLU-NEXT: npudev.vfill {{.*}} memref<512xf32
// MLU: npudev.vbinary_broadcast <mul>
// MLU: npudev.vbinary <add>
// ASC: npudev.launch tasks(48) on vector attributes {npudev.tiling = {deal_h = 512 : i64, deal_s = 30 : i64, strategy = "combine_tiles"}}
// TINY: npudev.launch tasks(2) on vector attributes {npudev.tiling = {deal_h = 128 : i64, deal_s = 1 : i64, strategy = "combine_chunked"}}
func.func @mlu_ops_combine(%g: tensor<2x18432xf32>, %i: tensor<2x18432xi32>, %l: tensor<2x18432xi32>, %d: tensor<23040x512xf32>) -> tensor<18432x512xf32> {
  %r = npu.moe_combine %g, %i, %l, %d {capacity = 11520, num_experts = 2} : (tensor<2x18432xf32>, tensor<2x18432xi32>, tensor<2x18432xi32>, tensor<23040x512xf32>) -> tensor<18432x512xf32>
  return %r : tensor<18432x512xf32>
}

// -----

// f16 at that mlu-ops shape, per sample row in bytes. backward_data: two
// slots of 1024 B and 30 B of per-sample state (the gate 2 B): deal_s =
// vector bytes / 2082, 251 on mlu590 (twice f32's 126), 94 on ascend910b.
// backward_gate widens the gathered and input rows into f32 scratch
// (vcast), multiplies, sums in f32 and rounds the sums: 2 * 2048 + 2 *
// 2048 + 38 B per sample, deal_s 63 and 23 as for f32. combine: two
// slots, the f32 sum and the f32 products, 6182 B: 84 and 31. On tiny,
// one sample at a time: backward_data in chunks of 1024 / 2 / 2 elements,
// backward_gate (1024 - 4) / 12 (two rows and their f32 copies), combine
// 1024 / 10 (the row, its f32 copy, the f32 sum).
// CHECK-LABEL: func.func @mlu_ops_half
// MLU: npudev.launch tasks(48) on vector attributes {npudev.tiling = {deal_h = 512 : i64, deal_s = 251 : i64, strategy = "split_samples"}}
// MLU: npudev.vbinary_broadcast <mul> {{.*}} : memref<?x512xf16, {{.*}}>, memref<?xf16, {{.*}}>, memref<?x512xf16,
// MLU: npudev.launch tasks(48) on vector attributes {npudev.tiling = {deal_h = 512 : i64, deal_s = 63 : i64, strategy = "dot_tiles"}}
// MLU: npudev.vcast {{.*}} : memref<?x512xf16, {{.*}}>, memref<?x512xf32,
// MLU: npudev.vcast {{.*}} : memref<?x512xf16, {{.*}}>, memref<?x512xf32,
// MLU: npudev.vbinary <mul> {{.*}} : memref<?x512xf32,
// MLU: npudev.vreduce <sum> {{.*}} : memref<?x512xf32, {{.*}}>, memref<?xf32,
// MLU: npudev.vcast {{.*}} : memref<?xf32, {{.*}}>, memref<?xf16,
// MLU: npudev.launch tasks(48) on vector attributes {npudev.tiling = {deal_h = 512 : i64, deal_s = 77 : i64, strategy = "combine_tiles"}}
// MLU: npudev.vbinary <add> {{.*}} : memref<?x512xf32,
// MLU: npudev.vcast {{.*}} : memref<?x512xf32, {{.*}}>, memref<?x512xf16,
// ASC: npudev.launch tasks(48) on vector attributes {npudev.tiling = {deal_h = 512 : i64, deal_s = 94 : i64, strategy = "split_samples"}}
// ASC: npudev.launch tasks(48) on vector attributes {npudev.tiling = {deal_h = 512 : i64, deal_s = 23 : i64, strategy = "dot_tiles"}}
// ASC: npudev.launch tasks(48) on vector attributes {npudev.tiling = {deal_h = 512 : i64, deal_s = 30 : i64, strategy = "combine_tiles"}}
// TINY: npudev.launch tasks(2) on vector attributes {npudev.tiling = {deal_h = 256 : i64, deal_s = 1 : i64, strategy = "split_samples_chunked"}}
// TINY: npudev.launch tasks(2) on vector attributes {npudev.tiling = {deal_h = 85 : i64, deal_s = 1 : i64, strategy = "dot_per_sample"}}
// TINY: npudev.launch tasks(2) on vector attributes {npudev.tiling = {deal_h = 102 : i64, deal_s = 1 : i64, strategy = "combine_chunked"}}
func.func @mlu_ops_half(%g: tensor<18432xf16>, %i: tensor<18432xi32>, %l: tensor<18432xi32>, %x: tensor<18432x512xf16>, %d: tensor<23040x512xf16>, %gk: tensor<2x18432xf16>, %ik: tensor<2x18432xi32>) -> (tensor<18432x512xf16>, tensor<18432xf16>, tensor<18432x512xf16>) {
  %r = npu.moe_dispatch_backward_data %g, %i, %l, %d {capacity = 11520, num_experts = 2} : (tensor<18432xf16>, tensor<18432xi32>, tensor<18432xi32>, tensor<23040x512xf16>) -> tensor<18432x512xf16>
  %gg = npu.moe_dispatch_backward_gate %i, %l, %x, %d {capacity = 11520, num_experts = 2} : (tensor<18432xi32>, tensor<18432xi32>, tensor<18432x512xf16>, tensor<23040x512xf16>) -> tensor<18432xf16>
  %c = npu.moe_combine %gk, %ik, %ik, %d {capacity = 11520, num_experts = 2} : (tensor<2x18432xf16>, tensor<2x18432xi32>, tensor<2x18432xi32>, tensor<23040x512xf16>) -> tensor<18432x512xf16>
  return %r, %gg, %c : tensor<18432x512xf16>, tensor<18432xf16>, tensor<18432x512xf16>
}

// -----

// A row larger than vector memory: one sample at a time, in chunks of half
// of vector memory.
// CHECK-LABEL: func.func @huge_rows
// MLU: npudev.launch tasks(48) on vector attributes {npudev.tiling = {deal_h = 65536 : i64, deal_s = 1 : i64, strategy = "split_samples_chunked"}}
// ASC: npudev.launch tasks(48) on vector attributes {npudev.tiling = {deal_h = 24576 : i64, deal_s = 1 : i64, strategy = "split_samples_chunked"}}
func.func @huge_rows(%g: tensor<100xf32>, %i: tensor<100xi32>, %l: tensor<100xi32>, %d: tensor<4x200000xf32>) -> tensor<100x200000xf32> {
  %r = npu.moe_dispatch_backward_data %g, %i, %l, %d {capacity = 2, num_experts = 2} : (tensor<100xf32>, tensor<100xi32>, tensor<100xi32>, tensor<4x200000xf32>) -> tensor<100x200000xf32>
  return %r : tensor<100x200000xf32>
}

// -----

// An intermediate tensor lives in a flat global buffer, viewed in its
// shape, freed at the end; a returned argument is copied to its output.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: %[[G:[a-z0-9]+]]: memref<8xf32, #npudev.space<global>>
// CHECK-SAME: %[[OUT:[a-z0-9]+]]: memref<8xf32, #npudev.space<global>> {npudev.output}
// CHECK-SAME: %[[COPY:[a-z0-9]+]]: memref<8xf32, #npudev.space<global>> {npudev.output}
// CHECK: %[[DISPATCHED:.*]] = memref.alloc() : memref<96xf32, #npudev.space<global>>
// CHECK: memref.expand_shape %[[DISPATCHED]] {{\[}}[0, 1]] output_shape [6, 16]
// CHECK: npudev.launch {{.*}}strategy = "gather_rows"
// CHECK: npudev.launch {{.*}}strategy = "dot_tiles"
// CHECK: memref.copy %[[G]], %[[COPY]]
// CHECK: memref.dealloc %[[DISPATCHED]]
// CHECK-NEXT: return
func.func @chain(%g: tensor<8xf32>, %i: tensor<8xi32>, %l: tensor<8xi32>, %x: tensor<8x16xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %d = npu.moe_dispatch_forward %g, %i, %l, %x {capacity = 3, num_experts = 2} : (tensor<8xf32>, tensor<8xi32>, tensor<8xi32>, tensor<8x16xf32>) -> tensor<6x16xf32>
  %gg = npu.moe_dispatch_backward_gate %i, %l, %x, %d {capacity = 3, num_experts = 2} : (tensor<8xi32>, tensor<8xi32>, tensor<8x16xf32>, tensor<6x16xf32>) -> tensor<8xf32>
  return %gg, %g : tensor<8xf32>, tensor<8xf32>
}

// -----

// Zero samples: nothing to write, no kernel.
// CHECK-LABEL: func.func @no_samples
// CHECK-NOT: npudev.launch
// CHECK: return
func.func @no_samples(%g: tensor<0xf32>, %i: tensor<0xi32>, %l: tensor<0xi32>, %d: tensor<6x16xf32>) -> tensor<0x16xf32> {
  %r = npu.moe_dispatch_backward_data %g, %i, %l, %d {capacity = 3, num_experts = 2} : (tensor<0xf32>, tensor<0xi32>, tensor<0xi32>, tensor<6x16xf32>) -> tensor<0x16xf32>
  return %r : tensor<0x16xf32>
}


// -----

// Intermediates are placed by liveness: a buffer goes back to the pool
// when its value's last user is lowered, and the next value of as many
// elements of the same type takes it, in its own shape. Five intermediates
// live in two buffers.
// CHECK-LABEL: func.func @reuse
// CHECK: %[[A:.*]] = memref.alloc() : memref<32xf32, #npudev.space<global>>
// CHECK: memref.expand_shape %[[A]] {{\[}}[0, 1]] output_shape [4, 8]
// CHECK: %[[B:.*]] = memref.alloc() : memref<32xf32, #npudev.space<global>>
// CHECK: memref.expand_shape %[[B]] {{\[}}[0, 1]] output_shape [4, 8]
// CHECK: memref.expand_shape %[[A]] {{\[}}[0, 1]] output_shape [4, 8]
// CHECK: memref.expand_shape %[[B]] {{\[}}[0, 1]] output_shape [8, 4]
// CHECK: memref.expand_shape %[[A]] {{\[}}[0, 1]] output_shape [8, 4]
// CHECK-NOT: memref.alloc()
// CHECK: memref.dealloc %[[A]]
// CHECK: memref.dealloc %[[B]]
func.func @reuse(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %a = npu.relu %x : tensor<4x8xf32> -> tensor<4x8xf32>
  %b = npu.neg %a : tensor<4x8xf32> -> tensor<4x8xf32>
  %c = npu.exp %b : tensor<4x8xf32> -> tensor<4x8xf32>
  %d = npu.reshape %c : tensor<4x8xf32> -> tensor<8x4xf32>
  %e = npu.abs %d : tensor<8x4xf32> -> tensor<8x4xf32>
  %f = npu.reshape %e : tensor<8x4xf32> -> tensor<4x8xf32>
  return %f : tensor<4x8xf32>
}
