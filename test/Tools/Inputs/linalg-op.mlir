// An op of a dialect fuse-compile does not register (fuse-compile-dialects.test).
func.func @f(%x: tensor<?xf32>) -> tensor<?xf32> {
  %n = arith.constant 4 : index
  %e = tensor.empty(%n) : tensor<?xf32>
  %y = linalg.abs ins(%x : tensor<?xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  return %y : tensor<?xf32>
}
