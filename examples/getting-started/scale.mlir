// scale: y = x * s, a vector times a scalar argument. docs/getting-started.md
// runs it with fuse-run on a .npy input (`--arg x.npy --arg scalar:0.5`).
// Not a benchmark workload: it lives outside examples/*.mlir, which the
// benchmark and the GPU artifacts take one file per workload from.
func.func @scale(%x: tensor<?xf32>, %s: f32) -> tensor<?xf32> {
  %y = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %p = arith.mulf %a, %s : f32
    fuse.yield %p : f32
  }
  return %y : tensor<?xf32>
}
