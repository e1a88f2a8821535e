// ARGS: rand:100003
// RULE: exact
// An iota sized by a filter's count, returned without the filter: its
// out0_count (gpu-filter-derived.mlir) must give the kept count.
func.func @iota_of_count(%x: tensor<?xf32>) -> tensor<?xi64> {
  %f = fuse.filter %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %z = arith.constant 0.0 : f32
    %p = arith.cmpf ogt, %a, %z : f32
    fuse.yield %p : i1
  }
  %c0 = arith.constant 0 : index
  %n = tensor.dim %f, %c0 : tensor<?xf32>
  %io = fuse.iota %n : tensor<?xi64>
  return %io : tensor<?xi64>
}
