// ARGS: rand:100003
// RULE: exact
// tensor.dim inside a custom (ordered) reduce combiner: the dimension is
// a kernel size parameter (hoistRegionDims, pinnedDims). The combiner
// min(max(acc, e), n) is associative, so any tree gives the CPU's result.
func.func @combiner_dim(%x: tensor<?xi64>) -> tensor<i64> {
  %z = arith.constant 0 : i64
  %s = fuse.reduce %x init(%z : i64) : tensor<?xi64> -> tensor<i64> {
  ^bb0(%acc: i64, %e: i64):
    %c0 = arith.constant 0 : index
    %n = tensor.dim %x, %c0 : tensor<?xi64>
    %ni = arith.index_cast %n : index to i64
    %p = arith.maxsi %acc, %e : i64
    %q = arith.minsi %p, %ni : i64
    fuse.yield %q : i64
  }
  return %s : tensor<i64>
}
