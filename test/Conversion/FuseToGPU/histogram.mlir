// RUN: fuse-opt %s --fuse-fusion --fuse-tile --convert-fuse-to-gpu | FileCheck %s
// RUN: fuse-opt %s --fuse-fusion --fuse-tile --convert-fuse-to-gpu | FileCheck %s --check-prefix=DEAD

// A histogram of bins computed by a map, fused with it and with another
// map of the same input into one group: the host zeroes the counts
// (fuse_memset of 4 i64), then launches the shared-memory kernel (dynamic
// shared memory for the counts) or, when they do not fit, the one counting
// in global memory. The f32 streams keep 4-wide vectors: the i64 counts
// take no part in them. The workspace form exists (nothing is allocated).
// CHECK-LABEL: func.func @binned_square(
// CHECK: call @fuse_memset(%arg2, %{{.+}}, %{{.+}}, %arg4)
// CHECK: call @fuse_launch(
// CHECK: call @fuse_launch(
// CHECK-NOT: call @fuse_malloc
// CHECK: return
// CHECK-LABEL: func.func @binned_square_ws(
// CHECK: gpu.func @binned_square_g0_count(
// CHECK-SAME: %arg2: i64, %arg3: i64, %arg4: i64, %arg5: !llvm.ptr<1>, %arg6: !llvm.ptr<1>)
// CHECK: llvm.mlir.addressof @binned_square_g0_count_stage : !llvm.ptr<3>
// CHECK: gpu.barrier
// CHECK: llvm.load %{{.+}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: llvm.atomicrmw add %{{.+}}, %{{.+}} syncscope("device") monotonic : !llvm.ptr<3>, i32
// CHECK: gpu.barrier
// CHECK: llvm.atomicrmw add %{{.+}}, %{{.+}} syncscope("device") monotonic : !llvm.ptr<1>, i64
// CHECK: gpu.func @binned_square_g0_count_global(
// CHECK-NOT: !llvm.ptr<3>
// CHECK: llvm.atomicrmw add %{{.+}}, %{{.+}} syncscope("device") monotonic : !llvm.ptr<1>, i64
// CHECK: gpu.return
func.func @binned_square(%x: tensor<?xf32>) -> (tensor<4xi64>, tensor<?xf32>) {
  %b = fuse.map %x : tensor<?xf32> -> tensor<?xi64> {
  ^bb0(%a: f32):
    %c4 = arith.constant 4.0 : f32
    %m = arith.mulf %a, %c4 : f32
    %f = math.floor %m : f32
    %i = arith.fptosi %f : f32 to i64
    fuse.yield %i : i64
  }
  %c = fuse.histogram %b : tensor<?xi64> -> tensor<4xi64>
  %y = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %m = arith.mulf %a, %a : f32
    fuse.yield %m : f32
  }
  return %c, %y : tensor<4xi64>, tensor<?xf32>
}

// A dynamic bin count is a kernel argument; i32 counts take i32 atomics.
// CHECK-LABEL: gpu.func @bincount_g0_count(
// CHECK: llvm.atomicrmw add %{{.+}}, %{{.+}} syncscope("device") monotonic : !llvm.ptr<3>, i32
// CHECK: llvm.atomicrmw add %{{.+}}, %{{.+}} syncscope("device") monotonic : !llvm.ptr<1>, i32
func.func @bincount(%x: tensor<?xi8>, %n: index) -> tensor<?xi32> {
  %c = fuse.histogram %x bins(%n) : tensor<?xi8> -> tensor<?xi32>
  return %c : tensor<?xi32>
}

// Counts nobody reads, in a group with a map that is returned: the
// kernels store the map and count nothing (no memset, no atomics).
// DEAD-LABEL: func.func @dead_counts(
// DEAD-NOT: call @fuse_memset
// DEAD: call @fuse_launch
// DEAD-LABEL: gpu.func @dead_counts_g0_count(
// DEAD-NOT: llvm.atomicrmw
// DEAD: gpu.return
func.func @dead_counts(%x: tensor<?xi32>) -> tensor<?xi32> {
  %c = fuse.histogram %x : tensor<?xi32> -> tensor<16xi64>
  %y = fuse.map %x : tensor<?xi32> -> tensor<?xi32> {
  ^bb0(%a: i32):
    %m = arith.muli %a, %a : i32
    fuse.yield %m : i32
  }
  return %y : tensor<?xi32>
}
