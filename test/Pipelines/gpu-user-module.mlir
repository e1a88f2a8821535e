// REQUIRES: cuda-toolkit
// A GPU module of another origin beside fuse's (as a compiler embedding
// the pipeline may hold): its kernels and its device functions go through
// the same function-by-function cleanups and lowering as fuse's kernels
// (the `any` nesting: a device function's scf.for is lowered too, not
// left for convert-gpu-to-nvvm to reject), and each module becomes its own
// gpu.binary.
// RUN: fuse-opt %s --fuse-to-ptx | FileCheck %s

// CHECK: gpu.binary @user
// CHECK-SAME: .func  (.param .b32 func_retval0) helper(
// CHECK-SAME: add.rn.f32
// CHECK-SAME: .entry k(
// CHECK: gpu.binary @fuse_kernels
// CHECK-SAME: .entry sumsq_g0_partial(

module attributes {gpu.container_module} {
  gpu.module @user {
    func.func @helper(%n: index) -> f32 {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %z = arith.constant 0.0 : f32
      %o = arith.constant 1.0 : f32
      %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %z) -> f32 {
        %b = arith.addf %a, %o : f32
        scf.yield %b : f32
      }
      return %r : f32
    }
    gpu.func @k(%p: memref<?xf32>, %n: index) kernel {
      %v = func.call @helper(%n) : (index) -> f32
      %c0 = arith.constant 0 : index
      memref.store %v, %p[%c0] : memref<?xf32>
      gpu.return
    }
  }
  func.func @sumsq(%x: tensor<?xf32>) -> tensor<f32> {
    %sq = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
    ^bb0(%a: f32):
      %m = arith.mulf %a, %a : f32
      fuse.yield %m : f32
    }
    %s = fuse.reduce add %sq : tensor<?xf32> -> tensor<f32>
    return %s : tensor<f32>
  }
}
