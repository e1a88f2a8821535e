// scan: y = inclusive prefix sum of x * x (8n bytes when fused).
func.func @scan(%x: tensor<?xf32>) -> tensor<?xf32> {
  %sq = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %p = arith.mulf %a, %a : f32
    fuse.yield %p : f32
  }
  %y = fuse.scan inclusive add %sq : tensor<?xf32> -> tensor<?xf32>
  return %y : tensor<?xf32>
}
