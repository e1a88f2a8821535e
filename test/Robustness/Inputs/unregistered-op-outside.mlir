// An unregistered op consuming a fuse result (used by unregistered-op-in-body.mlir).
func.func @f(%x: tensor<?xf32>) -> tensor<?xf32> {
  %m = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    fuse.yield %a : f32
  }
  %s = "test.opaque"(%m) : (tensor<?xf32>) -> tensor<?xf32>
  return %s : tensor<?xf32>
}
