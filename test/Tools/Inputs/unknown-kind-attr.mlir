func.func @f(%x: tensor<?xf32>) -> tensor<f32> {
  %s = "fuse.reduce"(%x) <{kinds = [#fuse.kind<sum>], operandSegmentSizes = array<i32: 1, 0>}> : (tensor<?xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
