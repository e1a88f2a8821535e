// ARGS: rand:7x33x1000
// RULE: close
// Sum of squares over the last axis of a rank-3 array: the map x * x is
// collapsed with the row reduction it feeds (fuse-collapse-rows), so the
// GPU reads x once, in the row kernel.
func.func @rows3_sumsq(%x: tensor<?x?x?xf32>) -> tensor<?x?xf32> {
  %m = fuse.map %x : tensor<?x?x?xf32> -> tensor<?x?x?xf32> {
  ^bb0(%a: f32):
    %r = arith.mulf %a, %a : f32
    fuse.yield %r : f32
  }
  %s = fuse.reduce add %m dims [2] : tensor<?x?x?xf32> -> tensor<?x?xf32>
  return %s : tensor<?x?xf32>
}
