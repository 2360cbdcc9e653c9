// RUN: npu-opt %s --npu-lower-to-llvm="distinct-arguments-of=entry" | FileCheck %s
// RUN: npu-opt %s --npu-lower-to-llvm | FileCheck %s --check-prefix=DEFAULT
// RUN: not npu-opt %s --npu-lower-to-llvm="distinct-arguments-of=missing" 2>&1 | FileCheck %s --check-prefix=MISSING

// The JIT's promise: the entry's memref arguments never overlap. Only the
// aligned pointer of each memref (the second of its two pointers) is marked;
// the allocated pointer, offsets, sizes, strides and scalars are not, nor the
// entry's C wrapper (descriptors by pointer), nor any other function, with a
// C interface or without: the entry may pass them overlapping views.

// CHECK-LABEL: llvm.func @entry(
// CHECK-SAME: %arg0: i64, %arg1: !llvm.ptr, %arg2: !llvm.ptr {llvm.noalias}, %arg3: i64, %arg4: i64, %arg5: i64,
// CHECK-SAME: %arg6: !llvm.ptr, %arg7: !llvm.ptr {llvm.noalias}, %arg8: i64, %arg9: i64, %arg10: i64, %arg11: i64, %arg12: i64,
// CHECK-SAME: %arg13: !llvm.ptr, %arg14: !llvm.ptr {llvm.noalias}, %arg15: i64, %arg16: f32)
// CHECK-LABEL: llvm.func @_mlir_ciface_entry(
// CHECK-NOT: llvm.noalias
// CHECK-SAME: {
// CHECK-LABEL: llvm.func @other(
// CHECK-NOT: llvm.noalias
// CHECK-SAME: {
// CHECK-LABEL: llvm.func @helper(
// CHECK-NOT: llvm.noalias
// CHECK-SAME: {

// DEFAULT-NOT: llvm.noalias

// MISSING: npu-mark-distinct-arguments: no function 'missing' with a body

func.func @entry(%n: index, %x: memref<?xf32>, %y: memref<4x?xf32>,
                 %s: memref<f32>, %a: f32) attributes {llvm.emit_c_interface} {
  return
}

func.func @other(%x: memref<?xf32>, %y: memref<?xf32>) attributes {llvm.emit_c_interface} {
  return
}

func.func @helper(%x: memref<?xf32>, %y: memref<?xf32>) {
  return
}
