func.func @f(%x: tensor<?xf32>) -> tensor<?xf32> {
  %s = fuse.scan forward add %x : tensor<?xf32> -> tensor<?xf32>
  return %s : tensor<?xf32>
}
