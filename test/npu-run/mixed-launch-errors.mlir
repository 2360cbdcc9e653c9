// A mixed launch that cannot finish is an error in both executors, never a
// hang: a deadlock (every unfinished task waits) names the waiting tasks
// (the simulator adds where each waits); a set_flag naming a task the
// launch lacks, or leaving a 16th signal pending, names the op.
// RUN: not npu-run %s --entry=deadlock 2>&1 | FileCheck %s --check-prefixes=DEADLOCK,DEADLOCK-SIM
// RUN: not npu-run %s --entry=deadlock --mode=jit 2>&1 | FileCheck %s --check-prefix=DEADLOCK
// RUN: not npu-run %s --entry=deadlock --mode=jit --jit-threads=2 2>&1 | FileCheck %s --check-prefix=DEADLOCK
// RUN: not npu-run %s --entry=missing_task 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not npu-run %s --entry=missing_task --mode=jit 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not npu-run %s --entry=overflow 2>&1 | FileCheck %s --check-prefix=OVERFLOW
// RUN: not npu-run %s --entry=overflow --mode=jit 2>&1 | FileCheck %s --check-prefix=OVERFLOW

// DEADLOCK: 'npudev.mixed_launch' op deadlocked: every unfinished task waits for a flag that no running task will set (cube task 0 waits for flag 1, vector task 0 waits for flag 0, vector task 1 waits for flag 0)
// DEADLOCK-SIM: note: cube task 0 waits here
// DEADLOCK-SIM: note: vector task 0 waits here
func.func @deadlock() {
  npudev.mixed_launch cube(1) {
    npudev.wait_flag 1
    %c0 = arith.constant 0 : index
    npudev.set_flag 0 for vector %c0
  } vector(2) {
    npudev.wait_flag 0
    %c0 = arith.constant 0 : index
    npudev.set_flag 1 for cube %c0
  }
  return
}

// MISSING: 'npudev.set_flag' op sets a flag of vector task 2, but the launch has 2 vector tasks
func.func @missing_task() {
  npudev.mixed_launch cube(1) {
    %c2 = arith.constant 2 : index
    npudev.set_flag 0 for vector %c2
  } vector(2) {
  }
  return
}

// OVERFLOW: 'npudev.set_flag' op sets flag 3 of vector task 0 with 15 signals pending: a flag holds 15
func.func @overflow() {
  npudev.mixed_launch cube(1) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    scf.for %i = %c0 to %c16 step %c1 {
      npudev.set_flag 3 for vector %c0
    }
  } vector(1) {
  }
  return
}
