// ARGS: rand:37x129 rand:37x129 rand:5x7x33
// RULE: close
// Scans over rank > 1 tensors (the line-scan kernel: a thread per line of
// the outer x len x inner view, a warp per row along the last dimension;
// rows of 129 f32 are a whole chunk of 128 and one more element): along
// rows and columns of a rank-2 shape
// with a prologue map, an exclusive max with an init over integers, and
// along the middle dimension of a rank-3 shape with an epilogue map.
func.func @scan_rank2(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>, %y: tensor<?x?x?xf32>)
    -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xi32>, tensor<?x?x?xf32>) {
  %sq = fuse.map %x, %w : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32> {
  ^bb0(%a: f32, %b: f32):
    %t = arith.mulf %a, %b : f32
    fuse.yield %t : f32
  }
  %rows = fuse.scan inclusive add %sq dim 1 : tensor<?x?xf32> -> tensor<?x?xf32>
  %cols = fuse.scan inclusive add %x dim 0 : tensor<?x?xf32> -> tensor<?x?xf32>
  %q = fuse.map %w : tensor<?x?xf32> -> tensor<?x?xi32> {
  ^bb0(%a: f32):
    %k = arith.constant 1000.0 : f32
    %s = arith.mulf %a, %k : f32
    %i = arith.fptosi %s : f32 to i32
    fuse.yield %i : i32
  }
  %init = arith.constant -7 : i32
  %mx = fuse.scan exclusive max %q init(%init : i32) dim 0 : tensor<?x?xi32> -> tensor<?x?xi32>
  %mid = fuse.scan inclusive add %y dim 1 : tensor<?x?x?xf32> -> tensor<?x?x?xf32>
  %e = fuse.map %mid, %y : tensor<?x?x?xf32>, tensor<?x?x?xf32> -> tensor<?x?x?xf32> {
  ^bb0(%a: f32, %b: f32):
    %t = arith.subf %a, %b : f32
    fuse.yield %t : f32
  }
  return %rows, %cols, %mx, %e : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xi32>, tensor<?x?x?xf32>
}
