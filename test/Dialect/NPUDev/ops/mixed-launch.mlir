// npudev.mixed_launch: cube tasks and vector tasks run at once and order
// their use of a global workspace with cross-core flags. Each cube task g
// computes a[g, i] x b for i = 0, 1, 2 into one of two workspace slots and
// sets flag 0 of vector task g; the vector task waits for it, adds the
// tile into its sum and sets flag 1 of the cube task, which waits for it
// before reusing the slot (double buffering). MixedLaunchTest checks the
// sums against a plain C++ reference in both executors; ParityTest their
// bytes.
// RUN: npu-opt %s --split-input-file --verify-diagnostics | FileCheck %s
// RUN: sed -n '1,/^\/\/ -----/p' %s | npu-run - --random-inputs=1 --report | FileCheck %s --check-prefix=REPORT

// REPORT: cores used: 4
// CHECK-LABEL: func.func @double_buffered
// CHECK: npudev.mixed_launch cube(2) {
// CHECK: npudev.wait_flag 1
// CHECK: npudev.set_flag 0 for vector %{{.*}}
// CHECK: } vector(2) {
// CHECK: npudev.wait_flag 0
// CHECK: npudev.set_flag 1 for cube %{{.*}}
#v = #npudev.space<vector>
#c = #npudev.space<cube>
#g = #npudev.space<global>
func.func @double_buffered(%a: memref<2x3x4x4xf32, #g>, %b: memref<4x4xf32, #g>,
                           %out: memref<2x4x4xf32, #g> {npudev.output}) {
  %ws = memref.alloc() : memref<2x2x4x4xf32, #g>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  npudev.mixed_launch cube(2) {
    %g = npudev.task_id
    %bb = npudev.alloc : memref<4x4xf32, #c>
    npudev.dma %b, %bb : memref<4x4xf32, #g> to memref<4x4xf32, #c>
    scf.for %i = %c0 to %c3 step %c1 {
      %slot = arith.remui %i, %c2 : index
      %reuse = arith.cmpi uge, %i, %c2 : index
      scf.if %reuse {
        npudev.wait_flag 1
      }
      %aa = npudev.alloc : memref<4x4xf32, #c>
      %cc = npudev.alloc : memref<4x4xf32, #c>
      %ai = memref.subview %a[%g, %i, 0, 0] [1, 1, 4, 4] [1, 1, 1, 1] : memref<2x3x4x4xf32, #g> to memref<4x4xf32, strided<[4, 1], offset: ?>, #g>
      npudev.dma %ai, %aa : memref<4x4xf32, strided<[4, 1], offset: ?>, #g> to memref<4x4xf32, #c>
      npudev.matmul %aa, %bb, %cc : memref<4x4xf32, #c>, memref<4x4xf32, #c>, memref<4x4xf32, #c>
      %wi = memref.subview %ws[%g, %slot, 0, 0] [1, 1, 4, 4] [1, 1, 1, 1] : memref<2x2x4x4xf32, #g> to memref<4x4xf32, strided<[4, 1], offset: ?>, #g>
      npudev.dma %cc, %wi : memref<4x4xf32, #c> to memref<4x4xf32, strided<[4, 1], offset: ?>, #g>
      npudev.set_flag 0 for vector %g
    }
  } vector(2) {
    %g = npudev.task_id
    %acc = npudev.alloc : memref<4x4xf32, #v>
    %zero = arith.constant 0.0 : f32
    npudev.vfill %zero, %acc : f32, memref<4x4xf32, #v>
    scf.for %i = %c0 to %c3 step %c1 {
      %slot = arith.remui %i, %c2 : index
      npudev.wait_flag 0
      %t = npudev.alloc : memref<4x4xf32, #v>
      %wi = memref.subview %ws[%g, %slot, 0, 0] [1, 1, 4, 4] [1, 1, 1, 1] : memref<2x2x4x4xf32, #g> to memref<4x4xf32, strided<[4, 1], offset: ?>, #g>
      npudev.dma %wi, %t : memref<4x4xf32, strided<[4, 1], offset: ?>, #g> to memref<4x4xf32, #v>
      npudev.vbinary <add> %acc, %t, %acc : memref<4x4xf32, #v>, memref<4x4xf32, #v>, memref<4x4xf32, #v>
      npudev.set_flag 1 for cube %g
    }
    %o = memref.subview %out[%g, 0, 0] [1, 4, 4] [1, 1, 1] : memref<2x4x4xf32, #g> to memref<4x4xf32, strided<[4, 1], offset: ?>, #g>
    npudev.dma %acc, %o : memref<4x4xf32, #v> to memref<4x4xf32, strided<[4, 1], offset: ?>, #g>
  }
  memref.dealloc %ws : memref<2x2x4x4xf32, #g>
  return
}

// -----

// An npudev.async body is issued without waiting; the token is waited for.
// CHECK-LABEL: func.func @async_matmul
// CHECK: %[[T:.*]] = npudev.async {
// CHECK: npudev.matmul
// CHECK: npudev.wait %[[T]]
func.func @async_matmul(%a: memref<4x4xf32, #npudev.space<global>>, %o: memref<4x4xf32, #npudev.space<global>> {npudev.output}) {
  npudev.launch tasks(1) on cube {
    %x = npudev.alloc : memref<4x4xf32, #npudev.space<cube>>
    %y = npudev.alloc : memref<4x4xf32, #npudev.space<cube>>
    npudev.dma %a, %x : memref<4x4xf32, #npudev.space<global>> to memref<4x4xf32, #npudev.space<cube>>
    %t = npudev.async {
      npudev.matmul %x, %x, %y : memref<4x4xf32, #npudev.space<cube>>, memref<4x4xf32, #npudev.space<cube>>, memref<4x4xf32, #npudev.space<cube>>
    }
    npudev.wait %t
    npudev.dma %y, %o : memref<4x4xf32, #npudev.space<cube>> to memref<4x4xf32, #npudev.space<global>>
  }
  return
}

// -----

func.func @flag_outside_mixed_launch(%t: index) {
  npudev.launch tasks(1) {
    // expected-error @+1 {{'npudev.set_flag' op must be in the body of an npudev.mixed_launch (not in a launch or async region)}}
    npudev.set_flag 0 for vector %t
  }
  return
}

// -----

func.func @wait_in_async() {
  npudev.mixed_launch cube(1) {
    %t = npudev.async {
      // expected-error @+1 {{'npudev.wait_flag' op must be in the body of an npudev.mixed_launch (not in a launch or async region)}}
      npudev.wait_flag 0
    }
    npudev.wait %t
  } vector(1) {
  }
  return
}

// -----

func.func @flag_to_unified(%t: index) {
  npudev.mixed_launch cube(1) {
    // expected-error @+1 {{'npudev.set_flag' op sets a flag of a cube or vector task, not 'unified'}}
    npudev.set_flag 0 for unified %t
  } vector(1) {
  }
  return
}

// -----

func.func @flag_out_of_range(%t: index) {
  npudev.mixed_launch cube(1) {
    // expected-error @+1 {{'npudev.set_flag' op attribute 'flag' failed to satisfy constraint: 64-bit signless integer attribute whose minimum value is 0 whose maximum value is 15}}
    npudev.set_flag 16 for vector %t
  } vector(1) {
  }
  return
}

// -----

// Every task holds a core at once: ascend910b has 24 cube cores.
module attributes {npudev.device = "ascend910b"} {
  func.func @too_many_cube_tasks() {
    // expected-error @+1 {{'npudev.mixed_launch' op runs 25 cube tasks at once, but device 'ascend910b' has 24 cube cores}}
    npudev.mixed_launch cube(25) {
    } vector(48) {
    }
    return
  }
}

// -----

// On mlu590 the two kinds share its 48 unified cores.
func.func @too_many_tasks() {
  // expected-error @+1 {{'npudev.mixed_launch' op runs 49 tasks at once, but device 'mlu590' has 48 cores}}
  npudev.mixed_launch cube(16) {
  } vector(33) {
  }
  return
}

// -----

func.func @matmul_in_vector_region(%a: memref<2x2xf32, #npudev.space<cube>>) {
  npudev.mixed_launch cube(1) {
  } vector(1) {
    // expected-error @+1 {{'npudev.matmul' op needs the matrix unit, which vector cores lack}}
    npudev.matmul %a, %a, %a : memref<2x2xf32, #npudev.space<cube>>, memref<2x2xf32, #npudev.space<cube>>, memref<2x2xf32, #npudev.space<cube>>
  }
  return
}

// -----

func.func @launch_in_async() {
  npudev.launch tasks(1) {
    %t = npudev.async {
      // expected-error @+1 {{'npudev.wait_all' op cannot be issued asynchronously}}
      npudev.wait_all
    }
    npudev.wait %t
  }
  return
}
