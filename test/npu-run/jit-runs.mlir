// --jit-runs=N compiles once, runs N times and reports the compile time
// and the fastest and median runs; the outputs are the last run's.
// RUN: npu-run %s --input=%S/Inputs/f32-2x3.npy --mode=jit --jit-runs=3 --print-outputs 2>&1 | FileCheck %s
// RUN: not npu-run %s --input=%S/Inputs/f32-2x3.npy --mode=jit --jit-runs=0 2>&1 | FileCheck %s --check-prefix=ZERO

// CHECK-DAG: npu-run: jit compile {{[0-9.]+}} s; 3 runs: fastest {{[0-9.]+}} ms, median {{[0-9.]+}} ms
// CHECK-DAG: arg1 [2, 3] = [2, -4, 6, -8, 10, -12]
// ZERO: npu-run: --jit-runs must be at least 1
func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = npu.add %x, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
