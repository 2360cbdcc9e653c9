// npudev.dma_gather and npudev.dma_scatter: every test of the two ops in one
// file. The RUN lines check the verifier's diagnostics and the printed form,
// then run @indexed (the first chunk) in both executors against values worked out by hand;
// ParityTest (test/unittests) also compares the two executors' bytes.
// RUN: npu-opt %s --split-input-file --verify-diagnostics | FileCheck %s
// RUN: sed -n '1,/^\/\/ -----/p' %s | npu-run - --random-inputs=0 --print-outputs | FileCheck %s --check-prefix=EXEC
// RUN: sed -n '1,/^\/\/ -----/p' %s | npu-run - --random-inputs=0 --print-outputs --mode=jit | FileCheck %s --check-prefix=EXEC

// source[i, j] = 10 i + j over 6 rows. Gather rows [5, -1, 0, 5]: a
// negative index gives zeros. Scatter rows 0..3 of the source to
// [2, -1, 2, 0] of a target of ones: plain, the later row wins; with add,
// the sum runs in index order; a negative index is skipped.
// EXEC: arg0 [4, 3] = [50, 51, 52, 0, 0, 0, 0, 1, 2, 50, 51, 52]
// EXEC-NEXT: arg1 [3, 3] = [30, 31, 32, 1, 1, 1, 20, 21, 22]
// EXEC-NEXT: arg2 [3, 3] = [31, 32, 33, 1, 1, 1, 21, 23, 25]
// CHECK-LABEL: func.func @indexed
// CHECK: npudev.dma_gather %{{.*}}[%{{.*}}], %{{.*}} : memref<6x3xf32, #npudev.space<global>>, memref<4xi32, #npudev.space<vector>>, memref<4x3xf32, #npudev.space<vector>>
// CHECK: npudev.dma_scatter %{{.*}}, %{{.*}}[%{{.*}}] : memref<4x3xf32, #npudev.space<vector>>, memref<4xi32, #npudev.space<vector>>, memref<3x3xf32, #npudev.space<global>>
// CHECK: npudev.dma_scatter %{{.*}}, %{{.*}}[%{{.*}}] {add} :
#v = #npudev.space<vector>
#g = #npudev.space<global>
func.func @indexed(%gathered: memref<4x3xf32, #g> {npudev.output},
                   %scattered: memref<3x3xf32, #g> {npudev.output},
                   %added: memref<3x3xf32, #g> {npudev.output}) {
  %c10 = arith.constant 10.0 : f32
  %one = arith.constant 1.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %src = memref.alloc() : memref<6x3xf32, #g>
  npudev.launch tasks(1) {
    %i = npudev.alloc : memref<6x3xf32, #v>
    npudev.iota %c0, %i : memref<6x3xf32, #v>
    %j = npudev.alloc : memref<6x3xf32, #v>
    npudev.iota %c0, %j {dimension = 1} : memref<6x3xf32, #v>
    npudev.vbinary_scalar <mul> %i, %c10, %i : memref<6x3xf32, #v>, f32, memref<6x3xf32, #v>
    npudev.vbinary <add> %i, %j, %i : memref<6x3xf32, #v>, memref<6x3xf32, #v>, memref<6x3xf32, #v>
    npudev.dma %i, %src : memref<6x3xf32, #v> to memref<6x3xf32, #g>

    %gi = npudev.alloc : memref<4xi32, #v>
    %m1 = arith.constant -1 : i32
    %r0 = arith.constant 0 : i32
    %r2 = arith.constant 2 : i32
    %r5 = arith.constant 5 : i32
    memref.store %r5, %gi[%c0] : memref<4xi32, #v>
    memref.store %m1, %gi[%c1] : memref<4xi32, #v>
    memref.store %r0, %gi[%c2] : memref<4xi32, #v>
    memref.store %r5, %gi[%c3] : memref<4xi32, #v>
    %rows = npudev.alloc : memref<4x3xf32, #v>
    npudev.dma_gather %src[%gi], %rows : memref<6x3xf32, #g>, memref<4xi32, #v>, memref<4x3xf32, #v>
    npudev.dma %rows, %gathered : memref<4x3xf32, #v> to memref<4x3xf32, #g>

    %ones = npudev.alloc : memref<3x3xf32, #v>
    npudev.vfill %one, %ones : f32, memref<3x3xf32, #v>
    npudev.dma %ones, %scattered : memref<3x3xf32, #v> to memref<3x3xf32, #g>
    npudev.dma %ones, %added : memref<3x3xf32, #v> to memref<3x3xf32, #g>
    %first = memref.subview %i[0, 0] [4, 3] [1, 1] : memref<6x3xf32, #v> to memref<4x3xf32, strided<[3, 1]>, #v>
    %data = npudev.alloc : memref<4x3xf32, #v>
    npudev.dma %first, %data : memref<4x3xf32, strided<[3, 1]>, #v> to memref<4x3xf32, #v>
    %si = npudev.alloc : memref<4xi32, #v>
    memref.store %r2, %si[%c0] : memref<4xi32, #v>
    memref.store %m1, %si[%c1] : memref<4xi32, #v>
    memref.store %r2, %si[%c2] : memref<4xi32, #v>
    memref.store %r0, %si[%c3] : memref<4xi32, #v>
    npudev.dma_scatter %data, %scattered[%si] : memref<4x3xf32, #v>, memref<4xi32, #v>, memref<3x3xf32, #g>
    npudev.dma_scatter %data, %added[%si] {add} : memref<4x3xf32, #v>, memref<4xi32, #v>, memref<3x3xf32, #g>
  }
  memref.dealloc %src : memref<6x3xf32, #g>
  return
}

// -----

func.func @gather_indices_rank(%src: memref<6x3xf32, #npudev.space<global>>) {
  %i = npudev.alloc : memref<2x2xi32, #npudev.space<vector>>
  %o = npudev.alloc : memref<4x3xf32, #npudev.space<vector>>
  // expected-error @+1 {{'npudev.dma_gather' op indices must be a rank-1 integer buffer, got 'memref<2x2xi32, #npudev.space<vector>>'}}
  npudev.dma_gather %src[%i], %o : memref<6x3xf32, #npudev.space<global>>, memref<2x2xi32, #npudev.space<vector>>, memref<4x3xf32, #npudev.space<vector>>
  return
}

// -----

func.func @scatter_row_shape(%dst: memref<6x3xf32, #npudev.space<global>>) {
  %i = npudev.alloc : memref<4xi32, #npudev.space<vector>>
  %s = npudev.alloc : memref<4x2xf32, #npudev.space<vector>>
  // expected-error @+1 {{'npudev.dma_scatter' op with 'memref<4xi32, #npudev.space<vector>>' indices into 'memref<6x3xf32, #npudev.space<global>>', the gathered side must be one row per index, got 'memref<4x2xf32, #npudev.space<vector>>'}}
  npudev.dma_scatter %s, %dst[%i] : memref<4x2xf32, #npudev.space<vector>>, memref<4xi32, #npudev.space<vector>>, memref<6x3xf32, #npudev.space<global>>
  return
}

// -----

func.func @gather_element_type(%src: memref<6x3xf32, #npudev.space<global>>) {
  %i = npudev.alloc : memref<4xi32, #npudev.space<vector>>
  %o = npudev.alloc : memref<4x3xi32, #npudev.space<vector>>
  // expected-error @+1 {{'npudev.dma_gather' op data operands must have one element type, got 'f32' and 'i32'}}
  npudev.dma_gather %src[%i], %o : memref<6x3xf32, #npudev.space<global>>, memref<4xi32, #npudev.space<vector>>, memref<4x3xi32, #npudev.space<vector>>
  return
}
