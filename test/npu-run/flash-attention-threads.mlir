// FlashAttention's backward gives the same bytes in the
// simulator and in the JIT with one and with two threads: every output
// element is summed by one task in a fixed order, and the cross-core
// flags order the rest (each run a process of its own).
// RUN: rm -rf %t && mkdir -p %t
// RUN: npu-run %s --device=ascend910b --random-inputs=3 --output-dir=%t/sim
// RUN: npu-run %s --device=ascend910b --random-inputs=3 --mode=jit --output-dir=%t/jit1
// RUN: npu-run %s --device=ascend910b --random-inputs=3 --mode=jit --jit-threads=2 --output-dir=%t/jit2
// RUN: for f in %t/sim/*.npy; do cmp $f %t/jit1/$(basename $f) && cmp $f %t/jit2/$(basename $f) || exit 1; done
// RUN: ls %t/sim | FileCheck %s

// The seven inputs, then dq, dk and dv.
// CHECK: arg7.npy
// CHECK: arg8.npy
// CHECK: arg9.npy
func.func @grad(%q: tensor<1x70x4x64xf32>, %k: tensor<1x90x2x64xf32>, %v: tensor<1x90x2x64xf32>,
                %dy: tensor<1x70x4x64xf32>, %m: tensor<1x4x70x8xf32>, %s: tensor<1x4x70x8xf32>,
                %o: tensor<1x70x4x64xf32>)
    -> (tensor<1x70x4x64xf32>, tensor<1x90x2x64xf32>, tensor<1x90x2x64xf32>) {
  %dq, %dk, %dv = npu.flash_attention_grad %q, %k, %v, %dy, %m, %s, %o {
      input_layout = #npu.attention_layout<BSND>, head_num = 4, scale = 0.125,
      sparse_mode = 3}
      : (tensor<1x70x4x64xf32>, tensor<1x90x2x64xf32>, tensor<1x90x2x64xf32>,
         tensor<1x70x4x64xf32>, tensor<1x4x70x8xf32>, tensor<1x4x70x8xf32>,
         tensor<1x70x4x64xf32>)
      -> (tensor<1x70x4x64xf32>, tensor<1x90x2x64xf32>, tensor<1x90x2x64xf32>)
  return %dq, %dk, %dv : tensor<1x70x4x64xf32>, tensor<1x90x2x64xf32>, tensor<1x90x2x64xf32>
}
