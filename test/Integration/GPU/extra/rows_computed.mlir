// ARGS: rand:1003x129 rand:77 rand:1003x129
// RULE: close
// Row groups whose body computes positions or reads at them (the row
// kernels once rejected gather, searchsorted and iota): per element of
// 1003 rows of 129 columns (narrow rows, a warp a row), the column and row
// index (iota along each dimension), a gather of a 77-element table at an
// index matrix (most of its indices, in [-100, 100], fall outside the
// table and read 0), the position of x among 64 sorted edges
// (searchsorted); reduced per row, plus a row maximum through a combiner
// region (maximumf: fuse-builtin-combiners makes it the max kind, which the
// row kernels take) and a rank-2 epilogue that reads it and the column
// index.
func.func @rows_computed(%x: tensor<?x?xf32>, %src: tensor<?xf32>, %idx: tensor<?x?xi32>)
    -> (tensor<?xf32>, tensor<?xi64>, tensor<?xf32>, tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %r = tensor.dim %x, %c0 : tensor<?x?xf32>
  %c = tensor.dim %x, %c1 : tensor<?x?xf32>
  %col = fuse.iota %r, %c dim 1 : tensor<?x?xf32>
  %row = fuse.iota %r, %c dim 0 : tensor<?x?xf32>
  %g = fuse.gather %src[%idx] : tensor<?xf32>, tensor<?x?xi32> -> tensor<?x?xf32>
  %k = fuse.iota %c64 : tensor<?xf32>
  %edges = fuse.map %k : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%i: f32):
    %h = arith.constant 32.0 : f32
    %d = arith.subf %i, %h : f32
    %e = arith.divf %d, %h : f32
    fuse.yield %e : f32
  }
  %p = fuse.searchsorted left %edges, %x : tensor<?xf32>, tensor<?x?xf32> -> tensor<?x?xi64>
  %w = fuse.map %x, %col, %row, %g : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32> {
  ^bb0(%a: f32, %ci: f32, %ri: f32, %gv: f32):
    %s = arith.constant 0.001 : f32
    %t = arith.mulf %a, %ci : f32
    %u = arith.mulf %ri, %s : f32
    %v = arith.mulf %u, %gv : f32
    %y = arith.addf %t, %v : f32
    fuse.yield %y : f32
  }
  %sw = fuse.reduce add %w dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %sp = fuse.reduce add %p dims [1] : tensor<?x?xi64> -> tensor<?xi64>
  %ninf = arith.constant 0xFF800000 : f32
  %m = fuse.reduce %x init(%ninf : f32) dims [1] : tensor<?x?xf32> -> tensor<?xf32> {
  ^bb0(%acc: f32, %e: f32):
    %mx = arith.maximumf %acc, %e : f32
    fuse.yield %mx : f32
  }
  %mb = fuse.broadcast %m dims [1] (%c) : tensor<?xf32> -> tensor<?x?xf32>
  %z = fuse.map %x, %mb, %col : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32> {
  ^bb0(%a: f32, %mv: f32, %ci: f32):
    %d = arith.subf %a, %mv : f32
    %y = arith.addf %d, %ci : f32
    fuse.yield %y : f32
  }
  return %sw, %sp, %m, %z : tensor<?xf32>, tensor<?xi64>, tensor<?xf32>, tensor<?x?xf32>
}
