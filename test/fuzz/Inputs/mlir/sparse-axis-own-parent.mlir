
func.func @positions_past_the_limit(%c: memref<?xi32>) {
  %i = sparse.axis sparse_fixed parent %i length 4 nnz_cols 65536 indices %c : memref<?xi32>
  return
}

