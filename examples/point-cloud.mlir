// A point-cloud backbone's first two layers (CenterPoint / OpenPCDet style,
// mmcv/spconv's get_indice_pairs): a submanifold 3x3x3 convolution on the
// active voxels, then a stride-2 downsampling convolution whose output sites
// depend on the data.
// 3000 sites over 2 batch entries of 21x200x200 voxels; `make demo` makes
// them with scripts/point-cloud-sites.py, lowers the function for mlu590
// and runs it in the simulator and through the JIT.
func.func @point_cloud(%sites: tensor<3000x4xi32>, %features: tensor<3000x16xf32>,
                       %w_subm: tensor<27x16x16xf32>, %w_down: tensor<27x16x32xf32>)
    -> (tensor<3000x16xf32>, tensor<?x4xi32>, tensor<?x32xf32>) {
  // Submanifold: outputs on the input sites, the centre offset first.
  %s_out, %s_pairs, %s_num = npu.get_indice_pairs %sites {
      batch_size = 2 : i64, spatial_shape = array<i64: 21, 200, 200>,
      kernel_size = array<i64: 3, 3, 3>, padding = array<i64: 1, 1, 1>, subm}
      : (tensor<3000x4xi32>)
      -> (tensor<3000x4xi32>, tensor<27x2x3000xi32>, tensor<27xi32>)
  %rows = arith.constant 3000 : index
  %h = npu.sparse_conv3d %features, %w_subm, %s_pairs, %s_num, %rows {subm}
      : (tensor<3000x16xf32>, tensor<27x16x16xf32>, tensor<27x2x3000xi32>,
         tensor<27xi32>, index) -> tensor<3000x16xf32>
  // Downsampling: the reached sites, numbered in ascending order.
  %d_out, %d_pairs, %d_num = npu.get_indice_pairs %sites {
      batch_size = 2 : i64, spatial_shape = array<i64: 21, 200, 200>,
      kernel_size = array<i64: 3, 3, 3>, stride = array<i64: 2, 2, 2>,
      padding = array<i64: 1, 1, 1>}
      : (tensor<3000x4xi32>)
      -> (tensor<?x4xi32>, tensor<27x2x3000xi32>, tensor<27xi32>)
  %c0 = arith.constant 0 : index
  %m = tensor.dim %d_out, %c0 : tensor<?x4xi32>
  %y = npu.sparse_conv3d %h, %w_down, %d_pairs, %d_num, %m
      : (tensor<3000x16xf32>, tensor<27x16x32xf32>, tensor<27x2x3000xi32>,
         tensor<27xi32>, index) -> tensor<?x32xf32>
  return %h, %d_out, %y : tensor<3000x16xf32>, tensor<?x4xi32>, tensor<?x32xf32>
}
