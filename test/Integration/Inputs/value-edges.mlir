// Value-edge pipeline of value-edges.test: maps (x * x, exp, sqrt, the
// ordered compare x < 0 as a select), sum / max / min reductions, add and
// max scans and the filter x > 0, all from one f32 input.
func.func @edges(%x: tensor<?xf32>)
    -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>,
        tensor<f32>, tensor<f32>, tensor<f32>, tensor<?xf32>, tensor<?xf32>,
        tensor<?xf32>) {
  %zero = arith.constant 0.0 : f32
  %sq, %e, %r, %s = fuse.map %x : tensor<?xf32>
      -> tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32> {
  ^bb0(%a: f32):
    %p = arith.mulf %a, %a : f32
    %q = math.exp %a : f32
    %t = math.sqrt %a : f32
    %lt = arith.cmpf olt, %a, %zero : f32
    %sel = arith.select %lt, %zero, %a : f32
    fuse.yield %p, %q, %t, %sel : f32, f32, f32, f32
  }
  %sum, %max, %min = fuse.reduce (add, max, min) %x, %x, %x
      : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>
      -> tensor<f32>, tensor<f32>, tensor<f32>
  %cs = fuse.scan inclusive add %x : tensor<?xf32> -> tensor<?xf32>
  %cm = fuse.scan inclusive max %x : tensor<?xf32> -> tensor<?xf32>
  %pos = fuse.filter %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %gt = arith.cmpf ogt, %a, %zero : f32
    fuse.yield %gt : i1
  }
  return %sq, %e, %r, %s, %sum, %max, %min, %cs, %cm, %pos
      : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>,
        tensor<f32>, tensor<f32>, tensor<f32>, tensor<?xf32>, tensor<?xf32>,
        tensor<?xf32>
}
