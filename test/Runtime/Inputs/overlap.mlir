// Pipelines for overlap.test (compiled with --no-fusion: one step per op).
// @scale: one elementwise step (x * 2): in place is safe.
func.func @scale(%x: tensor<?xf32>) -> tensor<?xf32> {
  %y = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %c = arith.constant 2.0 : f32
    %m = arith.mulf %a, %c : f32
    fuse.yield %m : f32
  }
  return %y : tensor<?xf32>
}
// @two: two steps that both read x; out0 (step 1) cannot replace x, which
// step 2 reads after it; out1 (the last step) can.
func.func @two(%x: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %y = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %c = arith.constant 2.0 : f32
    %m = arith.mulf %a, %c : f32
    fuse.yield %m : f32
  }
  %z = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %c = arith.constant 1.0 : f32
    %m = arith.addf %a, %c : f32
    fuse.yield %m : f32
  }
  return %y, %z : tensor<?xf32>, tensor<?xf32>
}
// @csum: an inclusive scan: in place is safe.
func.func @csum(%x: tensor<?xf32>) -> tensor<?xf32> {
  %y = fuse.scan inclusive add %x : tensor<?xf32> -> tensor<?xf32>
  return %y : tensor<?xf32>
}
