// Staged long rows (fuse-tile staged-rows, default 98304 bytes): a
// row_reduce group with row-wide results (softmax) copies a long row's
// operands into dynamic shared memory once and reads every walk there.
// The kernel _rows_staged takes rows past the register path whose
// operands take at most 96 KiB (each operand alignTo(cols * bytes, 16));
// the host passes that as the launch's dynamic shared memory, 0 for the
// other kernels. logsumexp_rows (one walk, no row-wide result) has none.
// RUN: fuse-opt %fuse_src_root/examples/softmax_rows.mlir --fuse-fusion --fuse-tile -o %t.mlir
// RUN: FileCheck %s --check-prefix=ATTR < %t.mlir
// RUN: fuse-opt %t.mlir --convert-fuse-to-gpu --canonicalize | FileCheck %s
// RUN: fuse-opt %fuse_src_root/examples/logsumexp_rows.mlir --fuse-fusion --fuse-tile | FileCheck %s --check-prefix=LSE
// RUN: fuse-opt %fuse_src_root/examples/softmax_rows.mlir --fuse-fusion --fuse-tile=staged-rows=0 | FileCheck %s --check-prefix=OFF
// RUN: fuse-opt %fuse_src_root/examples/softmax_rows.mlir --fuse-fusion --fuse-tile=staged-rows=0 --convert-fuse-to-gpu | FileCheck %s --check-prefix=OFFK

// ATTR: fuse.group "row_reduce"
// ATTR-SAME: staged_rows = 98304
// LSE-NOT: staged_rows
// OFF-NOT: staged_rows
// OFFK-NOT: _rows_staged

// CHECK-LABEL: func.func @softmax_rows(
// CHECK-DAG: %[[FNS:.*]] = llvm.mlir.addressof @__fuse_fn_softmax_rows_g0_rows_staged
// CHECK-DAG: %[[HS:.*]] = llvm.load %[[FNS]] atomic monotonic
// CHECK: %[[FITS:.*]] = arith.cmpi sle, %arg2, %c4096_i64
// CHECK: %[[RAW:.*]] = arith.muli %arg2, %c4_i64
// CHECK: %[[PAD:.*]] = arith.addi %[[RAW]], %c15_i64
// CHECK: %[[BYTES:.*]] = arith.andi %[[PAD]], %c-16_i64
// CHECK: %[[SFITS:.*]] = arith.cmpi sle, %[[BYTES]], %c98304_i64
// CHECK: %[[PAST:.*]] = arith.select %[[SFITS]], %[[HS]], %{{.*}} : !llvm.ptr
// CHECK: %[[B32:.*]] = arith.trunci %[[BYTES]] : i64 to i32
// CHECK: %[[SHARED:.*]] = arith.select %{{.*}}, %[[B32]], %c0_i32 : i32
// CHECK: arith.select %[[FITS]], %{{.*}}, %[[PAST]] : !llvm.ptr
// CHECK: call @fuse_launch(%{{.*}}, %{{.*}}, %c1_i32, %c1_i32, %c256_i32, %c1_i32, %c1_i32, %[[SHARED]],

// The staged kernel: a barrier, 16-byte cp.async copies on the vector path
// (element copies otherwise), a barrier, then the walks and the output
// tiles read shared memory (addrspace 3) only.
// CHECK-LABEL: gpu.func @softmax_rows_g0_rows_staged(
// CHECK: llvm.mlir.addressof @softmax_rows_g0_rows_stage : !llvm.ptr<3>
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache =  cg
// CHECK: nvvm.cp.async.wait.group 0
// CHECK: } else {
// CHECK: llvm.load %{{.*}} : !llvm.ptr<1> -> f32
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK: gpu.barrier
// CHECK: scf.for {{.*}} -> (f32, f32)
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK-NOT: !llvm.ptr<1> -> f32
// CHECK: gpu.return
