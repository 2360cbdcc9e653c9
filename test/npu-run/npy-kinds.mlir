// npu-run's .npy element types: a bool .npy gives an i1 argument its data
// (an attention mask), and an int64 .npy an index argument (the type
// npu-run writes index outputs in, so an output reads back as an input).
// RUN: rm -rf %t && mkdir -p %t/i1 %t/i8 %t/index
// RUN: npu-run %s --entry=mask_i1 --input=%S/Inputs/bool-2x3.npy --random-inputs=5 --output-dir=%t/i1
// RUN: npu-run %s --entry=mask_i8 --input=%S/Inputs/i8-2x3.npy --random-inputs=5 --output-dir=%t/i8
// RUN: cmp %t/i1/arg6.npy %t/i8/arg6.npy
// RUN: npu-run %s --entry=mask_i1 --input=%S/Inputs/bool-2x3.npy --random-inputs=5 --mode=jit --output-dir=%t/i8
// RUN: cmp %t/i1/arg6.npy %t/i8/arg6.npy
// An i8 .npy is not bool data for an i1 argument.
// RUN: not npu-run %s --entry=mask_i1 --input=%S/Inputs/i8-2x3.npy --random-inputs=5 2>&1 | FileCheck %s --check-prefix=KIND
// KIND: argument #0 has element type 'i1' but the data is 'i8'
// RUN: npu-run %s --entry=indices --random-inputs=2 --output-dir=%t/index
// RUN: npu-run %s --entry=indices --input=%t/index/arg1.npy --random-inputs=2 --print-outputs | FileCheck %s --check-prefix=INDEX
// RUN: npu-run %s --entry=indices --input=%t/index/arg1.npy --random-inputs=2 --print-outputs --mode=jit | FileCheck %s --check-prefix=INDEX
// INDEX: arg1 [4] = [{{[0-9]+}}, {{[0-9]+}}, {{[0-9]+}}, {{[0-9]+}}]

// Row 0 masks key 1, row 1 key 2.
func.func @mask_i1(%mask: tensor<2x3xi1>, %q: tensor<1x1x2x4xf32>, %k: tensor<1x1x3x4xf32>, %v: tensor<1x1x3x4xf32>) -> (tensor<1x1x2x8xf32>, tensor<1x1x2x8xf32>, tensor<1x1x2x4xf32>) {
  %m, %s, %o = npu.flash_attention %q, %k, %v mask %mask {input_layout = #npu.attention_layout<BNSD>, head_num = 1, scale = 0.5} : (tensor<1x1x2x4xf32>, tensor<1x1x3x4xf32>, tensor<1x1x3x4xf32>, tensor<2x3xi1>) -> (tensor<1x1x2x8xf32>, tensor<1x1x2x8xf32>, tensor<1x1x2x4xf32>)
  return %m, %s, %o : tensor<1x1x2x8xf32>, tensor<1x1x2x8xf32>, tensor<1x1x2x4xf32>
}

func.func @mask_i8(%mask: tensor<2x3xi8>, %q: tensor<1x1x2x4xf32>, %k: tensor<1x1x3x4xf32>, %v: tensor<1x1x3x4xf32>) -> (tensor<1x1x2x8xf32>, tensor<1x1x2x8xf32>, tensor<1x1x2x4xf32>) {
  %m, %s, %o = npu.flash_attention %q, %k, %v mask %mask {input_layout = #npu.attention_layout<BNSD>, head_num = 1, scale = 0.5} : (tensor<1x1x2x4xf32>, tensor<1x1x3x4xf32>, tensor<1x1x3x4xf32>, tensor<2x3xi8>) -> (tensor<1x1x2x8xf32>, tensor<1x1x2x8xf32>, tensor<1x1x2x4xf32>)
  return %m, %s, %o : tensor<1x1x2x8xf32>, tensor<1x1x2x8xf32>, tensor<1x1x2x4xf32>
}

// index data in and out.
func.func @indices(%x: memref<4xindex, #npudev.space<global>>, %out: memref<4xindex, #npudev.space<global>> {npudev.output}) {
  npudev.launch tasks(1) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    scf.for %i = %c0 to %c4 step %c1 {
      %e = memref.load %x[%i] : memref<4xindex, #npudev.space<global>>
      %d = arith.addi %e, %c1 : index
      memref.store %d, %out[%i] : memref<4xindex, #npudev.space<global>>
    }
  }
  return
}
