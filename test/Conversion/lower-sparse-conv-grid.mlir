// get_indice_pairs, the grid strategy (docs/sparse-conv.md): output rows
// looked up in a dense grid of the output sites, one i32 per site, instead
// of searched in sorted keys. `auto` takes it when the grid has no more
// cells than there are candidates (K L) and needs at most 1/16 of the
// device's global memory.
// RUN: npu-opt %s --split-input-file --npu-lower-to-device=sparse-conv-strategy=grid | FileCheck %s
// RUN: npu-opt %s --split-input-file --npu-lower-to-device | FileCheck %s --check-prefix=AUTO
// A device with 1 MiB of global memory: 1/16 is 64 KiB, less than the
// 128 KiB grid of @dense_big, so auto sorts it there.
// RUN: npu-opt %s --split-input-file --npu-lower-to-device=device=%S/Inputs/small-global.json | FileCheck %s --check-prefix=BUDGET

// Default convolution, output shape 1x3x3 over batch 2: an 18-cell grid,
// filled with -1. No sort of the candidates: each marks its output site's
// cell, the marked cells are counted, scanned and numbered in place (their
// sites decoded into out_indices), and the lookup gathers each
// candidate's row from the grid.
// CHECK-LABEL: func.func @default
// CHECK: step = "site_keys", strategy = "grid"
// CHECK: step = "check_repeats", strategy = "grid"
// CHECK: %[[GRID:.*]] = memref.alloc() : memref<18xi32, #npudev.space<global>>
// CHECK: step = "fill_grid", strategy = "grid"
// CHECK: step = "mark_cells", strategy = "grid"
// CHECK: npudev.dma_scatter %{{.*}}, %[[GRID]][%{{.*}}]
// CHECK-NOT: npudev.vsort
// CHECK: step = "count_cells", strategy = "grid"
// CHECK: step = "scan_cells", strategy = "grid"
// CHECK: step = "number_cells", strategy = "grid"
// CHECK: npudev.vcumsum
// CHECK: npudev.dma %{{.*}}, %{{.*}} : memref<?xi32, {{.*}}#npudev.space<vector>> to memref<?xi32, {{.*}}#npudev.space<global>>
// CHECK: npudev.dma_scatter %{{.*}}, %arg1[%{{.*}}]
// CHECK: step = "lookup", strategy = "grid"
// CHECK: npudev.dma_gather %[[GRID]][%{{.*}}]
// CHECK-NOT: npudev.dma_gather
// CHECK-NOT: npudev.vsort
// CHECK: step = "write_pairs", strategy = "grid"
// AUTO-LABEL: func.func @default
// AUTO: strategy = "grid"
func.func @default(%idx: tensor<20x4xi32>) -> (tensor<?x4xi32>, tensor<27x2x20xi32>, tensor<27xi32>) {
  %o, %p, %n = npu.get_indice_pairs %idx {batch_size = 2 : i64, spatial_shape = array<i64: 3, 5, 5>, kernel_size = array<i64: 3, 3, 3>, stride = array<i64: 2, 2, 2>, padding = array<i64: 0, 1, 1>} : (tensor<20x4xi32>) -> (tensor<?x4xi32>, tensor<27x2x20xi32>, tensor<27xi32>)
  return %o, %p, %n : tensor<?x4xi32>, tensor<27x2x20xi32>, tensor<27xi32>
}

// -----

// Submanifold over 32^3 sites (a 128 KiB grid): each input row is written
// into its site's cell, then every candidate is one gather, no search.
// CHECK-LABEL: func.func @subm_big
// CHECK: %[[GRID:.*]] = memref.alloc() : memref<32768xi32, #npudev.space<global>>
// CHECK: step = "fill_grid", strategy = "grid"
// CHECK: step = "grid_sites", strategy = "grid"
// CHECK: npudev.dma_scatter %{{.*}}, %[[GRID]][%{{.*}}]
// CHECK: step = "lookup", strategy = "grid"
// CHECK: npudev.dma_gather %[[GRID]][%{{.*}}]
// CHECK-NOT: npudev.dma_gather
// CHECK: memref.copy
// 32768 cells for 540 candidates: auto sorts.
// AUTO-LABEL: func.func @subm_big
// AUTO-NOT: strategy = "grid"
// AUTO: step = "lookup", strategy = "sort"
func.func @subm_big(%idx: tensor<20x4xi32>) -> tensor<27xi32> {
  %o, %p, %n = npu.get_indice_pairs %idx {batch_size = 1 : i64, spatial_shape = array<i64: 32, 32, 32>, kernel_size = array<i64: 3, 3, 3>, padding = array<i64: 1, 1, 1>, subm} : (tensor<20x4xi32>) -> (tensor<20x4xi32>, tensor<27x2x20xi32>, tensor<27xi32>)
  return %n : tensor<27xi32>
}

// -----

// 32768 cells (128 KiB) for 27 x 1300 candidates: auto takes the grid on
// mlu590, not within the small device's 64 KiB budget.
// CHECK-LABEL: func.func @dense_big
// AUTO-LABEL: func.func @dense_big
// AUTO: step = "mark_cells", strategy = "grid"
// BUDGET-LABEL: func.func @dense_big
// BUDGET-NOT: strategy = "grid"
// BUDGET: step = "expand", strategy = "sort"
func.func @dense_big(%idx: tensor<1300x4xi32>) -> tensor<27xi32> {
  %o, %p, %n = npu.get_indice_pairs %idx {batch_size = 1 : i64, spatial_shape = array<i64: 32, 32, 32>, kernel_size = array<i64: 3, 3, 3>, padding = array<i64: 1, 1, 1>} : (tensor<1300x4xi32>) -> (tensor<?x4xi32>, tensor<27x2x1300xi32>, tensor<27xi32>)
  return %n : tensor<27xi32>
}
