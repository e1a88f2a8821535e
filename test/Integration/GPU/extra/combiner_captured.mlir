// ARGS: rand:100003
// RULE: exact
// A combiner that uses a constant defined above it (the kernels make the
// constant at each use: test/Robustness/combiner-captured-constant.mlir).
// min(max(acc, e), 7) is associative, so any tree gives the CPU's result.
func.func @combiner_captured(%x: tensor<?xf32>) -> tensor<i64> {
  %z = arith.constant -1000 : i64
  %k = arith.constant 7 : i64
  %i = fuse.map %x : tensor<?xf32> -> tensor<?xi64> {
  ^bb0(%a: f32):
    %c = arith.constant 100.0 : f32
    %s = arith.mulf %a, %c : f32
    %v = arith.fptosi %s : f32 to i64
    fuse.yield %v : i64
  }
  %s = fuse.reduce %i init(%z : i64) : tensor<?xi64> -> tensor<i64> {
  ^bb0(%a: i64, %b: i64):
    %m = arith.maxsi %a, %b : i64
    %q = arith.minsi %m, %k : i64
    fuse.yield %q : i64
  }
  return %s : tensor<i64>
}
