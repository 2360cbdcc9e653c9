// npu-verify-layout: every conflict is an error at the consumer with a note
// at the producer.
// RUN: npu-opt %s --split-input-file --verify-diagnostics --npu-verify-layout

// expected-note @+1 {{graph input #0 declared here}}
func.func @aligned_kernel_reads_dense(%x: tensor<1x8x8x16xf32, #npu.layout<nalign>>) -> tensor<1x7x7x16xf32, #npu.layout<align>> {
  // expected-error @+1 {{'npu.max_pool' op operand #0 is stored nalign but the op needs it align}}
  %0 = npu.max_pool %x {kernel = array<i64: 2, 2>} : tensor<1x8x8x16xf32, #npu.layout<nalign>> -> tensor<1x7x7x16xf32, #npu.layout<align>>
  return %0 : tensor<1x7x7x16xf32, #npu.layout<align>>
}

// -----

func.func @note_at_producer(%x: tensor<2x64xf32, #npu.layout<nalign>>) -> tensor<2x64xf32, #npu.layout<align>> {
  // expected-note @+1 {{stored by 'npu.relu' here}}
  %0 = npu.relu %x {npu.dev_info = #npu.align_mode<nalign>} : tensor<2x64xf32, #npu.layout<nalign>> -> tensor<2x64xf32, #npu.layout<nalign>>
  // expected-error @+1 {{'npu.transpose' op operand #0 is stored nalign but the op needs it align}}
  %1 = npu.transpose %0, [0, 1] : tensor<2x64xf32, #npu.layout<nalign>> -> tensor<2x64xf32, #npu.layout<align>>
  return %1 : tensor<2x64xf32, #npu.layout<align>>
}

// -----

func.func @wrong_result_layout(%x: tensor<2x64xf32, #npu.layout<align>>) -> tensor<2x64xf32, #npu.layout<nalign>> {
  // expected-error @+1 {{'npu.transpose' op result #0 must be stored align, its type is 'tensor<2x64xf32, #npu.layout<nalign>>'}}
  %0 = npu.transpose %x, [0, 1] : tensor<2x64xf32, #npu.layout<align>> -> tensor<2x64xf32, #npu.layout<nalign>>
  return %0 : tensor<2x64xf32, #npu.layout<nalign>>
}

// -----

// An adapting op runs in the layout of its result; its inputs must match.
// expected-note @+1 {{graph input #0 declared here}}
func.func @adapting_op_mismatch(%x: tensor<2x64xf32, #npu.layout<nalign>>, %y: tensor<2x64xf32, #npu.layout<align>>) -> tensor<2x64xf32, #npu.layout<align>> {
  // expected-error @+1 {{'npu.add' op operand #0 is stored nalign but the op needs it align}}
  %0 = npu.add %x, %y : (tensor<2x64xf32, #npu.layout<nalign>>, tensor<2x64xf32, #npu.layout<align>>) -> tensor<2x64xf32, #npu.layout<align>>
  return %0 : tensor<2x64xf32, #npu.layout<align>>
}

// -----

// Tensors without a layout have not been through npu-layout-align.
func.func @undecided(%x: tensor<2x64xf32, #npu.layout<nalign>>) -> tensor<2x64xf32> {
  // expected-error @+2 {{'npu.relu' op result #0 must be stored nalign, its type is 'tensor<2x64xf32>'}}
  // expected-note @+1 {{stored by 'npu.relu' here}}
  %0 = npu.relu %x {npu.dev_info = #npu.align_mode<nalign>} : tensor<2x64xf32, #npu.layout<nalign>> -> tensor<2x64xf32>
  // expected-error @+1 {{'func.return' op operand #0 is stored without a layout but the op needs it nalign}}
  return %0 : tensor<2x64xf32>
}

// -----

// expected-error @+1 {{'func.func' op graph input #0 has no #npu.layout}}
func.func @undecided_input(%x: tensor<2x64xf32>) {
  return
}

// -----

// Every function is checked even after one fails (issue #13: without
// threads the pass stopped at the first failing function).
// RUN: npu-opt %s --split-input-file --verify-diagnostics --npu-verify-layout --mlir-disable-threading
func.func @first_of_two(%x: tensor<2x64xf32, #npu.layout<align>>) -> tensor<2x64xf32, #npu.layout<nalign>> {
  // expected-error @+1 {{'npu.transpose' op result #0 must be stored align}}
  %0 = npu.transpose %x, [0, 1] : tensor<2x64xf32, #npu.layout<align>> -> tensor<2x64xf32, #npu.layout<nalign>>
  return %0 : tensor<2x64xf32, #npu.layout<nalign>>
}
func.func @second_of_two(%x: tensor<2x64xf32, #npu.layout<align>>) -> tensor<2x64xf32, #npu.layout<nalign>> {
  // expected-error @+1 {{'npu.transpose' op result #0 must be stored align}}
  %0 = npu.transpose %x, [0, 1] : tensor<2x64xf32, #npu.layout<align>> -> tensor<2x64xf32, #npu.layout<nalign>>
  return %0 : tensor<2x64xf32, #npu.layout<nalign>>
}
