func.func @f(%x: tensor<?xf32>) -> tensor<f32> {
  %s = fuse.reduce sum %x : tensor<?xf32> -> tensor<f32>
  return %s : tensor<f32>
}
