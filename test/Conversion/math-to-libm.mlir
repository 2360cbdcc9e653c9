// npu-math-to-libm: a math op libm has becomes a call of it, except math.fma,
// which is exact and left to math-to-llvm (one instruction that vectorizes);
// an f16 fma is computed in f32 and rounded once; ops libm lacks stay.
// RUN: npu-opt %s --npu-math-to-libm | FileCheck %s --implicit-check-not=@fma

// CHECK-LABEL: func.func @math
// CHECK: call @expf(%{{.*}}) : (f32) -> f32
// CHECK: call @tanh(%{{.*}}) : (f64) -> f64
// CHECK: math.fma %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK: math.fma %{{.*}}, %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK: math.ctpop %{{.*}} : i32
func.func @math(%x: f32, %y: f64, %v: vector<8xf32>, %i: i32) -> (f32, f64, f32, vector<8xf32>, i32) {
  %e = math.exp %x : f32
  %t = math.tanh %y : f64
  %f = math.fma %x, %x, %e : f32
  %g = math.fma %v, %v, %v : vector<8xf32>
  %c = math.ctpop %i : i32
  return %e, %t, %f, %g, %c : f32, f64, f32, vector<8xf32>, i32
}

// CHECK-LABEL: func.func @narrow_fma
// CHECK-SAME: (%[[A:.*]]: f16, %[[B:.*]]: f16, %[[V:.*]]: vector<4xbf16>)
// CHECK: %[[WA:.*]] = arith.extf %[[A]] : f16 to f32
// CHECK: %[[WB:.*]] = arith.extf %[[B]] : f16 to f32
// CHECK: %[[WC:.*]] = arith.extf %[[A]] : f16 to f32
// CHECK: %[[F:.*]] = math.fma %[[WA]], %[[WB]], %[[WC]] : f32
// CHECK: arith.truncf %[[F]] : f32 to f16
// CHECK: arith.extf %[[V]] : vector<4xbf16> to vector<4xf32>
// CHECK: %[[G:.*]] = math.fma %{{.*}}, %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK: arith.truncf %[[G]] : vector<4xf32> to vector<4xbf16>
func.func @narrow_fma(%a: f16, %b: f16, %v: vector<4xbf16>) -> (f16, vector<4xbf16>) {
  %f = math.fma %a, %b, %a : f16
  %g = math.fma %v, %v, %v : vector<4xbf16>
  return %f, %g : f16, vector<4xbf16>
}
