// A row reduction broadcast along the columns (dims [0]) makes out[i][j]
// depend on row j's sum, not row i's: fusion must not read it as a per-row
// value. Fused and unfused runs are both checked against hand-computed
// values for m = arange(9).reshape(3,3): out = m.sum(1)[None, :] - m.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/make_npy.py %t/m.npy '<f4' 3,3 0,1,2,3,4,5,6,7,8
// RUN: fuse-run %s --arg %t/m.npy --print | FileCheck %s
// RUN: fuse-run %s --arg %t/m.npy --print --no-fusion | FileCheck %s
// CHECK: result #0: float32 array of shape (3, 3)
// CHECK-NEXT: {{\[}}[3, 11, 19],
// CHECK-NEXT: [0, 8, 16],
// CHECK-NEXT: [-3, 5, 13]]
func.func @row_result_across_rows(%m: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %r = tensor.dim %m, %c0 : tensor<?x?xf32>
  %v = fuse.reduce add %m dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %rows = fuse.broadcast %v dims [0] (%r) : tensor<?xf32> -> tensor<?x?xf32>
  %o = fuse.map %rows, %m : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32> {
  ^bb0(%a: f32, %b: f32):
    %s = arith.subf %a, %b : f32
    fuse.yield %s : f32
  }
  return %o : tensor<?x?xf32>
}
