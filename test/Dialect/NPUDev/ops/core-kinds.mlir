// Core kinds: a launch says which cores run it. On mlu590 every core has
// both units, so a launch may name no kind; ascend910b has 48 vector cores
// (AIV) and 24 cube cores (AIC), and a launch there must name one. A vector
// core has no matrix unit and no cube memory, a cube core no vector unit
// and no vector memory; DMA and scalar code run on both.
// RUN: npu-opt %s --split-input-file --verify-diagnostics | FileCheck %s
// RUN: sed -n '/^\/\/ RUN-CUBE-BEGIN/,/^\/\/ RUN-CUBE-END/p' %s | npu-run - --random-inputs=1 --report | FileCheck %s --check-prefix=REPORT

// CHECK-LABEL: func.func @kinds
// CHECK: npudev.launch tasks(2) on vector {
// CHECK: npudev.launch tasks(2) on cube {
// CHECK: npudev.launch tasks(2) {
#v = #npudev.space<vector>
#c = #npudev.space<cube>
#g = #npudev.space<global>
func.func @kinds(%x: memref<2x4xf32, #g>, %y: memref<2x4xf32, #g> {npudev.output},
                 %z: memref<2x2xf32, #g> {npudev.output}) {
  npudev.launch tasks(2) on vector {
    %a = npudev.alloc : memref<2x4xf32, #v>
    npudev.dma %x, %a : memref<2x4xf32, #g> to memref<2x4xf32, #v>
    npudev.vbinary <add> %a, %a, %a : memref<2x4xf32, #v>, memref<2x4xf32, #v>, memref<2x4xf32, #v>
    npudev.dma %a, %y : memref<2x4xf32, #v> to memref<2x4xf32, #g>
  }
  npudev.launch tasks(2) on cube {
    %a = npudev.alloc : memref<2x4xf32, #c>
    %c = npudev.alloc : memref<2x2xf32, #c>
    npudev.dma %x, %a : memref<2x4xf32, #g> to memref<2x4xf32, #c>
    npudev.matmul %a, %a, %c {transpose_b} : memref<2x4xf32, #c>, memref<2x4xf32, #c>, memref<2x2xf32, #c>
    npudev.dma %c, %z : memref<2x2xf32, #c> to memref<2x2xf32, #g>
  }
  npudev.launch tasks(2) {
  }
  return
}

// -----

// RUN-CUBE-BEGIN
// 30 cube tasks share ascend910b's 24 cube cores; the report counts both
// kinds of core.
// REPORT: device: ascend910b (48 vector + 24 cube cores, 1.80 GHz)
// REPORT: cores used: 24
module attributes {npudev.device = "ascend910b"} {
  func.func @cube_tasks(%x: memref<2x4xf16, #npudev.space<global>>) {
    npudev.launch tasks(30) on cube {
      %a = npudev.alloc : memref<2x4xf16, #npudev.space<cube>>
      %c = npudev.alloc : memref<2x2xf32, #npudev.space<cube>>
      npudev.dma %x, %a : memref<2x4xf16, #npudev.space<global>> to memref<2x4xf16, #npudev.space<cube>>
      npudev.matmul %a, %a, %c {transpose_b} : memref<2x4xf16, #npudev.space<cube>>, memref<2x4xf16, #npudev.space<cube>>, memref<2x2xf32, #npudev.space<cube>>
    }
    return
  }
}
// RUN-CUBE-END

// -----

module attributes {npudev.device = "ascend910b"} {
  func.func @unified_on_split() {
    // expected-error @+1 {{'npudev.launch' op must say which cores run it ('on vector' or 'on cube'): device 'ascend910b' has no cores with both units}}
    npudev.launch tasks(1) {
    }
    return
  }
}

// -----

func.func @matmul_on_vector(%a: memref<2x2xf32, #npudev.space<vector>>) {
  npudev.launch tasks(1) on vector {
    // expected-error @+1 {{'npudev.matmul' op needs the matrix unit, which vector cores lack}}
    npudev.matmul %a, %a, %a : memref<2x2xf32, #npudev.space<vector>>, memref<2x2xf32, #npudev.space<vector>>, memref<2x2xf32, #npudev.space<vector>>
  }
  return
}

// -----

func.func @vector_op_on_cube(%c: index, %a: memref<4xi32, #npudev.space<vector>>) {
  npudev.launch tasks(1) on cube {
    // expected-error @+1 {{'npudev.iota' op needs the vector unit, which cube cores lack}}
    npudev.iota %c, %a : memref<4xi32, #npudev.space<vector>>
  }
  return
}

// -----

func.func @vector_memory_on_cube() {
  npudev.launch tasks(1) on cube {
    // expected-error @+1 {{'npudev.alloc' op makes a buffer in vector memory, which cube cores lack: 'memref<4xf32, #npudev.space<vector>>'}}
    %a = npudev.alloc : memref<4xf32, #npudev.space<vector>>
  }
  return
}

// -----

func.func @cube_memory_on_vector() {
  npudev.launch tasks(1) on vector {
    // expected-error @+1 {{'memref.alloc' op makes a buffer in cube memory, which vector cores lack: 'memref<4xf32, #npudev.space<cube>>'}}
    %a = memref.alloc() : memref<4xf32, #npudev.space<cube>>
  }
  return
}
