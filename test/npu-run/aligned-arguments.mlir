// Arguments stored aligned (npudev.channels): npu-run pads the .npy rows to
// 64 elements before the kernels run and cuts the outputs back, in both
// executors. relu([[1, -2, 3], [-4, 5, -6]]).
// RUN: npu-run %s --input=%S/Inputs/f32-2x3.npy --print-outputs | FileCheck %s
// RUN: npu-run %s --input=%S/Inputs/f32-2x3.npy --print-outputs --mode=jit | FileCheck %s
// RUN: npu-opt %s --npu-lower-to-device | FileCheck %s --check-prefix=IR
// A reshape that keeps C copies between padded rows in place:
// RUN: npu-run %s --entry=reshape --input=%S/Inputs/f32-2x3.npy --print-outputs | FileCheck %s --check-prefix=RESHAPE
// RUN: npu-run %s --entry=reshape --input=%S/Inputs/f32-2x3.npy --print-outputs --mode=jit | FileCheck %s --check-prefix=RESHAPE

// IR: func.func @f(%{{.*}}: memref<2x64xf32, #npudev.space<global>> {npudev.channels = 3 : i64}, %{{.*}}: memref<2x64xf32, #npudev.space<global>> {npudev.channels = 3 : i64, npudev.output})
// CHECK: arg1 [2, 3] = [1, 0, 3, 0, 5, 0]
func.func @f(%x: tensor<2x3xf32, #npu.layout<align>>) -> tensor<2x3xf32, #npu.layout<align>> {
  %r = npu.relu %x : tensor<2x3xf32, #npu.layout<align>> -> tensor<2x3xf32, #npu.layout<align>>
  return %r : tensor<2x3xf32, #npu.layout<align>>
}

// RESHAPE: arg1 [2, 1, 1, 3] = [1, -2, 3, -4, 5, -6]
func.func @reshape(%x: tensor<2x3xf32, #npu.layout<align>>) -> tensor<2x1x1x3xf32, #npu.layout<align>> {
  %r = npu.reshape %x : tensor<2x3xf32, #npu.layout<align>> -> tensor<2x1x1x3xf32, #npu.layout<align>>
  return %r : tensor<2x1x1x3xf32, #npu.layout<align>>
}
