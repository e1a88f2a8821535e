// ARGS: rand:3000x5 rand:2x4000x3 rand:100x7
// RULE: exact
// Scans along a dimension but the last with too few lines to fill the
// GPU, which the host splits into chunks (a partials kernel, then each
// chunk scanned from the init folded with the partials before it):
// integer results, so any association gives the CPU's bits. Columns of
// 3000 (5 lines: 23 chunks of 131, the last shorter), inclusive and
// exclusive with an init; the middle dimension of 2x4000x3 (6 lines: 31
// chunks of 130) in i64 with an epilogue, and a non-commutative combiner
// region over it (affine maps composed in order, a pair of i16); columns
// of 100 (under two chunks of 128: one chunk, the line from the init).
func.func @scan_lines_split(%x: tensor<?x?xf32>, %y: tensor<?x?x?xf32>,
                            %u: tensor<?x?xf32>)
    -> (tensor<?x?xi32>, tensor<?x?xi32>, tensor<?x?x?xi64>, tensor<?x?x?xi16>,
        tensor<?x?x?xi16>, tensor<?x?xi32>) {
  %q = fuse.map %x : tensor<?x?xf32> -> tensor<?x?xi32> {
  ^bb0(%a: f32):
    %k = arith.constant 1000.0 : f32
    %s = arith.mulf %a, %k : f32
    %i = arith.fptosi %s : f32 to i32
    fuse.yield %i : i32
  }
  %init = arith.constant -7 : i32
  %sum = fuse.scan inclusive add %q dim 0 : tensor<?x?xi32> -> tensor<?x?xi32>
  %mx = fuse.scan exclusive max %q init(%init : i32) dim 0 : tensor<?x?xi32> -> tensor<?x?xi32>
  %l = fuse.map %y : tensor<?x?x?xf32> -> tensor<?x?x?xi64> {
  ^bb0(%a: f32):
    %k = arith.constant 4.0e9 : f32
    %s = arith.mulf %a, %k : f32
    %i = arith.fptosi %s : f32 to i64
    fuse.yield %i : i64
  }
  %big = fuse.scan inclusive add %l dim 1 : tensor<?x?x?xi64> -> tensor<?x?x?xi64>
  %e = fuse.map %big, %l : tensor<?x?x?xi64>, tensor<?x?x?xi64> -> tensor<?x?x?xi64> {
  ^bb0(%a: i64, %b: i64):
    %t = arith.subi %a, %b : i64
    fuse.yield %t : i64
  }
  // y[i] = a[i] * y[i-1] + b[i] in i16 (wrapping), as affine maps composed
  // in order: (a1, b1) then (a2, b2) is (a1 * a2, b1 * a2 + b2).
  %ab:2 = fuse.map %y : tensor<?x?x?xf32> -> tensor<?x?x?xi16>, tensor<?x?x?xi16> {
  ^bb0(%a: f32):
    %k = arith.constant 7.0 : f32
    %s = arith.mulf %a, %k : f32
    %i = arith.fptosi %s : f32 to i16
    %one = arith.constant 1 : i16
    %m = arith.ori %i, %one : i16
    %k2 = arith.constant 3000.0 : f32
    %s2 = arith.mulf %a, %k2 : f32
    %j = arith.fptosi %s2 : f32 to i16
    fuse.yield %m, %j : i16, i16
  }
  %i1 = arith.constant 1 : i16
  %i0 = arith.constant 5 : i16
  %r:2 = fuse.scan inclusive %ab#0, %ab#1 init(%i1, %i0 : i16, i16) dim 1 : tensor<?x?x?xi16>, tensor<?x?x?xi16> -> tensor<?x?x?xi16>, tensor<?x?x?xi16> {
  ^bb0(%a1: i16, %b1: i16, %a2: i16, %b2: i16):
    %a = arith.muli %a1, %a2 : i16
    %p = arith.muli %b1, %a2 : i16
    %b = arith.addi %p, %b2 : i16
    fuse.yield %a, %b : i16, i16
  }
  %one = fuse.map %u : tensor<?x?xf32> -> tensor<?x?xi32> {
  ^bb0(%a: f32):
    %k = arith.constant 100.0 : f32
    %s = arith.mulf %a, %k : f32
    %i = arith.fptosi %s : f32 to i32
    fuse.yield %i : i32
  }
  %ones = fuse.scan exclusive add %one init(%init : i32) dim 0 : tensor<?x?xi32> -> tensor<?x?xi32>
  return %sum, %mx, %e, %r#0, %r#1, %ones : tensor<?x?xi32>, tensor<?x?xi32>, tensor<?x?x?xi64>, tensor<?x?x?xi16>, tensor<?x?x?xi16>, tensor<?x?xi32>
}
