// One case per verifier rule of the sparse dialect.
// RUN: npu-opt %s --split-input-file --verify-diagnostics

func.func @negative_length() {
  // expected-error @+1 {{'sparse.axis' op length must be in [0, 2^31 - 1], got -1}}
  %i = sparse.axis dense_fixed length -1
  return
}

// -----

// Counts are bounded like the launch's task count: 2^31 - 1.
func.func @length_past_the_limit() {
  // expected-error @+1 {{'sparse.axis' op length must be in [0, 2^31 - 1], got 9223372036854775807}}
  %i = sparse.axis dense_fixed length 9223372036854775807
  return
}

// -----

func.func @unsorted_nnz_cols_past_the_limit(%c: memref<?xi32>) {
  %i = sparse.axis dense_fixed length 4
  // expected-error @+1 {{nnz_cols must be in [0, 2^31 - 1], got 2147483648}}
  %j = sparse.axis sparse_fixed parent %i length 4 nnz_cols 2147483648 indices %c : memref<?xi32>
  return
}

// -----

func.func @positions_past_the_limit(%c: memref<?xi32>) {
  %i = sparse.axis dense_fixed length 65536
  // expected-error @+1 {{'sparse.axis' op has more than 2^31 - 1 positions}}
  %j = sparse.axis sparse_fixed parent %i length 4 nnz_cols 65536 indices %c : memref<?xi32>
  return
}

// -----

// Each axis is in range, the positions the two loops enumerate are not
// (2^16 x 2^16 = 2^32: an empty iteration over 2^31 positions ran for
// minutes in the simulator).
func.func @iteration_past_the_limit() {
  %i = sparse.axis dense_fixed length 65536
  %k = sparse.axis dense_fixed length 65536
  // expected-error @+1 {{'sparse.iteration' op enumerates more than 2^31 - 1 positions from its fixed axes (the product of their lengths and nnz_cols)}}
  sparse.iteration [%i, %k] [#sparse.iterator<spatial>, #sparse.iterator<spatial>] do {
  ^bb0(%vi: index, %vk: index):
  }
  return
}

// -----

// An axis that is its own parent (dominance rejects it, but only after the
// op's verifier, which walked the parents forever).
func.func @own_parent(%c: memref<?xi32>) {
  // expected-error @+1 {{'sparse.axis' op its parent chain comes back to an axis it has passed}}
  %i = sparse.axis sparse_fixed parent %i length 4 nnz_cols 2 indices %c : memref<?xi32>
  return
}

// -----

func.func @dense_fixed_with_parent() {
  %i = sparse.axis dense_fixed length 4
  // expected-error @+1 {{a dense_fixed axis has no parent}}
  %j = sparse.axis dense_fixed parent %i length 4
  return
}

// -----

func.func @variable_without_parent(%p: memref<5xi32>) {
  // expected-error @+1 {{a dense_variable axis needs a parent axis}}
  %j = sparse.axis dense_variable length 4 indptr %p : memref<5xi32>
  return
}

// -----

func.func @variable_without_indptr(%c: memref<?xi32>) {
  %i = sparse.axis dense_fixed length 4
  // expected-error @+1 {{a sparse_variable axis needs indptr}}
  %j = sparse.axis sparse_variable parent %i length 4 indices %c : memref<?xi32>
  return
}

// -----

func.func @fixed_with_indptr(%p: memref<5xi32>, %c: memref<8xi32>) {
  %i = sparse.axis dense_fixed length 4
  // expected-error @+1 {{a sparse_fixed axis has no indptr}}
  %j = sparse.axis sparse_fixed parent %i length 4 nnz_cols 2 indptr %p : memref<5xi32> indices %c : memref<8xi32>
  return
}

// -----

func.func @sparse_without_indices(%p: memref<5xi32>) {
  %i = sparse.axis dense_fixed length 4
  // expected-error @+1 {{a sparse_variable axis needs indices}}
  %j = sparse.axis sparse_variable parent %i length 4 indptr %p : memref<5xi32>
  return
}

// -----

func.func @dense_with_indices(%p: memref<5xi32>, %c: memref<?xi32>) {
  %i = sparse.axis dense_fixed length 4
  // expected-error @+1 {{a dense_variable axis has no indices}}
  %j = sparse.axis dense_variable parent %i length 4 indptr %p : memref<5xi32> indices %c : memref<?xi32>
  return
}

// -----

func.func @sparse_fixed_without_nnz(%c: memref<8xi32>) {
  %i = sparse.axis dense_fixed length 4
  // expected-error @+1 {{a sparse_fixed axis needs nnz_cols}}
  %j = sparse.axis sparse_fixed parent %i length 4 indices %c : memref<8xi32>
  return
}

// -----

func.func @nnz_cols_elsewhere(%p: memref<5xi32>, %c: memref<?xi32>) {
  %i = sparse.axis dense_fixed length 4
  // expected-error @+1 {{a sparse_variable axis has no nnz_cols}}
  %j = sparse.axis sparse_variable parent %i length 4 nnz_cols 2 indptr %p : memref<5xi32> indices %c : memref<?xi32>
  return
}

// -----

func.func @sorted_dense() {
  // expected-error @+1 {{only a sparse axis can be sorted; this one is dense_fixed}}
  %i = sparse.axis dense_fixed length 4 sorted
  return
}

// -----

func.func @too_many_sorted_columns(%c: memref<20xi32>) {
  %i = sparse.axis dense_fixed length 4
  // expected-error @+1 {{nnz_cols must be in [0, length], got 5}}
  %j = sparse.axis sparse_fixed parent %i length 4 nnz_cols 5 indices %c : memref<20xi32> sorted
  return
}

// -----

func.func @indptr_size(%p: memref<4xi32>, %c: memref<?xi32>) {
  %i = sparse.axis dense_fixed length 4
  // expected-error @+1 {{indptr must have 5 entries for the parent's 4 positions, got 4}}
  %j = sparse.axis sparse_variable parent %i length 4 indptr %p : memref<4xi32> indices %c : memref<?xi32>
  return
}

// -----

func.func @ell_indices_size(%c: memref<7xi32>) {
  %i = sparse.axis dense_fixed length 4
  // expected-error @+1 {{indices must have 8 entries for the parent's 4 positions, got 7}}
  %j = sparse.axis sparse_fixed parent %i length 9 nnz_cols 2 indices %c : memref<7xi32>
  return
}

// -----

func.func @parent_not_an_axis(%x: !sparse.axis, %p: memref<?xi32>) {
  // expected-error @+1 {{parent must be defined by sparse.axis}}
  %j = sparse.axis dense_variable parent %x length 4 indptr %p : memref<?xi32>
  return
}

// -----

func.func @buffer_rank(%a: memref<?xf32>) {
  %i = sparse.axis dense_fixed length 4
  // expected-error @+1 {{result has rank 2 but 1 axes are given}}
  %A = sparse.buffer %a [%i] : memref<?xf32> -> !sparse.buffer<2 x f32>
  return
}

// -----

func.func @buffer_element(%a: memref<?xf32>) {
  %i = sparse.axis dense_fixed length 4
  // expected-error @+1 {{result element type 'f16' differs from the data's 'f32'}}
  %A = sparse.buffer %a [%i] : memref<?xf32> -> !sparse.buffer<1 x f16>
  return
}

// -----

func.func @buffer_axis_twice(%a: memref<?xf32>) {
  %i = sparse.axis dense_fixed length 4
  // expected-error @+1 {{axis #1 appears twice}}
  %A = sparse.buffer %a [%i, %i] : memref<?xf32> -> !sparse.buffer<2 x f32>
  return
}

// -----

func.func @buffer_axis_not_axis(%a: memref<?xf32>, %x: !sparse.axis) {
  // expected-error @+1 {{axis #0 is not defined by sparse.axis}}
  %A = sparse.buffer %a [%x] : memref<?xf32> -> !sparse.buffer<1 x f32>
  return
}

// -----

func.func @buffer_axis_order(%a: memref<?xf32>, %p: memref<5xi32>, %c: memref<?xi32>) {
  %i = sparse.axis dense_fixed length 4
  %j = sparse.axis sparse_variable parent %i length 4 indptr %p : memref<5xi32> indices %c : memref<?xi32>
  %b = sparse.axis dense_fixed length 2
  // expected-error @+1 {{axis #2 (sparse_variable) must come right after its ancestors, root first}}
  %A = sparse.buffer %a [%i, %b, %j] : memref<?xf32> -> !sparse.buffer<3 x f32>
  return
}

// -----

func.func @iteration_kinds() {
  %i = sparse.axis dense_fixed length 4
  // expected-error @+1 {{1 axes but 2 iterator kinds}}
  sparse.iteration [%i] [#sparse.iterator<spatial>, #sparse.iterator<spatial>] do {
  ^bb0(%vi: index):
  }
  return
}

// -----

func.func @iteration_parent_outside(%p: memref<5xi32>, %c: memref<?xi32>) {
  %i = sparse.axis dense_fixed length 4
  %j = sparse.axis sparse_variable parent %i length 4 indptr %p : memref<5xi32> indices %c : memref<?xi32>
  // expected-error @+1 {{axis #0 (sparse_variable) needs its parent iterated outside it}}
  sparse.iteration [%j, %i] [#sparse.iterator<spatial>, #sparse.iterator<spatial>] do {
  ^bb0(%vj: index, %vi: index):
  }
  return
}

// -----

func.func @iteration_twice() {
  %i = sparse.axis dense_fixed length 4
  // expected-error @+1 {{axis #1 is iterated twice}}
  sparse.iteration [%i, %i] [#sparse.iterator<spatial>, #sparse.iterator<spatial>] do {
  ^bb0(%a: index, %b: index):
  }
  return
}

// -----

func.func @iteration_not_axis(%x: !sparse.axis) {
  // expected-error @+1 {{axis #0 is not defined by sparse.axis}}
  sparse.iteration [%x] [#sparse.iterator<spatial>] do {
  ^bb0(%a: index):
  }
  return
}

// -----

func.func @spatial_under_reduction(%p: memref<5xi32>, %c: memref<?xi32>) {
  %i = sparse.axis dense_fixed length 4
  %j = sparse.axis sparse_variable parent %i length 4 indptr %p : memref<5xi32> indices %c : memref<?xi32>
  // expected-error @+1 {{spatial axis #1 (sparse_variable) has a reduction parent}}
  sparse.iteration [%i, %j] [#sparse.iterator<reduction>, #sparse.iterator<spatial>] do {
  ^bb0(%vi: index, %vj: index):
  }
  return
}

// -----

func.func @body_arguments() {
  %i = sparse.axis dense_fixed length 4
  // expected-error @+1 {{body takes 1 coordinates, its block has 2 arguments}}
  sparse.iteration [%i] [#sparse.iterator<spatial>] do {
  ^bb0(%a: index, %b: index):
  }
  return
}

// -----

func.func @body_argument_type() {
  %i = sparse.axis dense_fixed length 4
  // expected-error @+1 {{body argument #0 must be index, got 'i32'}}
  sparse.iteration [%i] [#sparse.iterator<spatial>] do {
  ^bb0(%a: i32):
  }
  return
}

// -----

func.func @init_arguments() {
  %i = sparse.axis dense_fixed length 4
  %j = sparse.axis dense_fixed length 4
  // expected-error @+1 {{init takes 1 coordinates, its block has 2 arguments}}
  sparse.iteration [%i, %j] [#sparse.iterator<spatial>, #sparse.iterator<reduction>] init {
  ^bb0(%a: index, %b: index):
  } do {
  ^bb0(%a: index, %b: index):
  }
  return
}

// -----

func.func @access_rank(%a: memref<?xf32>) {
  %i = sparse.axis dense_fixed length 4
  %A = sparse.buffer %a [%i] : memref<?xf32> -> !sparse.buffer<1 x f32>
  sparse.iteration [%i] [#sparse.iterator<spatial>] do {
  ^bb0(%vi: index):
    // expected-error @+1 {{'sparse.load' op takes 1 indices for its buffer, got 2}}
    %x = sparse.load %A[%vi, %vi] : !sparse.buffer<1 x f32>
  }
  return
}

// -----

func.func @store_rank(%a: memref<?xf32>, %v: f32) {
  %i = sparse.axis dense_fixed length 4
  %A = sparse.buffer %a [%i] : memref<?xf32> -> !sparse.buffer<1 x f32>
  sparse.iteration [%i] [#sparse.iterator<spatial>] do {
  ^bb0(%vi: index):
    // expected-error @+1 {{'sparse.store' op takes 1 indices for its buffer, got 0}}
    sparse.store %v, %A[] : !sparse.buffer<1 x f32>
  }
  return
}

// -----

func.func @pos_access_rank(%a: memref<?xf32>, %p: index) {
  %i = sparse.axis dense_fixed length 4
  %A = sparse.buffer %a [%i] : memref<?xf32> -> !sparse.buffer<1 x f32>
  // expected-error @+1 {{'sparse.pos_load' op takes 1 indices for its buffer, got 2}}
  %x = sparse.pos_load %A[%p, %p] : !sparse.buffer<1 x f32>
  return
}

// -----

func.func @pos_store_rank(%a: memref<?xf32>, %x: f32) {
  %i = sparse.axis dense_fixed length 4
  %A = sparse.buffer %a [%i] : memref<?xf32> -> !sparse.buffer<1 x f32>
  // expected-error @+1 {{'sparse.pos_store' op takes 1 indices for its buffer, got 0}}
  sparse.pos_store %x, %A[] : !sparse.buffer<1 x f32>
  return
}

// -----

func.func @range_on_reduction(%lo: index, %hi: index) {
  %i = sparse.axis dense_fixed length 4
  // expected-error @+1 {{range restricts the outermost loop's axis, which must be spatial and have no parent}}
  sparse.iteration [%i] [#sparse.iterator<reduction>] range(%lo, %hi) do {
  ^bb0(%vi: index):
  }
  return
}

// -----

func.func @range_half(%lo: index) {
  %i = sparse.axis dense_fixed length 4
  // expected-error @+1 {{range needs both a begin and an end}}
  "sparse.iteration"(%i, %lo) <{iterator_kinds = [#sparse.iterator<spatial>], operandSegmentSizes = array<i32: 1, 1, 0>}> ({
  }, {
  ^bb0(%vi: index):
    "sparse.yield"() : () -> ()
  }) : (!sparse.axis, index) -> ()
  return
}

// -----

func.func @loop_order_not_permutation() {
  %i = sparse.axis dense_fixed length 4
  %k = sparse.axis dense_fixed length 4
  // expected-error @+1 {{loop_order must be a permutation of the 2 axis numbers}}
  sparse.iteration [%i, %k] [#sparse.iterator<spatial>, #sparse.iterator<spatial>] do {
  ^bb0(%vi: index, %vk: index):
  } {loop_order = array<i64: 1, 1>}
  return
}

// -----

func.func @reorder_breaks_dependency(%p: memref<5xi32>, %c: memref<?xi32>) {
  %i = sparse.axis dense_fixed length 4
  %j = sparse.axis sparse_variable parent %i length 4 indptr %p : memref<5xi32> indices %c : memref<?xi32>
  // expected-error @+1 {{axis #1 (sparse_variable) needs its parent iterated outside it}}
  sparse.iteration [%i, %j] [#sparse.iterator<spatial>, #sparse.iterator<spatial>] do {
  ^bb0(%vi: index, %vj: index):
  } {loop_order = array<i64: 1, 0>}
  return
}

// -----

func.func @fuse_not_parent(%p: memref<5xi32>, %c: memref<?xi32>) {
  %i = sparse.axis dense_fixed length 4
  %k = sparse.axis dense_fixed length 4
  // expected-error @+1 {{fuses axis #1 with axis #0, which is not its parent}}
  sparse.iteration [%i, %k] [#sparse.iterator<spatial>, #sparse.iterator<spatial>] do {
  ^bb0(%vi: index, %vk: index):
  } {fuse = array<i64: 0, 1>}
  return
}

// -----

func.func @fuse_not_adjacent(%p: memref<5xi32>, %c: memref<?xi32>) {
  %i = sparse.axis dense_fixed length 4
  %j = sparse.axis sparse_variable parent %i length 4 indptr %p : memref<5xi32> indices %c : memref<?xi32>
  %k = sparse.axis dense_fixed length 4
  // expected-error @+1 {{fuses axes #0 and #1, which are not adjacent loops in that order}}
  sparse.iteration [%i, %j, %k] [#sparse.iterator<spatial>, #sparse.iterator<spatial>, #sparse.iterator<spatial>] do {
  ^bb0(%vi: index, %vj: index, %vk: index):
  } {loop_order = array<i64: 0, 2, 1>, fuse = array<i64: 0, 1>}
  return
}

// -----

func.func @fuse_arity() {
  %i = sparse.axis dense_fixed length 4
  // expected-error @+1 {{fuse takes two axis numbers}}
  sparse.iteration [%i] [#sparse.iterator<spatial>] do {
  ^bb0(%vi: index):
  } {fuse = array<i64: 0>}
  return
}

// -----

func.func @hybrid_width(%p: memref<5xi32>, %c: memref<?xi32>) {
  %i = sparse.axis dense_fixed length 4
  %j = sparse.axis sparse_variable parent %i length 4 indptr %p : memref<5xi32> indices %c : memref<?xi32>
  // expected-error @+1 {{hybrid_ell_width must be at least 1, got 0}}
  sparse.iteration [%i, %j] [#sparse.iterator<spatial>, #sparse.iterator<spatial>] do {
  ^bb0(%vi: index, %vj: index):
  } {hybrid_ell_width = 0 : i64}
  return
}

// -----

func.func @hybrid_axis(%c: memref<8xi32>) {
  %i = sparse.axis dense_fixed length 4
  %j = sparse.axis sparse_fixed parent %i length 4 nnz_cols 2 indices %c : memref<8xi32>
  // expected-error @+1 {{hybrid_ell_width splits the second loop's axis, which must be a sparse_variable child of the first, unfused, parentless loop axis}}
  sparse.iteration [%i, %j] [#sparse.iterator<spatial>, #sparse.iterator<spatial>] do {
  ^bb0(%vi: index, %vj: index):
  } {hybrid_ell_width = 2 : i64}
  return
}

// -----

func.func @loop_order_empty() {
  %i = sparse.axis dense_fixed length 4
  // expected-error @+1 {{loop_order must be a permutation of the 1 axis numbers}}
  sparse.iteration [%i] [#sparse.iterator<spatial>] do {
  ^bb0(%vi: index):
  } {loop_order = array<i64>}
  return
}

// -----

func.func @no_axes() {
  // expected-error @+1 {{iterates at least one axis}}
  sparse.iteration [] [] do {
  ^bb0:
  }
  return
}
