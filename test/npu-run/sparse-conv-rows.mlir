// get_indice_pairs run by npu-run: out_indices is stored at its bound of 8
// rows, and npu-run prints only the counted ones. With kernel 2 and stride
// 2 every site reaches exactly one output site (o = x / 2), so one random
// site gives one output row and one pair, whatever the data.
// RUN: npu-run %s --entry=one_site --random-inputs=3 --print-outputs | FileCheck %s
// RUN: npu-run %s --entry=one_site --random-inputs=3 --print-outputs --mode=jit | FileCheck %s
// The report gives the time of each step (launches with the same
// npudev.tiling strategy and step add up), in launch order.
// RUN: npu-run %s --entry=one_site --random-inputs=3 --report | FileCheck %s --check-prefix=REPORT
// REPORT: time by step:
// REPORT-NEXT: sort.site_keys{{ +[0-9.]+ us +[0-9.]+%}}
// REPORT-NEXT: tile_sort
// REPORT-NEXT: sort.check_repeats
// REPORT-NEXT: sort.expand
// REPORT-NEXT: merge_path
// Random batch indices in [0, 16) against batch_size 1: an error naming a
// row, from either executor, rather than a wrong answer.
// RUN: not npu-run %s --entry=bad_batch --random-inputs=3 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not npu-run %s --entry=bad_batch --random-inputs=3 --mode=jit 2>&1 | FileCheck %s --check-prefix=BAD
// The checks survive the passes a user may run after the lowering.
// RUN: npu-opt %s --npu-lower-to-device --canonicalize --cse -o %t.mlir
// RUN: not npu-run %t.mlir --entry=bad_batch --random-inputs=3 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not npu-run %t.mlir --entry=bad_batch --random-inputs=3 --mode=jit 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not npu-run %t.mlir --entry=bad_batch --random-inputs=3 --mode=jit --checked 2>&1 | FileCheck %s --check-prefix=BAD

// CHECK: arg1 [1, 4] = [{{-?[0-9]+}}, {{-?[0-9]+}}, {{-?[0-9]+}}, {{-?[0-9]+}}]
// CHECK-NEXT: arg2 [8, 2, 1] = [{{(-1, -1, )*}}0, 0{{(, -1, -1)*}}]
// CHECK-NEXT: arg3 [8] = [{{(0, )*}}1{{(, 0)*}}]
// CHECK-NOT: arg4
func.func @one_site(%idx: tensor<1x4xi32>) -> (tensor<?x4xi32>, tensor<8x2x1xi32>, tensor<8xi32>) {
  %o, %p, %n = npu.get_indice_pairs %idx {batch_size = 16 : i64, spatial_shape = array<i64: 16, 16, 16>, kernel_size = array<i64: 2, 2, 2>, stride = array<i64: 2, 2, 2>} : (tensor<1x4xi32>) -> (tensor<?x4xi32>, tensor<8x2x1xi32>, tensor<8xi32>)
  return %o, %p, %n : tensor<?x4xi32>, tensor<8x2x1xi32>, tensor<8xi32>
}

// BAD: 'npu.get_indice_pairs' indices row {{[0-9]+}} has a batch index outside [0, 1)
func.func @bad_batch(%idx: tensor<64x4xi32>) -> (tensor<?x4xi32>, tensor<8x2x64xi32>, tensor<8xi32>) {
  %o, %p, %n = npu.get_indice_pairs %idx {batch_size = 1 : i64, spatial_shape = array<i64: 16, 16, 16>, kernel_size = array<i64: 2, 2, 2>, stride = array<i64: 2, 2, 2>} : (tensor<64x4xi32>) -> (tensor<?x4xi32>, tensor<8x2x64xi32>, tensor<8xi32>)
  return %o, %p, %n : tensor<?x4xi32>, tensor<8x2x64xi32>, tensor<8xi32>
}
