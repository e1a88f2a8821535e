// RUN: fuse-opt %s --convert-fuse-to-gpu -split-input-file -verify-diagnostics | FileCheck %s

// An elementwise group: one kernel, a C-ABI host function that checks the
// pointers' alignment for the 16-byte path and launches nothing for n = 0.
// CHECK-LABEL: module attributes
// CHECK-SAME: fuse.entries = [#fuse.entry<name = "chain", groups = 1, inputs = [tensor<?xf32>], outputs = [#fuse.entry_output<type = tensor<?xf32>, sizes = [#fuse.size<source = arg_dim>], count = none>], workspace = available>]
// CHECK: llvm.mlir.global internal constant @fuse_kernels_image
// CHECK: func.func @chain(%{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr) -> i32
// CHECK: call @fuse_module_load
// CHECK: arith.andi %{{.*}}, %c15_i64
// CHECK: call @fuse_launch
// CHECK: gpu.module @fuse_kernels
// CHECK: gpu.func @chain_g0_ew(%{{.*}}: !llvm.ptr<1>, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: !llvm.ptr<1>) kernel
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<1>
// CHECK-NOT: gpu.func
func.func @chain(%x: tensor<?xf32>) -> tensor<?xf32> {
  %y = fuse.group elementwise (%x) : (tensor<?xf32>) -> tensor<?xf32> {
  ^bb0(%a: tensor<?xf32>):
    %c = arith.constant 1.5 : f32
    %m = fuse.map %a : tensor<?xf32> -> tensor<?xf32> {
    ^bb0(%e: f32):
      %p = arith.mulf %e, %c : f32
      fuse.yield %p : f32
    }
    fuse.yield %m : tensor<?xf32>
  }
  return %y : tensor<?xf32>
}

// -----

// A reduce group: a partial kernel with shuffles and shared memory, and a
// one-block finish; the host takes one launch for small inputs.
// CHECK-LABEL: module attributes
// CHECK: func.func @sumsq
// CHECK: arith.cmpi sle, %{{.*}}, %c32768_i64
// CHECK: call @fuse_malloc
// CHECK: call @fuse_free
// CHECK: gpu.func @sumsq_g0_partial
// CHECK-SAME: workgroup(%{{.*}} : memref<32xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK: gpu.shuffle  xor
// CHECK: gpu.barrier
// CHECK: gpu.func @sumsq_g0_finish
func.func @sumsq(%x: tensor<?xf32>) -> tensor<f32> {
  %s = fuse.group reduce (%x) : (tensor<?xf32>) -> tensor<f32> {
  ^bb0(%a: tensor<?xf32>):
    %m = fuse.map %a : tensor<?xf32> -> tensor<?xf32> {
    ^bb0(%e: f32):
      %p = arith.mulf %e, %e : f32
      fuse.yield %p : f32
    }
    %r = fuse.reduce add %m : tensor<?xf32> -> tensor<f32>
    fuse.yield %r : tensor<f32>
  }
  return %s : tensor<f32>
}

// (Custom combiners and row_reduce groups: row-reduce.mlir.)


// -----

// An i1 tensor at a group's boundary (fuse-bool-bytes, which the GPU
// pipeline runs first, makes it bytes).
func.func @bad_kind(%x: tensor<?xi1>) -> tensor<?xi1> {
  // expected-error @+1 {{element type 'i1' cannot be read or written by a kernel}}
  %y = fuse.group elementwise (%x) : (tensor<?xi1>) -> tensor<?xi1> {
  ^bb0(%a: tensor<?xi1>):
    fuse.yield %a : tensor<?xi1>
  }
  return %y : tensor<?xi1>
}
