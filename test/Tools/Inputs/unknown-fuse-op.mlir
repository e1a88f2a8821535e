func.func @f() {
  %0 = fuse.sort : tensor<4xi32>
  return
}
