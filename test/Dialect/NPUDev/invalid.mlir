// One negative case per npudev verifier rule.
// RUN: npu-opt %s --split-input-file --verify-diagnostics

func.func @capacity() {
  // expected-error @+1 {{'npudev.launch' op needs 589824 bytes of vector memory at once, but device 'mlu590' has 524288}}
  npudev.launch tasks(1) {
    %a = npudev.alloc : memref<131072xf32, #npudev.space<vector>>
    %b = npudev.alloc : memref<16384xf32, #npudev.space<vector>>
  }
  return
}

// -----

// Buffers of sibling loop bodies are not live at once: this fits.
func.func @capacity_scopes(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  npudev.launch tasks(1) {
    scf.for %i = %c0 to %n step %c1 {
      %a = npudev.alloc : memref<100000xf32, #npudev.space<vector>>
    }
    scf.for %i = %c0 to %n step %c1 {
      %b = npudev.alloc : memref<100000xf32, #npudev.space<vector>>
    }
  }
  return
}

// -----

// The device is taken from the module: the Ascend-like UB is 192 KiB.
module attributes {npudev.device = "ascend910b"} {
  func.func @capacity_device() {
    // expected-error @+1 {{'npudev.launch' op needs 262144 bytes of vector memory at once, but device 'ascend910b' has 196608}}
    npudev.launch tasks(1) on vector {
      %a = npudev.alloc : memref<65536xf32, #npudev.space<vector>>
    }
    return
  }
}

// -----

// A dictionary describes a device as a JSON file does: fields not given come
// from its base preset (mlu590 when it names none).
module attributes {npudev.device = {name = "tiny", vector_bytes = 1024 : i64, cube_bytes = 0 : i64, shared_bytes = 0 : i64}} {
  func.func @capacity_described_device() {
    // expected-error @+1 {{'npudev.launch' op needs 2048 bytes of vector memory at once, but device 'tiny' has 1024}}
    npudev.launch tasks(1) {
      %a = npudev.alloc : memref<512xf32, #npudev.space<vector>>
    }
    return
  }
}

// -----

// The dictionary is validated as a JSON description is, naming the field.
module attributes {npudev.device = {name = "tiny", clusters = 1.5 : f64}} {
  func.func @fractional_clusters() {
    // expected-error @+1 {{'npudev.launch' op npudev.device: device description: field 'clusters' must be an integer, got 1.5}}
    npudev.launch tasks(1) {
    }
    return
  }
}

// -----

module attributes {npudev.device = {name = "tiny", vectr_bytes = 4096 : i64}} {
  func.func @unknown_field() {
    // expected-error @+1 {{'npudev.launch' op npudev.device: device description: unknown field 'vectr_bytes'}}
    npudev.launch tasks(1) {
    }
    return
  }
}

// -----

module attributes {npudev.device = {name = "tiny", cores_per_cluster = 0 : i64}} {
  func.func @zero_cores() {
    // expected-error @+1 {{'npudev.launch' op npudev.device: device description: field 'cores_per_cluster' must be between 1 and 65536, got 0}}
    npudev.launch tasks(1) {
    }
    return
  }
}

// -----

module attributes {npudev.device = {name = ["tiny"]}} {
  func.func @field_kind() {
    // expected-error @+1 {{'npudev.launch' op npudev.device: field 'name' must be a number or a string, got ["tiny"]}}
    npudev.launch tasks(1) {
    }
    return
  }
}

// -----

module attributes {npudev.device = 590 : i64} {
  func.func @device_kind() {
    // expected-error @+1 {{'npudev.launch' op npudev.device must be a dictionary or a preset name, got 590 : i64}}
    npudev.launch tasks(1) {
    }
    return
  }
}

// -----

module attributes {npudev.device = "tpu"} {
  func.func @unknown_device() {
    // expected-error @+1 {{'npudev.launch' op npudev.device: unknown device preset 'tpu' (known: mlu590, ascend910b, host)}}
    npudev.launch tasks(1) {
    }
    return
  }
}

// -----

// On-chip memory is counted statically: a buffer sized at run time cannot be.
func.func @dynamic_on_chip(%n: index) {
  npudev.launch tasks(1) {
    // expected-error @+1 {{'memref.alloc' op on-chip buffers in a launch have a static size, got 'memref<?xf32, #npudev.space<vector>>'}}
    %a = memref.alloc(%n) : memref<?xf32, #npudev.space<vector>>
  }
  return
}

// -----

func.func @tasks_positive() {
  // expected-error @+1 {{'npudev.launch' op attribute 'tasks' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  npudev.launch tasks(0) {
  }
  return
}

// -----

func.func @task_id_outside() -> index {
  // expected-error @+1 {{'npudev.task_id' op must be inside an npudev.launch}}
  %0 = npudev.task_id
  return %0 : index
}

// -----

func.func @task_dim_outside() -> index {
  // expected-error @+1 {{'npudev.task_dim' op must be inside an npudev.launch}}
  %0 = npudev.task_dim
  return %0 : index
}

// -----

func.func @alloc_global() {
  // expected-error @+1 {{'npudev.alloc' op result #0 must be memref in an on-chip space (vector, cube or shared)}}
  %0 = npudev.alloc : memref<16xf32, #npudev.space<global>>
  return
}

// -----

func.func @alloc_dynamic(%n: index) {
  // expected-error @+1 {{'npudev.alloc' op on-chip buffers have a static size, got 'memref<?xf32, #npudev.space<vector>>'}}
  %0 = npudev.alloc : memref<?xf32, #npudev.space<vector>>
  return
}

// -----

func.func @alloc_strided() {
  // expected-error @+1 {{'npudev.alloc' op on-chip buffers are contiguous}}
  %0 = npudev.alloc : memref<16xf32, strided<[2]>, #npudev.space<vector>>
  return
}

// -----

// 2^62 f32 are 2^64 bytes: the count once wrapped to 0 and passed the
// capacity check (issue #13).
func.func @alloc_bytes_overflow() {
  // expected-error @+1 {{'npudev.alloc' op buffer 'memref<4611686018427387904xf32, #npudev.space<vector>>' has more bytes than fit in a 64-bit count}}
  %0 = npudev.alloc : memref<4611686018427387904xf32, #npudev.space<vector>>
  return
}

// -----

func.func @dma_shape(%g: memref<16xf32, #npudev.space<global>>) {
  %b = npudev.alloc : memref<8xf32, #npudev.space<vector>>
  // expected-error @+1 {{'npudev.dma' op copies between shapes 'memref<16xf32, #npudev.space<global>>' and 'memref<8xf32, #npudev.space<vector>>'; they must be equal}}
  npudev.dma %g, %b : memref<16xf32, #npudev.space<global>> to memref<8xf32, #npudev.space<vector>>
  return
}

// -----

func.func @dma_element_type(%g: memref<16xf32, #npudev.space<global>>) {
  %b = npudev.alloc : memref<16xi32, #npudev.space<vector>>
  // expected-error @+1 {{'npudev.dma' op source and target must have one element type, got 'f32' and 'i32'}}
  npudev.dma %g, %b : memref<16xf32, #npudev.space<global>> to memref<16xi32, #npudev.space<vector>>
  return
}

// -----

func.func @dma_global_to_global(%g: memref<16xf32, #npudev.space<global>>) {
  // expected-error @+1 {{'npudev.dma_start' op copies global to global memory; a DMA must have one side on chip}}
  %t = npudev.dma_start %g, %g : memref<16xf32, #npudev.space<global>> to memref<16xf32, #npudev.space<global>>
  return
}

// -----

// Only on-chip values can be consumed: a kernel argument outlives the kernel.
func.func @dma_consumes_global(%g: memref<16xf32, #npudev.space<global>>) {
  %b = npudev.alloc : memref<16xf32, #npudev.space<vector>>
  // expected-error @+1 {{'npudev.dma_start' op consumes its source, which is in global memory; only an on-chip source can be consumed}}
  %t = npudev.dma_start %g, %b {consumes_source} : memref<16xf32, #npudev.space<global>> to memref<16xf32, #npudev.space<vector>>
  return
}

// -----

func.func @dma_no_space(%g: memref<16xf32>) {
  %b = npudev.alloc : memref<16xf32, #npudev.space<vector>>
  // expected-error @+1 {{'npudev.dma' op operand #0 must be memref in an npudev memory space}}
  npudev.dma %g, %b : memref<16xf32> to memref<16xf32, #npudev.space<vector>>
  return
}

// -----

func.func @vector_op_on_global(%g: memref<16xf32, #npudev.space<global>>) {
  // expected-error @+1 {{'npudev.vbinary' op operand #0 must be memref in the vector space (#npudev.space<vector>)}}
  npudev.vbinary <add> %g, %g, %g : memref<16xf32, #npudev.space<global>>, memref<16xf32, #npudev.space<global>>, memref<16xf32, #npudev.space<global>>
  return
}

// -----

func.func @vbinary_shape() {
  %a = npudev.alloc : memref<16xf32, #npudev.space<vector>>
  %b = npudev.alloc : memref<8xf32, #npudev.space<vector>>
  // expected-error @+1 {{'npudev.vbinary' op operands must have one shape, got 'memref<16xf32, #npudev.space<vector>>' and 'memref<8xf32, #npudev.space<vector>>'}}
  npudev.vbinary <add> %a, %b, %a : memref<16xf32, #npudev.space<vector>>, memref<8xf32, #npudev.space<vector>>, memref<16xf32, #npudev.space<vector>>
  return
}

// -----

func.func @vbinary_element_type() {
  %a = npudev.alloc : memref<16xf32, #npudev.space<vector>>
  %b = npudev.alloc : memref<16xf16, #npudev.space<vector>>
  // expected-error @+1 {{'npudev.vbinary' op operands must have one element type, got 'f32' and 'f16'}}
  npudev.vbinary <mul> %a, %b, %a : memref<16xf32, #npudev.space<vector>>, memref<16xf16, #npudev.space<vector>>, memref<16xf32, #npudev.space<vector>>
  return
}

// -----

func.func @vbinary_bitwise_float() {
  %a = npudev.alloc : memref<16xf32, #npudev.space<vector>>
  // expected-error @+1 {{'npudev.vbinary' op 'and' needs integers, got 'f32'}}
  npudev.vbinary <and> %a, %a, %a : memref<16xf32, #npudev.space<vector>>, memref<16xf32, #npudev.space<vector>>, memref<16xf32, #npudev.space<vector>>
  return
}

// -----

func.func @scalar_type(%s: i32) {
  %a = npudev.alloc : memref<16xf32, #npudev.space<vector>>
  // expected-error @+1 {{'npudev.vbinary_scalar' op scalar of type 'i32' does not match the element type 'f32'}}
  npudev.vbinary_scalar <add> %a, %s, %a : memref<16xf32, #npudev.space<vector>>, i32, memref<16xf32, #npudev.space<vector>>
  return
}

// -----

func.func @vunary_float_only() {
  %a = npudev.alloc : memref<16xi32, #npudev.space<vector>>
  // expected-error @+1 {{'npudev.vunary' op 'exp' needs floats, got 'i32'}}
  npudev.vunary <exp> %a, %a : memref<16xi32, #npudev.space<vector>>, memref<16xi32, #npudev.space<vector>>
  return
}

// -----

func.func @vcmp_types() {
  %a = npudev.alloc : memref<16xf32, #npudev.space<vector>>
  %b = npudev.alloc : memref<16xi32, #npudev.space<vector>>
  // expected-error @+1 {{'npudev.vcmp' op compared values must have one element type, got 'f32' and 'i32'}}
  npudev.vcmp <eq> %a, %b, %b : memref<16xf32, #npudev.space<vector>>, memref<16xi32, #npudev.space<vector>>, memref<16xi32, #npudev.space<vector>>
  return
}

// -----

func.func @vcmp_scalar_shape(%s: f32) {
  %a = npudev.alloc : memref<16xf32, #npudev.space<vector>>
  %m = npudev.alloc : memref<8xi32, #npudev.space<vector>>
  // expected-error @+1 {{'npudev.vcmp_scalar' op operands must have one shape}}
  npudev.vcmp_scalar <eq> %a, %s, %m : memref<16xf32, #npudev.space<vector>>, f32, memref<8xi32, #npudev.space<vector>>
  return
}

// -----

func.func @vselect_types() {
  %m = npudev.alloc : memref<16xi32, #npudev.space<vector>>
  %a = npudev.alloc : memref<16xf32, #npudev.space<vector>>
  // expected-error @+1 {{'npudev.vselect' op selected values and result must have one element type, got 'f32' and 'i32'}}
  npudev.vselect %m, %a, %m, %a : memref<16xi32, #npudev.space<vector>>, memref<16xf32, #npudev.space<vector>>, memref<16xi32, #npudev.space<vector>>, memref<16xf32, #npudev.space<vector>>
  return
}

// -----

func.func @vreduce_shape() {
  %a = npudev.alloc : memref<4x16xf32, #npudev.space<vector>>
  %b = npudev.alloc : memref<16xf32, #npudev.space<vector>>
  // expected-error @+1 {{'npudev.vreduce' op reduces 'memref<4x16xf32, #npudev.space<vector>>' along its innermost dimension into 'memref<16xf32, #npudev.space<vector>>'; the result must drop that dimension}}
  npudev.vreduce <max> %a, %b : memref<4x16xf32, #npudev.space<vector>>, memref<16xf32, #npudev.space<vector>>
  return
}

// -----

func.func @vcast_shape() {
  %a = npudev.alloc : memref<16xf32, #npudev.space<vector>>
  %b = npudev.alloc : memref<8xi32, #npudev.space<vector>>
  // expected-error @+1 {{'npudev.vcast' op operands must have one shape}}
  npudev.vcast %a, %b : memref<16xf32, #npudev.space<vector>>, memref<8xi32, #npudev.space<vector>>
  return
}

// -----

func.func @vfill_type(%v: f16) {
  %a = npudev.alloc : memref<16xf32, #npudev.space<vector>>
  // expected-error @+1 {{'npudev.vfill' op scalar of type 'f16' does not match the element type 'f32'}}
  npudev.vfill %v, %a : f16, memref<16xf32, #npudev.space<vector>>
  return
}

// -----

func.func @alloc_odd_width() {
  // expected-error @+1 {{'npudev.alloc' op element type 'i4' is not one the executors store (i1, i8, i16, i32, i64, index, f16, bf16, f32, f64)}}
  %a = npudev.alloc : memref<16xi4, #npudev.space<vector>>
  return
}

// -----

func.func @vtranspose_shape() {
  %a = npudev.alloc : memref<4x8xf32, #npudev.space<vector>>
  // expected-error @+1 {{'npudev.vtranspose' op transposes 2-D buffers, got 'memref<4x8xf32, #npudev.space<vector>>' and 'memref<4x8xf32, #npudev.space<vector>>'}}
  npudev.vtranspose %a, %a : memref<4x8xf32, #npudev.space<vector>>, memref<4x8xf32, #npudev.space<vector>>
  return
}

// -----

func.func @vgather_indices() {
  %a = npudev.alloc : memref<16x4xf32, #npudev.space<vector>>
  %i = npudev.alloc : memref<8xf32, #npudev.space<vector>>
  %o = npudev.alloc : memref<8x4xf32, #npudev.space<vector>>
  // expected-error @+1 {{'npudev.vgather' op indices must be a rank-1 integer buffer, got 'memref<8xf32, #npudev.space<vector>>'}}
  npudev.vgather %a[%i], %o : memref<16x4xf32, #npudev.space<vector>>, memref<8xf32, #npudev.space<vector>>, memref<8x4xf32, #npudev.space<vector>>
  return
}

// -----

func.func @vscatter_rows() {
  %a = npudev.alloc : memref<16x4xf32, #npudev.space<vector>>
  %i = npudev.alloc : memref<8xi32, #npudev.space<vector>>
  %s = npudev.alloc : memref<8x5xf32, #npudev.space<vector>>
  // expected-error @+1 {{'npudev.vscatter' op with 'memref<8xi32, #npudev.space<vector>>' indices into 'memref<16x4xf32, #npudev.space<vector>>', the gathered side must be one row per index, got 'memref<8x5xf32, #npudev.space<vector>>'}}
  npudev.vscatter %s, %a[%i] : memref<8x5xf32, #npudev.space<vector>>, memref<8xi32, #npudev.space<vector>>, memref<16x4xf32, #npudev.space<vector>>
  return
}

// -----

func.func @vcumsum_types() {
  %a = npudev.alloc : memref<16xf32, #npudev.space<vector>>
  %b = npudev.alloc : memref<16xi32, #npudev.space<vector>>
  // expected-error @+1 {{'npudev.vcumsum' op operands must have one element type}}
  npudev.vcumsum %a, %b : memref<16xf32, #npudev.space<vector>>, memref<16xi32, #npudev.space<vector>>
  return
}

// -----

func.func @vsort_shape() {
  %a = npudev.alloc : memref<16xi32, #npudev.space<vector>>
  %b = npudev.alloc : memref<8xi32, #npudev.space<vector>>
  // expected-error @+1 {{'npudev.vsort' op operands must have one shape}}
  npudev.vsort %a, %b : memref<16xi32, #npudev.space<vector>>, memref<8xi32, #npudev.space<vector>>
  return
}

// -----

func.func @vunique_rank() {
  %a = npudev.alloc : memref<4x4xi32, #npudev.space<vector>>
  // expected-error @+1 {{'npudev.vunique' op takes a rank-1 buffer, got 'memref<4x4xi32, #npudev.space<vector>>'}}
  %n = npudev.vunique %a, %a : memref<4x4xi32, #npudev.space<vector>>, memref<4x4xi32, #npudev.space<vector>>
  return
}

// -----

func.func @matmul_shapes() {
  %a = npudev.alloc : memref<16x8xf16, #npudev.space<vector>>
  %b = npudev.alloc : memref<16x16xf16, #npudev.space<cube>>
  %c = npudev.alloc : memref<16x16xf32, #npudev.space<vector>>
  // expected-error @+1 {{'npudev.matmul' op shapes do not chain: [M, K] x [K, N] -> [M, N] needed}}
  npudev.matmul %a, %b, %c : memref<16x8xf16, #npudev.space<vector>>, memref<16x16xf16, #npudev.space<cube>>, memref<16x16xf32, #npudev.space<vector>>
  return
}

// -----

func.func @matmul_rank() {
  %a = npudev.alloc : memref<16xf16, #npudev.space<vector>>
  %b = npudev.alloc : memref<16x16xf16, #npudev.space<cube>>
  %c = npudev.alloc : memref<16x16xf32, #npudev.space<vector>>
  // expected-error @+1 {{'npudev.matmul' op multiplies 2-D buffers}}
  npudev.matmul %a, %b, %c : memref<16xf16, #npudev.space<vector>>, memref<16x16xf16, #npudev.space<cube>>, memref<16x16xf32, #npudev.space<vector>>
  return
}

// -----

func.func @matmul_input_types() {
  %a = npudev.alloc : memref<16x16xf32, #npudev.space<vector>>
  %b = npudev.alloc : memref<16x16xf16, #npudev.space<cube>>
  %c = npudev.alloc : memref<16x16xf32, #npudev.space<vector>>
  // expected-error @+1 {{'npudev.matmul' op inputs must have one element type, got 'f32' and 'f16'}}
  npudev.matmul %a, %b, %c : memref<16x16xf32, #npudev.space<vector>>, memref<16x16xf16, #npudev.space<cube>>, memref<16x16xf32, #npudev.space<vector>>
  return
}

// -----

func.func @matmul_accumulator() {
  %a = npudev.alloc : memref<16x16xi8, #npudev.space<vector>>
  %b = npudev.alloc : memref<16x16xi8, #npudev.space<cube>>
  %c = npudev.alloc : memref<16x16xf32, #npudev.space<vector>>
  // expected-error @+1 {{'npudev.matmul' op accumulates 'i8' products into 'f32'; needs f32 for float inputs, i32 for i8}}
  npudev.matmul %a, %b, %c : memref<16x16xi8, #npudev.space<vector>>, memref<16x16xi8, #npudev.space<cube>>, memref<16x16xf32, #npudev.space<vector>>
  return
}

// -----

func.func @matmul_global(%g: memref<16x16xf16, #npudev.space<global>>) {
  %b = npudev.alloc : memref<16x16xf16, #npudev.space<cube>>
  %c = npudev.alloc : memref<16x16xf32, #npudev.space<vector>>
  // expected-error @+1 {{'npudev.matmul' op operand #0 must be memref in an on-chip space (vector, cube or shared)}}
  npudev.matmul %g, %b, %c : memref<16x16xf16, #npudev.space<global>>, memref<16x16xf16, #npudev.space<cube>>, memref<16x16xf32, #npudev.space<vector>>
  return
}

// -----

// A launch of 2^32 - 1 tasks ran for hours in the simulator (issue #13).
func.func @launch_too_many_tasks() {
  // expected-error @+1 {{'npudev.launch' op has 4294967295 tasks, more than the limit of 1048576}}
  npudev.launch tasks(4294967295) {
    npudev.end
  }
  return
}

// -----

func.func @launch_most_tasks() {
  npudev.launch tasks(1048576) {
    npudev.end
  }
  return
}
