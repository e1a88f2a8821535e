// ARGS: rand:1000003
// RULE: close
// Steps over a filter's kept elements read the count on the device (no
// wait for the host in either form of the entry): a reduction with a map
// prologue, a scan whose maximum is taken, and a reduction over a filter
// that keeps nothing (the launch is sized by the capacity; the kernels
// find no element and give the identity). No count is returned, so both
// forms of the entry can be captured into a CUDA graph.
func.func @filter_reduce(%x: tensor<?xf32>)
    -> (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) {
  %y = fuse.filter %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %t = arith.constant 0.25 : f32
    %p = arith.cmpf ogt, %a, %t : f32
    fuse.yield %p : i1
  }
  %sq = fuse.map %y : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %m = arith.mulf %a, %a : f32
    fuse.yield %m : f32
  }
  %s = fuse.reduce add %sq : tensor<?xf32> -> tensor<f32>
  %c = fuse.scan inclusive add %y : tensor<?xf32> -> tensor<?xf32>
  %cm = fuse.reduce max %c : tensor<?xf32> -> tensor<f32>
  %e = fuse.filter %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %t = arith.constant 2.0 : f32
    %p = arith.cmpf ogt, %a, %t : f32
    fuse.yield %p : i1
  }
  %es = fuse.reduce add %e : tensor<?xf32> -> tensor<f32>
  %em = fuse.reduce max %e : tensor<?xf32> -> tensor<f32>
  return %s, %cm, %es, %em : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>
}
