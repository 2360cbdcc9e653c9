// Row sums of a CSR matrix, for test/Conversion/pipelines.mlir.
func.func @csr_row_sums(%indptr: memref<5xi32>, %indices: memref<?xi32>, %a: memref<?xf32>, %c: memref<4xf32>) {
  %i = sparse.axis dense_fixed length 4
  %j = sparse.axis sparse_variable parent %i length 6 indptr %indptr : memref<5xi32> indices %indices : memref<?xi32> sorted
  %A = sparse.buffer %a [%i, %j] : memref<?xf32> -> !sparse.buffer<2 x f32>
  %C = sparse.buffer %c [%i] : memref<4xf32> -> !sparse.buffer<1 x f32>
  sparse.iteration [%i, %j] [#sparse.iterator<spatial>, #sparse.iterator<reduction>] init {
  ^bb0(%vi: index):
    %zero = arith.constant 0.0 : f32
    sparse.store %zero, %C[%vi] : !sparse.buffer<1 x f32>
  } do {
  ^bb0(%vi: index, %vj: index):
    %x = sparse.load %A[%vi, %vj] : !sparse.buffer<2 x f32>
    %acc = sparse.load %C[%vi] : !sparse.buffer<1 x f32>
    %s = arith.addf %acc, %x : f32
    sparse.store %s, %C[%vi] : !sparse.buffer<1 x f32>
  }
  return
}
