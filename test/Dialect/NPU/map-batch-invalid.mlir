// Every verifier rule of npu.map_batch, each with its message.
// RUN: npu-opt %s --split-input-file --verify-diagnostics

func.func @no_inputs() -> tensor<?x4xf32> {
  // expected-error @+1 {{'npu.map_batch' op needs at least one input: the batch is the inputs' leading dimension}}
  %y = npu.map_batch() : () -> tensor<?x4xf32> {
    %c = npu.constant dense<1.0> : tensor<1x4xf32> -> tensor<1x4xf32>
    npu.yield %c : tensor<1x4xf32>
  }
  return %y : tensor<?x4xf32>
}

// -----

func.func @arguments(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'npu.map_batch' op body takes 2 arguments; it needs one per input (1)}}
  %y = npu.map_batch(%x) : (tensor<?x4xf32>) -> tensor<?x4xf32> {
  ^bb0(%s: tensor<1x4xf32>, %t: tensor<1x4xf32>):
    npu.yield %s : tensor<1x4xf32>
  }
  return %y : tensor<?x4xf32>
}

// -----

func.func @rank0(%x: tensor<f32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'npu.map_batch' op input #0 ('tensor<f32>') has no leading dimension to split into samples}}
  %y = npu.map_batch(%x) : (tensor<f32>) -> tensor<?x4xf32> {
  ^bb0(%s: tensor<f32>):
    %c = npu.constant dense<1.0> : tensor<1x4xf32> -> tensor<1x4xf32>
    npu.yield %c : tensor<1x4xf32>
  }
  return %y : tensor<?x4xf32>
}

// -----

func.func @sample_type(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'npu.map_batch' op body argument #0 has type 'tensor<2x4xf32>'; a sample of input #0 ('tensor<?x4xf32>') is 'tensor<1x4xf32>'}}
  %y = npu.map_batch(%x) : (tensor<?x4xf32>) -> tensor<?x4xf32> {
  ^bb0(%s: tensor<2x4xf32>):
    %c = npu.constant dense<1.0> : tensor<1x4xf32> -> tensor<1x4xf32>
    npu.yield %c : tensor<1x4xf32>
  }
  return %y : tensor<?x4xf32>
}

// -----

func.func @batches(%x: tensor<3x4xf32>, %z: tensor<2x4xf32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{'npu.map_batch' op input #1 has 2 samples, an earlier input 3: the inputs share their batch}}
  %y = npu.map_batch(%x, %z) : (tensor<3x4xf32>, tensor<2x4xf32>) -> tensor<3x4xf32> {
  ^bb0(%s: tensor<1x4xf32>, %t: tensor<1x4xf32>):
    npu.yield %s : tensor<1x4xf32>
  }
  return %y : tensor<3x4xf32>
}

// -----

func.func @yields(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'npu.map_batch' op body yields 2 values for 1 results}}
  %y = npu.map_batch(%x) : (tensor<?x4xf32>) -> tensor<?x4xf32> {
  ^bb0(%s: tensor<1x4xf32>):
    npu.yield %s, %s : tensor<1x4xf32>, tensor<1x4xf32>
  }
  return %y : tensor<?x4xf32>
}

// -----

func.func @yield_rank0(%x: tensor<?x4xf32>, %c: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'npu.map_batch' op body yields a rank-0 value for result #0; each sample's rows need a leading dimension}}
  %y = npu.map_batch(%x) : (tensor<?x4xf32>) -> tensor<f32> {
  ^bb0(%s: tensor<1x4xf32>):
    npu.yield %c : tensor<f32>
  }
  return %y : tensor<f32>
}

// -----

func.func @dynamic_rows(%x: tensor<?x4xf32>, %c: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'npu.map_batch' op body yields 'tensor<?x4xf32>' for result #0: its rows per sample must be static}}
  %y = npu.map_batch(%x) : (tensor<?x4xf32>) -> tensor<?x4xf32> {
  ^bb0(%s: tensor<1x4xf32>):
    npu.yield %c : tensor<?x4xf32>
  }
  return %y : tensor<?x4xf32>
}

// -----

func.func @overflow(%x: tensor<4611686018427387904x1xi1>, %c: tensor<4x1xi1>) -> tensor<?x1xi1> {
  // expected-error @+1 {{'npu.map_batch' op result #0: 4611686018427387904 samples of 4 rows overflow a size}}
  %y = npu.map_batch(%x) : (tensor<4611686018427387904x1xi1>) -> tensor<?x1xi1> {
  ^bb0(%s: tensor<1x1xi1>):
    npu.yield %c : tensor<4x1xi1>
  }
  return %y : tensor<?x1xi1>
}

// -----

func.func @result_rows(%x: tensor<3x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{'npu.map_batch' op result #0 has type 'tensor<4x4xf32>'; 3 samples of the body's 'tensor<1x4xf32>' make 'tensor<3x4xf32>'}}
  %y = npu.map_batch(%x) : (tensor<3x4xf32>) -> tensor<4x4xf32> {
  ^bb0(%s: tensor<1x4xf32>):
    npu.yield %s : tensor<1x4xf32>
  }
  return %y : tensor<4x4xf32>
}

// -----

func.func @result_static(%x: tensor<?x4xf32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{'npu.map_batch' op result #0 has type 'tensor<3x4xf32>'; a batch read at run time of the body's 'tensor<1x4xf32>' make 'tensor<?x4xf32>'}}
  %y = npu.map_batch(%x) : (tensor<?x4xf32>) -> tensor<3x4xf32> {
  ^bb0(%s: tensor<1x4xf32>):
    npu.yield %s : tensor<1x4xf32>
  }
  return %y : tensor<3x4xf32>
}

// -----

func.func @result_columns(%x: tensor<?x4xf32>) -> tensor<?x5xf32> {
  // expected-error @+1 {{'npu.map_batch' op result #0 has type 'tensor<?x5xf32>'; a batch read at run time of the body's 'tensor<1x4xf32>' make 'tensor<?x4xf32>'}}
  %y = npu.map_batch(%x) : (tensor<?x4xf32>) -> tensor<?x5xf32> {
  ^bb0(%s: tensor<1x4xf32>):
    npu.yield %s : tensor<1x4xf32>
  }
  return %y : tensor<?x5xf32>
}

// -----

func.func @terminator(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %y = npu.map_batch(%x) : (tensor<?x4xf32>) -> tensor<?x4xf32> {
  ^bb0(%s: tensor<1x4xf32>):
    // expected-error @+1 {{'func.return' op expects parent op 'func.func'}}
    func.return %s : tensor<1x4xf32>
  }
  return %y : tensor<?x4xf32>
}

// -----

func.func @yield_outside(%x: tensor<4xf32>) {
  // expected-error @+1 {{'npu.yield' op expects parent op 'npu.map_batch'}}
  npu.yield %x : tensor<4xf32>
}


// -----

func.func @chunk_of_one(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'npu.map_batch' op chunk region takes 1 arguments; it needs C >= 2 rows of each of the 1 inputs}}
  %y = npu.map_batch(%x) : (tensor<?x4xf32>) -> tensor<?x4xf32> {
  ^bb0(%s: tensor<1x4xf32>):
    npu.yield %s : tensor<1x4xf32>
  } chunk {
  ^bb0(%s: tensor<1x4xf32>):
    npu.yield %s : tensor<1x4xf32>
  }
  return %y : tensor<?x4xf32>
}

// -----

func.func @chunk_argument(%x: tensor<?x4xf32>, %z: tensor<?x2xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'npu.map_batch' op chunk argument #1 has type 'tensor<4x2xf32>'; 2 samples of the body's 'tensor<1x2xf32>' make 'tensor<2x2xf32>'}}
  %y = npu.map_batch(%x, %z) : (tensor<?x4xf32>, tensor<?x2xf32>) -> tensor<?x4xf32> {
  ^bb0(%s: tensor<1x4xf32>, %t: tensor<1x2xf32>):
    npu.yield %s : tensor<1x4xf32>
  } chunk {
  ^bb0(%s: tensor<2x4xf32>, %t: tensor<4x2xf32>):
    npu.yield %s : tensor<2x4xf32>
  }
  return %y : tensor<?x4xf32>
}

// -----

func.func @chunk_yield(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'npu.map_batch' op chunk yield #0 has type 'tensor<2x4xf32>'; 2 samples of the body's 'tensor<2x4xf32>' make 'tensor<4x4xf32>'}}
  %y = npu.map_batch(%x) : (tensor<?x4xf32>) -> tensor<?x4xf32> {
  ^bb0(%s: tensor<1x4xf32>):
    %c = npu.concat %s, %s {axis = 0 : i64} : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<2x4xf32>
    npu.yield %c : tensor<2x4xf32>
  } chunk {
  ^bb0(%s: tensor<2x4xf32>):
    npu.yield %s : tensor<2x4xf32>
  }
  return %y : tensor<?x4xf32>
}

// -----

func.func @chunk_yields(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'npu.map_batch' op chunk region must yield one value per result}}
  %y = npu.map_batch(%x) : (tensor<?x4xf32>) -> tensor<?x4xf32> {
  ^bb0(%s: tensor<1x4xf32>):
    npu.yield %s : tensor<1x4xf32>
  } chunk {
  ^bb0(%s: tensor<2x4xf32>):
    npu.yield
  }
  return %y : tensor<?x4xf32>
}

// -----

func.func @chunk_scalar(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{'npu.map_batch' op chunk region takes 1 arguments; it needs C >= 2 rows of each of the 1 inputs}}
  %y = npu.map_batch(%x) : (tensor<?x4xf32>) -> tensor<?x4xf32> {
  ^bb0(%s: tensor<1x4xf32>):
    npu.yield %s : tensor<1x4xf32>
  } chunk {
  ^bb0(%s: tensor<f32>):
    %c = npu.constant dense<1.0> : tensor<2x4xf32> -> tensor<2x4xf32>
    npu.yield %c : tensor<2x4xf32>
  }
  return %y : tensor<?x4xf32>
}
