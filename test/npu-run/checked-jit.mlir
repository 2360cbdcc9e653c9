// The JIT's checked mode (--mode=jit --checked, issue #13) rejects the
// out-of-bounds kernels the simulator rejects (errors.mlir), naming the op
// and the index; unchecked, the JIT would read and write past the arrays.
// RUN: not npu-run %S/errors.mlir --entry=oob_load --random-inputs=0 --mode=jit --checked 2>&1 | FileCheck %s --check-prefix=LOAD
// RUN: not npu-run %S/errors.mlir --entry=oob_subview --random-inputs=0 --mode=jit --checked 2>&1 | FileCheck %s --check-prefix=SUBVIEW
// RUN: not npu-run %S/errors.mlir --entry=oob_gather --random-inputs=0 --mode=jit --checked 2>&1 | FileCheck %s --check-prefix=GATHER
// RUN: not npu-run %S/errors.mlir --entry=oob_dma_scatter --random-inputs=0 --mode=jit --checked 2>&1 | FileCheck %s --check-prefix=SCATTER
// RUN: not npu-run %S/errors.mlir --entry=oob_load --random-inputs=0 --mode=jit --checked --jit-threads=2 2>&1 | FileCheck %s --check-prefix=LOAD
// LOAD: errors.mlir:44:10: 'memref.load' op index 64 is out of bounds for dimension 0 of size 64
// SUBVIEW: errors.mlir:33:10: 'memref.subview' op subview is out-of-bounds of the base memref
// GATHER: errors.mlir:57:5: 'npudev.vgather' op index 16 is out of bounds for dimension 0 of size 16
// SCATTER: errors.mlir:77:5: 'npudev.dma_scatter' op index 64 is out of bounds for dimension 0 of size 64

// A kernel that stays in bounds gives the same bytes checked as unchecked
// and as the simulator.
// RUN: rm -rf %t && mkdir -p %t/sim %t/jit %t/checked
// RUN: npu-run %S/parity.mlir --entry=ints --random-inputs=7 --output-dir=%t/sim
// RUN: npu-run %S/parity.mlir --entry=ints --random-inputs=7 --output-dir=%t/checked --mode=jit --checked
// RUN: cmp %t/sim/arg1.npy %t/checked/arg1.npy
// RUN: npu-run %S/parity.mlir --entry=floats --random-inputs=7 --output-dir=%t/sim
// RUN: npu-run %S/parity.mlir --entry=floats --random-inputs=7 --output-dir=%t/checked --mode=jit --checked
// RUN: cmp %t/sim/arg1.npy %t/checked/arg1.npy
// RUN: npu-run %S/parity.mlir --entry=carried_token --random-inputs=7 --output-dir=%t/sim
// RUN: npu-run %S/parity.mlir --entry=carried_token --random-inputs=7 --output-dir=%t/checked --mode=jit --checked
// RUN: cmp %t/sim/arg1.npy %t/checked/arg1.npy
// RUN: npu-run %S/moe-graph.mlir --random-inputs=3 --output-dir=%t/sim
// RUN: npu-run %S/moe-graph.mlir --random-inputs=3 --output-dir=%t/checked --mode=jit --checked --jit-threads=2
// RUN: cmp %t/sim/arg4.npy %t/checked/arg4.npy
