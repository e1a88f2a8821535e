// A map input the body never reads stays an operand of the group (the run
// time checks that its shape is the others'), but no kernel loads or
// stages it: the staged kernel's shared memory holds the f32 rows alone
// (cols * 4 bytes, not cols * 12), fuse-explain counts no bytes for it,
// and its f64 elements neither narrow the rows' vectors (4 f32, as
// softmax_rows) nor halve the items a thread holds.
// RUN: fuse-opt %s --fuse-fusion --fuse-tile -o %t.mlir
// RUN: FileCheck %s --check-prefix=TILE < %t.mlir
// RUN: fuse-opt %s --fuse-fusion --fuse-explain -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: fuse-opt %t.mlir --convert-fuse-to-gpu --canonicalize | FileCheck %s

// TILE: fuse.group row_reduce
// TILE-SAME: itemsPerThread = 16, vectorWidth = 4
// EXPLAIN: remark: group "row_reduce": read 4*n*m bytes, write 4*n*m bytes
// EXPLAIN: remark: total for @softmax_unread: 1 pass, 1 kernel, read 4*n*m bytes, write 4*n*m bytes

// CHECK-LABEL: func.func @softmax_unread(
// CHECK: arith.cmpi sle, %{{.*}}, %c4096_i64 : i64
// CHECK-NEXT: arith.cmpi sgt, %{{.*}}, %c8192_i64 : i64
// CHECK-NEXT: arith.cmpi sle, %{{.*}}, %c16384_i64 : i64
// CHECK-NEXT: arith.andi
// CHECK-NEXT: %[[RAW:.*]] = arith.muli %{{.*}}, %c4_i64 : i64
// CHECK-NEXT: %[[PAD:.*]] = arith.addi %[[RAW]], %c15_i64 : i64
// CHECK-NEXT: %[[BYTES:.*]] = arith.andi %[[PAD]], %c-16_i64 : i64
// CHECK-NEXT: arith.cmpi sle, %[[BYTES]], %c231424_i64 : i64
// CHECK-LABEL: gpu.func @softmax_unread_g0_rows_staged(
// CHECK-NOT: f64
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache =  cg
// CHECK-NOT: f64
// CHECK: gpu.return
func.func @softmax_unread(%x: tensor<?x?xf32>, %w: tensor<?x?xf64>) -> tensor<?x?xf32> {
  %c1 = arith.constant 1 : index
  %cols = tensor.dim %x, %c1 : tensor<?x?xf32>
  %max = fuse.reduce max %x dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %maxb = fuse.broadcast %max dims [1] (%cols) : tensor<?xf32> -> tensor<?x?xf32>
  %e = fuse.map %x, %maxb, %w : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf64> -> tensor<?x?xf32> {
  ^bb0(%a: f32, %m: f32, %unread: f64):
    %d = arith.subf %a, %m : f32
    %ex = math.exp %d : f32
    fuse.yield %ex : f32
  }
  %sum = fuse.reduce add %e dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %sumb = fuse.broadcast %sum dims [1] (%cols) : tensor<?xf32> -> tensor<?x?xf32>
  %y = fuse.map %e, %sumb : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32> {
  ^bb0(%a: f32, %s: f32):
    %q = arith.divf %a, %s fastmath<arcp> : f32
    fuse.yield %q : f32
  }
  return %y : tensor<?x?xf32>
}
