// ARGS: rand:100003x7 rand:3x2000x16 rand:700x8 rand:5000x256
// RULE: close
// Line reductions with built-in kinds over lines of at most a block's
// threads (inner <= 256) whose slices hold at least 16 elements a thread:
// the tile kernel (a block a contiguous run of rows, R = 256 / inner rows
// a step, the rows of each column folded through shared memory), then
// partials folded by the line-combine kernel, or, for a single chunk, the
// results stored by the tile kernel itself. Column sums of a map's values
// from a non-identity init that also return the values (side results),
// column maxima over 7 columns (R = 36 rows a step, 4 threads idle),
// integer column sums (exact), a sum over the middle dimension of a
// rank-3 shape (outer slices x chunks), a single chunk with an init (700
// x 8: 5600 elements, one chunk), and maxima over exactly 256 columns.
func.func @reduce_lines_tile(%x: tensor<?x?xf32>, %y: tensor<?x?x?xf32>, %s: tensor<?x?xf32>, %w: tensor<?x?xf32>)
    -> (tensor<?xf32>, tensor<?x?xf32>, tensor<?xf32>, tensor<?xi32>, tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>) {
  %sq = fuse.map %x : tensor<?x?xf32> -> tensor<?x?xf32> {
  ^bb0(%a: f32):
    %m = arith.mulf %a, %a : f32
    %one = arith.constant 1.0 : f32
    %r = arith.subf %m, %one : f32
    fuse.yield %r : f32
  }
  %i15 = arith.constant 1.5 : f32
  %cs = fuse.reduce add %sq init(%i15 : f32) dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  %cm = fuse.reduce max %x dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  %xi = fuse.map %x : tensor<?x?xf32> -> tensor<?x?xi32> {
  ^bb0(%a: f32):
    %k = arith.constant 1000.0 : f32
    %m = arith.mulf %a, %k : f32
    %i = arith.fptosi %m : f32 to i32
    fuse.yield %i : i32
  }
  %ci = fuse.reduce add %xi dims [0] : tensor<?x?xi32> -> tensor<?xi32>
  %mid = fuse.reduce add %y dims [1] : tensor<?x?x?xf32> -> tensor<?x?xf32>
  %i2 = arith.constant 2.0 : f32
  %one = fuse.reduce add %s init(%i2 : f32) dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  %wc = fuse.reduce max %w dims [0] : tensor<?x?xf32> -> tensor<?xf32>
  return %cs, %sq, %cm, %ci, %mid, %one, %wc : tensor<?xf32>, tensor<?x?xf32>, tensor<?xf32>, tensor<?xi32>, tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>
}
