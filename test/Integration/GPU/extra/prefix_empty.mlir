// ARGS: rand:4097 scalar:-7
// RULE: exact
// A negative count takes nothing: the kernels find no element (the sum is
// its identity, the maximum its init) and the results are empty.
func.func @prefix_empty(%x: tensor<?xf32>, %n: tensor<i64>)
    -> (tensor<?xf32>, tensor<f32>, tensor<f32>) {
  %p = fuse.prefix %x, %n : tensor<?xf32>, tensor<i64> -> tensor<?xf32>
  %c = fuse.scan inclusive add %p : tensor<?xf32> -> tensor<?xf32>
  %s = fuse.reduce add %p : tensor<?xf32> -> tensor<f32>
  %i = arith.constant -3.0 : f32
  %m = fuse.reduce max %p init(%i : f32) : tensor<?xf32> -> tensor<f32>
  return %c, %s, %m : tensor<?xf32>, tensor<f32>, tensor<f32>
}
