// RUN: fuse-opt %s --split-input-file --fuse-fusion --fuse-tile --convert-fuse-to-gpu | FileCheck %s
// RUN: fuse-opt %s --split-input-file --fuse-sort-positions --fuse-fusion --fuse-tile --convert-fuse-to-gpu | FileCheck %s --check-prefix=POS
// RUN: fuse-opt %s --split-input-file --fuse-sort-positions | FileCheck %s --check-prefix=REWRITE

// A sort between groups: the keys' group (x * x) and the iota run as
// kernels, the runtime's radix sort (fuse_sort_ws, its temporary storage
// sized by fuse_sort_temp_bytes) sorts them, and the reduction of the
// sorted keys runs after it. Both forms of the entry exist: the sort's
// storage comes from the caller's workspace in NAME_ws, so it can be
// captured. The caller's output of a sort result may not overlap an input.
// CHECK-DAG: llvm.mlir.global internal constant @__fuse_msg_argsort_square_{{[0-9]+}}("argsort_square: out0 and in0 overlap; a sort's result cannot be computed in place of its input\00")
// CHECK-LABEL: func.func @argsort_square(
// CHECK: call @fuse_launch
// CHECK: call @fuse_launch
// CHECK: %[[KEYS:.+]] = arith.constant 2 : i32
// CHECK: call @fuse_sort_temp_bytes(%[[KEYS]], %{{.+}}, %{{.+}}, %arg1, %{{.+}}, %{{.+}}) : (i32, i32, i32, i64, i32, !llvm.ptr) -> i32
// CHECK: call @fuse_malloc
// CHECK: call @fuse_sort_ws(%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %arg2, %arg1, %{{.+}}, %{{.+}}, %arg4)
// CHECK: call @fuse_launch
// CHECK-LABEL: func.func private @argsort_square_ws__fuse_impl(
// CHECK: call @fuse_sort_temp_bytes(
// CHECK-NOT: call @fuse_malloc
// CHECK: call @fuse_sort_ws(
// CHECK-NOT: call @fuse_malloc
// CHECK: return
// With fuse-sort-positions the iota is gone (one kernel, x * x, before
// the sort) and the runtime's argsort writes the positions into the
// caller's output.
// REWRITE-LABEL: func.func @argsort_square(
// REWRITE-NOT: fuse.iota
// REWRITE: fuse.sort descending positions %{{.+}} : tensor<?xf32> -> tensor<?xf32>, tensor<?xi64>
// POS-LABEL: func.func @argsort_square(
// POS: call @fuse_launch
// POS-NOT: call @fuse_launch
// POS: call @fuse_argsort_temp_bytes(%{{.+}}, %arg1, %{{.+}}, %{{.+}}) : (i32, i64, i32, !llvm.ptr) -> i32
// POS-NOT: call @fuse_launch
// POS: call @fuse_argsort_ws(%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %arg2, %arg1, %{{.+}}, %{{.+}}, %arg4)
// POS: call @fuse_launch
func.func @argsort_square(%x: tensor<?xf32>) -> (tensor<?xi64>, tensor<f32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %sq = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %m = arith.mulf %a, %a : f32
    fuse.yield %m : f32
  }
  %i = fuse.iota %n : tensor<?xi64>
  %k, %p = fuse.sort descending %sq, %i : tensor<?xf32>, tensor<?xi64> -> tensor<?xf32>, tensor<?xi64>
  %s = fuse.reduce add %k : tensor<?xf32> -> tensor<f32>
  return %p, %s : tensor<?xi64>, tensor<f32>
}

// Values of every width move (16-bit ones as the runtime's signed i16:
// values are never compared); unsigned 16-bit keys sort as FUSE_U16.
// An iota of another length stays values.
// REWRITE-LABEL: func.func @iota_of_another_length(
// REWRITE: fuse.iota
// REWRITE: fuse.sort ascending %{{.+}}, %{{.+}} : tensor<?xf32>, tensor<?xi64>
func.func @iota_of_another_length(%x: tensor<?xf32>, %n: index) -> tensor<?xi64> {
  %i = fuse.iota %n : tensor<?xi64>
  %k, %p = fuse.sort ascending %x, %i : tensor<?xf32>, tensor<?xi64> -> tensor<?xf32>, tensor<?xi64>
  return %p : tensor<?xi64>
}

// Static lengths: equal ones rewrite; a static iota beside dynamic keys
// (its length not known to match) stays values; an iota read elsewhere
// stays for that reader.
// REWRITE-LABEL: func.func @static_lengths(
// REWRITE: %[[I:.+]] = fuse.iota : tensor<8xi64>
// REWRITE: fuse.sort ascending positions %arg0 : tensor<8xf32> -> tensor<8xf32>, tensor<8xi64>
// REWRITE: fuse.sort ascending %arg1, %[[I]] : tensor<?xf32>, tensor<8xi64>
// REWRITE: fuse.sort descending positions %arg0 : tensor<8xf32> -> tensor<8xf32>, tensor<8xi64>
// REWRITE: return {{.*}}%[[I]]
func.func @static_lengths(%x: tensor<8xf32>, %y: tensor<?xf32>) -> (tensor<8xi64>, tensor<8xi64>, tensor<8xi64>, tensor<8xi64>) {
  %i = fuse.iota : tensor<8xi64>
  %a, %p = fuse.sort ascending %x, %i : tensor<8xf32>, tensor<8xi64> -> tensor<8xf32>, tensor<8xi64>
  %b, %q = fuse.sort ascending %y, %i : tensor<?xf32>, tensor<8xi64> -> tensor<?xf32>, tensor<8xi64>
  %c, %r = fuse.sort descending %x, %i : tensor<8xf32>, tensor<8xi64> -> tensor<8xf32>, tensor<8xi64>
  return %p, %q, %r, %i : tensor<8xi64>, tensor<8xi64>, tensor<8xi64>, tensor<8xi64>
}

// CHECK-LABEL: func.func @pairs_i16(
// CHECK: %[[I16:.+]] = arith.constant 10 : i32
// CHECK: call @fuse_sort_temp_bytes(%{{.+}}, %[[I16]],
func.func @pairs_i16(%k: tensor<?xi32>, %v: tensor<?xi16>) -> tensor<?xi16> {
  %a, %b = fuse.sort ascending unsigned %k, %v : tensor<?xi32>, tensor<?xi16> -> tensor<?xi32>, tensor<?xi16>
  return %b : tensor<?xi16>
}

// CHECK-LABEL: func.func @keys_u16(
// CHECK: %[[U16:.+]] = arith.constant 12 : i32
// CHECK: call @fuse_sort_temp_bytes(%[[U16]],
func.func @keys_u16(%k: tensor<?xi16>) -> tensor<?xi16> {
  %s = fuse.sort descending unsigned %k : tensor<?xi16> -> tensor<?xi16>
  return %s : tensor<?xi16>
}

// -----

// A comparator sort runs as generated merge-sort kernels: a tile sort into
// the results or a temporary (chosen by the parity of the merge passes,
// ceil(log2(tiles)) of them, so the last pass writes the results), then
// per pass (runs of 1024 << pass) a partition launch (a group of 2^shift
// lanes a merge block, shift chosen by the host from the number of merge
// blocks against sm_90's 132 SMs x 128 threads, into the splits
// temporary) and a merge launch, in a host loop; passes of at most one
// wave of merge blocks (132 SMs x 8 blocks) skip the partition launch, the
// merge blocks searching their own bounds (the kernel's `search`
// parameter, a warp a bound; no splits temporary is allocated then). A
// merge block loads its
// inputs into shared memory, merges there (i32 positions) and stores
// coalesced. The i64 values are not moved by the passes: the
// tile sort writes positions (below 2^31 elements), the passes move them
// and the last gathers the values (the kernels' mode and values
// parameters).
// CHECK-LABEL: func.func @by_magnitude(
// CHECK: %[[TILES:.+]] = arith.ceildivsi %arg1, %{{.+}} : i64
// CHECK: "llvm.intr.ctlz"
// CHECK: arith.cmpi sle, %arg1, %{{.+}} : i64
// CHECK: call @fuse_launch
// CHECK: %[[BLOCKS:.+]] = arith.ceildivsi %arg1, %c2048_i64
// CHECK: %[[SELF:.+]] = arith.cmpi sle, %[[BLOCKS]], %c1056_i64 : i64
// CHECK: %[[SPLITS:.+]] = arith.muli %[[BLOCKS]], %c8_i64
// CHECK: arith.select %[[SELF]], %c0_i64{{.*}}, %[[SPLITS]]
// CHECK: arith.cmpi sle, %{{.+}}, %c16896_i64
// CHECK: %[[SHIFT:.+]] = arith.select %{{.+}}, %c5_i64, %{{.+}} : i64
// CHECK: arith.shli %[[BLOCKS]], %[[SHIFT]] : i64
// CHECK: ^bb{{[0-9]+}}(%[[PASS:.+]]: i64):
// CHECK: arith.shli %{{.+}}, %[[PASS]] : i64
// CHECK: %[[PART:.+]] = arith.xori %[[SELF]], %true
// CHECK: cf.cond_br %[[PART]]
// CHECK: call @fuse_launch
// CHECK: arith.extui %[[SELF]] : i1 to i64
// CHECK: call @fuse_launch
// CHECK: cf.br ^bb
// CHECK-LABEL: gpu.func @by_magnitude_sort0_tile(
// CHECK-SAME: kernel
// CHECK: math.absf
// CHECK: arith.cmpf olt
// CHECK: gpu.barrier
// CHECK-LABEL: gpu.func @by_magnitude_sort0_partition(
// CHECK-SAME: %{{[a-z0-9]+}}: !llvm.ptr<1>, %{{[a-z0-9]+}}: i64, %{{[a-z0-9]+}}: i64, %{{[a-z0-9]+}}: !llvm.ptr<1>, %{{[a-z0-9]+}}: i64, %[[SH:[a-z0-9]+]]: i64)
// CHECK: scf.while {{.+}} : (i64, i64) -> (i64, i64)
// CHECK: arith.shrui %{{.+}}, %[[SH]] : i64
// CHECK: math.absf
// CHECK: nvvm.vote.sync  ballot
// CHECK: "llvm.intr.cttz"
// CHECK-LABEL: gpu.func @by_magnitude_sort0_merge(
// CHECK-SAME: %{{[a-z0-9]+}}: !llvm.ptr<1>, %{{[a-z0-9]+}}: i64, %{{[a-z0-9]+}}: i64, %{{[a-z0-9]+}}: !llvm.ptr<1>) workgroup(%{{.+}} : memref<2048xf32, #gpu.address_space<workgroup>> {{.+}}, %{{.+}} : memref<2048xf32, #gpu.address_space<workgroup>> {{.+}}, %{{.+}} : memref<2048xi32, #gpu.address_space<workgroup>> {{.+}}, %[[BOUNDS:.+]] : memref<2xi64, #gpu.address_space<workgroup>> {{.+}})
// CHECK: scf.if %{{.+}} -> (i64, i64)
// CHECK: scf.while {{.+}} : (i64, i64) -> (i64, i64)
// CHECK: nvvm.vote.sync  ballot
// CHECK: memref.store %{{.+}}, %[[BOUNDS]]
// CHECK: gpu.barrier
// CHECK: memref.load %[[BOUNDS]]
// CHECK: } else {
// CHECK: gpu.barrier
// CHECK: scf.while {{.+}} : (i32, i32) -> (i32, i32)
// CHECK: gpu.barrier
// A positions merge sort reads no values: the host passes null for them,
// and no iota kernel runs before the tile sort.
// POS-LABEL: func.func @by_magnitude(
// POS: llvm.mlir.zero
// POS-NOT: call @fuse_launch
// POS: "llvm.intr.ctlz"
// POS: call @fuse_launch
// POS-LABEL: gpu.func @by_magnitude_sort0_tile(
// POS: arith.extui %{{.+}} : i32 to i64
func.func @by_magnitude(%x: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xi64>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %i = fuse.iota %n : tensor<?xi64>
  %k, %p = fuse.sort ascending %x, %i : tensor<?xf32>, tensor<?xi64> -> tensor<?xf32>, tensor<?xi64> {
  ^bb0(%a: f32, %b: f32):
    %ma = math.absf %a : f32
    %mb = math.absf %b : f32
    %lt = arith.cmpf olt, %ma, %mb : f32
    fuse.yield %lt : i1
  }
  return %k, %p : tensor<?xf32>, tensor<?xi64>
}
