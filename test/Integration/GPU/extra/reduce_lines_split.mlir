// ARGS: rand:3000x5 rand:2x4000x3 rand:70001x2
// RULE: close
// Line reductions with too few lines to fill the GPU, which the host
// splits into chunks (partials, then the line-combine kernel folding each
// line's partials in order from the init): column sums with an epilogue
// (the mean), column maxima, a sum over the middle dimension of a rank-3
// shape, and a combiner region along the long axis of a 70001x2 array
// (the value of largest magnitude, the first of ties: not a built-in
// kind), which also returns the squares it reads (side results stored as
// each chunk passes them).
func.func @reduce_lines_split(%x: tensor<?x?xf32>, %y: tensor<?x?x?xf32>, %w: tensor<?x?xf32>)
    -> (tensor<?xf32>, tensor<?xf32>, tensor<?x?xf32>, tensor<?xf32>, tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x?xf32>
  %nf = arith.index_cast %n : index to i64
  %nff = arith.sitofp %nf : i64 to f32
  %cs = fuse.reduce add %x dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  %mean = fuse.map %cs : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%s: f32):
    %m = arith.divf %s, %nff : f32
    fuse.yield %m : f32
  }
  %cm = fuse.reduce max %x dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  %mid = fuse.reduce add %y dims [1] : tensor<?x?x?xf32> -> tensor<?x?xf32>
  %sq = fuse.map %w : tensor<?x?xf32> -> tensor<?x?xf32> {
  ^bb0(%v: f32):
    %q = arith.mulf %v, %v : f32
    fuse.yield %q : f32
  }
  %z = arith.constant 0.0 : f32
  %big = fuse.reduce %w init(%z : f32) dims [0] : tensor<?x?xf32> -> tensor<?xf32> {
  ^bb0(%acc: f32, %v: f32):
    %a = math.absf %acc : f32
    %b = math.absf %v : f32
    %ge = arith.cmpf oge, %a, %b : f32
    %r = arith.select %ge, %acc, %v : f32
    fuse.yield %r : f32
  }
  return %mean, %cm, %mid, %big, %sq : tensor<?xf32>, tensor<?xf32>, tensor<?x?xf32>, tensor<?xf32>, tensor<?x?xf32>
}
