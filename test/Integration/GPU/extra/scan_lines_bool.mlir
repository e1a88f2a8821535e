// ARGS: rand:50x3000 rand:3x45x7 rand:37x1000
// RULE: exact
// Line scans of narrow elements, each thread reading 16 of a line's
// elements before it combines and stores them: a parity (xor) scan of an
// i1 matrix's columns (i1 accumulators take the unsplit kernel; 50 rows
// are 3 steps of 16 and 2 more) with an epilogue widening it, an
// exclusive or-scan along the middle dimension of a rank-3 i1 tensor (45:
// 2 steps and 13 more), and a max scan of i8 columns (the split kernel:
// 37 rows, one chunk).
func.func @scan_lines_bool(%b: tensor<?x?xi1>, %c: tensor<?x?x?xi1>, %x: tensor<?x?xi8>)
    -> (tensor<?x?xi1>, tensor<?x?xi16>, tensor<?x?x?xi1>, tensor<?x?xi8>) {
  %p = fuse.scan inclusive xor %b dim 0 : tensor<?x?xi1> -> tensor<?x?xi1>
  %e = fuse.map %p : tensor<?x?xi1> -> tensor<?x?xi16> {
  ^bb0(%a: i1):
    %w = arith.extsi %a : i1 to i16
    fuse.yield %w : i16
  }
  %f = arith.constant false
  %o = fuse.scan exclusive or %c init(%f : i1) dim 1 : tensor<?x?x?xi1> -> tensor<?x?x?xi1>
  %m = fuse.scan inclusive max %x dim 0 : tensor<?x?xi8> -> tensor<?x?xi8>
  return %p, %e, %o, %m : tensor<?x?xi1>, tensor<?x?xi16>, tensor<?x?x?xi1>, tensor<?x?xi8>
}
