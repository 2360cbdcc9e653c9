// Elementwise ops become one launch of vector tasks over [R, C] tiles of the
// result viewed as [rows, W]; each operand is read as the broadcast it is.
// RUN: npu-opt %s --npu-lower-to-device=device=ascend910b --canonicalize | FileCheck %s
// RUN: npu-opt %s --npu-graph-to-device=device=ascend910b | FileCheck %s --check-prefix=PIPE

// A row every result row reads ([B, S, H] + [H]) is copied once per task,
// before the tile loop, and spread along the tile's columns.
// CHECK-LABEL: func.func @bias_rows
// CHECK: npudev.launch tasks(1) on vector attributes {npudev.tiling = {strategy = "elementwise", tile_cols = 32 : i64, tile_rows = 64 : i64}}
// CHECK: %[[X:.*]] = memref.collapse_shape %arg0 {{\[}}[0, 1], [2]]
// CHECK: %[[ROW:.*]] = npudev.alloc : memref<1x32xf32
// CHECK: npudev.dma %{{.*}}, %[[ROW]]
// CHECK: scf.for
// CHECK: npudev.dma %{{.*}}, %[[TILE:.*]] :
// CHECK: npudev.vbinary_broadcast <add> %[[TILE]], %{{.*}}, %[[OUT:.*]] along 1
// CHECK: npudev.dma %[[OUT]], %{{.*}} :
func.func @bias_rows(%x: tensor<4x16x32xf32>, %b: tensor<32xf32>) -> tensor<4x16x32xf32> {
  %r = npu.add %x, %b : (tensor<4x16x32xf32>, tensor<32xf32>) -> tensor<4x16x32xf32>
  return %r : tensor<4x16x32xf32>
}

// A per-channel operand of NCHW is one element per row of [N C, H W]; its 3
// rows wrap over the batch's 6, so they come in runs (scf.while). Subtracted
// from, it is first spread over a tile (1 * x keeps its bits).
// CHECK-LABEL: func.func @channel_lhs
// CHECK: tile_cols = 35 : i64, tile_rows = 6 : i64
// CHECK: %[[CH:.*]] = memref.collapse_shape %arg0 {{\[}}[0, 1, 2, 3]] : memref<1x3x1x1xf16, #npudev.space<global>> into memref<3xf16
// CHECK: scf.for
// CHECK: scf.while
// CHECK: %[[PIECE:.*]] = memref.subview %[[CH]][
// CHECK: npudev.dma %[[PIECE]],
// CHECK: npudev.vfill %{{.*}}, %[[SPREAD:.*]] : f16
// CHECK: npudev.vbinary_broadcast <mul> %[[SPREAD]], %{{.*}}, %[[SPREAD]] along 0
// CHECK: npudev.vbinary <sub> %[[SPREAD]], %{{.*}}, %{{.*}} :
func.func @channel_lhs(%s: tensor<1x3x1x1xf16>, %x: tensor<2x3x5x7xf16>) -> tensor<2x3x5x7xf16> {
  %r = npu.sub %s, %x : (tensor<1x3x1x1xf16>, tensor<2x3x5x7xf16>) -> tensor<2x3x5x7xf16>
  return %r : tensor<2x3x5x7xf16>
}

// An operand of one element is loaded once, a scalar of vbinary_scalar.
// CHECK-LABEL: func.func @scalar
// CHECK: %[[S:.*]] = memref.load %arg1[] : memref<f32
// CHECK: scf.for
// CHECK: npudev.vbinary_scalar <div> %{{.*}}, %[[S]], %{{.*}} :
func.func @scalar(%x: tensor<8x8xf32>, %s: tensor<f32>) -> tensor<8x8xf32> {
  %r = npu.vs_div %x, %s : (tensor<8x8xf32>, tensor<f32>) -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}

// 100000 elements in tiles of 8192 over 13 tasks; hard_swish as x * clamp(x
// / 6 + 1 / 2, 0, 1). The tile loop is pipelined: loads ahead, stores in
// flight.
// CHECK-LABEL: func.func @swish
// CHECK: npudev.launch tasks(13) on vector attributes {npudev.tiling = {strategy = "elementwise", tile_cols = 8192 : i64, tile_rows = 1 : i64}}
// CHECK: scf.for
// CHECK: npudev.dma %{{.*}}, %[[IN:.*]] :
// CHECK: npudev.vbinary_scalar <div> %[[IN]], %{{.*}}, %[[T:.*]] :
// CHECK: npudev.vbinary_scalar <add> %[[T]], %{{.*}}, %[[T]] :
// CHECK: npudev.vbinary_scalar <max> %[[T]], %{{.*}}, %[[T]] :
// CHECK: npudev.vbinary_scalar <min> %[[T]], %{{.*}}, %[[T]] :
// CHECK: npudev.vbinary <mul> %[[T]], %[[IN]], %{{.*}} :
// PIPE-LABEL: func.func @swish
// PIPE: scf.for
// PIPE: npudev.async
// PIPE: npudev.dma_start
// PIPE: npudev.wait_all
func.func @swish(%x: tensor<100000xf32>) -> tensor<100000xf32> {
  %r = npu.hard_swish %x : tensor<100000xf32> -> tensor<100000xf32>
  return %r : tensor<100000xf32>
}

// equal compares into an i1 tile; not flips it; select takes whole tiles,
// so its per-row condition is spread first (0 | x keeps an integer's bits).
// CHECK-LABEL: func.func @compare_select
// CHECK: npudev.vcmp <eq> %{{.*}}, %{{.*}}, %{{.*}} : memref<?x?xf32, {{.*}}>, memref<?x?xf32, {{.*}}>, memref<?x?xi1
// CHECK: npudev.vbinary_scalar <xor> %{{.*}}, %true
// CHECK-LABEL: func.func @select_row_condition
// CHECK: npudev.vfill %false, %[[COND:.*]] : i1
// CHECK: npudev.vbinary_broadcast <or> %[[COND]], %{{.*}}, %[[COND]] along 0
// CHECK: npudev.vselect %[[COND]],
func.func @compare_select(%a: tensor<6x8xf32>, %b: tensor<6x8xf32>) -> tensor<6x8xi1> {
  %e = npu.equal %a, %b : (tensor<6x8xf32>, tensor<6x8xf32>) -> tensor<6x8xi1>
  %n = npu.not %e : tensor<6x8xi1> -> tensor<6x8xi1>
  return %n : tensor<6x8xi1>
}
func.func @select_row_condition(%c: tensor<6x1xi1>, %a: tensor<6x8xf32>, %b: tensor<6x8xf32>) -> tensor<6x8xf32> {
  %s = npu.select %c, %a, %b : (tensor<6x1xi1>, tensor<6x8xf32>, tensor<6x8xf32>) -> tensor<6x8xf32>
  return %s : tensor<6x8xf32>
}

// A float to integer cast clears NaNs (x == x selects x, else 0) and clamps
// to the largest f32 values inside i32 before it truncates: both executors
// then give the same bits. To i1 it is x != 0.
// CHECK-LABEL: func.func @cast_to_int
// CHECK: npudev.vcmp <eq> %[[X:.*]], %[[X]], %[[MASK:.*]] :
// CHECK: npudev.vselect %[[MASK]], %[[X]], %[[CLEAN:.*]], %[[CLEAN]] :
// CHECK: npudev.vbinary_scalar <max> %[[CLEAN]], %cst{{.*}} : {{.*}}, f32
// CHECK: npudev.vbinary_scalar <min> %[[CLEAN]], %cst{{.*}} : {{.*}}, f32
// CHECK: npudev.vcast %[[CLEAN]], %[[MASK]]
// CHECK-LABEL: func.func @cast_to_bool
// CHECK: npudev.vcmp_scalar <ne> %{{.*}}, %cst
func.func @cast_to_int(%x: tensor<6x8xf32>) -> tensor<6x8xi32> {
  %r = npu.cast %x : tensor<6x8xf32> -> tensor<6x8xi32>
  return %r : tensor<6x8xi32>
}
func.func @cast_to_bool(%x: tensor<6x8xf32>) -> tensor<6x8xi1> {
  %r = npu.cast %x : tensor<6x8xf32> -> tensor<6x8xi1>
  return %r : tensor<6x8xi1>
}

// pow by a constant 3 is two multiplications (the exponent never spread
// over a tile); by a tensor it is exp(y log |x|) with the sign and NaN of a
// negative base.
// CHECK-LABEL: func.func @pow_constant
// CHECK-NOT: npudev.vfill
// CHECK-COUNT-2: npudev.vbinary <mul>
// CHECK-NOT: npudev.vunary <log>
// CHECK: return
// CHECK-LABEL: func.func @pow_tensor
// CHECK: npudev.vunary <abs>
// CHECK: npudev.vunary <log>
// CHECK: npudev.vunary <exp>
// CHECK: npudev.vcast %{{.*}} : memref<?x?xf32, {{.*}}>, memref<?x?xi32
func.func @pow_constant(%x: tensor<6x8xf32>) -> tensor<6x8xf32> {
  %three = npu.constant dense<3.0> : tensor<f32> -> tensor<f32>
  %r = npu.pow %x, %three : (tensor<6x8xf32>, tensor<f32>) -> tensor<6x8xf32>
  return %r : tensor<6x8xf32>
}
func.func @pow_tensor(%x: tensor<6x8xf32>, %y: tensor<6x8xf32>) -> tensor<6x8xf32> {
  %r = npu.pow %x, %y : (tensor<6x8xf32>, tensor<6x8xf32>) -> tensor<6x8xf32>
  return %r : tensor<6x8xf32>
}

// A leading broadcast between kept dimensions (RAFT's window offsets,
// [6, 1, 1, 2] onto [6, 7, 7, 2]) reads the operand row by row; consecutive
// result rows that repeat one operand row take it in one copy, spread on
// chip over the rest of its run.
// CHECK-LABEL: func.func @repeated_rows
// CHECK: npudev.launch tasks(1) on vector attributes {npudev.tiling = {strategy = "elementwise", tile_cols = 2 : i64, tile_rows = 294 : i64}}
// CHECK: scf.while
// CHECK: npudev.dma {{.*}} : memref<1x?xf32, {{.*}}#npudev.space<global>> to memref<1x?xf32
// CHECK: arith.remsi %{{.*}}, %c49
// CHECK: scf.if
// CHECK: npudev.vfill
// CHECK: npudev.vbinary_broadcast <mul> {{.*}} along 1
// The other operand's rows wrap every 49 rows: runs.
// CHECK: scf.while
// CHECK: npudev.dma {{.*}} : memref<?x?xf32, {{.*}}#npudev.space<global>> to memref<?x?xf32
func.func @repeated_rows(%a: tensor<6x1x1x2xf32>, %b: tensor<7x7x2xf32>) -> tensor<6x7x7x2xf32> {
  %r = npu.add %a, %b : (tensor<6x1x1x2xf32>, tensor<7x7x2xf32>) -> tensor<6x7x7x2xf32>
  return %r : tensor<6x7x7x2xf32>
}
