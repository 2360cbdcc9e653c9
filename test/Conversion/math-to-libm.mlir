// npu-math-to-libm: a math op libm has becomes a call of it, except math.fma,
// which is exact and left to math-to-llvm (one instruction that vectorizes);
// ops libm lacks stay too.
// RUN: npu-opt %s --npu-math-to-libm | FileCheck %s

// CHECK-LABEL: func.func @math
// CHECK: call @expf(%{{.*}}) : (f32) -> f32
// CHECK: call @tanh(%{{.*}}) : (f64) -> f64
// CHECK: math.fma %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK: math.fma %{{.*}}, %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK: math.ctpop %{{.*}} : i32
// CHECK-NOT: call @fma
func.func @math(%x: f32, %y: f64, %v: vector<8xf32>, %i: i32) -> (f32, f64, f32, vector<8xf32>, i32) {
  %e = math.exp %x : f32
  %t = math.tanh %y : f64
  %f = math.fma %x, %x, %e : f32
  %g = math.fma %v, %v, %v : vector<8xf32>
  %c = math.ctpop %i : i32
  return %e, %t, %f, %g, %c : f32, f64, f32, vector<8xf32>, i32
}
