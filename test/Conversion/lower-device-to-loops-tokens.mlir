// The JIT's copies complete at once, so its waits go and the tokens scf.for
// and scf.if carry are dropped (issue #13: a loop-carried token stopped the
// JIT with "cannot be lowered for the JIT" and no reason). A token it
// cannot drop is reported with the op that holds it.
// RUN: npu-opt %s --split-input-file --verify-diagnostics --npu-lower-device-to-loops=outline-launches=false | FileCheck %s

// CHECK-LABEL: func.func @token_in_for
// CHECK-NOT: npudev
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NOT: iter_args
// CHECK: return
func.func @token_in_for(%x: memref<64xf32, #npudev.space<global>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  npudev.launch tasks(1) {
    %b = npudev.alloc : memref<64xf32, #npudev.space<vector>>
    %t0 = npudev.dma_start %x, %b : memref<64xf32, #npudev.space<global>> to memref<64xf32, #npudev.space<vector>>
    %t = scf.for %i = %c0 to %c4 step %c1 iter_args(%tok = %t0) -> (!npudev.token) {
      npudev.wait %tok
      npudev.vbinary <add> %b, %b, %b : memref<64xf32, #npudev.space<vector>>, memref<64xf32, #npudev.space<vector>>, memref<64xf32, #npudev.space<vector>>
      %n = npudev.dma_start %b, %x : memref<64xf32, #npudev.space<vector>> to memref<64xf32, #npudev.space<global>>
      scf.yield %n : !npudev.token
    }
    npudev.wait %t
  }
  return
}

// -----

// CHECK-LABEL: func.func @token_in_if
// CHECK-NOT: npudev
// CHECK: scf.if
// CHECK-NOT: -> !npudev.token
// CHECK: return
func.func @token_in_if(%x: memref<64xf32, #npudev.space<global>>, %c: i1) {
  npudev.launch tasks(1) {
    %b = npudev.alloc : memref<64xf32, #npudev.space<vector>>
    %t = scf.if %c -> (!npudev.token) {
      %t1 = npudev.dma_start %x, %b : memref<64xf32, #npudev.space<global>> to memref<64xf32, #npudev.space<vector>>
      scf.yield %t1 : !npudev.token
    } else {
      %t2 = npudev.dma_start %b, %x : memref<64xf32, #npudev.space<vector>> to memref<64xf32, #npudev.space<global>>
      scf.yield %t2 : !npudev.token
    }
    npudev.wait %t
  }
  return
}

// -----

func.func @token_in_while(%x: memref<64xf32, #npudev.space<global>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  npudev.launch tasks(1) {
    %b = npudev.alloc : memref<64xf32, #npudev.space<vector>>
    // expected-error @+1 {{'npudev.dma_start' op cannot be lowered for the JIT: its token is still used by 'scf.while', which the JIT cannot drop}}
    %t0 = npudev.dma_start %x, %b : memref<64xf32, #npudev.space<global>> to memref<64xf32, #npudev.space<vector>>
    %r:2 = scf.while (%i = %c0, %tok = %t0) : (index, !npudev.token) -> (index, !npudev.token) {
      %go = arith.cmpi slt, %i, %c4 : index
      scf.condition(%go) %i, %tok : index, !npudev.token
    } do {
    ^bb0(%j: index, %t: !npudev.token):
      npudev.wait %t
      // expected-error @+1 {{'npudev.dma_start' op cannot be lowered for the JIT: its token is still used by 'scf.yield', which the JIT cannot drop}}
      %n = npudev.dma_start %x, %b : memref<64xf32, #npudev.space<global>> to memref<64xf32, #npudev.space<vector>>
      %k = arith.addi %j, %c1 : index
      scf.yield %k, %n : index, !npudev.token
    }
    npudev.wait %r#1
  }
  return
}
