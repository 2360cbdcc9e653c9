// Ops of an unregistered dialect pass through every npu pass untouched
// (issue #13: --npu-lower-to-device crashed on their null dialect).
// RUN: npu-opt %s --allow-unregistered-dialect --npu-annotate-align-mode | FileCheck %s
// RUN: npu-opt %s --allow-unregistered-dialect --npu-layout-align | FileCheck %s
// RUN: npu-opt %s --allow-unregistered-dialect --npu-lower-device-to-loops | FileCheck %s
// RUN: npu-opt %s --allow-unregistered-dialect --npu-lower-to-device | FileCheck %s
// RUN: npu-opt %s --allow-unregistered-dialect --npu-lower-to-llvm | FileCheck %s
// RUN: npu-opt %s --allow-unregistered-dialect --npu-print-layout-graph | FileCheck %s
// RUN: npu-opt %s --allow-unregistered-dialect --npu-sparse-check-formats | FileCheck %s
// RUN: npu-opt %s --allow-unregistered-dialect --npu-sparse-decompose | FileCheck %s
// RUN: npu-opt %s --allow-unregistered-dialect --npu-sparse-lower-buffers | FileCheck %s
// RUN: npu-opt %s --allow-unregistered-dialect --npu-sparse-lower-iterations | FileCheck %s
// RUN: npu-opt %s --allow-unregistered-dialect --npu-sparse-stage-runs | FileCheck %s
// RUN: npu-opt %s --allow-unregistered-dialect --npu-sparse-tile-dense-axis | FileCheck %s
// RUN: npu-opt %s --allow-unregistered-dialect --npu-sparse-to-device | FileCheck %s
// RUN: npu-opt %s --allow-unregistered-dialect --npu-verify-layout | FileCheck %s

// CHECK-LABEL: @f
// CHECK: "foo.bar"()
func.func @f() {
  "foo.bar"() : () -> ()
  return
}
