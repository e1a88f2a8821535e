// RUN: fuse-opt %s --fuse-fusion --fuse-tile --convert-fuse-to-gpu | FileCheck %s

// A scan with a combiner region (here the composition of affine maps,
// associative but not commutative) runs the single-pass scan kernel on its
// values alone: no identity and no "has value" flag. The inits are tile
// 0's prefix, and the block scan selects by position where nothing comes
// before, so the workgroup buffers hold the two values (per warp, the
// prefix, the look-back stash) and nothing more, and the region's
// arithmetic runs on them directly.
// CHECK-LABEL: module attributes
// CHECK: gpu.func @affine_g0_scan(
// CHECK-SAME: workgroup(%{{[^ ]+}} : memref<2xi64, #gpu.address_space<workgroup>> {{[{][^}]*[}]}}, %{{[^ ]+}} : memref<16xi32, #gpu.address_space<workgroup>> {{[{][^}]*[}]}}, %{{[^ ]+}} : memref<16xi32, #gpu.address_space<workgroup>> {{[{][^}]*[}]}}, %{{[^ ]+}} : memref<1xi32,
// CHECK-NOT: arith.ori %{{.*}}, %{{.*}} : i32
// CHECK: arith.muli %{{.*}}, %{{.*}} : i32
// CHECK-NOT: arith.ori %{{.*}}, %{{.*}} : i32
// CHECK: gpu.return
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
