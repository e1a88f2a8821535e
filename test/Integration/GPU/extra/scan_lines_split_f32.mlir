// ARGS: rand:8192x16 rand:5x2 rand:40000x3
// RULE: close
// Float scans along a dimension but the last, split into chunks where
// lines are few: column sums of 8192 x 16 (64 chunks of 128, the most a
// line takes) with a prologue (x * x); a 5 x 2 array (one chunk); a
// running maximum with an init over 40000 x 3 (128 chunks of 313) with an
// epilogue (the maximum less the element).
// The chunks' partials reassociate the sums: close, not exact.
func.func @scan_lines_split_f32(%x: tensor<?x?xf32>, %s: tensor<?x?xf32>, %w: tensor<?x?xf32>)
    -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) {
  %sq = fuse.map %x : tensor<?x?xf32> -> tensor<?x?xf32> {
  ^bb0(%a: f32):
    %t = arith.mulf %a, %a : f32
    fuse.yield %t : f32
  }
  %cs = fuse.scan inclusive add %sq dim 0 : tensor<?x?xf32> -> tensor<?x?xf32>
  %small = fuse.scan exclusive add %s dim 0 : tensor<?x?xf32> -> tensor<?x?xf32>
  %init = arith.constant -1.0 : f32
  %mx = fuse.scan inclusive max %w init(%init : f32) dim 0 : tensor<?x?xf32> -> tensor<?x?xf32>
  %d = fuse.map %mx, %w : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32> {
  ^bb0(%a: f32, %b: f32):
    %t = arith.subf %a, %b : f32
    fuse.yield %t : f32
  }
  return %cs, %small, %mx, %d : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>
}
