// RUN: fuse-opt %s --fuse-fusion --fuse-tile --convert-fuse-to-gpu > %t
// RUN: FileCheck %s < %t
// RUN: FileCheck %s --check-prefix=KERNEL < %t
// The capture-safe workspace form NAME_ws of each entry: its
// implementation takes the workspace, a dry-run flag and the bytes used
// after the stream, carves its temporaries from the workspace (no
// fuse_malloc, no fuse_free), skips every launch and memset in the dry
// run, keeps a filter's count on the device (a device-to-device copy to the
// caller's count, no copy to the host, no synchronisation); the public
// NAME_ws sizes with a dry run, answers a NULL workspace with the bytes,
// rejects a small or misaligned workspace, then runs. A step over a
// filter's kept elements reads the count on the device, in both forms. An
// entry whose host code needs a filter's count has no such form, and
// #fuse.entry says why.

// CHECK: #fuse.entry<name = "sumsq", {{.*}}count = none>], workspace = available>, #fuse.entry<name = "select", {{.*}}count = kept>], workspace = available>, #fuse.entry<name = "select_sum", {{.*}}workspace = available>, #fuse.entry<name = "select_gather", {{.*}}workspace = none, workspace_note = "the size of a filter's result is known only on the device, and a later step reads it">, #fuse.entry<name = "select_mean", {{.*}}workspace = none, workspace_note = "the size of a filter's result is known only on the device, and the entry's tensor.dim reads it">

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

// The reduction after the filter: its kernels take the count's device
// address last and read their length there, clamped to the capacity (the
// filter's count piece is zeroed first, in case no tile runs); the host
// sizes the launch by the capacity, so neither form waits for the device.
// (in, in_d0, n, nchunks, partial, out, single, count)
// KERNEL-LABEL: gpu.func @select_sum_g1_partial(
// KERNEL-SAME: %arg0: !llvm.ptr<1>, %arg1: i64, %arg2: i64, %arg3: i64, %arg4: !llvm.ptr<1>, %arg5: !llvm.ptr<1>, %arg6: i32, %arg7: !llvm.ptr<1>)
// KERNEL-NEXT: %[[LOAD:.*]] = llvm.load %arg7 {alignment = 8 : i64} : !llvm.ptr<1> -> i64
// KERNEL: %[[LO:.*]] = arith.maxsi %[[LOAD]], %{{.*}} : i64
// KERNEL: %[[N:.*]] = arith.minsi %[[LO]], %arg1 : i64
// KERNEL: arith.divsi %[[N]], %c4_i64
// KERNEL: arith.cmpi ne, %arg3
// KERNEL-LABEL: gpu.func @select_sum_g1_finish(
// KERNEL-SAME: %arg5: !llvm.ptr<1>)
// CHECK-LABEL: func.func @select_sum(
// CHECK-NOT: fuse_memcpy_dtoh
// CHECK-NOT: fuse_stream_synchronize
// CHECK: call @fuse_launch
// CHECK-LABEL: func.func private @select_sum_ws__fuse_impl(
// CHECK-LABEL: func.func @select_sum_ws(
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

// A gather from the kept elements bounds its indices by their count: the
// allocating form reads it on the host first; there is no workspace form.
// CHECK-LABEL: func.func @select_gather(
// CHECK: call @fuse_memcpy_dtoh
// CHECK: call @fuse_stream_synchronize
// CHECK: call @fuse_launch
// CHECK-NOT: func.func {{.*}}@select_gather_ws
func.func @select_gather(%x: tensor<?xf32>, %i: tensor<?xi64>) -> tensor<?xf32> {
  %zero = arith.constant 0.0 : f32
  %y = fuse.filter %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %p = arith.cmpf ogt, %a, %zero : f32
    fuse.yield %p : i1
  }
  %g = fuse.gather %y[%i] : tensor<?xf32>, tensor<?xi64> -> tensor<?xf32>
  return %g : tensor<?xf32>
}

// A mean of the kept elements divides by their count on the host.
// CHECK-LABEL: func.func @select_mean(
// CHECK: call @fuse_memcpy_dtoh
// CHECK: call @fuse_stream_synchronize
// CHECK-NOT: func.func {{.*}}@select_mean_ws
func.func @select_mean(%x: tensor<?xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %y = fuse.filter %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %p = arith.cmpf ogt, %a, %zero : f32
    fuse.yield %p : i1
  }
  %s = fuse.reduce add %y : tensor<?xf32> -> tensor<f32>
  %c0 = arith.constant 0 : index
  %n = tensor.dim %y, %c0 : tensor<?xf32>
  %ni = arith.index_cast %n : index to i64
  %nf = arith.sitofp %ni : i64 to f32
  %m = fuse.map %s : tensor<f32> -> tensor<f32> {
  ^bb0(%a: f32):
    %d = arith.divf %a, %nf : f32
    fuse.yield %d : f32
  }
  return %m : tensor<f32>
}

// The kept elements zipped with another array (whose length must equal
// the count): the step mixes the count with another size, so it takes no
// count on the device; the allocating form reads the count first.
// KERNEL-LABEL: gpu.func @select_zip_g1_ew(
// KERNEL-NOT: llvm.load %arg{{[0-9]+}} {alignment = 8 : i64} : !llvm.ptr<1> -> i64
// KERNEL: gpu.return
// CHECK-LABEL: func.func @select_zip(
// CHECK: call @fuse_memcpy_dtoh
// CHECK: call @fuse_stream_synchronize
// CHECK: call @fuse_launch
// CHECK-NOT: func.func {{.*}}@select_zip_ws
func.func @select_zip(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %zero = arith.constant 0.0 : f32
  %k = fuse.filter %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %p = arith.cmpf ogt, %a, %zero : f32
    fuse.yield %p : i1
  }
  %z = fuse.map %k, %y : tensor<?xf32>, tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32, %b: f32):
    %m = arith.mulf %a, %b : f32
    fuse.yield %m : f32
  }
  return %z : tensor<?xf32>
}
