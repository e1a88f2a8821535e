// RUN: fuse-opt %s --fuse-fusion --fuse-tile --convert-fuse-to-gpu | FileCheck %s
// The capture-safe workspace form NAME_ws of each entry: its
// implementation takes the workspace, a dry-run flag and the bytes used
// after the stream, carves its temporaries from the workspace (no
// fuse_malloc, no fuse_free), skips every launch and memset in the dry
// run, keeps a filter's count on the device (a device-to-device copy to the
// caller's count, no copy to the host, no synchronisation); the public
// NAME_ws sizes with a dry run, answers a NULL workspace with the bytes,
// rejects a small or misaligned workspace, then runs. An entry whose host
// code needs a filter's count has no such form, and #fuse.entry says why.

// CHECK: #fuse.entry<name = "sumsq", {{.*}}count = none>], workspace = available>, #fuse.entry<name = "select", {{.*}}count = kept>], workspace = available>, #fuse.entry<name = "select_sum", {{.*}}workspace = none, workspace_note = "the size of a filter's result is known only on the device, and a later step reads it">

// CHECK-LABEL: func.func @sumsq(
// CHECK: call @fuse_malloc
// CHECK: call @fuse_free
// CHECK-LABEL: func.func private @sumsq_ws__fuse_impl(
// CHECK-SAME: %{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: !llvm.ptr, %[[STREAM:.*]]: !llvm.ptr, %[[WS:.*]]: !llvm.ptr, %[[DRY:.*]]: i1, %[[USED:.*]]: !llvm.ptr) -> i32
// CHECK-NOT: fuse_malloc
// CHECK-NOT: fuse_free
// The per-block partials: the next 256-byte aligned piece.
// CHECK: arith.andi %{{.*}}, %c-256_i64
// CHECK: llvm.getelementptr %[[WS]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK: arith.xori %[[DRY]], %{{.*}} : i1
// CHECK: call @fuse_launch
// CHECK: llvm.store %{{.*}}, %[[USED]] : i64
// CHECK-LABEL: func.func @sumsq_ws(
// CHECK-SAME: %{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: !llvm.ptr, %[[W:.*]]: !llvm.ptr, %[[BYTES:.*]]: !llvm.ptr, %{{.*}}: !llvm.ptr) -> i32
// CHECK: llvm.icmp "eq" %[[BYTES]]
// CHECK: call @sumsq_ws__fuse_impl({{.*}}, %true, %{{.*}})
// CHECK: llvm.icmp "eq" %[[W]]
// CHECK: llvm.store %{{.*}}, %[[BYTES]] : i64
// CHECK: call @fuse_set_size_error
// CHECK: llvm.ptrtoint %[[W]]
// CHECK: call @fuse_set_error
// CHECK: call @sumsq_ws__fuse_impl({{.*}}, %[[W]], %false, %{{.*}})
func.func @sumsq(%x: tensor<?xf32>) -> tensor<f32> {
  %sq = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %p = arith.mulf %a, %a : f32
    fuse.yield %p : f32
  }
  %s = fuse.reduce add %sq : tensor<?xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// CHECK-LABEL: func.func @select(
// CHECK: call @fuse_memcpy_dtoh
// CHECK: call @fuse_stream_synchronize
// CHECK-LABEL: func.func private @select_ws__fuse_impl(
// CHECK-SAME: %{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: !llvm.ptr, %[[COUNT:.*]]: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i1, %{{.*}}: !llvm.ptr) -> i32
// CHECK-NOT: fuse_malloc
// CHECK-NOT: fuse_memcpy_dtoh
// CHECK-NOT: fuse_stream_synchronize
// CHECK: call @fuse_memcpy_dtod(%[[COUNT]], %{{.*}}, %{{.*}}, %{{.*}})
// CHECK-NOT: fuse_free
// CHECK-LABEL: func.func @select_ws(
func.func @select(%x: tensor<?xf32>) -> tensor<?xf32> {
  %zero = arith.constant 0.0 : f32
  %y = fuse.filter %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %p = arith.cmpf ogt, %a, %zero : f32
    fuse.yield %p : i1
  }
  return %y : tensor<?xf32>
}

// The reduction's launch is sized by the filter's count on the host.
// CHECK-LABEL: func.func @select_sum(
// CHECK-NOT: func.func {{.*}}@select_sum_ws
func.func @select_sum(%x: tensor<?xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %y = fuse.filter %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %p = arith.cmpf ogt, %a, %zero : f32
    fuse.yield %p : i1
  }
  %s = fuse.reduce add %y : tensor<?xf32> -> tensor<f32>
  return %s : tensor<f32>
}
