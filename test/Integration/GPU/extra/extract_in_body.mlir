// ARGS: rand:100003
// RULE: close
// x - sum(x) with the 0-d sum read by tensor.extract inside the map body:
// the kernel's preloaded 0-d operand (docs/reliability.md F12).
func.func @extract_in_body(%x: tensor<?xf32>) -> tensor<?xf32> {
  %s = fuse.reduce add %x : tensor<?xf32> -> tensor<f32>
  %m = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %e = tensor.extract %s[] : tensor<f32>
    %r = arith.subf %a, %e : f32
    fuse.yield %r : f32
  }
  return %m : tensor<?xf32>
}
