// A device may have more global memory than the host that runs its
// executors. A size read at run time that the device accepts but the host
// cannot hold is an error naming the buffer and its size, in both
// executors, instead of an allocator's abort or a kernel writing through a
// null buffer. 2^18 samples of 2^20 f32 make 1 TiB, on a device of 512 TiB.
// RUN: %python %S/Inputs/write-zeros-npy.py %t.g.npy f32 262144
// RUN: %python %S/Inputs/write-zeros-npy.py %t.i.npy i32 262144
// RUN: npu-opt %s --npu-graph-to-device="device=%S/Inputs/huge-global-device.json" --canonicalize --cse -o %t.mlir

// The output is allocated by npu-run.
// RUN: not npu-run %t.mlir --entry=data --input=%t.g.npy,%t.i.npy,%t.i.npy --random-inputs=1 2>&1 | FileCheck %s --check-prefix=OUTPUT
// RUN: not npu-run %t.mlir --entry=data --input=%t.g.npy,%t.i.npy,%t.i.npy --random-inputs=1 --mode=jit 2>&1 | FileCheck %s --check-prefix=OUTPUT
// OUTPUT: argument #4 ('memref<262144x1048576xf32, #npudev.space<global>>') needs 1099511627776 bytes, more than this host's memory ({{[0-9]+}} bytes)

// The intermediate is allocated by the kernel's host code.
// RUN: not npu-run %t.mlir --entry=gate --input=%t.g.npy,%t.i.npy,%t.i.npy --random-inputs=1 2>&1 | FileCheck %s --check-prefix=SIM
// RUN: not npu-run %t.mlir --entry=gate --input=%t.g.npy,%t.i.npy,%t.i.npy --random-inputs=1 --mode=jit 2>&1 | FileCheck %s --check-prefix=JIT
// SIM: error: 'memref.alloc' op allocates more than {{[0-9]+}} bytes, the simulator's limit (2^36 bytes, or this host's memory when smaller)
// JIT: the JIT's kernel needs a 1099511627776-byte buffer, and this host's memory ({{[0-9]+}} bytes) cannot hold it

func.func @data(%g: tensor<?xf32>, %i: tensor<?xi32>, %l: tensor<?xi32>, %d: tensor<2x1048576xf32>) -> tensor<?x1048576xf32> {
  %r = npu.moe_dispatch_backward_data %g, %i, %l, %d {capacity = 1, num_experts = 2} : (tensor<?xf32>, tensor<?xi32>, tensor<?xi32>, tensor<2x1048576xf32>) -> tensor<?x1048576xf32>
  return %r : tensor<?x1048576xf32>
}

func.func @gate(%g: tensor<?xf32>, %i: tensor<?xi32>, %l: tensor<?xi32>, %d: tensor<2x1048576xf32>) -> tensor<?xf32> {
  %r = npu.moe_dispatch_backward_data %g, %i, %l, %d {capacity = 1, num_experts = 2} : (tensor<?xf32>, tensor<?xi32>, tensor<?xi32>, tensor<2x1048576xf32>) -> tensor<?x1048576xf32>
  %s = npu.moe_dispatch_backward_gate %i, %l, %r, %d {capacity = 1, num_experts = 2} : (tensor<?xi32>, tensor<?xi32>, tensor<?x1048576xf32>, tensor<2x1048576xf32>) -> tensor<?xf32>
  return %s : tensor<?xf32>
}
