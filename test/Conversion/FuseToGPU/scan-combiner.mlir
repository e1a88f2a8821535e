// RUN: fuse-opt %s --fuse-fusion --fuse-tile --convert-fuse-to-gpu | FileCheck %s

// A scan with a combiner region (here the composition of affine maps,
// associative but not commutative) runs the single-pass scan kernel: its
// values travel with an i32 "has value" flag, which stands in for the
// identity a region does not have (partial tiles, empty prefixes). The
// flagged combination selects by the two flags around the region's
// arithmetic.
// CHECK-LABEL: module attributes
// CHECK: gpu.func @affine_g0_scan(
// CHECK: arith.cmpi ne, %{{.*}}, %{{.*}} : i32
// CHECK: arith.muli %{{.*}}, %{{.*}} : i32
// CHECK: arith.andi %{{.*}}, %{{.*}} : i1
// CHECK: arith.ori %{{.*}}, %{{.*}} : i32
// CHECK-NOT: custom combiner regions are not supported
func.func @affine(%a: tensor<?xi32>, %b: tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>) {
  %one = arith.constant 1 : i32
  %zero = arith.constant 0 : i32
  %A, %B = fuse.scan inclusive %a, %b init(%one, %zero : i32, i32)
      : tensor<?xi32>, tensor<?xi32> -> tensor<?xi32>, tensor<?xi32> {
  ^bb0(%pa: i32, %pb: i32, %ea: i32, %eb: i32):
    %na = arith.muli %ea, %pa : i32
    %m = arith.muli %ea, %pb : i32
    %nb = arith.addi %m, %eb : i32
    fuse.yield %na, %nb : i32, i32
  }
  return %A, %B : tensor<?xi32>, tensor<?xi32>
}
