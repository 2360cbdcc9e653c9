// npu-run runs a module on the device it names; a --device that disagrees
// is reported with both names, not silently used.
// RUN: npu-run %s --random-inputs=1 --report | FileCheck %s
// RUN: npu-run %s --random-inputs=1 --report --device=ascend910b | FileCheck %s
// RUN: not npu-run %s --random-inputs=1 --device=mlu590 2>&1 | FileCheck %s --check-prefix=MISMATCH
// RUN: not npu-run %s --random-inputs=1 --device=%S/Inputs/tiny-device.json 2>&1 | FileCheck %s --check-prefix=TINY

// CHECK: device: ascend910b (48 vector + 24 cube cores, 1.80 GHz)
// MISMATCH: npu-run: the module is compiled for device 'ascend910b' but --device names 'mlu590' (they differ in 'name')
// TINY: npu-run: the module is compiled for device 'ascend910b' but --device names 'tiny' (they differ in 'name')
// A truncated description names its file and says it is no JSON.
// RUN: not npu-run %s --random-inputs=1 --device=%S/Inputs/truncated-device.json 2>&1 | FileCheck %s --check-prefix=TRUNCATED
// RUN: not npu-opt %s --npu-lower-to-device=device=%S/Inputs/truncated-device.json 2>&1 | FileCheck %s --check-prefix=TRUNCATED
// TRUNCATED: device description '{{.*}}truncated-device.json' is not valid JSON: [4:4, byte=44]: Unterminated string
module attributes {npudev.device = "ascend910b"} {
  func.func @copy(%x: memref<64xf32, #npudev.space<global>>, %y: memref<64xf32, #npudev.space<global>>) {
    npudev.launch tasks(2) on vector {
      %a = npudev.alloc : memref<64xf32, #npudev.space<vector>>
      npudev.dma %x, %a : memref<64xf32, #npudev.space<global>> to memref<64xf32, #npudev.space<vector>>
      npudev.dma %a, %y : memref<64xf32, #npudev.space<vector>> to memref<64xf32, #npudev.space<global>>
    }
    return
  }
}
