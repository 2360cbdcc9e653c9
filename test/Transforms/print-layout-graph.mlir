// The Graphviz picture: nodes coloured by layout, channel_norm diamonds,
// edges labelled with tensor types.
// RUN: npu-opt %s --npu-print-layout-graph -o /dev/null 2>&1 | FileCheck %s --check-prefix=BEFORE
// RUN: npu-opt %s --npu-layout-align --npu-print-layout-graph=output=%t.dot -o /dev/null
// RUN: FileCheck %s --check-prefix=AFTER < %t.dot

// Before the pass: fixed modes and green adapting ops.
// BEFORE: digraph "graph" {
// BEFORE-DAG: in0 [label="input #0", shape=ellipse, fillcolor="#c8c8c8"];
// BEFORE-DAG: in1 [label="weight #1", shape=ellipse, fillcolor="#8fd18f"];
// BEFORE-DAG: [[POOL:op[0-9]+]] [label="npu.max_pool", fillcolor="#f6d55c"];
// BEFORE-DAG: [[RELU:op[0-9]+]] [label="npu.relu", fillcolor="#8fd18f"];
// BEFORE-DAG: in0 -> [[POOL]] [label="1x8x8x8xf32"];
// BEFORE-DAG: [[POOL]] -> [[RELU]] [label="1x7x7x8xf32"];
// BEFORE-DAG: [[RET:op[0-9]+]] [label="func.return\n(graph output)", fillcolor="#c8c8c8"];

// After: a to_align diamond on the input, the adapting relu decided
// (filled by its layout, green border), a to_nalign diamond before the
// output.
// AFTER: digraph "graph" {
// AFTER-DAG: [[IN:op[0-9]+]] [label="npu.channel_norm\nto_align", shape=diamond, fillcolor="#8ab8ff"];
// AFTER-DAG: in0 -> [[IN]] [label="1x8x8x8xf32"];
// AFTER-DAG: in1 [label="weight #1", shape=ellipse, fillcolor="#c8c8c8"];
// AFTER-DAG: [[RELU:op[0-9]+]] [label="npu.relu", fillcolor="#{{f6d55c|c8c8c8}}", color="#8fd18f", penwidth=3];
// AFTER-DAG: [[OUT:op[0-9]+]] [label="npu.channel_norm\nto_nalign", shape=diamond, fillcolor="#ffb36b"];
// AFTER: }
func.func @graph(%x: tensor<1x8x8x8xf32>, %w: tensor<8x8xf32> {npu.weight}) -> tensor<1x7x7x8xf32> {
  %0 = npu.max_pool %x {kernel = array<i64: 2, 2>} : tensor<1x8x8x8xf32> -> tensor<1x7x7x8xf32>
  %1 = npu.relu %0 : tensor<1x7x7x8xf32> -> tensor<1x7x7x8xf32>
  return %1 : tensor<1x7x7x8xf32>
}
