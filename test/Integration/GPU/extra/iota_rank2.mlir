// ARGS: rand:37x129 rand:5x7x33
// RULE: exact
// Iotas of rank > 1 in flat elementwise groups (the kernel addresses every
// tensor at its flat index and recovers the coordinate along `dim`): along
// each dimension of a rank-2 and a rank-3 shape, fused with maps over
// inputs of that shape, plus one with no tensor input at all.
func.func @iota_rank2(%x: tensor<?x?xf32>, %y: tensor<?x?x?xf32>)
    -> (tensor<?x?xf32>, tensor<?x?xi32>, tensor<?x?x?xf32>, tensor<?x?x?xi64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %r = tensor.dim %x, %c0 : tensor<?x?xf32>
  %c = tensor.dim %x, %c1 : tensor<?x?xf32>
  %i0 = fuse.iota %r, %c dim 0 : tensor<?x?xf32>
  %i1 = fuse.iota %r, %c dim 1 : tensor<?x?xf32>
  %m = fuse.map %x, %i0, %i1 : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32> {
  ^bb0(%a: f32, %p: f32, %q: f32):
    %k = arith.constant 1000.0 : f32
    %pk = arith.mulf %p, %k : f32
    %s = arith.addf %pk, %q : f32
    %t = arith.addf %s, %a : f32
    fuse.yield %t : f32
  }
  %j = fuse.iota %c, %r dim 1 : tensor<?x?xi32>
  %d0 = tensor.dim %y, %c0 : tensor<?x?x?xf32>
  %d1 = tensor.dim %y, %c1 : tensor<?x?x?xf32>
  %d2 = tensor.dim %y, %c2 : tensor<?x?x?xf32>
  %k1 = fuse.iota %d0, %d1, %d2 dim 1 : tensor<?x?x?xf32>
  %my = fuse.map %y, %k1 : tensor<?x?x?xf32>, tensor<?x?x?xf32> -> tensor<?x?x?xf32> {
  ^bb0(%a: f32, %p: f32):
    %t = arith.mulf %a, %p : f32
    fuse.yield %t : f32
  }
  %k0 = fuse.iota %d0, %d1, %d2 dim 0 : tensor<?x?x?xi64>
  %k2 = fuse.iota %d0, %d1, %d2 dim 2 : tensor<?x?x?xi64>
  %mk = fuse.map %k0, %k2 : tensor<?x?x?xi64>, tensor<?x?x?xi64> -> tensor<?x?x?xi64> {
  ^bb0(%a: i64, %b: i64):
    %h = arith.constant 100 : i64
    %ah = arith.muli %a, %h : i64
    %t = arith.addi %ah, %b : i64
    fuse.yield %t : i64
  }
  return %m, %j, %my, %mk : tensor<?x?xf32>, tensor<?x?xi32>, tensor<?x?x?xf32>, tensor<?x?x?xi64>
}
