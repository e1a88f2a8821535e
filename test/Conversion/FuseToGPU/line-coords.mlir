// RUN: fuse-opt %s --convert-fuse-to-gpu | FileCheck %s
// A line kernel's element k of a line sits at flat index
// o * len * inner + k * inner + i, so an iota along the line dimension is
// k itself: after the line's own division into (o, i), the element loops
// convert k without dividing the flat index.

// CHECK-LABEL: gpu.func @colmax_g0_linereduce(
// CHECK: arith.divui %{{.*}}, %{{.*}} : i64
// CHECK: arith.remui %{{.*}}, %{{.*}} : i64
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %c4_i64
// CHECK-NOT: arith.divui
// CHECK-NOT: arith.remui
// CHECK: arith.sitofp %{{.*}} : i64 to f32
// CHECK-NOT: arith.divui
// CHECK-NOT: arith.remui
// CHECK: arith.maximumf
// CHECK-NOT: arith.divui
// CHECK-NOT: arith.remui
// CHECK: gpu.return
func.func @colmax(%r: index, %c: index) -> tensor<?xf32> {
  %y = fuse.group line_reduce (%r, %c) : (index, index) -> tensor<?xf32> {
  ^bb0(%n: index, %m: index):
    %i = fuse.iota %n, %m dim 0 : tensor<?x?xf32>
    %lo = arith.constant -1.0 : f32
    %s = fuse.reduce max %i init(%lo : f32) dims [0] : tensor<?x?xf32> -> tensor<?xf32>
    fuse.yield %s : tensor<?xf32>
  }
  return %y : tensor<?xf32>
}
