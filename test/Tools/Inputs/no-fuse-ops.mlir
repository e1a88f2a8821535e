func.func @square(%x: tensor<?xf32>) -> tensor<?xf32> {
  %y = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %m = arith.mulf %a, %a : f32
    fuse.yield %m : f32
  }
  return %y : tensor<?xf32>
}
func.func @scale(%s: f32, %t: f32) -> f32 {
  %p = arith.mulf %s, %t : f32
  return %p : f32
}
func.func @identity(%x: tensor<?xf32>) -> tensor<?xf32> {
  return %x : tensor<?xf32>
}
