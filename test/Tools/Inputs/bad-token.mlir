func.func @f() {
  %0 = fuse.iota : tensor<4xi32> $$$
  return
}
