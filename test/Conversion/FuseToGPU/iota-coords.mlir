// RUN: fuse-opt %s --convert-fuse-to-gpu -split-input-file | FileCheck %s
// Coordinates of an iota in flat kernels: an elementwise kernel reads
// and writes 4 consecutive elements a chunk, and only the chunk's first
// lane divides its flat index; the next lanes step the coordinate (and
// the remainder modulo the stride) with an add, a compare and a select.

// Along the leading dimension: flat / cols for lane 0, then a carry where
// the remainder wraps at cols; no remainder by rows.
// CHECK-LABEL: gpu.func @rowid_g0_ew(
// CHECK: llvm.load %{{.*}} -> vector<4xf32>
// CHECK: arith.divui %{{.*}}, %[[COLS:.*]] : index
// CHECK-NOT: arith.divui
// CHECK-NOT: arith.remui
// CHECK: arith.cmpi eq, %{{.*}}, %[[COLS]] : index
// CHECK-NOT: arith.divui
// CHECK-NOT: arith.remui
// CHECK: llvm.store %{{.*}} : vector<4xf32>, !llvm.ptr<1>
func.func @rowid(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = tensor.dim %x, %c0 : tensor<?x?xf32>
  %c = tensor.dim %x, %c1 : tensor<?x?xf32>
  %y = fuse.group elementwise (%x, %r, %c) : (tensor<?x?xf32>, index, index) -> tensor<?x?xf32> {
  ^bb0(%a: tensor<?x?xf32>, %n: index, %m: index):
    %i = fuse.iota %n, %m dim 0 : tensor<?x?xf32>
    %s = fuse.map %a, %i : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32> {
    ^bb0(%p: f32, %q: f32):
      %o = arith.addf %p, %q : f32
      fuse.yield %o : f32
    }
    fuse.yield %s : tensor<?x?xf32>
  }
  return %y : tensor<?x?xf32>
}

// -----

// Along the last dimension: flat mod cols for lane 0, then +1 wrapping at
// cols.
// CHECK-LABEL: gpu.func @colid_g0_ew(
// CHECK: llvm.load %{{.*}} -> vector<4xf32>
// CHECK: arith.remui %{{.*}}, %[[COLS:.*]] : index
// CHECK-NOT: arith.divui
// CHECK-NOT: arith.remui
// CHECK: arith.cmpi eq, %{{.*}}, %[[COLS]] : index
// CHECK-NOT: arith.divui
// CHECK-NOT: arith.remui
// CHECK: arith.cmpi eq, %{{.*}}, %[[COLS]] : index
// CHECK-NOT: arith.divui
// CHECK-NOT: arith.remui
// CHECK: arith.cmpi eq, %{{.*}}, %[[COLS]] : index
// CHECK-NOT: arith.divui
// CHECK-NOT: arith.remui
// CHECK: llvm.store %{{.*}} : vector<4xf32>, !llvm.ptr<1>
func.func @colid(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = tensor.dim %x, %c0 : tensor<?x?xf32>
  %c = tensor.dim %x, %c1 : tensor<?x?xf32>
  %y = fuse.group elementwise (%x, %r, %c) : (tensor<?x?xf32>, index, index) -> tensor<?x?xf32> {
  ^bb0(%a: tensor<?x?xf32>, %n: index, %m: index):
    %i = fuse.iota %n, %m dim 1 : tensor<?x?xf32>
    %s = fuse.map %a, %i : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32> {
    ^bb0(%p: f32, %q: f32):
      %o = arith.addf %p, %q : f32
      fuse.yield %o : f32
    }
    fuse.yield %s : tensor<?x?xf32>
  }
  return %y : tensor<?x?xf32>
}

// -----

// A full reduction that reads no tensor (of an iota) takes chunks of 4
// computed elements (4 accumulators a thread), so that their coordinates
// step too: one division a chunk.
// CHECK-LABEL: gpu.func @iotamax_g0_partial(
// CHECK: scf.for {{.*}} -> (i64, f64, f64, f64, f64)
// CHECK: arith.divui %{{.*}}, %[[COLS:.*]] : index
// CHECK-NOT: arith.divui
// CHECK: arith.maximumf
// CHECK-NOT: arith.divui
// CHECK: arith.cmpi eq, %{{.*}}, %[[COLS]] : index
// CHECK-NOT: arith.divui
// CHECK: arith.maximumf
// CHECK-NOT: arith.divui
// CHECK: arith.cmpi eq, %{{.*}}, %[[COLS]] : index
// CHECK-NOT: arith.divui
// CHECK: arith.maximumf
// CHECK-NOT: arith.divui
// CHECK: arith.cmpi eq, %{{.*}}, %[[COLS]] : index
// CHECK-NOT: arith.divui
// CHECK: arith.maximumf
// CHECK: arith.divui
func.func @iotamax(%r: index, %c: index) -> tensor<f64> {
  %y = fuse.group reduce (%r, %c) : (index, index) -> tensor<f64> {
  ^bb0(%n: index, %m: index):
    %i = fuse.iota %n, %m dim 0 : tensor<?x?xf64>
    %lo = arith.constant -1.0 : f64
    %s = fuse.reduce max %i init(%lo : f64) : tensor<?x?xf64> -> tensor<f64>
    fuse.yield %s : tensor<f64>
  }
  return %y : tensor<f64>
}
