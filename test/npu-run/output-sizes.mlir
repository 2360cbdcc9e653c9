// An output whose sizes are read at run time takes them from the inputs as
// its npudev.sizes names them: (argument, dimension, factor) per dynamic
// dimension, here 3 x the 4 rows of argument #0. An annotation that names a
// later argument, a missing dimension or a negative factor, or whose size
// overflows, is an error naming the output, not a guess.
// RUN: sed 's/SIZES/0, 0, 3/' %s > %t.ok.mlir
// RUN: npu-run %t.ok.mlir --input=%S/Inputs/f32-4.npy --print-outputs | FileCheck %s
// RUN: npu-run %t.ok.mlir --input=%S/Inputs/f32-4.npy --print-outputs --mode=jit | FileCheck %s
// CHECK: arg1 [12, 2] =
// RUN: sed 's/SIZES/1, 0, 1/' %s > %t.later.mlir
// RUN: not npu-run %t.later.mlir --input=%S/Inputs/f32-4.npy 2>&1 | FileCheck %s --check-prefix=UNNAMED
// RUN: sed 's/SIZES/0, 1, 1/' %s > %t.dim.mlir
// RUN: not npu-run %t.dim.mlir --input=%S/Inputs/f32-4.npy 2>&1 | FileCheck %s --check-prefix=UNNAMED
// RUN: sed 's/SIZES/0, 0, -1/' %s > %t.negative.mlir
// RUN: not npu-run %t.negative.mlir --input=%S/Inputs/f32-4.npy 2>&1 | FileCheck %s --check-prefix=UNNAMED
// RUN: sed 's/: SIZES//' %s > %t.missing.mlir
// RUN: not npu-run %t.missing.mlir --input=%S/Inputs/f32-4.npy 2>&1 | FileCheck %s --check-prefix=UNNAMED
// UNNAMED: argument #1: npudev.sizes does not name a dimension of an earlier argument and a factor for each of its dynamic sizes
// RUN: sed 's/SIZES/0, 0, 4611686018427387904/' %s > %t.overflow.mlir
// RUN: not npu-run %t.overflow.mlir --input=%S/Inputs/f32-4.npy 2>&1 | FileCheck %s --check-prefix=OVERFLOW
// OVERFLOW: argument #1: its size 4 x 4611686018427387904 overflows a 64-bit size

func.func @f(%a: memref<?xf32>, %out: memref<?x2xf32> {npudev.output, npudev.sizes = array<i64: SIZES>}) {
  return
}
