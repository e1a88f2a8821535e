// ARGS: rand:37x129 rand:5x7x33 rand:0x5
// RULE: close
// Lone partial reductions the row kernels do not take (the line-reduce
// kernel: a thread per line of the outer x len x inner view): column sums
// and maxima of a rank-2 shape, a minimum over the middle dimension of a
// rank-3 shape, row sums through a combiner region, a column reduction
// over zero rows (every output is the init), and a full reduction of a
// rank-3 tensor through a combiner region (the ordered reduce kernels,
// reading the flat index), and one over a map's values that returns them
// too (side results stored by the ordered partial kernel).
func.func @reduce_lines(%x: tensor<?x?xf32>, %y: tensor<?x?x?xf32>, %e: tensor<?x?xf32>)
    -> (tensor<?xf32>, tensor<?xf32>, tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<f32>, tensor<f32>, tensor<?x?xf32>) {
  %cs = fuse.reduce add %x dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  %cm = fuse.reduce max %x dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  %mid = fuse.reduce min %y dims [1] : tensor<?x?x?xf32> -> tensor<?x?xf32>
  %z = arith.constant 0.5 : f32
  %rows = fuse.reduce %x init(%z : f32) dims [1] : tensor<?x?xf32> -> tensor<?xf32> {
  ^bb0(%acc: f32, %v: f32):
    %s = arith.addf %acc, %v : f32
    fuse.yield %s : f32
  }
  %i = arith.constant 2.0 : f32
  %empty = fuse.reduce add %e init(%i : f32) dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  %z0 = arith.constant 0.0 : f32
  %big = fuse.reduce %y init(%z0 : f32) : tensor<?x?x?xf32> -> tensor<f32> {
  ^bb0(%acc: f32, %v: f32):
    %a = math.absf %acc : f32
    %b = math.absf %v : f32
    %ge = arith.cmpf oge, %a, %b : f32
    %r = arith.select %ge, %acc, %v : f32
    fuse.yield %r : f32
  }
  %sq = fuse.map %x : tensor<?x?xf32> -> tensor<?x?xf32> {
  ^bb0(%a: f32):
    %m = arith.mulf %a, %a : f32
    %one = arith.constant 1.0 : f32
    %s = arith.subf %m, %one : f32
    fuse.yield %s : f32
  }
  %lo = arith.constant 5.0 : f32
  %least = fuse.reduce %sq init(%lo : f32) : tensor<?x?xf32> -> tensor<f32> {
  ^bb0(%acc: f32, %v: f32):
    %r = arith.minimumf %acc, %v : f32
    fuse.yield %r : f32
  }
  return %cs, %cm, %mid, %rows, %empty, %big, %least, %sq : tensor<?xf32>, tensor<?xf32>, tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<f32>, tensor<f32>, tensor<?x?xf32>
}
