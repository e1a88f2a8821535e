// ARGS: rand:100003 rand:7x129 rand:scalar
// RULE: exact
// Arguments returned as they are (a vector, a matrix, a 0-d tensor) beside
// computed results, and a computed result returned twice:
// convert-fuse-to-gpu copies each argument with a map into the caller's
// output, and the square's group yields it a second time
// (test/Pipelines/gpu-returned-argument.mlir).
func.func @returned_argument(%x: tensor<?xf32>, %m: tensor<?x?xf32>, %s: tensor<f32>)
    -> (tensor<?xf32>, tensor<?xf32>, tensor<?x?xf32>, tensor<f32>, tensor<?xf32>, tensor<?xf32>) {
  %y = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %p = arith.mulf %a, %a : f32
    fuse.yield %p : f32
  }
  return %x, %y, %m, %s, %x, %y : tensor<?xf32>, tensor<?xf32>, tensor<?x?xf32>, tensor<f32>, tensor<?xf32>, tensor<?xf32>
}
