func.func @f(%x: tensor<?xf32>) -> tensor<f32> {
  %s = fuse.reduce add %x : tensor<?x