// ARGS: rand:1000 scalar:5000 rand:1000
// RULE: close
// A count past the source's end takes all of it (clamped on the device and
// on the host): the prefix is zipped with another input, so the host reads
// the count and checks it against that input's size (equal once clamped),
// and a filter of the prefix keeps its count on the device.
func.func @prefix_clamped(%x: tensor<?xf32>, %n: tensor<i64>, %y: tensor<?xf32>)
    -> (tensor<?xf32>, tensor<?xf32>, tensor<f32>) {
  %p = fuse.prefix %x, %n : tensor<?xf32>, tensor<i64> -> tensor<?xf32>
  %z = fuse.map %p, %y : tensor<?xf32>, tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32, %b: f32):
    %m = arith.mulf %a, %b : f32
    fuse.yield %m : f32
  }
  %k = fuse.filter %p : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %t = arith.constant 0.0 : f32
    %q = arith.cmpf olt, %a, %t : f32
    fuse.yield %q : i1
  }
  %s = fuse.reduce add %k : tensor<?xf32> -> tensor<f32>
  return %z, %k, %s : tensor<?xf32>, tensor<?xf32>, tensor<f32>
}
