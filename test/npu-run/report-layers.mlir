// The report's layers: the launches built from one graph op add up under
// its location (an imported ONNX node's name, else the op's file and line),
// slowest first, with the steps they ran.
// RUN: npu-run %s --random-inputs=1 --device=ascend910b --report | FileCheck %s
// RUN: npu-run %s --random-inputs=1 --device=ascend910b --report --report-layers=1 | FileCheck %s --check-prefix=ONE

// CHECK: time by step:
// CHECK: slowest layers (3 of 3):
// CHECK-NEXT: /block/MatMul {{.*}} us {{.*}} gemm, gemm.epilogue
// The two elementwise layers take the same time, give or take the L2.
// CHECK-DAG: /block/Relu {{.*}} us {{.*}} elementwise
// CHECK-DAG: report-layers.mlir:[[# @LINE + 7]] {{.*}} us {{.*}} elementwise
// ONE: slowest layers (1 of 3):
// ONE-NEXT: /block/MatMul
// ONE-NOT: /block/Relu
func.func @f(%a: tensor<256x512xf16>, %b: tensor<512x256xf16>, %bias: tensor<256xf16>) -> tensor<256x256xf16> {
  %m = npu.matmul %a, %b, %bias : (tensor<256x512xf16>, tensor<512x256xf16>, tensor<256xf16>) -> tensor<256x256xf16> loc("/block/MatMul")
  %r = npu.relu %m : tensor<256x256xf16> -> tensor<256x256xf16> loc("/block/Relu")
  %n = npu.neg %r : tensor<256x256xf16> -> tensor<256x256xf16>
  return %n : tensor<256x256xf16>
}
