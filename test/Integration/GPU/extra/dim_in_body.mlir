// ARGS: rand:100003
// RULE: close
// tensor.dim of the input inside the map body ("divide by n"): the kernel's
// dimension parameter (docs/reliability.md F12).
func.func @dim_in_body(%x: tensor<?xf32>) -> tensor<?xf32> {
  %m = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %c0 = arith.constant 0 : index
    %n = tensor.dim %x, %c0 : tensor<?xf32>
    %ni = arith.index_cast %n : index to i64
    %nf = arith.sitofp %ni : i64 to f32
    %r = arith.divf %a, %nf : f32
    fuse.yield %r : f32
  }
  return %m : tensor<?xf32>
}
