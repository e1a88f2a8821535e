// chain: y = relu(1.5 * x + 0.25) * 0.5 + x, a chain of elementwise maps
// (8n bytes when fused into one pass).
func.func @chain(%x: tensor<?xf32>) -> tensor<?xf32> {
  %c1_5 = arith.constant 1.5 : f32
  %c0_25 = arith.constant 0.25 : f32
  %c0_5 = arith.constant 0.5 : f32
  %zero = arith.constant 0.0 : f32
  %t = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %m = arith.mulf %a, %c1_5 : f32
    %s = arith.addf %m, %c0_25 : f32
    fuse.yield %s : f32
  }
  %r = fuse.map %t : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %m = arith.maximumf %a, %zero : f32
    fuse.yield %m : f32
  }
  %y = fuse.map %r, %x : tensor<?xf32>, tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32, %b: f32):
    %h = arith.mulf %a, %c0_5 : f32
    %s = arith.addf %h, %b : f32
    fuse.yield %s : f32
  }
  return %y : tensor<?xf32>
}
