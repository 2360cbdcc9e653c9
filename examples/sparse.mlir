// Sparse iteration (SparseTIR): SpMM and the row softmax of one CSR matrix,
// 512 x 512 with 4096 nonzeros (scripts/sparse-matrix.py writes one), in
// the sparse dialect. `make demo` lowers them in stages (checked mode,
// rows over the device's tasks by nonzeros, position loops with binary
// search, flat memrefs) and runs them in both executors.

// out[i, k] = sum_j A[i, j] B[j, k], k over 64 features.
func.func @spmm(%indptr: memref<513xi32>, %indices: memref<4096xi32>, %a: memref<4096xf32>, %b: memref<32768xf32>, %c: memref<32768xf32>) {
  %i = sparse.axis dense_fixed length 512
  %j = sparse.axis sparse_variable parent %i length 512 indptr %indptr : memref<513xi32> indices %indices : memref<4096xi32> sorted
  %dj = sparse.axis dense_fixed length 512
  %k = sparse.axis dense_fixed length 64
  %A = sparse.buffer %a [%i, %j] : memref<4096xf32> -> !sparse.buffer<2 x f32>
  %B = sparse.buffer %b [%dj, %k] : memref<32768xf32> -> !sparse.buffer<2 x f32>
  %C = sparse.buffer %c [%i, %k] : memref<32768xf32> -> !sparse.buffer<2 x f32>
  sparse.iteration [%i, %j, %k] [#sparse.iterator<spatial>, #sparse.iterator<reduction>, #sparse.iterator<spatial>] init {
  ^bb0(%vi: index, %vk: index):
    %zero = arith.constant 0.0 : f32
    sparse.store %zero, %C[%vi, %vk] : !sparse.buffer<2 x f32>
  } do {
  ^bb0(%vi: index, %vj: index, %vk: index):
    %x = sparse.load %A[%vi, %vj] : !sparse.buffer<2 x f32>
    %y = sparse.load %B[%vj, %vk] : !sparse.buffer<2 x f32>
    %acc = sparse.load %C[%vi, %vk] : !sparse.buffer<2 x f32>
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    sparse.store %s, %C[%vi, %vk] : !sparse.buffer<2 x f32>
  }
  return
}

// Softmax over each row's nonzeros, the row maximum subtracted first.
func.func @softmax(%indptr: memref<513xi32>, %indices: memref<4096xi32>, %a: memref<4096xf32>, %out: memref<4096xf32>, %max: memref<512xf32>, %sum: memref<512xf32>) {
  %i = sparse.axis dense_fixed length 512
  %j = sparse.axis sparse_variable parent %i length 512 indptr %indptr : memref<513xi32> indices %indices : memref<4096xi32> sorted
  %A = sparse.buffer %a [%i, %j] : memref<4096xf32> -> !sparse.buffer<2 x f32>
  %O = sparse.buffer %out [%i, %j] : memref<4096xf32> -> !sparse.buffer<2 x f32>
  %M = sparse.buffer %max [%i] : memref<512xf32> -> !sparse.buffer<1 x f32>
  %S = sparse.buffer %sum [%i] : memref<512xf32> -> !sparse.buffer<1 x f32>
  sparse.iteration [%i, %j] [#sparse.iterator<spatial>, #sparse.iterator<reduction>] init {
  ^bb0(%vi: index):
    %ninf = arith.constant 0xFF800000 : f32
    sparse.store %ninf, %M[%vi] : !sparse.buffer<1 x f32>
  } do {
  ^bb0(%vi: index, %vj: index):
    %x = sparse.load %A[%vi, %vj] : !sparse.buffer<2 x f32>
    %m = sparse.load %M[%vi] : !sparse.buffer<1 x f32>
    %n = arith.maximumf %m, %x : f32
    sparse.store %n, %M[%vi] : !sparse.buffer<1 x f32>
  }
  sparse.iteration [%i, %j] [#sparse.iterator<spatial>, #sparse.iterator<reduction>] init {
  ^bb0(%vi: index):
    %zero = arith.constant 0.0 : f32
    sparse.store %zero, %S[%vi] : !sparse.buffer<1 x f32>
  } do {
  ^bb0(%vi: index, %vj: index):
    %x = sparse.load %A[%vi, %vj] : !sparse.buffer<2 x f32>
    %m = sparse.load %M[%vi] : !sparse.buffer<1 x f32>
    %d = arith.subf %x, %m : f32
    %e = math.exp %d : f32
    sparse.store %e, %O[%vi, %vj] : !sparse.buffer<2 x f32>
    %s = sparse.load %S[%vi] : !sparse.buffer<1 x f32>
    %t = arith.addf %s, %e : f32
    sparse.store %t, %S[%vi] : !sparse.buffer<1 x f32>
  }
  sparse.iteration [%i, %j] [#sparse.iterator<spatial>, #sparse.iterator<spatial>] do {
  ^bb0(%vi: index, %vj: index):
    %e = sparse.load %O[%vi, %vj] : !sparse.buffer<2 x f32>
    %s = sparse.load %S[%vi] : !sparse.buffer<1 x f32>
    %q = arith.divf %e, %s : f32
    sparse.store %q, %O[%vi, %vj] : !sparse.buffer<2 x f32>
  }
  return
}
