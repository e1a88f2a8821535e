// ARGS: rand:1003x129 rand:1003 rand:129
// RULE: close
// Rows that need fewer threads than the block (narrow-rows): 129 columns at
// 8 elements a thread: one warp a row, eight rows per block, warp
// reductions only; 1003 rows leave the last block groups past the last row:
// a row maximum, a per-row scale and a per-column bias read through
// broadcasts (rank-1 operands at the group's row and at each column), the
// rank-2 result and a row sum of it.
func.func @rows_warp(%x: tensor<?x?xf32>, %s: tensor<?xf32>, %b: tensor<?xf32>)
    -> (tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = tensor.dim %x, %c0 : tensor<?x?xf32>
  %c = tensor.dim %x, %c1 : tensor<?x?xf32>
  %m = fuse.reduce max %x dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %mb = fuse.broadcast %m dims [1] (%c) : tensor<?xf32> -> tensor<?x?xf32>
  %sb = fuse.broadcast %s dims [1] (%c) : tensor<?xf32> -> tensor<?x?xf32>
  %bb = fuse.broadcast %b dims [0] (%r) : tensor<?xf32> -> tensor<?x?xf32>
  %y = fuse.map %x, %mb, %sb, %bb : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32> {
  ^bb0(%a: f32, %mx: f32, %sc: f32, %bi: f32):
    %d = arith.subf %a, %mx : f32
    %t = arith.mulf %d, %sc : f32
    %u = arith.addf %t, %bi : f32
    fuse.yield %u : f32
  }
  %sum = fuse.reduce add %y dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  return %y, %sum, %m : tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>
}
