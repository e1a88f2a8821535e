// RUN: fuse-opt %s --fuse-fusion --fuse-tile --convert-fuse-to-gpu > %t
// RUN: FileCheck %s < %t
// RUN: FileCheck %s --check-prefix=KERNEL < %t
// A fuse.prefix is its source's buffer with a count in device memory (a
// rank-0 i64 tensor, e.g. the count an earlier pipeline's filter wrote
// through NAME_ws). Steps over it read the count in their kernels,
// clamped to the source's size, as steps over a filter's kept elements
// do, so a reduction of a prefix never waits for the host and has a
// workspace form. Returned results sized by it get a count: the NAME form
// reads it (clamped on the host), the workspace form clamps it into the
// caller's device word (fuse_count_clamp). A zip with another tensor
// needs the count on the host: NAME reads it, and there is no workspace
// form.

// CHECK: #fuse.entry<name = "steps", {{.*}}count = from_kept>], workspace = available>, #fuse.entry<name = "sum_only", {{.*}}count = none>], workspace = available>, #fuse.entry<name = "zip_other", {{.*}}workspace = none, workspace_note = "the length of a prefix (its count) is known only on the device, and a later step reads it">, #fuse.entry<name = "prefix_of_kept", {{.*}}workspace = none, workspace_note = "the size of a filter's result is known only on the device, and a prefix of it is taken">
// The message of the zip's check (two %lld: the size given, the count).
// CHECK: "zip_other: size mismatch: in2 dimension 0 is %lld but the prefix takes %lld elements; the pipeline combines them, so they must be equal\00"

// The allocating form reads the count only for the returned counts, and
// clamps it to the source's size.
// CHECK-LABEL: func.func @steps(
// CHECK-SAME: %{{.*}}: !llvm.ptr, %[[CAP:[a-z0-9]+]]: i64, %[[COUNT:[a-z0-9]+]]: !llvm.ptr,
// CHECK: call @fuse_launch
// CHECK: call @fuse_memcpy_dtoh(%{{.*}}, %[[COUNT]], %{{.*}})
// CHECK: call @fuse_stream_synchronize
// CHECK: %[[LO:.*]] = arith.maxsi %{{.*}}, %{{.*}} : i64
// CHECK: arith.minsi %[[LO]], %[[CAP]] : i64
// CHECK-LABEL: func.func private @steps_ws__fuse_impl(
// CHECK-SAME: %{{.*}}: !llvm.ptr, %[[CAP:[a-z0-9]+]]: i64, %[[COUNT:[a-z0-9]+]]: !llvm.ptr,
// CHECK-NOT: fuse_memcpy_dtoh
// CHECK-NOT: fuse_stream_synchronize
// CHECK: call @fuse_count_clamp(%{{.*}}, %[[COUNT]], %[[CAP]], %{{.*}})
// CHECK: call @fuse_count_clamp(%{{.*}}, %[[COUNT]], %[[CAP]], %{{.*}})
// CHECK: call @fuse_count_clamp(%{{.*}}, %[[COUNT]], %[[CAP]], %{{.*}})
// CHECK-LABEL: func.func @steps_ws(
func.func @steps(%x: tensor<?xf32>, %n: tensor<i64>)
    -> (tensor<?xf32>, tensor<?xf32>, tensor<f32>, tensor<?xf32>) {
  %p = fuse.prefix %x, %n : tensor<?xf32>, tensor<i64> -> tensor<?xf32>
  %d = fuse.map %p : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %m = arith.addf %a, %a : f32
    fuse.yield %m : f32
  }
  %s = fuse.reduce add %p : tensor<?xf32> -> tensor<f32>
  %c = fuse.scan inclusive add %p : tensor<?xf32> -> tensor<?xf32>
  return %p, %d, %s, %c : tensor<?xf32>, tensor<?xf32>, tensor<f32>, tensor<?xf32>
}

// No count comes back: neither form reads it.
// CHECK-LABEL: func.func @sum_only(
// CHECK-NOT: fuse_memcpy_dtoh
// CHECK-NOT: fuse_stream_synchronize
// CHECK-LABEL: func.func private @sum_only_ws__fuse_impl(
// The reduction's kernels load the count (their last parameter) and clamp
// it to the capacity they were launched for (the source's size).
// KERNEL-LABEL: gpu.func @sum_only_g0_partial(
// KERNEL-SAME: %{{.*}}: !llvm.ptr<1>, %[[CAP:[a-z0-9]+]]: i64, {{.*}}, %[[COUNT:[a-z0-9]+]]: !llvm.ptr<1>)
// KERNEL: %[[N:.*]] = llvm.load %[[COUNT]] {alignment = 8 : i64} : !llvm.ptr<1> -> i64
// KERNEL: %[[LO:.*]] = arith.maxsi %[[N]], %{{.*}} : i64
// KERNEL: arith.minsi %[[LO]], %[[CAP]] : i64
// KERNEL-LABEL: gpu.func @sum_only_g0_finish(
// KERNEL: llvm.load
// KERNEL: arith.maxsi
// KERNEL: arith.minsi
func.func @sum_only(%x: tensor<?xf32>, %n: tensor<i64>) -> tensor<f32> {
  %p = fuse.prefix %x, %n : tensor<?xf32>, tensor<i64> -> tensor<?xf32>
  %s = fuse.reduce add %p : tensor<?xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// Zipped with %y: the count is read (after the runtime is initialised: it
// is the first thing the entry reads on the device), clamped, and
// compared with %y's size before the step that combines them (no check
// before the call could: the tools warn, test/Integration/size-checks.mlir).
// CHECK-LABEL: func.func @zip_other(
// CHECK-SAME: %{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %[[YN:[a-z0-9]+]]: i64,
// CHECK: call @fuse_init
// CHECK: call @fuse_memcpy_dtoh
// CHECK: call @fuse_stream_synchronize
// CHECK: arith.maxsi
// CHECK: %[[N:.*]] = arith.minsi
// CHECK: arith.cmpi ne, %[[YN]], %[[N]] : i64
// CHECK: call @fuse_set_size_error(%{{.*}}, %{{.*}}, %[[YN]], %[[N]])
// CHECK: call @fuse_launch
func.func @zip_other(%x: tensor<?xf32>, %n: tensor<i64>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %p = fuse.prefix %x, %n : tensor<?xf32>, tensor<i64> -> tensor<?xf32>
  %d = fuse.map %p, %y : tensor<?xf32>, tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32, %b: f32):
    %m = arith.addf %a, %b : f32
    fuse.yield %m : f32
  }
  return %d : tensor<?xf32>
}

// A prefix of a filter's kept elements is clamped to their count, which
// the host reads first (the capacity would let a larger count take stale
// elements); so there is no workspace form.
// CHECK-LABEL: func.func @prefix_of_kept(
// CHECK: call @fuse_launch
// CHECK: call @fuse_memcpy_dtoh
// CHECK: call @fuse_stream_synchronize
// CHECK: %[[KEPT:.*]] = arith.minsi
// CHECK: arith.minsi %{{.*}}, %[[KEPT]] : i64
func.func @prefix_of_kept(%x: tensor<?xf32>, %n: tensor<i64>) -> tensor<?xf32> {
  %k = fuse.filter %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %t = arith.constant 0.0 : f32
    %q = arith.cmpf ogt, %a, %t : f32
    fuse.yield %q : i1
  }
  %p = fuse.prefix %k, %n : tensor<?xf32>, tensor<i64> -> tensor<?xf32>
  %d = fuse.map %p : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %m = arith.addf %a, %a : f32
    fuse.yield %m : f32
  }
  return %d : tensor<?xf32>
}
