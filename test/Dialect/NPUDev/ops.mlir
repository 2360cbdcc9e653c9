// Round trip of every npudev op.
// RUN: npu-opt %s --split-input-file | FileCheck %s
// RUN: npu-opt %s --split-input-file | npu-opt --split-input-file | FileCheck %s
// RUN: npu-opt %s --split-input-file --mlir-print-op-generic | npu-opt --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @kernel
func.func @kernel(%x: memref<1024xf32, #npudev.space<global>>, %y: memref<1024xf32, #npudev.space<global>>) {
  // CHECK: npudev.launch tasks(4) {
  npudev.launch tasks(4) {
    // CHECK: npudev.task_id
    %t = npudev.task_id
    // CHECK: npudev.task_dim
    %n = npudev.task_dim
    %c256 = arith.constant 256 : index
    %off = arith.muli %t, %c256 : index
    %src = memref.subview %x[%off] [256] [1] : memref<1024xf32, #npudev.space<global>> to memref<256xf32, strided<[1], offset: ?>, #npudev.space<global>>
    // CHECK: npudev.alloc : memref<256xf32, #npudev.space<vector>>
    %buf = npudev.alloc : memref<256xf32, #npudev.space<vector>>
    // CHECK: npudev.dma %{{.*}}, %{{.*}} : memref<256xf32, strided<[1], offset: ?>, #npudev.space<global>> to memref<256xf32, #npudev.space<vector>>
    npudev.dma %src, %buf : memref<256xf32, strided<[1], offset: ?>, #npudev.space<global>> to memref<256xf32, #npudev.space<vector>>
    // CHECK: %[[TOK:.*]] = npudev.dma_start
    %tok = npudev.dma_start %src, %buf : memref<256xf32, strided<[1], offset: ?>, #npudev.space<global>> to memref<256xf32, #npudev.space<vector>>
    // CHECK: npudev.wait %[[TOK]]
    npudev.wait %tok
    // CHECK: npudev.wait_all
    npudev.wait_all
    %two = arith.constant 2.0 : f32
    // CHECK: npudev.vbinary <add>
    npudev.vbinary <add> %buf, %buf, %buf : memref<256xf32, #npudev.space<vector>>, memref<256xf32, #npudev.space<vector>>, memref<256xf32, #npudev.space<vector>>
    // CHECK: npudev.vbinary_scalar <mul> %{{.*}}, %{{.*}}, %{{.*}} : memref<256xf32, #npudev.space<vector>>, f32, memref<256xf32, #npudev.space<vector>>
    npudev.vbinary_scalar <mul> %buf, %two, %buf : memref<256xf32, #npudev.space<vector>>, f32, memref<256xf32, #npudev.space<vector>>
    // CHECK: npudev.vunary <exp>
    npudev.vunary <exp> %buf, %buf : memref<256xf32, #npudev.space<vector>>, memref<256xf32, #npudev.space<vector>>
    %mask = npudev.alloc : memref<256xi32, #npudev.space<vector>>
    // CHECK: npudev.vcmp <ge>
    npudev.vcmp <ge> %buf, %buf, %mask : memref<256xf32, #npudev.space<vector>>, memref<256xf32, #npudev.space<vector>>, memref<256xi32, #npudev.space<vector>>
    // CHECK: npudev.vcmp_scalar <lt>
    npudev.vcmp_scalar <lt> %buf, %two, %mask : memref<256xf32, #npudev.space<vector>>, f32, memref<256xi32, #npudev.space<vector>>
    // CHECK: npudev.vbinary <and>
    npudev.vbinary <and> %mask, %mask, %mask : memref<256xi32, #npudev.space<vector>>, memref<256xi32, #npudev.space<vector>>, memref<256xi32, #npudev.space<vector>>
    // CHECK: npudev.vselect
    npudev.vselect %mask, %buf, %buf, %buf : memref<256xi32, #npudev.space<vector>>, memref<256xf32, #npudev.space<vector>>, memref<256xf32, #npudev.space<vector>>, memref<256xf32, #npudev.space<vector>>
    %sum = npudev.alloc : memref<1xf32, #npudev.space<vector>>
    // CHECK: npudev.vreduce <sum>
    npudev.vreduce <sum> %buf, %sum : memref<256xf32, #npudev.space<vector>>, memref<1xf32, #npudev.space<vector>>
    // CHECK: npudev.vcast
    npudev.vcast %buf, %mask : memref<256xf32, #npudev.space<vector>>, memref<256xi32, #npudev.space<vector>>
    // CHECK: npudev.vfill
    npudev.vfill %two, %buf : f32, memref<256xf32, #npudev.space<vector>>
    // CHECK: npudev.vcumsum
    npudev.vcumsum %buf, %buf : memref<256xf32, #npudev.space<vector>>, memref<256xf32, #npudev.space<vector>>
    // CHECK: npudev.vsort
    npudev.vsort %mask, %mask : memref<256xi32, #npudev.space<vector>>, memref<256xi32, #npudev.space<vector>>
    // CHECK: npudev.vunique
    %count = npudev.vunique %mask, %mask : memref<256xi32, #npudev.space<vector>>, memref<256xi32, #npudev.space<vector>>
    %rows = npudev.alloc : memref<16x16xf32, #npudev.space<vector>>
    %cols = npudev.alloc : memref<16x16xf32, #npudev.space<vector>>
    // CHECK: npudev.vtranspose
    npudev.vtranspose %rows, %cols : memref<16x16xf32, #npudev.space<vector>>, memref<16x16xf32, #npudev.space<vector>>
    %idx = npudev.alloc : memref<8xi32, #npudev.space<vector>>
    %picked = npudev.alloc : memref<8x16xf32, #npudev.space<vector>>
    // CHECK: npudev.vgather %{{.*}}[%{{.*}}], %{{.*}}
    npudev.vgather %rows[%idx], %picked : memref<16x16xf32, #npudev.space<vector>>, memref<8xi32, #npudev.space<vector>>, memref<8x16xf32, #npudev.space<vector>>
    // CHECK: npudev.vscatter %{{.*}}, %{{.*}}[%{{.*}}]
    npudev.vscatter %picked, %rows[%idx] : memref<8x16xf32, #npudev.space<vector>>, memref<8xi32, #npudev.space<vector>>, memref<16x16xf32, #npudev.space<vector>>
    %w = npudev.alloc : memref<16x16xf16, #npudev.space<cube>>
    %a = npudev.alloc : memref<16x16xf16, #npudev.space<vector>>
    // CHECK: npudev.matmul %{{.*}}, %{{.*}}, %{{.*}} {accumulate}
    npudev.matmul %a, %w, %rows {accumulate} : memref<16x16xf16, #npudev.space<vector>>, memref<16x16xf16, #npudev.space<cube>>, memref<16x16xf32, #npudev.space<vector>>
    // CHECK: npudev.dma
    npudev.dma %buf, %src : memref<256xf32, #npudev.space<vector>> to memref<256xf32, strided<[1], offset: ?>, #npudev.space<global>>
  }
  return
}

// -----

// CHECK-LABEL: func.func @block_task
// CHECK: npudev.launch tasks(1) attributes {task_type = #npudev.task_type<block>}
func.func @block_task() {
  npudev.launch tasks(1) attributes {task_type = #npudev.task_type<block>} {
  }
  return
}
