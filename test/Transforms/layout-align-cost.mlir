// cost=bytes and cost=count disagree: one conversion of a large tensor
// against three of small ones.
// RUN: npu-opt %s --npu-layout-align=cost=bytes --npu-verify-layout | FileCheck %s --check-prefix=BYTES
// RUN: npu-opt %s --npu-layout-align=cost=count --npu-verify-layout | FileCheck %s --check-prefix=COUNT
// RUN: npu-opt %s --npu-layout-align="cost=bytes print-statistics" --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=BYTES-STATS
// RUN: npu-opt %s --npu-layout-align="cost=count print-statistics" --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=COUNT-STATS

// Three small aligned weights are added onto a large dense input; the sum
// is reduced to rank 1 (dense).
//   bytes: keep the chain dense, convert the three 1x1x1x16 weights
//          (3 x (64 + 256) bytes = 960 bytes);
//   count: make the chain aligned, convert the input and the sum
//          (2 conversions of 1x8x8x16: 2 x (4096 + 16384) = 40960 bytes).
// BYTES-LABEL: func.func @bytes_or_count
// BYTES-COUNT-3: npu.channel_norm <to_nalign> {{.*}} : tensor<1x1x1x16xf32, #npu.layout<align>>
// BYTES-NOT: channel_norm
// BYTES: npu.add {{.*}} -> tensor<1x8x8x16xf32, #npu.layout<nalign>>
// COUNT-LABEL: func.func @bytes_or_count
// COUNT: npu.channel_norm <to_align> %arg0 : tensor<1x8x8x16xf32, #npu.layout<nalign>>
// COUNT: npu.add {{.*}} -> tensor<1x8x8x16xf32, #npu.layout<align>>
// COUNT: npu.channel_norm <to_nalign> {{.*}} : tensor<1x8x8x16xf32, #npu.layout<align>>
// COUNT-NOT: channel_norm
// BYTES-STATS: remark: npu-layout-align: 3 channel_norm(s) inserted, 960 bytes converted
// COUNT-STATS: remark: npu-layout-align: 2 channel_norm(s) inserted, 40960 bytes converted
func.func @bytes_or_count(%x: tensor<1x8x8x16xf32>) -> tensor<16xf32> {
  %p1 = npu.constant {npu.dev_info = #npu.align_mode<align>} dense<1.0> : tensor<1x1x1x16xf32> -> tensor<1x1x1x16xf32>
  %p2 = npu.constant {npu.dev_info = #npu.align_mode<align>} dense<2.0> : tensor<1x1x1x16xf32> -> tensor<1x1x1x16xf32>
  %p3 = npu.constant {npu.dev_info = #npu.align_mode<align>} dense<3.0> : tensor<1x1x1x16xf32> -> tensor<1x1x1x16xf32>
  %b1 = npu.add %x, %p1 : (tensor<1x8x8x16xf32>, tensor<1x1x1x16xf32>) -> tensor<1x8x8x16xf32>
  %b2 = npu.add %b1, %p2 : (tensor<1x8x8x16xf32>, tensor<1x1x1x16xf32>) -> tensor<1x8x8x16xf32>
  %b3 = npu.add %b2, %p3 : (tensor<1x8x8x16xf32>, tensor<1x1x1x16xf32>) -> tensor<1x8x8x16xf32>
  %r = npu.reduce <sum> %b3 {axes = array<i64: 0, 1, 2>} : tensor<1x8x8x16xf32> -> tensor<16xf32>
  return %r : tensor<16xf32>
}
