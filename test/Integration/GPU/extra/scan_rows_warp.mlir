// ARGS: rand:257x1000 rand:33x2x257 rand:5x1 rand:7x256
// RULE: exact
// Scans along the last dimension (a warp a row, lanes taking 16 bytes of
// items each): integer results, so any association gives the CPU's bits.
// Rows of 1000 (i32: 4 items a lane, 128 a chunk: 7 whole chunks and a
// partial one), rows of 257 i64 (2 items a lane: a chunk of 64 plus one),
// a non-commutative combiner region (affine maps composed in order, a pair
// of i16: 8 items a lane), rows of one element, and rows of exactly two
// chunks (i16, 256 elements); inclusive and exclusive, with inits, a
// prologue and an epilogue.
func.func @scan_rows_warp(%x: tensor<?x?xf32>, %y: tensor<?x?x?xf32>,
                          %u: tensor<?x?xf32>, %w: tensor<?x?xf32>)
    -> (tensor<?x?xi32>, tensor<?x?xi32>, tensor<?x?x?xi64>, tensor<?x?x?xi16>,
        tensor<?x?x?xi16>, tensor<?x?xi32>, tensor<?x?xi16>) {
  %q = fuse.map %x : tensor<?x?xf32> -> tensor<?x?xi32> {
  ^bb0(%a: f32):
    %k = arith.constant 1000.0 : f32
    %s = arith.mulf %a, %k : f32
    %i = arith.fptosi %s : f32 to i32
    fuse.yield %i : i32
  }
  %init = arith.constant -7 : i32
  %mx = fuse.scan exclusive max %q init(%init : i32) : tensor<?x?xi32> -> tensor<?x?xi32>
  %sum = fuse.scan inclusive add %q : tensor<?x?xi32> -> tensor<?x?xi32>
  %e = fuse.map %sum, %q : tensor<?x?xi32>, tensor<?x?xi32> -> tensor<?x?xi32> {
  ^bb0(%a: i32, %b: i32):
    %t = arith.subi %a, %b : i32
    fuse.yield %t : i32
  }
  %l = fuse.map %y : tensor<?x?x?xf32> -> tensor<?x?x?xi64> {
  ^bb0(%a: f32):
    %k = arith.constant 4.0e9 : f32
    %s = arith.mulf %a, %k : f32
    %i = arith.fptosi %s : f32 to i64
    fuse.yield %i : i64
  }
  %big = fuse.scan inclusive add %l : tensor<?x?x?xi64> -> tensor<?x?x?xi64>
  // y[i] = a[i] * y[i-1] + b[i] in i16 (wrapping), as affine maps composed
  // left to right: (a1, b1) then (a2, b2) is (a1 * a2, b1 * a2 + b2).
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
  %r:2 = fuse.scan inclusive %ab#0, %ab#1 init(%i1, %i0 : i16, i16) : tensor<?x?x?xi16>, tensor<?x?x?xi16> -> tensor<?x?x?xi16>, tensor<?x?x?xi16> {
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
  %ones = fuse.scan exclusive add %one init(%init : i32) : tensor<?x?xi32> -> tensor<?x?xi32>
  %h = fuse.map %w : tensor<?x?xf32> -> tensor<?x?xi16> {
  ^bb0(%a: f32):
    %k = arith.constant 50.0 : f32
    %s = arith.mulf %a, %k : f32
    %i = arith.fptosi %s : f32 to i16
    fuse.yield %i : i16
  }
  %hx = fuse.scan exclusive xor %h : tensor<?x?xi16> -> tensor<?x?xi16>
  return %mx, %e, %big, %r#0, %r#1, %ones, %hx : tensor<?x?xi32>, tensor<?x?xi32>, tensor<?x?x?xi64>, tensor<?x?x?xi16>, tensor<?x?x?xi16>, tensor<?x?xi32>, tensor<?x?xi16>
}
