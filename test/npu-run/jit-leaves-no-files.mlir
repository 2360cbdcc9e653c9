// A JIT run leaves nothing behind: LLVM's perf listener used to write a
// jit-<pid>.dump directory per run under .debug/jit (thousands after one
// test suite). --jit-perf-profile asks for it.
// RUN: rm -rf %t && mkdir -p %t/plain %t/profiled
// RUN: env JITDUMPDIR=%t/plain HOME=%t/plain npu-run %s --random-inputs=1 --mode=jit
// RUN: find %t/plain -mindepth 1 | count 0
// RUN: env JITDUMPDIR=%t/profiled HOME=%t/profiled npu-run %s --random-inputs=1 --mode=jit --jit-perf-profile
// RUN: find %t/profiled -name 'jit-*.dump' | count 1

func.func @copy(%x: memref<4xf32, #npudev.space<global>>, %y: memref<4xf32, #npudev.space<global>> {npudev.output}) {
  npudev.launch tasks(1) {
    %a = npudev.alloc : memref<4xf32, #npudev.space<vector>>
    npudev.dma %x, %a : memref<4xf32, #npudev.space<global>> to memref<4xf32, #npudev.space<vector>>
    npudev.dma %a, %y : memref<4xf32, #npudev.space<vector>> to memref<4xf32, #npudev.space<global>>
  }
  return
}
