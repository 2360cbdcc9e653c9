// LayoutAlignToNPU on the cases of the LayoutAlignToNPU design (its
// implementation details and examples), with both strategies. Every output
// must also pass the layout verifier.
// RUN: npu-opt %s --split-input-file --npu-layout-align=strategy=greedy --npu-verify-layout | FileCheck %s --check-prefixes=CHECK,GREEDY
// RUN: npu-opt %s --split-input-file --npu-layout-align=strategy=optimal --npu-verify-layout | FileCheck %s --check-prefixes=CHECK,OPTIMAL
// Running the pass twice changes nothing:
// RUN: npu-opt %s --split-input-file --npu-layout-align=strategy=greedy > %t.greedy
// RUN: npu-opt %t.greedy --split-input-file --npu-layout-align=strategy=greedy | diff %t.greedy -
// RUN: npu-opt %s --split-input-file --npu-layout-align > %t.optimal
// RUN: npu-opt %t.optimal --split-input-file --npu-layout-align | diff %t.optimal -

// Follow the parent: an adapting op between two aligned ops stays aligned,
// no conversion (效果展示, 普通情况).
// CHECK-LABEL: func.func @follow_parent
// CHECK-SAME: (%[[X:.*]]: tensor<1x8x8x16xf32, #npu.layout<nalign>>
// CHECK: %[[IN:.*]] = npu.channel_norm <to_align> %[[X]]
// CHECK: %[[C1:.*]] = npu.conv2d %[[IN]]
// CHECK: %[[R:.*]] = npu.relu %[[C1]] : tensor<1x8x8x16xf32, #npu.layout<align>> -> tensor<1x8x8x16xf32, #npu.layout<align>>
// CHECK: %[[C2:.*]] = npu.conv2d %[[R]]
// CHECK: %[[OUT:.*]] = npu.channel_norm <to_nalign> %[[C2]]
// CHECK: return %[[OUT]]
// CHECK-NOT: channel_norm
func.func @follow_parent(%x: tensor<1x8x8x16xf32>, %w: tensor<16x1x1x16xf32, #npu.layout<align>>) -> tensor<1x8x8x16xf32> {
  %0 = npu.conv2d %x, %w : (tensor<1x8x8x16xf32>, tensor<16x1x1x16xf32, #npu.layout<align>>) -> tensor<1x8x8x16xf32>
  %1 = npu.relu %0 : tensor<1x8x8x16xf32> -> tensor<1x8x8x16xf32>
  %2 = npu.conv2d %1, %w : (tensor<1x8x8x16xf32>, tensor<16x1x1x16xf32, #npu.layout<align>>) -> tensor<1x8x8x16xf32>
  return %2 : tensor<1x8x8x16xf32>
}

// -----

// Several inputs: the producers disagree, so the greedy rule takes the one
// first in topological order; here the dense slice comes first.
// CHECK-LABEL: func.func @first_producer_wins
func.func @first_producer_wins(%x: tensor<1x4x4x128xf32>, %w: tensor<32x1x1x128xf32>) -> tensor<1x4x4x32xf32> {
  // CHECK: %[[S:.*]] = npu.slice {{.*}} -> tensor<1x4x4x32xf32, #npu.layout<nalign>>
  %s = npu.slice %x {start = array<i64: 0, 0, 0, 32>, end = array<i64: 1, 4, 4, 64>} : tensor<1x4x4x128xf32> -> tensor<1x4x4x32xf32>
  // CHECK: %[[C:.*]] = npu.conv2d {{.*}} -> tensor<1x4x4x32xf32, #npu.layout<align>>
  %c = npu.conv2d %x, %w : (tensor<1x4x4x128xf32>, tensor<32x1x1x128xf32>) -> tensor<1x4x4x32xf32>
  // GREEDY: %[[CN:.*]] = npu.channel_norm <to_nalign> %[[C]]
  // GREEDY: npu.add %[[S]], %[[CN]] {{.*}} -> tensor<1x4x4x32xf32, #npu.layout<nalign>>
  // OPTIMAL: npu.add %[[S]], %[[CN:.*]] {{.*}} -> tensor<1x4x4x32xf32, #npu.layout<nalign>>
  %a = npu.add %s, %c : (tensor<1x4x4x32xf32>, tensor<1x4x4x32xf32>) -> tensor<1x4x4x32xf32>
  return %a : tensor<1x4x4x32xf32>
}

// -----

// The same with the aligned producer first: greedy follows the conv.
// CHECK-LABEL: func.func @first_producer_aligned
func.func @first_producer_aligned(%x: tensor<1x4x4x128xf32>, %w: tensor<32x1x1x128xf32>) -> tensor<1x4x4x32xf32> {
  // CHECK: %[[C:.*]] = npu.conv2d {{.*}} -> tensor<1x4x4x32xf32, #npu.layout<align>>
  %c = npu.conv2d %x, %w : (tensor<1x4x4x128xf32>, tensor<32x1x1x128xf32>) -> tensor<1x4x4x32xf32>
  // GREEDY-NEXT: %[[S:.*]] = npu.slice {{.*}} -> tensor<1x4x4x32xf32, #npu.layout<nalign>>
  // GREEDY-NEXT: %[[SN:.*]] = npu.channel_norm <to_align> %[[S]]
  // GREEDY-NEXT: %[[A:.*]] = npu.add %[[C]], %[[SN]] {{.*}} -> tensor<1x4x4x32xf32, #npu.layout<align>>
  // GREEDY-NEXT: %[[AN:.*]] = npu.channel_norm <to_nalign> %[[A]]
  // GREEDY-NEXT: return %[[AN]]
  // The optimum converts only the conv output, once.
  // OPTIMAL-NEXT: %[[CN:.*]] = npu.channel_norm <to_nalign> %[[C]]
  // OPTIMAL-NEXT: %[[S:.*]] = npu.slice {{.*}} -> tensor<1x4x4x32xf32, #npu.layout<nalign>>
  // OPTIMAL-NEXT: %[[A:.*]] = npu.add %[[CN]], %[[S]] {{.*}} -> tensor<1x4x4x32xf32, #npu.layout<nalign>>
  // OPTIMAL-NEXT: return %[[A]]
  %s = npu.slice %x {start = array<i64: 0, 0, 0, 32>, end = array<i64: 1, 4, 4, 64>} : tensor<1x4x4x128xf32> -> tensor<1x4x4x32xf32>
  %a = npu.add %c, %s : (tensor<1x4x4x32xf32>, tensor<1x4x4x32xf32>) -> tensor<1x4x4x32xf32>
  return %a : tensor<1x4x4x32xf32>
}

// -----

// Both conflict directions: graph input (dense) into an aligned kernel, and
// an aligned result into the graph output (dense).
// CHECK-LABEL: func.func @both_directions
// CHECK-SAME: -> tensor<1x7x7x8xf32, #npu.layout<nalign>>
func.func @both_directions(%x: tensor<1x8x8x8xf32>) -> tensor<1x7x7x8xf32> {
  // CHECK: %[[IN:.*]] = npu.channel_norm <to_align> %{{.*}} : tensor<1x8x8x8xf32, #npu.layout<nalign>> -> tensor<1x8x8x8xf32, #npu.layout<align>>
  // CHECK: %[[P:.*]] = npu.max_pool %[[IN]]
  %0 = npu.max_pool %x {kernel = array<i64: 2, 2>} : tensor<1x8x8x8xf32> -> tensor<1x7x7x8xf32>
  // CHECK: %[[OUT:.*]] = npu.channel_norm <to_nalign> %[[P]] : tensor<1x7x7x8xf32, #npu.layout<align>> -> tensor<1x7x7x8xf32, #npu.layout<nalign>>
  // CHECK: return %[[OUT]]
  return %0 : tensor<1x7x7x8xf32>
}

// -----

// npu.dev_info pins an adapting op between two aligned ones: two
// conversions, whatever the strategy.
// CHECK-LABEL: func.func @dev_info
func.func @dev_info(%x: tensor<2x64xf32>) -> tensor<2x64xf32> {
  // CHECK: %[[T:.*]] = npu.transpose {{.*}} -> tensor<2x64xf32, #npu.layout<align>>
  %t = npu.transpose %x, [0, 1] {npu.dev_info = #npu.align_mode<align>} : tensor<2x64xf32> -> tensor<2x64xf32>
  // CHECK: %[[TN:.*]] = npu.channel_norm <to_nalign> %[[T]]
  // CHECK: %[[R:.*]] = npu.relu %[[TN]] {npu.dev_info = #npu.align_mode<nalign>} : tensor<2x64xf32, #npu.layout<nalign>> -> tensor<2x64xf32, #npu.layout<nalign>>
  %r = npu.relu %t {npu.dev_info = #npu.align_mode<nalign>} : tensor<2x64xf32> -> tensor<2x64xf32>
  // CHECK: %[[RA:.*]] = npu.channel_norm <to_align> %[[R]]
  // CHECK: npu.transpose %[[RA]]
  %u = npu.transpose %r, [0, 1] : tensor<2x64xf32> -> tensor<2x64xf32>
  %v = npu.transpose %u, [0, 1] {npu.dev_info = #npu.align_mode<nalign>} : tensor<2x64xf32> -> tensor<2x64xf32>
  return %v : tensor<2x64xf32>
}

// -----

// The slice rule: a slice starting inside C and ending on a boundary is
// dense, so an aligned consumer needs a conversion.
// CHECK-LABEL: func.func @slice_rule
func.func @slice_rule(%x: tensor<1x4x4x128xf32, #npu.layout<nalign>>, %w: tensor<8x1x1x32xf32>) -> tensor<1x4x4x8xf32> {
  // CHECK: %[[S:.*]] = npu.slice {{.*}} -> tensor<1x4x4x32xf32, #npu.layout<nalign>>
  // CHECK: %[[SA:.*]] = npu.channel_norm <to_align> %[[S]]
  // CHECK: npu.conv2d %[[SA]]
  %s = npu.slice %x {start = array<i64: 0, 0, 0, 32>, end = array<i64: 1, 4, 4, 64>} : tensor<1x4x4x128xf32, #npu.layout<nalign>> -> tensor<1x4x4x32xf32>
  %c = npu.conv2d %s, %w : (tensor<1x4x4x32xf32>, tensor<8x1x1x32xf32>) -> tensor<1x4x4x8xf32>
  return %c : tensor<1x4x4x8xf32>
}

// -----

// The odd-rank rule: a rank-3 result is dense; rank-3 values never get a
// conversion (they cannot be stored aligned).
// CHECK-LABEL: func.func @odd_rank
func.func @odd_rank(%x: tensor<2x64xf32>) -> tensor<2x64xf32> {
  // CHECK: %[[T:.*]] = npu.transpose {{.*}} -> tensor<2x64xf32, #npu.layout<align>>
  %t = npu.transpose %x, [0, 1] {npu.dev_info = #npu.align_mode<align>} : tensor<2x64xf32> -> tensor<2x64xf32>
  // CHECK: %[[TN:.*]] = npu.channel_norm <to_nalign> %[[T]]
  // CHECK: %[[R3:.*]] = npu.reshape %[[TN]] : tensor<2x64xf32, #npu.layout<nalign>> -> tensor<2x8x8xf32, #npu.layout<nalign>>
  %r3 = npu.reshape %t : tensor<2x64xf32> -> tensor<2x8x8xf32>
  // CHECK: %[[T3:.*]] = npu.transpose %[[R3]], [0, 2, 1] : tensor<2x8x8xf32, #npu.layout<nalign>> -> tensor<2x8x8xf32, #npu.layout<nalign>>
  %t3 = npu.transpose %r3, [0, 2, 1] : tensor<2x8x8xf32> -> tensor<2x8x8xf32>
  // CHECK: npu.reshape %[[T3]]
  // CHECK-NOT: channel_norm
  %r2 = npu.reshape %t3 : tensor<2x8x8xf32> -> tensor<2x64xf32>
  return %r2 : tensor<2x64xf32>
}

// -----

// The broadcast rule: greedy makes vs_add follow the conv (its full-size
// operand). The rank-1 bias fits either layout and never gets a
// conversion. The optimum converts before vs_add instead (same bytes, less
// padding).
// CHECK-LABEL: func.func @broadcast_rule
func.func @broadcast_rule(%x: tensor<1x4x4x16xf32, #npu.layout<align>>, %w: tensor<16x1x1x16xf32>) -> tensor<1x4x4x16xf32> {
  %b = npu.constant dense<1.0> : tensor<16xf32> -> tensor<16xf32>
  // CHECK: %[[B:.*]] = npu.constant {{.*}} -> tensor<16xf32, #npu.layout<nalign>>
  // CHECK: %[[C:.*]] = npu.conv2d
  %c = npu.conv2d %x, %w : (tensor<1x4x4x16xf32, #npu.layout<align>>, tensor<16x1x1x16xf32>) -> tensor<1x4x4x16xf32>
  // GREEDY: %[[V:.*]] = npu.vs_add %[[C]], %[[B]] : (tensor<1x4x4x16xf32, #npu.layout<align>>, tensor<16xf32, #npu.layout<nalign>>) -> tensor<1x4x4x16xf32, #npu.layout<align>>
  // GREEDY: %[[VN:.*]] = npu.channel_norm <to_nalign> %[[V]]
  // GREEDY: return %[[VN]]
  // OPTIMAL: %[[CN:.*]] = npu.channel_norm <to_nalign> %[[C]]
  // OPTIMAL: %[[V:.*]] = npu.vs_add %[[CN]], %[[B]] : (tensor<1x4x4x16xf32, #npu.layout<nalign>>, tensor<16xf32, #npu.layout<nalign>>) -> tensor<1x4x4x16xf32, #npu.layout<nalign>>
  // OPTIMAL: return %[[V]]
  %v = npu.vs_add %c, %b : (tensor<1x4x4x16xf32>, tensor<16xf32>) -> tensor<1x4x4x16xf32>
  return %v : tensor<1x4x4x16xf32>
}

// -----

// One value, many consumers needing the other layout: one channel_norm,
// shared.
// CHECK-LABEL: func.func @shared_conversion
func.func @shared_conversion(%x: tensor<2x64xf32>) -> (tensor<2x64xf32>, tensor<2x64xf32>, tensor<2x64xf32>) {
  // CHECK: %[[T:.*]] = npu.transpose
  // CHECK-NEXT: %[[TN:.*]] = npu.channel_norm <to_nalign> %[[T]]
  // CHECK-NOT: channel_norm <to_nalign>
  // CHECK: npu.relu %[[TN]]
  // CHECK: npu.relu %[[TN]]
  // CHECK: return %{{.*}}, %{{.*}}, %[[TN]]
  %t = npu.transpose %x, [0, 1] {npu.dev_info = #npu.align_mode<align>} : tensor<2x64xf32> -> tensor<2x64xf32>
  %a = npu.relu %t {npu.dev_info = #npu.align_mode<nalign>} : tensor<2x64xf32> -> tensor<2x64xf32>
  %b = npu.relu %t {npu.dev_info = #npu.align_mode<nalign>} : tensor<2x64xf32> -> tensor<2x64xf32>
  return %a, %b, %t : tensor<2x64xf32>, tensor<2x64xf32>, tensor<2x64xf32>
}

// -----

// A constant with no producer is stored as its consumers read it: greedy
// follows the conv, its only (fixed) consumer, as the optimum does.
// CHECK-LABEL: func.func @weights
func.func @weights(%x: tensor<1x4x4x16xf32, #npu.layout<align>>) -> tensor<1x4x4x16xf32, #npu.layout<align>> {
  // CHECK: %[[W:.*]] = npu.constant {{.*}} -> tensor<16x1x1x16xf32, #npu.layout<align>>
  // CHECK-NOT: channel_norm
  // CHECK: npu.conv2d %{{.*}}, %[[W]]
  %w = npu.constant dense<1.0> : tensor<16x1x1x16xf32> -> tensor<16x1x1x16xf32>
  %c = npu.conv2d %x, %w {npu.dev_info = #npu.align_mode<align>} : (tensor<1x4x4x16xf32, #npu.layout<align>>, tensor<16x1x1x16xf32>) -> tensor<1x4x4x16xf32>
  %r = npu.channel_norm <to_nalign> %c : tensor<1x4x4x16xf32> -> tensor<1x4x4x16xf32>
  %s = npu.relu %r : tensor<1x4x4x16xf32> -> tensor<1x4x4x16xf32>
  %t = npu.channel_norm <to_align> %s : tensor<1x4x4x16xf32> -> tensor<1x4x4x16xf32, #npu.layout<align>>
  return %t : tensor<1x4x4x16xf32, #npu.layout<align>>
}

// -----

// Fixed consumers that disagree: greedy stores the producer-less constant
// dense and converts it for the conv. The optimum does the same here: a
// dense copy for the relu costs as much as an aligned one for the conv, and
// padding breaks the tie.
// CHECK-LABEL: func.func @constant_read_both_ways
func.func @constant_read_both_ways(%x: tensor<1x4x4x16xf32, #npu.layout<align>>) -> (tensor<1x4x4x16xf32, #npu.layout<align>>, tensor<16x1x1x16xf32>) {
  // CHECK: %[[W:.*]] = npu.constant {{.*}} -> tensor<16x1x1x16xf32, #npu.layout<nalign>>
  // CHECK: %[[WA:.*]] = npu.channel_norm <to_align> %[[W]]
  // CHECK: npu.conv2d %{{.*}}, %[[WA]]
  // CHECK: npu.relu %[[W]]
  %w = npu.constant dense<1.0> : tensor<16x1x1x16xf32> -> tensor<16x1x1x16xf32>
  %c = npu.conv2d %x, %w {npu.dev_info = #npu.align_mode<align>} : (tensor<1x4x4x16xf32, #npu.layout<align>>, tensor<16x1x1x16xf32>) -> tensor<1x4x4x16xf32, #npu.layout<align>>
  %r = npu.relu %w {npu.dev_info = #npu.align_mode<nalign>} : tensor<16x1x1x16xf32> -> tensor<16x1x1x16xf32>
  return %c, %r : tensor<1x4x4x16xf32, #npu.layout<align>>, tensor<16x1x1x16xf32>
}

// -----

// A weight argument (npu.weight) is loaded in whichever layout its consumers
// want, so both strategies take it aligned for the conv; the same tensor as
// a plain graph input is dense (io-mode) and converted. A declared layout
// on a weight wins over its consumers.
// CHECK-LABEL: func.func @weight_arguments
// CHECK-SAME: %[[X:[^:]*]]: tensor<1x4x4x16xf32, #npu.layout<align>>
// CHECK-SAME: %[[W:[^:]*]]: tensor<16x1x1x16xf32, #npu.layout<align>> {npu.weight}
// CHECK-SAME: %[[IN:[^:]*]]: tensor<16x1x1x16xf32, #npu.layout<nalign>>
// CHECK-SAME: %[[DECL:[^:]*]]: tensor<16x1x1x16xf32, #npu.layout<nalign>> {npu.weight}
func.func @weight_arguments(%x: tensor<1x4x4x16xf32, #npu.layout<align>>, %w: tensor<16x1x1x16xf32> {npu.weight}, %in: tensor<16x1x1x16xf32>, %decl: tensor<16x1x1x16xf32, #npu.layout<nalign>> {npu.weight}) -> (tensor<1x4x4x16xf32, #npu.layout<align>>, tensor<1x4x4x16xf32, #npu.layout<align>>, tensor<1x4x4x16xf32, #npu.layout<align>>) {
  // CHECK-DAG: %[[INA:.*]] = npu.channel_norm <to_align> %[[IN]]
  // CHECK-DAG: %[[DECLA:.*]] = npu.channel_norm <to_align> %[[DECL]]
  // CHECK: npu.conv2d %[[X]], %[[W]]
  // CHECK: npu.conv2d %[[X]], %[[INA]]
  // CHECK: npu.conv2d %[[X]], %[[DECLA]]
  %a = npu.conv2d %x, %w {npu.dev_info = #npu.align_mode<align>} : (tensor<1x4x4x16xf32, #npu.layout<align>>, tensor<16x1x1x16xf32>) -> tensor<1x4x4x16xf32, #npu.layout<align>>
  %b = npu.conv2d %x, %in {npu.dev_info = #npu.align_mode<align>} : (tensor<1x4x4x16xf32, #npu.layout<align>>, tensor<16x1x1x16xf32>) -> tensor<1x4x4x16xf32, #npu.layout<align>>
  %c = npu.conv2d %x, %decl {npu.dev_info = #npu.align_mode<align>} : (tensor<1x4x4x16xf32, #npu.layout<align>>, tensor<16x1x1x16xf32, #npu.layout<nalign>>) -> tensor<1x4x4x16xf32, #npu.layout<align>>
  return %a, %b, %c : tensor<1x4x4x16xf32, #npu.layout<align>>, tensor<1x4x4x16xf32, #npu.layout<align>>, tensor<1x4x4x16xf32, #npu.layout<align>>
}

// -----

// A depthwise conv2d reads its filter ([C, KH, KW, 1]) dense, whatever its
// own mode: aligned, each filter value would fill a 64-element row. A
// weight filter is stored dense, with no conversion; a filter computed by
// an aligned op is converted to dense for it. An ordinary conv's filter
// stays aligned.
// CHECK-LABEL: func.func @depthwise_filter
// CHECK-SAME: %{{.*}}: tensor<8x3x3x1xf32, #npu.layout<nalign>> {npu.weight}
// CHECK-SAME: %{{.*}}: tensor<8x1x1x8xf32, #npu.layout<align>> {npu.weight}
// CHECK: %[[D:.*]] = npu.conv2d %{{.*}}, %arg1 {{.*}}groups = 8
// CHECK: %[[P:.*]] = npu.transpose {{.*}} -> tensor<8x3x3x1xf32, #npu.layout<align>>
// CHECK: %[[PD:.*]] = npu.channel_norm <to_nalign> %[[P]]
// CHECK: npu.conv2d %[[D]], %[[PD]] {{.*}}groups = 8
// CHECK: npu.conv2d %{{.*}}, %arg2 :
func.func @depthwise_filter(%x: tensor<1x4x4x8xf32>, %w: tensor<8x3x3x1xf32> {npu.weight}, %p: tensor<8x1x1x8xf32> {npu.weight}, %q: tensor<3x3x1x8xf32>) -> tensor<1x4x4x8xf32> {
  %d = npu.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>, groups = 8 : i64} : (tensor<1x4x4x8xf32>, tensor<8x3x3x1xf32>) -> tensor<1x4x4x8xf32>
  %t = npu.transpose %q, [3, 0, 1, 2] : tensor<3x3x1x8xf32> -> tensor<8x3x3x1xf32>
  %e = npu.conv2d %d, %t {padding = array<i64: 1, 1, 1, 1>, groups = 8 : i64} : (tensor<1x4x4x8xf32>, tensor<8x3x3x1xf32>) -> tensor<1x4x4x8xf32>
  %r = npu.conv2d %e, %p : (tensor<1x4x4x8xf32>, tensor<8x1x1x8xf32>) -> tensor<1x4x4x8xf32>
  return %r : tensor<1x4x4x8xf32>
}
