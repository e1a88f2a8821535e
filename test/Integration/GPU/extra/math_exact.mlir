// ARGS: rand:100003 rand:100003
// RULE: exact
// Correctly rounded sqrt (sqrt.rn, F9), trunc and the bit counts
// (convert-math-to-llvm, F11): bit for bit the CPU backend's results.
func.func @math_exact(%x: tensor<?xf32>, %i: tensor<?xi32>) -> (tensor<?xf32>, tensor<?xf32>, tensor<?xi32>) {
  %r:2 = fuse.map %x : tensor<?xf32> -> tensor<?xf32>, tensor<?xf32> {
  ^bb0(%a: f32):
    %big = arith.constant 1000.0 : f32
    %ab = math.absf %a : f32
    %s = math.sqrt %ab : f32
    %y = arith.mulf %a, %big : f32
    %t = math.trunc %y : f32
    fuse.yield %s, %t : f32, f32
  }
  %b = fuse.map %i : tensor<?xi32> -> tensor<?xi32> {
  ^bb0(%v: i32):
    %l = math.ctlz %v : i32
    %z = math.cttz %v : i32
    %p = math.ctpop %v : i32
    %a = math.absi %v : i32
    %s1 = arith.addi %l, %z : i32
    %s2 = arith.muli %p, %a : i32
    %s = arith.addi %s1, %s2 : i32
    fuse.yield %s : i32
  }
  return %r#0, %r#1, %b : tensor<?xf32>, tensor<?xf32>, tensor<?xi32>
}
