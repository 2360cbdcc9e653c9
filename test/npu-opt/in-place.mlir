// `-o` naming the input file rewrites it in place (the driver used to
// truncate the file under its own parser and crash). A failing run leaves
// the file as it was and no temporary beside it.
// RUN: rm -rf %t && mkdir %t && cp %s %t/graph.mlir
// RUN: npu-opt %t/graph.mlir --canonicalize -o %t/graph.mlir
// RUN: FileCheck %s < %t/graph.mlir
// RUN: cp %t/graph.mlir %t/before.mlir
// RUN: not npu-opt %t/graph.mlir --npu-no-such-pass -o %t/graph.mlir 2> /dev/null
// RUN: not npu-opt %t/graph.mlir --pass-pipeline='builtin.module(func.func(npu-layout-align))' --npu-layout-align -o %t/graph.mlir 2> /dev/null
// RUN: diff %t/before.mlir %t/graph.mlir
// RUN: ls %t | FileCheck %s --check-prefix=FILES

// CHECK-LABEL: func.func @identity
// CHECK-NEXT: return %arg0
func.func @identity(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = npu.transpose %x, [0, 1] : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// FILES: before.mlir
// FILES-NEXT: graph.mlir
// FILES-NOT: graph.mlir.
