// RUN: fuse-opt %s --fuse-fusion --fuse-tile --convert-fuse-to-gpu | FileCheck %s

// A searchsorted fused between two maps is one elementwise kernel: the
// needle is computed per element, the binary search (scf.while) reads the
// sorted tensor, which the block first copies into a 16 KiB shared-memory
// table when it fits (its length at most 4096 floats), reading it through
// a generic pointer that is the table or the tensor in global memory.
// CHECK: llvm.mlir.global internal @fused_g0_ew_table1() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<4096 x f32>
// CHECK-LABEL: gpu.func @fused_g0_ew(
// CHECK-SAME: %[[V:[^:]+]]: !llvm.ptr<1>, %{{[^:]+}}: i64, %[[A:[^:]+]]: !llvm.ptr<1>, %[[N:[^:]+]]: i64
// CHECK: %[[T:.+]] = llvm.mlir.addressof @fused_g0_ew_table1 : !llvm.ptr<3>
// CHECK: %[[FITS:.+]] = arith.cmpi sle, %[[N]], %c4096_i64
// CHECK: scf.for
// CHECK: llvm.load
// CHECK: llvm.store
// CHECK: gpu.barrier
// CHECK: %[[S:.+]] = llvm.addrspacecast %[[T]] : !llvm.ptr<3> to !llvm.ptr
// CHECK: %[[G:.+]] = llvm.addrspacecast %[[A]] : !llvm.ptr<1> to !llvm.ptr
// CHECK: %[[P:.+]] = llvm.select %[[FITS]], %[[S]], %[[G]] : i1, !llvm.ptr
// CHECK: scf.while
// CHECK: arith.shrui
// CHECK: llvm.getelementptr %[[P]]
// CHECK: arith.cmpf olt
// CHECK: scf.yield
func.func @fused(%a: tensor<?xf32>, %v: tensor<?xf32>) -> tensor<?xi64> {
  %w = fuse.map %v : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%x: f32):
    %c = arith.constant 1.0 : f32
    %s = arith.addf %x, %c : f32
    fuse.yield %s : f32
  }
  %i = fuse.searchsorted left %a, %w : tensor<?xf32>, tensor<?xf32> -> tensor<?xi64>
  %d = fuse.map %i : tensor<?xi64> -> tensor<?xi64> {
  ^bb0(%x: i64):
    %s = arith.addi %x, %x : i64
    fuse.yield %s : i64
  }
  return %d : tensor<?xi64>
}
