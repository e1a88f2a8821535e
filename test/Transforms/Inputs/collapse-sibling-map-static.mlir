// The static-shape twin of ../collapse-sibling-map.mlir's @rows_and_sibling
// (fuse-run of fuse-collapse-rows' output needs static shapes).

func.func @rows_and_sibling(%x: tensor<3x4x33xi32>) -> (tensor<3x4x33xi32>, tensor<3x4x33xi32>) {
  %sq = fuse.map %x : tensor<3x4x33xi32> -> tensor<3x4x33xi32> {
  ^bb0(%a: i32):
    %p = arith.muli %a, %a : i32
    fuse.yield %p : i32
  }
  %m = fuse.reduce max %x dims [2] : tensor<3x4x33xi32> -> tensor<3x4xi32>
  %b = fuse.broadcast %m dims [2] : tensor<3x4xi32> -> tensor<3x4x33xi32>
  %d = fuse.map %x, %b : tensor<3x4x33xi32>, tensor<3x4x33xi32> -> tensor<3x4x33xi32> {
  ^bb0(%a: i32, %y: i32):
    %s = arith.subi %y, %a : i32
    fuse.yield %s : i32
  }
  return %d, %sq : tensor<3x4x33xi32>, tensor<3x4x33xi32>
}
