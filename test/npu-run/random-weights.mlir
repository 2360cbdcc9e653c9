// --random-inputs scales a weight argument's values as an initialisation
// would, so that an imported network's activations stay finite: a [4, 16]
// matrix in +-1/sqrt(16), a vector (a normalisation's variance must be
// positive) in [0.5, 1.5); other arguments stay in [-1, 1).
// RUN: npu-run %s --random-inputs=3 --print-outputs 2>&1 | %python %S/Inputs/random-ranges.py | FileCheck %s
// CHECK: matrix in range, vector in range, data wider

func.func @main(%w: tensor<4x16xf32> {npu.weight, npu.onnx_name = "w"},
                %v: tensor<64xf32> {npu.weight, npu.onnx_name = "v"},
                %x: tensor<64xf32>) -> (tensor<4x16xf32>, tensor<64xf32>, tensor<64xf32>) {
  %a = npu.reshape %w : tensor<4x16xf32> -> tensor<4x16xf32>
  %b = npu.reshape %v : tensor<64xf32> -> tensor<64xf32>
  %c = npu.reshape %x : tensor<64xf32> -> tensor<64xf32>
  return %a, %b, %c : tensor<4x16xf32>, tensor<64xf32>, tensor<64xf32>
}
