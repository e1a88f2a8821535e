// fuse-to-cpu lowers every fuse op down to the LLVM dialect: nothing of
// fuse, scf, memref, tensor, arith or func is left.
// RUN: fuse-opt %s --fuse-to-cpu | FileCheck %s
// RUN: fuse-opt %s --fuse-to-cpu | FileCheck %s --check-prefix=ONLY-LLVM

// ONLY-LLVM-NOT: fuse.
// ONLY-LLVM-NOT: scf.
// ONLY-LLVM-NOT: memref.
// ONLY-LLVM-NOT: tensor.
// ONLY-LLVM-NOT: bufferization.
// ONLY-LLVM-NOT: arith.
// ONLY-LLVM-NOT: func.func
// ONLY-LLVM-NOT: cf.
// ONLY-LLVM-NOT: unrealized_conversion_cast

// CHECK-LABEL: llvm.func @all_ops
// CHECK: llvm.return
func.func @all_ops(%x: tensor<?xf32>, %idx: tensor<?xi32>, %m: tensor<?x?xf32>)
    -> (tensor<f32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?x?xf32>,
        tensor<?xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %sq = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %p = arith.mulf %a, %a : f32
    fuse.yield %p : f32
  }
  %s = fuse.reduce add %sq : tensor<?xf32> -> tensor<f32>
  %cs = fuse.scan exclusive max %x : tensor<?xf32> -> tensor<?xf32>
  %pos = fuse.filter %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %p = arith.cmpf ogt, %a, %zero : f32
    fuse.yield %p : i1
  }
  %io = fuse.iota %n : tensor<?xf32>
  %g = fuse.gather %io[%idx] : tensor<?xf32>, tensor<?xi32> -> tensor<?xf32>
  %b = fuse.broadcast %g dims [1] (%n) : tensor<?xf32> -> tensor<?x?xf32>
  %rows = fuse.reduce %m init(%zero : f32) dims [1] : tensor<?x?xf32> -> tensor<?xf32> {
  ^bb0(%acc: f32, %e: f32):
    %d = arith.subf %acc, %e : f32
    fuse.yield %d : f32
  }
  return %s, %cs, %pos, %g, %b, %rows
      : tensor<f32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?x?xf32>,
        tensor<?xf32>
}

// Integer kinds and small element types lower too.
// CHECK-LABEL: llvm.func @int_kinds
func.func @int_kinds(%x: tensor<?x?xi8>, %b: tensor<?xi1>) -> (tensor<?xi8>, tensor<i1>, tensor<?x?xi8>) {
  %r = fuse.reduce xor %x dims [0] : tensor<?x?xi8> -> tensor<?xi8>
  %a = fuse.reduce and %b : tensor<?xi1> -> tensor<i1>
  %c = fuse.scan inclusive (min) %x dim 0 : tensor<?x?xi8> -> tensor<?x?xi8>
  return %r, %a, %c : tensor<?xi8>, tensor<i1>, tensor<?x?xi8>
}
