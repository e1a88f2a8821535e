// fuse-fusion recomputes cheap map producers in every consumer group
// (fuse-fusion.mlir, @cheap_recompute), but never one whose body has side
// effects: an unregistered op (--allow-unregistered-dialect) may have any,
// so the map runs once and its result is read from memory.
// RUN: fuse-opt --allow-unregistered-dialect %s --fuse-fusion | FileCheck %s

// CHECK-LABEL: func.func @f
// CHECK-COUNT-1: "test.effect"
// CHECK-NOT: "test.effect"
// CHECK: has side effects: materialised once and read from memory
// CHECK-NOT: "test.effect"
func.func @f(%x: tensor<?xf32>) -> (tensor<f32>, tensor<?xf32>) {
  %sq = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %p = "test.effect"(%a) : (f32) -> f32
    fuse.yield %p : f32
  }
  %s = fuse.reduce add %sq : tensor<?xf32> -> tensor<f32>
  %c = fuse.scan inclusive add %sq : tensor<?xf32> -> tensor<?xf32>
  return %s, %c : tensor<f32>, tensor<?xf32>
}
