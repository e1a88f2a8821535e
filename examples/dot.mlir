// dot: sum(x * y) of two vectors of one length (8n bytes when fused).
func.func @dot(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<f32> {
  %p = fuse.map %x, %y : tensor<?xf32>, tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32, %b: f32):
    %m = arith.mulf %a, %b : f32
    fuse.yield %m : f32
  }
  %s = fuse.reduce add %p : tensor<?xf32> -> tensor<f32>
  return %s : tensor<f32>
}
