// A map of a row reduction's result that comes after another group's use
// of that result (here a scan of the broadcast maximum) joins the row
// group: fusion moves the scan's group after the map (the two do not
// depend on each other), so the row group, which lands at its last op,
// still comes before the scan that reads it, and x is read once (without
// the move: three passes, x read twice). Where the map reads the scan's
// result it cannot join: the row group would depend on itself. Nor where
// an op with side effects reads it earlier: such an op keeps its place.
// RUN: fuse-opt %s --fuse-fusion | FileCheck %s
// RUN: fuse-opt %s --fuse-fusion --fuse-explain -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: rm -rf %t && mkdir -p %t
// RUN: fuse-run %s --entry sunk --arg rand:64x256 --out %t/a
// RUN: fuse-run %s --entry sunk --arg rand:64x256 --no-fusion --out %t/b
// RUN: %python -c "import numpy as n, sys; [n.testing.assert_array_equal(n.load(sys.argv[1] + f'/result{i}.npy'), n.load(sys.argv[2] + f'/result{i}.npy')) for i in (0, 1)]" %t/a %t/b

// EXPLAIN: remark: total for @sunk: 2 passes, 2 kernels, read 65792 bytes, write 131328 bytes
// EXPLAIN: not fused with fuse.reduce at {{.*}} (row_reduce group): it depends on a group that reads this group's results (one group would depend on itself)
// EXPLAIN: remark: total for @cycle: 2 passes, 2 kernels
// EXPLAIN: not fused with fuse.reduce at {{.*}} (row_reduce group): the ops reading its results earlier would move, among them func.call at {{.*}}, which has side effects
// EXPLAIN: remark: total for @effect: 3 passes, 3 kernels

// CHECK-LABEL: func.func @sunk
// CHECK: %[[R:.+]]:2 = fuse.group row_reduce
// CHECK: fuse.reduce max
// CHECK: fuse.map
// CHECK: fuse.yield
// CHECK: %[[S:.+]] = fuse.group scan (%[[R]]#0)
// CHECK: return %[[S]], %[[R]]#1
func.func @sunk(%x: tensor<64x256xf32>) -> (tensor<64x256xf32>, tensor<64x256xf32>) {
  %m = fuse.reduce max %x dims [1] : tensor<64x256xf32> -> tensor<64xf32>
  %b = fuse.broadcast %m dims [1] : tensor<64xf32> -> tensor<64x256xf32>
  %s = fuse.scan inclusive add %b dim 1 : tensor<64x256xf32> -> tensor<64x256xf32>
  %d = fuse.map %b, %x : tensor<64x256xf32>, tensor<64x256xf32> -> tensor<64x256xf32> {
  ^bb0(%p: f32, %q: f32):
    %r = arith.subf %q, %p : f32
    fuse.yield %r : f32
  }
  return %s, %d : tensor<64x256xf32>, tensor<64x256xf32>
}

// CHECK-LABEL: func.func @cycle
// CHECK: %[[R:.+]] = fuse.group row_reduce
// CHECK: fuse.group scan (%[[R]]
// CHECK: fuse.scan
// CHECK: fuse.map
func.func @cycle(%x: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %m = fuse.reduce max %x dims [1] : tensor<64x256xf32> -> tensor<64xf32>
  %b = fuse.broadcast %m dims [1] : tensor<64xf32> -> tensor<64x256xf32>
  %s = fuse.scan inclusive add %b dim 1 : tensor<64x256xf32> -> tensor<64x256xf32>
  %d = fuse.map %b, %x, %s : tensor<64x256xf32>, tensor<64x256xf32>, tensor<64x256xf32> -> tensor<64x256xf32> {
  ^bb0(%p: f32, %q: f32, %t: f32):
    %r = arith.subf %q, %p : f32
    %u = arith.addf %r, %t : f32
    fuse.yield %u : f32
  }
  return %d : tensor<64x256xf32>
}

// CHECK-LABEL: func.func @effect
// CHECK: fuse.group row_reduce
// CHECK: fuse.group elementwise
// CHECK: call @observe(
// CHECK: fuse.group elementwise
// (A call counts as having side effects whatever its callee does.)
func.func @observe(%t: tensor<64x256xf32>) {
  return
}
func.func @effect(%x: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %m = fuse.reduce max %x dims [1] : tensor<64x256xf32> -> tensor<64xf32>
  %b = fuse.broadcast %m dims [1] : tensor<64xf32> -> tensor<64x256xf32>
  func.call @observe(%b) : (tensor<64x256xf32>) -> ()
  %d = fuse.map %b, %x : tensor<64x256xf32>, tensor<64x256xf32> -> tensor<64x256xf32> {
  ^bb0(%p: f32, %q: f32):
    %r = arith.subf %q, %p : f32
    fuse.yield %r : f32
  }
  return %d : tensor<64x256xf32>
}
