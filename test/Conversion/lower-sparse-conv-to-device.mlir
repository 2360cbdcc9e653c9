// get_indice_pairs and sparse_conv3d lowered to npudev kernels (the sort
// strategy, docs/sparse-conv.md): the steps in order, the key width from
// the shape, the row-count plumbing of the data-dependent out_indices.
// RUN: npu-opt %s --split-input-file --npu-lower-to-device=sparse-conv-strategy=sort | FileCheck %s

// Default convolution: 20 sites, 27 offsets. Tiles of 32 rows (the input
// padded to 32 with sentinel keys), 27 x 32 candidate keys sorted by a
// tile sort and five merge passes; out_indices stored at its bound
// min(20 * 27, 2 * (1 * 3 * 3)) = 18 rows with the count in the trailing
// i64 argument, which sparse_conv3d reads back through tensor.dim.
// CHECK-LABEL: func.func @default
// CHECK-SAME: %[[IDX:arg0]]: memref<20x4xi32, #npudev.space<global>>
// CHECK-SAME: %[[OUT:arg3]]: memref<18x4xi32, #npudev.space<global>> {npudev.output, npudev.rows = 7 : i64}
// CHECK-SAME: %[[PAIRS:arg4]]: memref<27x2x20xi32, #npudev.space<global>> {npudev.output}
// CHECK-SAME: %[[NUM:arg5]]: memref<27xi32, #npudev.space<global>> {npudev.output}
// CHECK-SAME: %[[CONV:arg6]]: memref<18x8xf32, #npudev.space<global>> {npudev.output, npudev.rows = 8 : i64}
// CHECK-SAME: %[[ROWS:arg7]]: memref<1xi64, #npudev.space<global>> {npudev.row_count}
// CHECK-SAME: %[[CONVROWS:arg8]]: memref<1xi64, #npudev.space<global>> {npudev.row_count}
// CHECK: memref.alloc() : memref<864xi32, #npudev.space<global>>
// The input is checked first: batch indices and coordinates as the site
// keys are made, repeats in the sorted keys.
// CHECK: npudev.launch tasks(1) on vector attributes {npudev.tiling = {step = "site_keys", strategy = "sort", tile = 32 : i64}}
// CHECK: npudev.report_rows %{{.*}}, "'npu.get_indice_pairs' indices row {row} has a batch index outside [0, 2)"
// CHECK: npudev.report_rows %{{.*}}, "'npu.get_indice_pairs' indices row {row} has a coordinate outside the spatial shape 3x5x5"
// CHECK: npudev.launch tasks(1) on vector attributes {npudev.tiling = {strategy = "tile_sort", tile = 32 : i64}}
// CHECK: npudev.launch tasks(1) on vector attributes {npudev.tiling = {step = "check_repeats", strategy = "sort", tile = 32 : i64}}
// CHECK: npudev.report_rows %{{.*}}, "'npu.get_indice_pairs' indices row {row} repeats the site of an earlier row"
// CHECK: npudev.launch tasks(1) on vector attributes {npudev.tiling = {step = "expand", strategy = "sort", tile = 32 : i64}}
// CHECK: npudev.launch tasks(27) on vector attributes {npudev.tiling = {strategy = "tile_sort", tile = 32 : i64}}
// CHECK: npudev.vsort
// CHECK: {npudev.tiling = {run = 32 : i64, strategy = "merge_path", tile = 32 : i64}}
// CHECK: npudev.vmerge
// CHECK: {npudev.tiling = {run = 512 : i64, strategy = "merge_path", tile = 32 : i64}}
// CHECK-NOT: strategy = "merge_path"
// CHECK: {npudev.tiling = {step = "count_runs", strategy = "sort", tile = 32 : i64}}
// CHECK: {npudev.tiling = {step = "scan_runs", strategy = "sort", tile = 32 : i64}}
// CHECK: memref.store %{{.*}}, %[[ROWS]][%{{.*}}] : memref<1xi64
// CHECK: {npudev.tiling = {step = "number_runs", strategy = "sort", tile = 32 : i64}}
// CHECK: npudev.dma_scatter %{{.*}}, %[[OUT]][%{{.*}}]
// CHECK: {npudev.tiling = {step = "fill_pairs", strategy = "sort", tile = 32 : i64}}
// CHECK: {npudev.tiling = {step = "scan_pairs", strategy = "sort", tile = 32 : i64}}
// CHECK: memref.store %{{.*}}, %[[NUM]][%{{.*}}] : memref<27xi32
// CHECK: {npudev.tiling = {step = "write_pairs", strategy = "sort", tile = 32 : i64}}
// The conv's row count is the one get_indice_pairs stored.
// CHECK: %[[LOADED:.*]] = memref.load %[[ROWS]]
// CHECK: %[[M:.*]] = arith.index_cast %[[LOADED]] : i64 to index
// CHECK: %[[M64:.*]] = arith.index_cast %[[M]] : index to i64
// CHECK: memref.store %[[M64]], %[[CONVROWS]]
// CHECK: step = "zero_fill", strategy = "gather_matmul"
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c27
// The offsets run on cube cores, every buffer in cube memory.
// CHECK-NEXT: npudev.launch tasks(48) on cube {{.*}}step = "offset"
// CHECK-NOT: space<vector>
// CHECK: npudev.dma_gather
// CHECK: npudev.matmul
// CHECK: npudev.dma_scatter {{.*}}, %[[CONV]][%{{.*}}] {add}
func.func @default(%idx: tensor<20x4xi32>, %f: tensor<20x4xf32>, %w: tensor<27x4x8xf32>)
    -> (tensor<?x4xi32>, tensor<27x2x20xi32>, tensor<27xi32>, tensor<?x8xf32>) {
  %o, %p, %n = npu.get_indice_pairs %idx {batch_size = 2 : i64, spatial_shape = array<i64: 3, 5, 5>, kernel_size = array<i64: 3, 3, 3>, stride = array<i64: 2, 2, 2>, padding = array<i64: 0, 1, 1>} : (tensor<20x4xi32>) -> (tensor<?x4xi32>, tensor<27x2x20xi32>, tensor<27xi32>)
  %c0 = arith.constant 0 : index
  %m = tensor.dim %o, %c0 : tensor<?x4xi32>
  %y = npu.sparse_conv3d %f, %w, %p, %n, %m : (tensor<20x4xf32>, tensor<27x4x8xf32>, tensor<27x2x20xi32>, tensor<27xi32>, index) -> tensor<?x8xf32>
  return %o, %p, %n, %y : tensor<?x4xi32>, tensor<27x2x20xi32>, tensor<27xi32>, tensor<?x8xf32>
}

// -----

// Submanifold: the 20 input keys are sorted once (one tile, no merge), each
// candidate found by lower_bound (dma_gather rounds), out_indices copied
// from the input (static rows, no count; the conv's rows keep one); the
// conv takes the centre offset first, pairing each row with itself by
// plain DMA, in and out: its products are written, not added, so the zero
// fill starts past the centre's count (every row, for this table).
// CHECK-LABEL: func.func @subm
// CHECK-SAME: %arg3: memref<20x4xi32, #npudev.space<global>> {npudev.output},
// CHECK-SAME: %arg4: memref<20x8xf32, #npudev.space<global>> {npudev.output, npudev.rows = 5 : i64}
// CHECK: memref.alloc() : memref<32xi32, #npudev.space<global>>
// CHECK: step = "site_keys"
// CHECK: strategy = "tile_sort"
// CHECK-NOT: merge_path
// CHECK: step = "lookup"
// Lp = 32: five halving rounds, the last step, the key and the row.
// CHECK-COUNT-8: npudev.dma_gather
// CHECK-NOT: npudev.dma_gather
// CHECK: memref.copy %arg0, %arg3
// CHECK: step = "write_pairs"
// CHECK: step = "zero_fill"
// CHECK: %[[CENTRE:.*]] = memref.load %{{.*}}[%c13{{.*}}] : memref<27xi32
// CHECK: %[[FIRST:.*]] = arith.index_cast %[[CENTRE]] : i32 to index
// CHECK: %[[START:.*]] = arith.addi %[[FIRST]], %{{.*}} : index
// CHECK: scf.for %{{.*}} = %[[START]] to
// CHECK: npudev.launch tasks(48) on cube {{.*}}step = "centre"
// CHECK-NOT: npudev.dma_gather
// CHECK-NOT: npudev.dma_scatter
// CHECK: npudev.matmul %{{.*}}, %{{.*}}, %[[PRODUCT:[^ ]*]] :
// CHECK: npudev.dma %[[PRODUCT]], %{{.*}} : {{.*}}#npudev.space<cube>> to memref<?x8xf32, {{.*}}#npudev.space<global>>
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c13
// CHECK: step = "offset"
// CHECK: scf.for %{{.*}} = %c14{{.*}} to %c27
// CHECK: step = "offset"
func.func @subm(%idx: tensor<20x4xi32>, %f: tensor<20x4xf32>, %w: tensor<27x4x8xf32>)
    -> (tensor<20x4xi32>, tensor<?x8xf32>) {
  %o, %p, %n = npu.get_indice_pairs %idx {batch_size = 1 : i64, spatial_shape = array<i64: 6, 6, 6>, kernel_size = array<i64: 3, 3, 3>, padding = array<i64: 1, 1, 1>, subm} : (tensor<20x4xi32>) -> (tensor<20x4xi32>, tensor<27x2x20xi32>, tensor<27xi32>)
  %c0 = arith.constant 0 : index
  %m = tensor.dim %o, %c0 : tensor<20x4xi32>
  %y = npu.sparse_conv3d %f, %w, %p, %n, %m {subm} : (tensor<20x4xf32>, tensor<27x4x8xf32>, tensor<27x2x20xi32>, tensor<27xi32>, index) -> tensor<?x8xf32>
  return %o, %y : tensor<20x4xi32>, tensor<?x8xf32>
}

// -----

// 3 x 1024^3 sites: linear indices pass 2^31, so the keys are i64 (the
// payloads stay i32).
// CHECK-LABEL: func.func @wide_keys
// CHECK: memref.alloc() : memref<32xi64, #npudev.space<global>>
// CHECK-NEXT: memref.alloc() : memref<32xi32, #npudev.space<global>>
// CHECK: npudev.vsort {{.*}} : memref<32xi64, #npudev.space<vector>>, memref<32xi64, #npudev.space<vector>>, memref<32xi32
func.func @wide_keys(%idx: tensor<20x4xi32>) -> tensor<27xi32> {
  %o, %p, %n = npu.get_indice_pairs %idx {batch_size = 3 : i64, spatial_shape = array<i64: 1024, 1024, 1024>, kernel_size = array<i64: 3, 3, 3>, padding = array<i64: 1, 1, 1>, subm} : (tensor<20x4xi32>) -> (tensor<20x4xi32>, tensor<27x2x20xi32>, tensor<27xi32>)
  return %n : tensor<27xi32>
}

// -----

// No sites: indice_num is zeroed, the row count is 0, nothing is sorted.
// CHECK-LABEL: func.func @no_sites
// CHECK-NOT: vsort
// CHECK: step = "empty"
// CHECK: memref.store %{{.*}}, %arg2[%{{.*}}] : memref<27xi32
// CHECK: memref.store %{{.*}}, %arg3[%{{.*}}] : memref<1xi64
// CHECK-NOT: vsort
func.func @no_sites(%idx: tensor<0x4xi32>) -> (tensor<?x4xi32>, tensor<27xi32>) {
  %o, %p, %n = npu.get_indice_pairs %idx {batch_size = 1 : i64, spatial_shape = array<i64: 3, 3, 3>, kernel_size = array<i64: 3, 3, 3>} : (tensor<0x4xi32>) -> (tensor<?x4xi32>, tensor<27x2x0xi32>, tensor<27xi32>)
  return %o, %n : tensor<?x4xi32>, tensor<27xi32>
}

// -----

// f16 features and weights: products and sums in f32, in an f32 copy of
// the output, rounded once into the f16 output by the last launch.
// CHECK-LABEL: func.func @f16_conv
// CHECK-SAME: %[[OUT:arg4]]: memref<4x3xf16, #npudev.space<global>> {npudev.output}
// CHECK: %[[SUMS:.*]] = memref.alloc() : memref<4x3xf32, #npudev.space<global>>
// CHECK: step = "zero_fill"
// CHECK: step = "offset"
// CHECK: npudev.matmul %{{.*}}, %{{.*}}, %{{.*}} : memref<?x2xf16, {{.*}}>, memref<2x3xf16, #npudev.space<cube>>, memref<?x3xf32
// CHECK: npudev.dma_scatter {{.*}}, %[[SUMS]][%{{.*}}] {add}
// CHECK: step = "round"
// CHECK: npudev.vcast {{.*}} : memref<?x3xf32, {{.*}}>, memref<?x3xf16
// CHECK: memref.dealloc %[[SUMS]]
func.func @f16_conv(%f: tensor<4x2xf16>, %w: tensor<1x2x3xf16>, %p: tensor<1x2x4xi32>, %n: tensor<1xi32>) -> tensor<4x3xf16> {
  %c4 = arith.constant 4 : index
  %y = npu.sparse_conv3d %f, %w, %p, %n, %c4 : (tensor<4x2xf16>, tensor<1x2x3xf16>, tensor<1x2x4xi32>, tensor<1xi32>, index) -> tensor<4x3xf16>
  return %y : tensor<4x3xf16>
}
