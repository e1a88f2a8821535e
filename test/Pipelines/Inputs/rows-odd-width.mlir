// Rows 2049 wide: never on the vector path (2049 % 4 != 0).
func.func @lse_odd(%x: tensor<8x2049xf32>) -> tensor<8xf32> {
  %m = fuse.reduce max %x dims [1] : tensor<8x2049xf32> -> tensor<8xf32>
  return %m : tensor<8xf32>
}
