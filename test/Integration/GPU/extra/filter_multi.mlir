// ARGS: rand:100003 rand:100003
// RULE: exact
// A filter of two inputs of different widths (f32 and i64, so two
// shared-scatter buffers of different element sizes) fused with its
// prologue map, which the group also returns at full length; 100003
// elements leave a partial last tile.
func.func @filter_multi(%x: tensor<?xf32>, %k: tensor<?xi64>)
    -> (tensor<?xf32>, tensor<?xi64>, tensor<?xf32>) {
  %y = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %two = arith.constant 2.0 : f32
    %m = arith.mulf %a, %two : f32
    fuse.yield %m : f32
  }
  %fy, %fk = fuse.filter %y, %k : tensor<?xf32>, tensor<?xi64> -> tensor<?xf32>, tensor<?xi64> {
  ^bb0(%a: f32, %b: i64):
    %z = arith.constant 0.0 : f32
    %p = arith.cmpf ogt, %a, %z : f32
    fuse.yield %p : i1
  }
  return %fy, %fk, %y : tensor<?xf32>, tensor<?xi64>, tensor<?xf32>
}
