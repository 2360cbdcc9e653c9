// A tiled matmul with double buffering: C[16x16] = A[16x32] x B[32x16],
// four K tiles of 8, each loaded with npudev.dma_start into one of two
// buffer pairs while the matrix unit works on the other. Host data:
// A[i][k] = i + k, B[k][j] = k - j, so C[i][j] = sum_k (i + k)(k - j).
// RUN: npu-run %s --random-inputs=1 --print-outputs | FileCheck %s
// RUN: npu-run %s --random-inputs=1 --print-outputs --mode=jit | FileCheck %s
// RUN: npu-run %s --random-inputs=1 --trace=%t.json > /dev/null
// RUN: FileCheck %s --check-prefix=TRACE < %t.json
// RUN: npu-run %s --random-inputs=1 --report | FileCheck %s --check-prefix=REPORT

// CHECK: arg0 [16, 16] = [10416, 9920, 9424, 8928, 8432, 7936, 7440, 6944, 6448, 5952, 5456, 4960, 4464, 3968, 3472, 2976, 10912, 10384, 9856, 9328, 8800, 8272, 7744, 7216, 6688, 6160, 5632, 5104, 4576, 4048, 3520, 2992, 11408, 10848, 10288, 9728, 9168, 8608, 8048, 7488, 6928, 6368, 5808, 5248, 4688, 4128, 3568, 3008, 11904, 11312, 10720, 10128, 9536, 8944, 8352, 7760, 7168, 6576, 5984, 5392, 4800, 4208, 3616, 3024, 12400, 11776, 11152, 10528, 9904, 9280, 8656, 8032, 7408, 6784, 6160, 5536, 4912, 4288, 3664, 3040, 12896, 12240, 11584, 10928, 10272, 9616, 8960, 8304, 7648, 6992, 6336, 5680, 5024, 4368, 3712, 3056, 13392, 12704, 12016, 11328, 10640, 9952, 9264, 8576, 7888, 7200, 6512, 5824, 5136, 4448, 3760, 3072, 13888, 13168, 12448, 11728, 11008, 10288, 9568, 8848, 8128, 7408, 6688, 5968, 5248, 4528, 3808, 3088, 14384, 13632, 12880, 12128, 11376, 10624, 9872, 9120, 8368, 7616, 6864, 6112, 5360, 4608, 3856, 3104, 14880, 14096, 13312, 12528, 11744, 10960, 10176, 9392, 8608, 7824, 7040, 6256, 5472, 4688, 3904, 3120, 15376, 14560, 13744, 12928, 12112, 11296, 10480, 9664, 8848, 8032, 7216, 6400, 5584, 4768, 3952, 3136, 15872, 15024, 14176, 13328, 12480, 11632, 10784, 9936, 9088, 8240, 7392, 6544, 5696, 4848, 4000, 3152, 16368, 15488, 14608, 13728, 12848, 11968, 11088, 10208, 9328, 8448, 7568, 6688, 5808, 4928, 4048, 3168, 16864, 15952, 15040, 14128, 13216, 12304, 11392, 10480, 9568, 8656, 7744, 6832, 5920, 5008, 4096, 3184, 17360, 16416, 15472, 14528, 13584, 12640, 11696, 10752, 9808, 8864, 7920, 6976, 6032, 5088, 4144, 3200, 17856, 16880, 15904, 14928, 13952, 12976, 12000, 11024, 10048, 9072, 8096, 7120, 6144, 5168, 4192, 3216]

// The trace has one process per core, one thread per pipe, and DMA events
// on the DMA thread and matmuls on the cube thread.
// TRACE: "traceEvents"
// TRACE-DAG: {"name":"thread_name","ph":"M","pid":0,"tid":1,"args":{"name":"dma"}}
// TRACE-DAG: {"name":"npudev.dma_start","ph":"X","pid":0,"tid":1,
// TRACE-DAG: {"name":"npudev.matmul","ph":"X","pid":0,"tid":3,
// A copy through the L2 says how it was served: A's first tile (16 rows of
// 32 bytes, each in a line of its own) misses 16 lines.
// TRACE-DAG: "args":{"l2 hits":0,"l2 misses":16}}

// The report gives HBM's bytes apart from the copies', the L2's lines
// (mlu590: 128 bytes), and the roofline of the kernel and of each step
// (here the one launch). Worked by hand: A's 16 rows are a line each; its
// first K tile misses them (16), the other three hit them (48). B's four
// tiles are 4 lines each, all new (16 misses); C's 8 lines are written,
// allocated without a fetch (8 misses) and stay dirty (1 KiB). HBM reads
// the 32 lines fetched (4096 bytes); the copies move 2048 + 2048 + 1024.
// REPORT: global bytes moved:  5120
// REPORT-NEXT: hbm bytes: 4096
// REPORT-NEXT: l2 lines: 48 hit, 40 missed (54.5% hits), 0 written back; 1024 bytes dirty at the end
// REPORT: roofline: {{[0-9.]+}} us bound, {{[0-9.]+}}% of the time
// REPORT-NEXT: time by step: time share bound roofline limit l2 hits
// REPORT-NEXT: launch 1 {{[0-9.]+}} us 100.0% {{[0-9.]+}} us {{[0-9.]+}}% io 54.5%

!a = memref<16x32xf32, #npudev.space<global>>
!b = memref<32x16xf32, #npudev.space<global>>
!c = memref<16x16xf32, #npudev.space<global>>
!atile = memref<16x8xf32, #npudev.space<vector>>
!btile = memref<8x16xf32, #npudev.space<cube>>
!ctile = memref<16x16xf32, #npudev.space<vector>>
!awin = memref<16x8xf32, strided<[32, 1], offset: ?>, #npudev.space<global>>
!bwin = memref<8x16xf32, strided<[16, 1], offset: ?>, #npudev.space<global>>

func.func @matmul(%out: !c) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c8 = arith.constant 8 : index
  %c24 = arith.constant 24 : index
  %zero = arith.constant 0.0 : f32
  %A = memref.alloc() : !a
  %B = memref.alloc() : !b
  scf.for %i = %c0 to %c16 step %c1 {
    scf.for %k = %c0 to %c32 step %c1 {
      %s = arith.addi %i, %k : index
      %si = arith.index_cast %s : index to i32
      %sf = arith.sitofp %si : i32 to f32
      memref.store %sf, %A[%i, %k] : !a
      %d = arith.subi %k, %i : index
      %di = arith.index_cast %d : index to i32
      %df = arith.sitofp %di : i32 to f32
      memref.store %df, %B[%k, %i] : !b
    }
  }
  npudev.launch tasks(1) {
    %a0 = npudev.alloc : !atile
    %a1 = npudev.alloc : !atile
    %b0 = npudev.alloc : !btile
    %b1 = npudev.alloc : !btile
    %acc = npudev.alloc : !ctile
    npudev.vfill %zero, %acc : f32, !ctile
    // Tile 0 into the first pair.
    %wa0 = memref.subview %A[%c0, %c0] [16, 8] [1, 1] : !a to !awin
    %wb0 = memref.subview %B[%c0, %c0] [8, 16] [1, 1] : !b to !bwin
    %ta0 = npudev.dma_start %wa0, %a0 : !awin to !atile
    %tb0 = npudev.dma_start %wb0, %b0 : !bwin to !btile
    // Tile 1 into the second pair while tile 0 multiplies.
    npudev.wait %ta0
    npudev.wait %tb0
    %wa1 = memref.subview %A[%c0, %c8] [16, 8] [1, 1] : !a to !awin
    %wb1 = memref.subview %B[%c8, %c0] [8, 16] [1, 1] : !b to !bwin
    %ta1 = npudev.dma_start %wa1, %a1 : !awin to !atile
    %tb1 = npudev.dma_start %wb1, %b1 : !bwin to !btile
    npudev.matmul %a0, %b0, %acc {accumulate} : !atile, !btile, !ctile
    // Tile 2 into the first pair while tile 1 multiplies.
    npudev.wait %ta1
    npudev.wait %tb1
    %wa2 = memref.subview %A[%c0, %c16] [16, 8] [1, 1] : !a to !awin
    %wb2 = memref.subview %B[%c16, %c0] [8, 16] [1, 1] : !b to !bwin
    %ta2 = npudev.dma_start %wa2, %a0 : !awin to !atile
    %tb2 = npudev.dma_start %wb2, %b0 : !bwin to !btile
    npudev.matmul %a1, %b1, %acc {accumulate} : !atile, !btile, !ctile
    // Tile 3 into the second pair while tile 2 multiplies.
    npudev.wait %ta2
    npudev.wait %tb2
    %wa3 = memref.subview %A[%c0, %c24] [16, 8] [1, 1] : !a to !awin
    %wb3 = memref.subview %B[%c24, %c0] [8, 16] [1, 1] : !b to !bwin
    %ta3 = npudev.dma_start %wa3, %a1 : !awin to !atile
    %tb3 = npudev.dma_start %wb3, %b1 : !bwin to !btile
    npudev.matmul %a0, %b0, %acc {accumulate} : !atile, !btile, !ctile
    npudev.wait %ta3
    npudev.wait %tb3
    npudev.matmul %a1, %b1, %acc {accumulate} : !atile, !btile, !ctile
    npudev.dma %acc, %out : !ctile to !c
  }
  memref.dealloc %A : !a
  memref.dealloc %B : !b
  return
}
