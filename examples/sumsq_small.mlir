// sumsq_small: sum(x * x), as sumsq, for 4096 elements called back to back
// (the launch-bound regime).
func.func @sumsq_small(%x: tensor<?xf32>) -> tensor<f32> {
  %sq = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %p = arith.mulf %a, %a : f32
    fuse.yield %p : f32
  }
  %s = fuse.reduce add %sq : tensor<?xf32> -> tensor<f32>
  return %s : tensor<f32>
}
