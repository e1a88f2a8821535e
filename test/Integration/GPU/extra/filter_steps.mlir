// ARGS: rand:3001
// RULE: close
// A chain of steps over a filter's kept elements, each reading the count
// on the device: a map (returned, with the filter's count), a second
// filter of the mapped elements (its own count, and its tiles sized by the
// first count), and a scan; 3001 elements leave partial tiles.
func.func @filter_steps(%x: tensor<?xf32>)
    -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) {
  %y = fuse.filter %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %t = arith.constant 0.0 : f32
    %p = arith.cmpf ogt, %a, %t : f32
    fuse.yield %p : i1
  }
  %z = fuse.map %y : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %two = arith.constant 2.0 : f32
    %m = arith.mulf %a, %two : f32
    fuse.yield %m : f32
  }
  %w = fuse.filter %z : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %one = arith.constant 1.0 : f32
    %p = arith.cmpf olt, %a, %one : f32
    fuse.yield %p : i1
  }
  %c = fuse.scan inclusive add %z : tensor<?xf32> -> tensor<?xf32>
  return %z, %w, %c : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>
}
