// RUN: fuse-opt %s --fuse-fusion --fuse-tile --convert-fuse-to-gpu | FileCheck %s
// RUN: fuse-opt %s --fuse-fusion --fuse-tile=segment-piece=0 --convert-fuse-to-gpu | FileCheck %s --check-prefix=NOPIECE
// RUN: fuse-opt %s --fuse-fusion --fuse-tile=segment-piece=4096 | FileCheck %s --check-prefix=TILING
// RUN: not fuse-opt %s --fuse-fusion --fuse-tile=segment-piece=-1 2>&1 | FileCheck %s --check-prefix=BAD

// NOPIECE-NOT: segpiece
// NOPIECE-NOT: segjoin
// TILING: fuse.group segmented_reduce {{.*}}segmentPiece = 4096
// TILING-NOT: segmentPiece
// BAD: error: fuse-tile: segment-piece must not be negative, not -1

// A sum of squares over CSR offsets with an epilogue: one group over the
// segments. The host launches, by the mean segment length, the kernel of
// 8 lanes a segment (short), a warp a segment, or a block a segment
// (long); all take nseg and n, clamp the offsets to [0, n), read the
// squared input at each position of the segment and fold with butterflies
// (kept within the 8 lanes; the block kernel's warps through shared
// memory), and the first thread of the segment stores the epilogue's
// value. The 8-lane groups of a warp past the last segment fold an empty
// one, so every lane takes part in the shuffles.
// A combiner region keeps the elements' order: only the warp kernel, whose
// lanes fold contiguous chunks and combine with shuffle-down steps.
// The block kernel takes segment b first, then asks a counter for the
// next one (zeroed by the host, a temporary). Where the mean segment holds
// at least two pieces (segment-piece, 8192 elements by default), the host
// launches instead the piece kernel, a block a piece (mean / 8192 pieces a
// segment, taken from the same counter), which stores each piece's value
// in a temporary of nseg * pieces partials, then the join kernel, a warp a
// segment, which folds the segment's partials in order (lane l: l, l + 32,
// ...), then the butterflies, and stores the epilogue's value.
// With segment-piece=0 neither kernel exists.
// CHECK-LABEL: func.func @csr(
// CHECK: arith.divsi
// CHECK: call @fuse_malloc(
// CHECK: call @fuse_memset(
// CHECK: arith.divsi %{{.+}}, %c8192_i64
// CHECK: call @fuse_launch(
// CHECK: arith.muli
// CHECK: call @fuse_malloc(
// CHECK: call @fuse_launch(
// CHECK: call @fuse_launch(
// CHECK-NOT: call @fuse_malloc
// CHECK: call @fuse_launch(
// CHECK: call @fuse_launch(
// CHECK-NOT: call @fuse_malloc
// CHECK: return
// CHECK-LABEL: func.func @last(
// CHECK: call @fuse_launch(
// CHECK-NOT: call @fuse_launch(
// CHECK: return
// CHECK-LABEL: gpu.func @csr_g0_segwarp(
// CHECK-SAME: %arg5: i64, %arg6: i64, %arg7: !llvm.ptr<1>)
// CHECK: arith.maxsi
// CHECK: arith.minsi
// CHECK: scf.for
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: gpu.shuffle {{ *}}xor
// CHECK: scf.if
// CHECK: arith.addf
// CHECK: llvm.store
// CHECK-LABEL: gpu.func @csr_g0_segsmall(
// CHECK: arith.remui %{{.+}}, %c8_i64
// CHECK: scf.for
// CHECK: arith.cmpi slt
// CHECK: gpu.shuffle {{ *}}xor
// CHECK: arith.select
// CHECK: llvm.store
// CHECK-LABEL: gpu.func @csr_g0_segblock(
// CHECK-SAME: %arg7: !llvm.ptr<1>, %arg8: !llvm.ptr<1>) workgroup(%{{.+}} : memref<32xf32, #gpu.address_space<workgroup>> {{.+}}, %[[SLOT:.+]] : memref<1xi64, #gpu.address_space<workgroup>>
// CHECK: scf.while
// CHECK: gpu.shuffle {{ *}}xor
// CHECK: gpu.barrier
// CHECK: llvm.store
// CHECK: llvm.atomicrmw add %arg8, %{{.+}} monotonic
// CHECK: memref.store %{{.+}}, %[[SLOT]]
// CHECK: gpu.barrier
// CHECK: memref.load %[[SLOT]]
// CHECK-LABEL: gpu.func @csr_g0_segpiece(
// CHECK-SAME: %arg8: !llvm.ptr<1>, %[[P:.+]]: i64, %[[PART:.+]]: !llvm.ptr<1>) workgroup(
// CHECK: arith.muli %arg5, %[[P]]
// CHECK: scf.while
// CHECK: arith.divsi %{{.+}}, %[[P]]
// CHECK: arith.remsi %{{.+}}, %[[P]]
// CHECK: arith.mulf
// CHECK: gpu.shuffle {{ *}}xor
// CHECK: gpu.barrier
// CHECK: llvm.getelementptr %[[PART]]
// CHECK: llvm.store
// CHECK: llvm.atomicrmw add %arg8
// CHECK-LABEL: gpu.func @csr_g0_segjoin(
// CHECK-SAME: %arg7: !llvm.ptr<1>, %[[JP:.+]]: i64, %[[JPART:.+]]: !llvm.ptr<1>)
// CHECK: scf.for %[[S:.+]] = %{{.+}} to %arg5
// CHECK: arith.muli %[[S]], %[[JP]]
// CHECK: scf.for %{{.+}} = %{{.+}} to %[[JP]] step %c32
// CHECK: llvm.getelementptr %[[JPART]]
// CHECK: arith.addf
// CHECK: gpu.shuffle {{ *}}xor
// CHECK: arith.addf
// CHECK: llvm.store
// CHECK-LABEL: gpu.func @last_g0_segwarp(
// CHECK: gpu.shuffle {{ *}}down
// CHECK-NOT: gpu.func @last_g0_segblock
func.func @csr(%x: tensor<?xf32>, %o: tensor<?xi64>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %no = tensor.dim %o, %c0 : tensor<?xi64>
  %m = arith.subi %no, %c1 : index
  %i = fuse.iota %m : tensor<?xi64>
  %st = fuse.gather %o[%i] : tensor<?xi64>, tensor<?xi64> -> tensor<?xi64>
  %i1 = fuse.map %i : tensor<?xi64> -> tensor<?xi64> {
  ^bb0(%a: i64):
    %one = arith.constant 1 : i64
    %b = arith.addi %a, %one : i64
    fuse.yield %b : i64
  }
  %en = fuse.gather %o[%i1] : tensor<?xi64>, tensor<?xi64> -> tensor<?xi64>
  %y = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %sq = arith.mulf %a, %a : f32
    fuse.yield %sq : f32
  }
  %s = fuse.segmented_reduce add %y segments(%st, %en : tensor<?xi64>, tensor<?xi64>)
      : tensor<?xf32> -> tensor<?xf32>
  %r = fuse.map %s : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %one = arith.constant 1.0 : f32
    %b = arith.addf %a, %one : f32
    fuse.yield %b : f32
  }
  return %r : tensor<?xf32>
}

func.func @last(%x: tensor<?xf32>, %s: tensor<?xi32>, %e: tensor<?xi32>) -> tensor<?xf32> {
  %cm1 = arith.constant -1.0 : f32
  %r = fuse.segmented_reduce %x init(%cm1 : f32)
      segments(%s, %e : tensor<?xi32>, tensor<?xi32>)
      : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32, %b: f32):
    fuse.yield %b : f32
  }
  return %r : tensor<?xf32>
}
