func.func @f() {
  %0 = fuse.frobnicate : tensor<4xi32>
  return
}
