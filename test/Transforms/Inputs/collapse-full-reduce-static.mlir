// The static-shape twin of ../collapse-full-reduce.mlir's @rows_then_max: the
// rewrite keeps static shapes.

func.func @rows_then_max(%x: tensor<3x4x33xf32>) -> (tensor<3x4x33xf32>, tensor<f32>) {
  %s = fuse.reduce add %x dims [2] : tensor<3x4x33xf32> -> tensor<3x4xf32>
  %b = fuse.broadcast %s dims [2] : tensor<3x4xf32> -> tensor<3x4x33xf32>
  %m = fuse.map %b, %x : tensor<3x4x33xf32>, tensor<3x4x33xf32> -> tensor<3x4x33xf32> {
  ^bb0(%a: f32, %y: f32):
    %d = arith.addf %y, %a : f32
    fuse.yield %d : f32
  }
  %t = fuse.reduce max %m : tensor<3x4x33xf32> -> tensor<f32>
  %e = fuse.map %m, %b : tensor<3x4x33xf32>, tensor<3x4x33xf32> -> tensor<3x4x33xf32> {
  ^bb0(%a: f32, %y: f32):
    %p = arith.mulf %a, %y : f32
    fuse.yield %p : f32
  }
  return %e, %t : tensor<3x4x33xf32>, tensor<f32>
}

