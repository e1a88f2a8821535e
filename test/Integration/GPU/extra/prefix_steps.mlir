// ARGS: rand:1000003 scalar:700001
// RULE: close
// Steps over a prefix whose count is a device buffer (as an earlier
// pipeline's filter leaves it through NAME_ws): the prefix returned (a
// copy), a map, a reduction with a map prologue and a scan of it. The
// kernels read the count on the device; the NAME form reads it on the
// host only for the returned counts, the workspace form clamps it into
// the caller's count words on the device.
func.func @prefix_steps(%x: tensor<?xf32>, %n: tensor<i64>)
    -> (tensor<?xf32>, tensor<?xf32>, tensor<f32>, tensor<?xf32>) {
  %p = fuse.prefix %x, %n : tensor<?xf32>, tensor<i64> -> tensor<?xf32>
  %d = fuse.map %p : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %t = arith.constant 0.5 : f32
    %m = arith.addf %a, %t : f32
    fuse.yield %m : f32
  }
  %sq = fuse.map %p : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %m = arith.mulf %a, %a : f32
    fuse.yield %m : f32
  }
  %s = fuse.reduce add %sq : tensor<?xf32> -> tensor<f32>
  %c = fuse.scan inclusive add %p : tensor<?xf32> -> tensor<?xf32>
  return %p, %d, %s, %c : tensor<?xf32>, tensor<?xf32>, tensor<f32>, tensor<?xf32>
}
