// ARGS: rand:1000 scalar:700
// RULE: close
// A prefix of a filter's kept elements (about 500 of 1000) by a count
// between their number and the filter's capacity: the prefix takes all of
// them and nothing past them (the count is clamped to the kept count,
// which the host reads first, not to the capacity).
func.func @prefix_of_kept(%x: tensor<?xf32>, %n: tensor<i64>)
    -> (tensor<?xf32>, tensor<f32>) {
  %k = fuse.filter %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %t = arith.constant 0.0 : f32
    %q = arith.cmpf ogt, %a, %t : f32
    fuse.yield %q : i1
  }
  %p = fuse.prefix %k, %n : tensor<?xf32>, tensor<i64> -> tensor<?xf32>
  %d = fuse.map %p : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %m = arith.addf %a, %a : f32
    fuse.yield %m : f32
  }
  %s = fuse.reduce add %p : tensor<?xf32> -> tensor<f32>
  return %d, %s : tensor<?xf32>, tensor<f32>
}
