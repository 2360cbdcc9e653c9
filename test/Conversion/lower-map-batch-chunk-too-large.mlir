// A chunk region whose values do not fit the device's global memory (4
// samples of 64 KiB on a device of 128 KiB) is left out with a remark
// naming the value and the device: every sample runs on the body, as one
// sample fits. Without the remark the lowering failed on the chunk's
// buffer, though no batch it could serve fits that device either.
// RUN: npu-opt %s --npu-lower-to-device="device=%S/../npu-run/Inputs/small-global-device.json" --canonicalize 2>&1 | FileCheck %s
// CHECK: remark: runs every sample apart: its chunk region's value of type 'tensor<4x16384xf32>' does not fit the 131072 bytes of global memory of device 'small_global'
// CHECK-LABEL: func.func @large_chunk
// CHECK-NOT: arith.divui
// CHECK: scf.for
// CHECK-NOT: memref<4x16384xf32
// CHECK: return
func.func @large_chunk(%x: tensor<?x16384xf32>) -> tensor<?x16384xf32> {
  %y = npu.map_batch(%x) : (tensor<?x16384xf32>) -> tensor<?x16384xf32> {
  ^bb0(%s: tensor<1x16384xf32>):
    %a = npu.relu %s : tensor<1x16384xf32> -> tensor<1x16384xf32>
    npu.yield %a : tensor<1x16384xf32>
  } chunk {
  ^bb0(%s: tensor<4x16384xf32>):
    %a = npu.relu %s : tensor<4x16384xf32> -> tensor<4x16384xf32>
    npu.yield %a : tensor<4x16384xf32>
  }
  return %y : tensor<?x16384xf32>
}
