// copy: y = x, an identity map. The bandwidth ceiling (8n bytes moved).
func.func @copy(%x: tensor<?xf32>) -> tensor<?xf32> {
  %y = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    fuse.yield %a : f32
  }
  return %y : tensor<?xf32>
}
