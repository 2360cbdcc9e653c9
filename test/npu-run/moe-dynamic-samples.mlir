// One compile serves every number of samples (issue #34): the graph reads
// it at run time, npu-run sizes the output from the inputs, both executors
// give the same values at 4 samples and an empty result at 0, and operands
// that disagree on the count are an error naming the op and the operand,
// in both executors, before any kernel reads past the shorter one.
// RUN: npu-opt %s --npu-graph-to-device --canonicalize --cse -o %t.mlir
// RUN: FileCheck %s --check-prefix=IR < %t.mlir
// RUN: npu-run %t.mlir --input=%S/Inputs/f32-4.npy,%S/Inputs/i32-0123.npy,%S/Inputs/i32-0123.npy,%S/Inputs/f32-2x3.npy --print-outputs --report | FileCheck %s --check-prefixes=FOUR,FOUR-SIM
// RUN: npu-run %t.mlir --input=%S/Inputs/f32-4.npy,%S/Inputs/i32-0123.npy,%S/Inputs/i32-0123.npy,%S/Inputs/f32-2x3.npy --print-outputs --mode=jit | FileCheck %s --check-prefix=FOUR
// RUN: npu-run %t.mlir --input=%S/Inputs/f32-0.npy,%S/Inputs/i32-0.npy,%S/Inputs/i32-0.npy,%S/Inputs/f32-2x3.npy --print-outputs | FileCheck %s --check-prefix=ZERO
// RUN: npu-run %t.mlir --input=%S/Inputs/f32-0.npy,%S/Inputs/i32-0.npy,%S/Inputs/i32-0.npy,%S/Inputs/f32-2x3.npy --print-outputs --mode=jit | FileCheck %s --check-prefix=ZERO
// RUN: not npu-run %t.mlir --input=%S/Inputs/f32-4.npy,%S/Inputs/i32-64.npy,%S/Inputs/i32-64.npy,%S/Inputs/f32-2x3.npy 2>&1 | FileCheck %s --check-prefix=MISMATCH
// RUN: not npu-run %t.mlir --input=%S/Inputs/f32-4.npy,%S/Inputs/i32-64.npy,%S/Inputs/i32-64.npy,%S/Inputs/f32-2x3.npy --mode=jit 2>&1 | FileCheck %s --check-prefix=MISMATCH

// The output's rows are those of argument 1 (indices), dimension 0, times 1.
// IR-LABEL: func.func @moe(
// IR-SAME: memref<?xf32, #npudev.space<global>>
// IR-SAME: memref<?x3xf32, #npudev.space<global>> {npudev.output, npudev.sizes = array<i64: 1, 0, 1>}
// IR: strategy = "check_sizes"
// IR: scf.if
// IR: strategy = "split_hidden"
// IR: else
// IR: strategy = "split_samples"

// Sample 0 takes row 0 of the dispatch (expert 0, slot 0) times gate 1;
// the others name a slot or an expert that does not exist.
// FOUR: arg4 [4, 3] = [1, -2, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0]
// FOUR-SIM: split_hidden
// ZERO: arg4 [0, 3] = []
// MISMATCH: 'npu.moe_dispatch_backward_data' gates has 4 samples, indices has a different number

func.func @moe(%g: tensor<?xf32>, %i: tensor<?xi32>, %l: tensor<?xi32>, %d: tensor<2x3xf32>) -> tensor<?x3xf32> {
  %r = npu.moe_dispatch_backward_data %g, %i, %l, %d {capacity = 1, num_experts = 2} : (tensor<?xf32>, tensor<?xi32>, tensor<?xi32>, tensor<2x3xf32>) -> tensor<?x3xf32>
  return %r : tensor<?x3xf32>
}
