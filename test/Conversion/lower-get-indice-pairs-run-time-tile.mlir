// get_indice_pairs with the number of sites L read at run time holds one
// set of kernels per tile of getRunTimeTiles (on mlu590, with this 3x3x3
// kernel, 64, 512 and 4096 rows: the largest vector memory holds, divided
// by 8) behind host conditions on L. The sort takes the smallest tile
// above L, as a static L would; the grid the largest no larger than a
// static L's (T_i while L < T_{i+1} / 2), since its tiles are its tasks.
// RUN: npu-opt %s --npu-lower-to-device=sparse-conv-strategy=sort --canonicalize --cse | FileCheck %s --check-prefix=SORT
// RUN: npu-opt %s --npu-lower-to-device=sparse-conv-strategy=grid --canonicalize --cse | FileCheck %s --check-prefix=GRID

// SORT: %[[SMALL:.*]] = arith.cmpi slt, %[[L:.*]], %c64 : index
// SORT-NEXT: scf.if %[[SMALL]] {
// SORT: tile = 64 : i64
// SORT: } else {
// SORT: %[[MIDDLE:.*]] = arith.cmpi slt, %[[L]], %c512 : index
// SORT-NEXT: scf.if %[[MIDDLE]] {
// SORT: tile = 512 : i64
// SORT: } else {
// SORT: tile = 4096 : i64
// SORT-NOT: tile = {{(64|512) }}

// GRID: %[[SMALL:.*]] = arith.cmpi slt, %[[L:.*]], %c256 : index
// GRID-NEXT: scf.if %[[SMALL]] {
// GRID: tile = 64 : i64
// GRID: } else {
// GRID: %[[MIDDLE:.*]] = arith.cmpi slt, %[[L]], %c2048 : index
// GRID-NEXT: scf.if %[[MIDDLE]] {
// GRID: tile = 512 : i64
// GRID: } else {
// GRID: tile = 4096 : i64
// GRID-NOT: tile = {{(64|512) }}
func.func @pairs(%idx: tensor<?x4xi32>) -> (tensor<27x2x?xi32>, tensor<27xi32>) {
  %o, %p, %n = npu.get_indice_pairs %idx {batch_size = 4 : i64, spatial_shape = array<i64: 5, 12, 12>, kernel_size = array<i64: 3, 3, 3>, stride = array<i64: 2, 2, 2>, padding = array<i64: 0, 1, 1>} : (tensor<?x4xi32>) -> (tensor<?x4xi32>, tensor<27x2x?xi32>, tensor<27xi32>)
  return %p, %n : tensor<27x2x?xi32>, tensor<27xi32>
}
