// npu-run lowers graph-level IR for the device it runs on before running
// it: the simulator and the JIT give the same bytes, and the report names
// the device the kernels were built for. (Values against a C++ reference:
// test/unittests/MoEKernelsTest.cpp.)
// RUN: rm -rf %t && mkdir -p %t/sim %t/jit %t/tiny
// RUN: npu-run %s --random-inputs=3 --output-dir=%t/sim --report | FileCheck %s --check-prefix=MLU
// RUN: npu-run %s --random-inputs=3 --output-dir=%t/jit --mode=jit
// RUN: cmp %t/sim/arg4.npy %t/jit/arg4.npy
// RUN: npu-run %s --random-inputs=3 --output-dir=%t/tiny --device=%S/Inputs/tiny-device.json --report | FileCheck %s --check-prefix=TINY
// RUN: cmp %t/sim/arg4.npy %t/tiny/arg4.npy

// MLU: device: mlu590 (48 cores
// MLU: cores used: 48
// TINY: device: tiny (2 cores
// TINY: cores used: 2
func.func @moe(%g: tensor<200xf32>, %i: tensor<200xi32>, %l: tensor<200xi32>, %d: tensor<256x64xf32>) -> tensor<200x64xf32> {
  %r = npu.moe_dispatch_backward_data %g, %i, %l, %d {capacity = 16, num_experts = 16} : (tensor<200xf32>, tensor<200xi32>, tensor<200xi32>, tensor<256x64xf32>) -> tensor<200x64xf32>
  return %r : tensor<200x64xf32>
}

