// ARGS: rand:100003 rand:100003
// RULE: close
// Two filters' kept values combined: their counts must be equal, and both
// are known only on the device. The host reads both and compares them
// before the map runs (run-fuse-run-tests.sh calls it with 5 and 7
// elements and expects the size mismatch); here every element is kept
// (the data lies in [-1, 1)), so the counts agree.
func.func @kept_pair(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %z = arith.constant -2.0 : f32
  %k = fuse.filter %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %p = arith.cmpf ogt, %a, %z : f32
    fuse.yield %p : i1
  }
  %j = fuse.filter %y : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %p = arith.cmpf ogt, %a, %z : f32
    fuse.yield %p : i1
  }
  %m = fuse.map %k, %j : tensor<?xf32>, tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.subf %a, %b : f32
    fuse.yield %s : f32
  }
  return %m : tensor<?xf32>
}
