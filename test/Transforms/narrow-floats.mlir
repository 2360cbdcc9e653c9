// npu-narrow-floats: f32 tensors become f16 (or bf16), their constants
// rounded to nearest; integer tensors, scalars and layouts stay.
// RUN: npu-opt %s --split-input-file --npu-narrow-floats --verify-diagnostics | FileCheck %s
// RUN: npu-opt %s --split-input-file --npu-narrow-floats=to=bf16 --verify-diagnostics | FileCheck %s --check-prefix=BF16
// RUN: not npu-opt %s --split-input-file --npu-narrow-floats=to=f8 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: npu-narrow-floats: 'to' must be f16 or bf16, got 'f8'

// 0.1 is 0x2E66 in f16 (0.0999755859375) and 0x3DCD in bf16
// (0.10009765625); 65520 rounds to f16's infinity (0x7C00) and to 65536 in
// bf16; -0.0 keeps its sign.
// CHECK-LABEL: func.func @graph
// CHECK-SAME: (%{{.*}}: tensor<2x4xf16, #npu.layout<nalign>>, %{{.*}}: tensor<4xi32>) -> tensor<2x4xf16, #npu.layout<nalign>>
// CHECK: npu.constant dense<[9.997550e-02, 0x7C00, -0.000000e+00, 1.000000e+00]> : tensor<4xf16> -> tensor<4xf16>
// CHECK: npu.add %{{.*}}, %{{.*}} : (tensor<2x4xf16, #npu.layout<nalign>>, tensor<4xf16>) -> tensor<2x4xf16, #npu.layout<nalign>>
// CHECK: npu.relu %{{.*}} : tensor<4xi32> -> tensor<4xi32>
// BF16-LABEL: func.func @graph
// BF16: npu.constant dense<[1.000980e-01, 6.553600e+04, -0.000000e+00, 1.000000e+00]> : tensor<4xbf16> -> tensor<4xbf16>
// BF16: -> tensor<2x4xbf16, #npu.layout<nalign>>
func.func @graph(%x: tensor<2x4xf32, #npu.layout<nalign>>, %i: tensor<4xi32>) -> tensor<2x4xf32, #npu.layout<nalign>> {
  %c = npu.constant dense<[0.1, 65520.0, -0.0, 1.0]> : tensor<4xf32> -> tensor<4xf32>
  %r = npu.add %x, %c : (tensor<2x4xf32, #npu.layout<nalign>>, tensor<4xf32>) -> tensor<2x4xf32, #npu.layout<nalign>>
  %j = npu.relu %i : tensor<4xi32> -> tensor<4xi32>
  return %r : tensor<2x4xf32, #npu.layout<nalign>>
}


// -----

// A graph whose batch is read at run time: the sample's block arguments
// narrow with the values they stand for.
// CHECK-LABEL: func.func @map_batch
// CHECK-SAME: (%{{.*}}: tensor<?x4xf16>) -> tensor<?x4xf16>
// CHECK: npu.map_batch(%{{.*}}) : (tensor<?x4xf16>) -> tensor<?x4xf16>
// CHECK-NEXT: ^bb0(%{{.*}}: tensor<1x4xf16>):
// CHECK: npu.yield %{{.*}} : tensor<1x4xf16>
func.func @map_batch(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %y = npu.map_batch(%x) : (tensor<?x4xf32>) -> tensor<?x4xf32> {
  ^bb0(%s: tensor<1x4xf32>):
    %r = npu.relu %s : tensor<1x4xf32> -> tensor<1x4xf32>
    npu.yield %r : tensor<1x4xf32>
  }
  return %y : tensor<?x4xf32>
}
// -----

// Data kept as a resource blob is refused, naming the op.
func.func @resource(%x: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'npu.constant' op cannot be narrowed: its data is not a dense elements attribute}}
  %c = npu.constant dense_resource<blob> : tensor<2xf32> -> tensor<2xf32>
  %r = npu.add %x, %c : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}

{-#
  dialect_resources: {
    builtin: {
      blob: "0x040000000000803F00000040"
    }
  }
#-}
