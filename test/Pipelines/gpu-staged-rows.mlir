// Staged long rows (fuse-tile staged-rows, default 232448 bytes, lowered
// to what the chip allows a block less 1 KiB: sm_90 231424, sm_80 165888,
// sm_86 100352): a row_reduce group with row-wide results (softmax)
// copies a long row's operands into dynamic shared memory once and reads
// every walk there. Two kernels built on their own take rows past the
// register paths (the group's 256 threads x 16 f32, and the wide kernel's
// 1024 x 16 from half its capacity: 8193-16384 f32) whose operands fit
// (each operand alignTo(cols * bytes, 16)): _rows_staged with the group's 256 threads, and for rows over half
// the limit (one block an SM) _rows_staged_wide with staged-threads
// (1024). The host passes the bytes as the launch's dynamic shared memory
// (0 for the other kernels) and the chosen kernel's threads.
// logsumexp_rows (one walk, no row-wide result) has none.
// RUN: fuse-opt %fuse_src_root/examples/softmax_rows.mlir --fuse-fusion --fuse-tile -o %t.mlir
// RUN: FileCheck %s --check-prefix=ATTR < %t.mlir
// RUN: fuse-opt %t.mlir --convert-fuse-to-gpu --canonicalize | FileCheck %s
// RUN: fuse-opt %t.mlir --fuse-attach-target=chip=sm_80 --convert-fuse-to-gpu --canonicalize | FileCheck %s --check-prefix=SM80
// RUN: fuse-opt %t.mlir --fuse-attach-target=chip=sm_86 --convert-fuse-to-gpu --canonicalize | FileCheck %s --check-prefix=SM86
// RUN: fuse-opt %fuse_src_root/examples/logsumexp_rows.mlir --fuse-fusion --fuse-tile | FileCheck %s --check-prefix=LSE
// RUN: fuse-opt %fuse_src_root/examples/softmax_rows.mlir --fuse-fusion --fuse-tile=staged-rows=0 | FileCheck %s --check-prefix=OFF
// RUN: fuse-opt %fuse_src_root/examples/softmax_rows.mlir --fuse-fusion --fuse-tile=staged-rows=0 --convert-fuse-to-gpu | FileCheck %s --check-prefix=OFFK
// RUN: fuse-opt %fuse_src_root/examples/softmax_rows.mlir --fuse-fusion --fuse-tile="staged-threads=256 wide-row-threads=0" --convert-fuse-to-gpu --canonicalize | FileCheck %s --check-prefix=T256
// RUN: fuse-opt %fuse_src_root/examples/softmax_rows.mlir --fuse-fusion --fuse-tile=staged-rows=100000 --convert-fuse-to-gpu | FileCheck %s --check-prefix=HALF
// RUN: not fuse-opt %fuse_src_root/examples/softmax_rows.mlir --fuse-fusion --fuse-tile=staged-threads=100 2>&1 | FileCheck %s --check-prefix=BAD

// ATTR: fuse.group row_reduce
// ATTR-SAME: stagedRows = 232448
// ATTR-SAME: stagedThreads = 1024
// LSE-NOT: stagedRows
// OFF-NOT: stagedRows
// OFFK-NOT: _rows_staged
// SM80: arith.cmpi sle, %{{.*}}, %c165888_i64
// SM80: arith.cmpi sgt, %{{.*}}, %c82944_i64
// SM86: arith.cmpi sle, %{{.*}}, %c100352_i64
// T256: call @fuse_launch(%{{.*}}, %{{.*}}, %c1_i32, %c1_i32, %c256_i32, %c1_i32, %c1_i32,
// T256: gpu.func @softmax_rows_g0_rows_staged(
// T256-NOT: _rows_staged_wide
// HALF: gpu.func @softmax_rows_g0_rows_staged(
// HALF-NOT: _rows_staged_wide
// BAD: staged-threads must be 0 or a multiple of 32 up to the target's threads per block (1024), not 100

// CHECK-LABEL: func.func @softmax_rows(
// CHECK-DAG: %[[FNS:.*]] = llvm.mlir.addressof @__fuse_fn_softmax_rows_g0_rows_staged :
// CHECK-DAG: %[[FNW:.*]] = llvm.mlir.addressof @__fuse_fn_softmax_rows_g0_rows_staged_wide :
// CHECK-DAG: %[[HS:.*]] = llvm.load %[[FNS]] atomic monotonic
// CHECK-DAG: %[[HW:.*]] = llvm.load %[[FNW]] atomic monotonic
// CHECK-DAG: %[[FNR:.*]] = llvm.mlir.addressof @__fuse_fn_softmax_rows_g0_rows_wide :
// CHECK-DAG: %[[HR:.*]] = llvm.load %[[FNR]] atomic monotonic
// CHECK: %[[FITS:.*]] = arith.cmpi sle, %arg2, %c4096_i64
// CHECK: %[[OVERH:.*]] = arith.cmpi sgt, %arg2, %c8192_i64
// CHECK: %[[RCAP:.*]] = arith.cmpi sle, %arg2, %c16384_i64
// CHECK: %[[RFITS:.*]] = arith.andi %[[RCAP]], %[[OVERH]] : i1
// CHECK: %[[RAW:.*]] = arith.muli %arg2, %c4_i64
// CHECK: %[[PAD:.*]] = arith.addi %[[RAW]], %c15_i64
// CHECK: %[[BYTES:.*]] = arith.andi %[[PAD]], %c-16_i64
// CHECK: %[[SFITS:.*]] = arith.cmpi sle, %[[BYTES]], %c231424_i64
// CHECK: %[[PAST:.*]] = arith.select %[[SFITS]], %[[HS]], %{{.*}} : !llvm.ptr
// CHECK: %[[B32:.*]] = arith.trunci %[[BYTES]] : i64 to i32
// CHECK: %[[SHARED:.*]] = arith.select [[USE:%[0-9]+]], %[[B32]], %c0_i32 : i32
// CHECK: %[[WIDE:.*]] = arith.cmpi sgt, %[[BYTES]], %c115712_i64
// CHECK: %[[UW:.*]] = arith.andi [[USE]], %[[WIDE]] : i1
// CHECK: %[[STHREADS:.*]] = arith.select %[[UW]], %c1024_i32, %c256_i32 : i32
// CHECK: %[[FW:.*]] = arith.andi %[[SFITS]], %[[WIDE]] : i1
// CHECK: %[[PASTW:.*]] = arith.select %[[FW]], %[[HW]], %[[PAST]] : !llvm.ptr
// CHECK: %[[PASTR:.*]] = arith.select %[[RFITS]], %[[HR]], %[[PASTW]] : !llvm.ptr
// CHECK: %[[THREADS:.*]] = arith.select %[[RFITS]], %c1024_i32, %[[STHREADS]] : i32
// CHECK: arith.select %[[FITS]], %{{.*}}, %[[PASTR]] : !llvm.ptr
// CHECK: call @fuse_launch(%{{.*}}, %{{.*}}, %c1_i32, %c1_i32, %[[THREADS]], %c1_i32, %c1_i32, %[[SHARED]],

// The staged kernels: a barrier, 16-byte cp.async copies on the vector
// path (4-byte cp.async otherwise), a barrier, then the walks and the
// output tiles read shared memory (addrspace 3) only. The wide one: 1024
// threads, one block an SM.
// CHECK-LABEL: gpu.func @softmax_rows_g0_rows_staged(
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>
// CHECK: llvm.mlir.addressof @softmax_rows_g0_rows_staged_stage : !llvm.ptr<3>
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache =  cg
// CHECK: nvvm.cp.async.wait.group 0
// CHECK: } else {
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 4, cache =  ca
// CHECK: nvvm.cp.async.wait.group 0
// CHECK: gpu.barrier
// CHECK: scf.for {{.*}} -> (f32, f32)
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK-NOT: !llvm.ptr<1> -> f32
// CHECK: gpu.return
// CHECK-LABEL: gpu.func @softmax_rows_g0_rows_staged_wide(
// CHECK-SAME: known_block_size = array<i32: 1024, 1, 1>, nvvm.minctasm = 1
// CHECK: llvm.mlir.addressof @softmax_rows_g0_rows_staged_wide_stage : !llvm.ptr<3>
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache =  cg
// CHECK: scf.for {{.*}} -> (f32, f32)
// CHECK-NOT: !llvm.ptr<1> -> f32
// CHECK: gpu.return
