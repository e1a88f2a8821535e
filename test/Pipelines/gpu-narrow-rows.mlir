// Narrow rows (fuse-tile narrow-rows, default 1): a row that needs at most
// half the block's threads, ceil(cols / 32) <= 128 for 256 threads of 32
// f32 (logsumexp: rank-1 results take 128 bytes a thread; softmax 64), and is on the vector path runs in a group of R = 1, 2, 4, ... or
// 128 threads (the power of two >= need), 256 / R rows per block.
// RUN: fuse-opt %fuse_src_root/examples/logsumexp_rows.mlir --fuse-fusion --fuse-tile -o %t.mlir
// RUN: FileCheck %s --check-prefix=ATTR < %t.mlir
// RUN: fuse-opt %t.mlir --convert-fuse-to-gpu --canonicalize | FileCheck %s
// RUN: fuse-opt %t.mlir --convert-fuse-to-gpu --canonicalize | FileCheck %s --check-prefix=SKIP
// RUN: fuse-opt %fuse_src_root/examples/logsumexp_rows.mlir --fuse-fusion --fuse-tile=narrow-rows=0 -o %t.off.mlir
// RUN: FileCheck %s --check-prefix=NOATTR < %t.off.mlir
// RUN: fuse-opt %t.off.mlir --convert-fuse-to-gpu | FileCheck %s --check-prefix=OFF
// RUN: fuse-opt %s --fuse-tile | FileCheck %s --check-prefix=STATIC
// RUN: fuse-opt %fuse_src_root/examples/softmax_rows.mlir --fuse-fusion --fuse-tile | fuse-opt --convert-fuse-to-gpu --canonicalize | FileCheck %s --check-prefix=SOFTMAX
// RUN: fuse-opt %fuse_src_root/examples/logsumexp_rows.mlir --fuse-fusion --fuse-tile=narrow-rows=4 -o %t.min4.mlir
// RUN: FileCheck %s --check-prefix=MIN4ATTR < %t.min4.mlir
// RUN: fuse-opt %t.min4.mlir --convert-fuse-to-gpu --canonicalize | FileCheck %s --check-prefix=MIN4

// ATTR: fuse.group row_reduce
// ATTR-SAME: narrowRows = 1
// NOATTR-NOT: narrowRows

// The host: need = ceil(cols / 32) threads; rows per block 256, 128, ...,
// 4 or 2 for need <= 1, 2, ..., 64, 128, else 1, and 1 off the vector
// path; the grid is
// ceil(rows / that). The row kernel is split by path (one kernel each, so
// LLVM and ptxas compile them in parallel): the host launches the narrow
// kernel for narrow rows on the vector path and the narrow scalar kernel
// for those off it (odd widths, unaligned bases), else the register
// path's for rows of up to 8192 columns (256 threads x 32), else the wide
// register path's (1024 threads x 32, from half its capacity: 16385-32768
// columns) with its 1024 threads, else the long rows'.
// CHECK-LABEL: func.func @logsumexp_rows(
// CHECK-DAG: %[[FNN:.*]] = llvm.mlir.addressof @__fuse_fn_logsumexp_rows_g0_rows_narrow :
// CHECK-DAG: %[[FNS:.*]] = llvm.mlir.addressof @__fuse_fn_logsumexp_rows_g0_rows_narrow_scalar
// CHECK-DAG: %[[FNL:.*]] = llvm.mlir.addressof @__fuse_fn_logsumexp_rows_g0_rows_long
// CHECK-DAG: %[[FNR:.*]] = llvm.mlir.addressof @__fuse_fn_logsumexp_rows_g0_rows :
// CHECK-DAG: %[[FNW:.*]] = llvm.mlir.addressof @__fuse_fn_logsumexp_rows_g0_rows_wide :
// CHECK-DAG: %[[HW:.*]] = llvm.load %[[FNW]] atomic monotonic
// CHECK-DAG: %[[HN:.*]] = llvm.load %[[FNN]] atomic monotonic
// CHECK-DAG: %[[HS:.*]] = llvm.load %[[FNS]] atomic monotonic
// CHECK-DAG: %[[HL:.*]] = llvm.load %[[FNL]] atomic monotonic
// CHECK-DAG: %[[HR:.*]] = llvm.load %[[FNR]] atomic monotonic
// CHECK: %[[VEC:.*]] = arith.andi %{{.*}}, %{{.*}} : i1
// CHECK: %[[NEED:.*]] = arith.ceildivsi %arg2, %c32_i64
// CHECK: arith.cmpi sle, %[[NEED]], %c128_i64
// CHECK: %[[P2:.*]] = arith.select %{{.*}}, %c2_i64, %c1_i64
// CHECK: arith.cmpi sle, %[[NEED]], %c64_i64
// CHECK: %[[P4:.*]] = arith.select %{{.*}}, %c4_i64{{.*}}, %[[P2]]
// CHECK: arith.cmpi sle, %[[NEED]], %c32_i64
// CHECK: %[[P8:.*]] = arith.select %{{.*}}, %c8_i64, %[[P4]]
// CHECK: arith.cmpi sle, %[[NEED]], %c16_i64
// CHECK: %[[P16:.*]] = arith.select %{{.*}}, %c16_i64, %[[P8]]
// CHECK: arith.cmpi sle, %[[NEED]], %c8_i64
// CHECK: %[[P32:.*]] = arith.select %{{.*}}, %c32_i64, %[[P16]]
// CHECK: arith.cmpi sle, %[[NEED]], %c4_i64
// CHECK: %[[P64:.*]] = arith.select %{{.*}}, %c64_i64, %[[P32]]
// CHECK: arith.cmpi sle, %[[NEED]], %c2_i64
// CHECK: %[[P128:.*]] = arith.select %{{.*}}, %c128_i64, %[[P64]]
// CHECK: arith.cmpi sle, %[[NEED]], %c1_i64
// CHECK: %[[P256:.*]] = arith.select %{{.*}}, %c256_i64, %[[P128]]
// CHECK: %[[NARROW:.*]] = arith.cmpi sle, %[[NEED]], %c128_i64
// CHECK: %[[PB:.*]] = arith.select %[[NARROW]], %[[P256]], %c1_i64
// CHECK: %[[FITS:.*]] = arith.cmpi sle, %arg2, %c8192_i64
// CHECK: %[[HALF:.*]] = arith.cmpi sgt, %arg2, %c16384_i64
// CHECK: %[[CAP:.*]] = arith.cmpi sle, %arg2, %c32768_i64
// CHECK: %[[WIDE:.*]] = arith.andi %[[CAP]], %[[HALF]]
// CHECK: %[[KW:.*]] = arith.select %[[WIDE]], %[[HW]], %[[HL]] : !llvm.ptr
// CHECK: %[[T:.*]] = arith.select %[[WIDE]], %c1024_i32, %c256_i32 : i32
// CHECK: %[[K1:.*]] = arith.select %[[FITS]], %[[HR]], %[[KW]] : !llvm.ptr
// CHECK: %[[KN:.*]] = arith.select %[[VEC]], %[[HN]], %[[HS]] : !llvm.ptr
// CHECK: %[[K:.*]] = arith.select %[[NARROW]], %[[KN]], %[[K1]] : !llvm.ptr
// CHECK: %[[G:.*]] = arith.ceildivsi %arg1, %[[PB]]
// CHECK: arith.minsi %[[G]], %c1073741824_i64
// CHECK: call @fuse_launch(%[[K]], %{{.*}}, %c1_i32, %c1_i32, %[[T]], %c1_i32, %c1_i32, %c0_i32,

// The register path's kernel: no narrow groups, no long-row walk.
// CHECK-LABEL: gpu.func @logsumexp_rows_g0_rows(
// CHECK-NOT: %c7_i32, %c8_i32
// CHECK-NOT: scf.for
// CHECK: gpu.return

// The narrow rows' kernel: R = 2^shift from need = ceil(cols / 32), rows
// per block step 256 >> shift; xor butterflies of offsets 16 .. 1, each
// kept only when its offset is below R (log2(offset) < shift: groups of
// fewer than 32 lanes never mix rows); multi-warp groups then fold
// through shared memory between barriers, groups of a warp or less with
// shuffles only.
// CHECK-LABEL: gpu.func @logsumexp_rows_g0_rows_narrow(
// CHECK: %[[N:.*]] = arith.divui
// CHECK: %[[S7:.*]] = arith.select %{{.*}}, %c7_i32, %c8_i32
// CHECK: %[[S6:.*]] = arith.select %{{.*}}, %c6_i32, %[[S7]]
// CHECK: %[[S5:.*]] = arith.select %{{.*}}, %c5_i32, %[[S6]]
// CHECK: %[[S4:.*]] = arith.select %{{.*}}, %c4_i32, %[[S5]]
// CHECK: %[[S3:.*]] = arith.select %{{.*}}, %c3_i32, %[[S4]]
// CHECK: %[[S2:.*]] = arith.select %{{.*}}, %c2_i32, %[[S3]]
// CHECK: %[[S1:.*]] = arith.select %{{.*}}, %c1_i32, %[[S2]]
// CHECK: %[[SH:.*]] = arith.select %{{.*}}, %c0_i32, %[[S1]]
// CHECK: %[[SH64:.*]] = arith.extui %[[SH]] : i32 to i64
// CHECK: %[[PER:.*]] = arith.shrui %c256_i64, %[[SH64]]
// CHECK: scf.while
// CHECK: arith.muli %{{.*}}, %[[PER]]
// CHECK: gpu.shuffle  xor %{{.*}}, %c16_i32, %c32_i32
// CHECK-NEXT: %[[K4:.*]] = arith.cmpi ugt, %[[SH]], %c4_i32
// CHECK: arith.select %[[K4]]
// CHECK: gpu.shuffle  xor %{{.*}}, %c8_i32, %c32_i32
// CHECK-NEXT: arith.cmpi ugt, %[[SH]], %c3_i32
// CHECK: gpu.shuffle  xor %{{.*}}, %c4_i32, %c32_i32
// CHECK-NEXT: arith.cmpi ugt, %[[SH]], %c2_i32
// CHECK: gpu.shuffle  xor %{{.*}}, %c2_i32, %c32_i32
// CHECK-NEXT: arith.cmpi ugt, %[[SH]], %c1_i32
// CHECK: gpu.shuffle  xor %{{.*}}, %c1_i32, %c32_i32
// CHECK-NEXT: %[[K0:.*]] = arith.cmpi ugt, %[[SH]], %c0_i32
// CHECK: arith.select %[[K0]]
// CHECK: %[[MULTI:.*]] = arith.cmpi ugt, %[[SH]], %c5_i32
// CHECK-NEXT: scf.if %[[MULTI]] -> (f32) {
// CHECK: gpu.barrier
// CHECK: memref.store
// CHECK: gpu.barrier
// CHECK: } else {
// CHECK: math.exp
// CHECK: gpu.shuffle  xor
// CHECK: arith.cmpi ugt, %[[SH]], %c5_i32
// CHECK: gpu.return

// The narrow rows off the vector path (cols % 4 != 0 or a base not 16-byte
// aligned): the same groups and folds, every element a guarded scalar load.
// CHECK-LABEL: gpu.func @logsumexp_rows_g0_rows_narrow_scalar(
// CHECK: arith.shrui %c256_i64
// CHECK: scf.while
// CHECK-NOT: -> vector<4xf32>
// CHECK: llvm.load %{{.*}} -> f32
// CHECK-NOT: -> vector<4xf32>
// CHECK: gpu.shuffle  xor %{{.*}}, %c16_i32, %c32_i32
// CHECK-NOT: -> vector<4xf32>
// CHECK: gpu.return

// The long rows' kernel: a loop over the row's tiles.
// CHECK-LABEL: gpu.func @logsumexp_rows_g0_rows_long(
// CHECK-NOT: %c7_i32, %c8_i32
// CHECK: scf.for
// CHECK: gpu.return

// narrow-rows=4: groups of at least 4 threads (rows of up to 128 f32 in
// groups of 4, 64 rows per block), in the host's rows per block and the
// kernel's shift alike.
// MIN4ATTR: narrowRows = 4
// MIN4-LABEL: func.func @logsumexp_rows(
// MIN4: %[[NEED:.*]] = arith.ceildivsi %arg2, %c32_i64
// MIN4: arith.cmpi sle, %[[NEED]], %c4_i64
// MIN4-NEXT: arith.select %{{.*}}, %c64_i64
// MIN4-NOT: arith.cmpi sle, %[[NEED]], %c2_i64
// MIN4: call @fuse_launch(
// MIN4-LABEL: gpu.func @logsumexp_rows_g0_rows_narrow(
// MIN4: arith.select %{{.*}}, %c2_i32, %{{.*}} : i32
// MIN4-NOT: %c1_i32, %{{.*}} : i32
// MIN4: scf.while

// Rank-2 results (softmax): groups of 2 threads only for rows of at most
// 16 f32 (two 16-byte vectors a thread), of 1 for at most 8; in the
// host's rows per block and the kernel's shift alike.
// SOFTMAX-LABEL: func.func @softmax_rows(
// SOFTMAX: %[[NEED:.*]] = arith.ceildivsi %arg2, %c16_i64
// SOFTMAX: %[[N2:.*]] = arith.cmpi sle, %[[NEED]], %c2_i64
// SOFTMAX-NEXT: %[[C2:.*]] = arith.cmpi sle, %arg2, %c16_i64
// SOFTMAX-NEXT: %[[F2:.*]] = arith.andi %[[N2]], %[[C2]]
// SOFTMAX-NEXT: arith.select %[[F2]], %c128_i64
// SOFTMAX: %[[N1:.*]] = arith.cmpi sle, %[[NEED]], %c1_i64
// SOFTMAX-NEXT: %[[C1:.*]] = arith.cmpi sle, %arg2, %c8_i64
// SOFTMAX-NEXT: %[[F1:.*]] = arith.andi %[[N1]], %[[C1]]
// SOFTMAX-NEXT: %[[PV:.*]] = arith.select %[[F1]], %c256_i64
// SOFTMAX: arith.cmpi sle, %[[NEED]], %c8_i64
// SOFTMAX-NEXT: %[[PS:.*]] = arith.select %{{.*}}, %c32_i64, %{{.*}} : i64
// SOFTMAX-NEXT: arith.select %{{.*}}, %[[PV]], %[[PS]] : i64
// Off the vector path rank-2 results are narrow up to the whole block
// (need <= 256: every row that fits the registers, in groups of up to 8
// warps; on the vector path need <= 128), so their stores are striped and
// the register path's kernel serves the vector path only: no scalar
// loads there.
// SOFTMAX-NEXT: %[[NV:.*]] = arith.cmpi sle, %[[NEED]], %c128_i64
// SOFTMAX-NEXT: %[[NS:.*]] = arith.cmpi sle, %[[NEED]], %c256_i64
// SOFTMAX-NEXT: %[[NARROW:.*]] = arith.select %{{.*}}, %[[NV]], %[[NS]] : i1
// SOFTMAX-NEXT: arith.select %[[NARROW]], %{{.*}}, %c1_i64 : i64
// SOFTMAX-LABEL: gpu.func @softmax_rows_g0_rows(
// SOFTMAX-NOT: -> f32
// SOFTMAX: llvm.load %{{.*}} -> vector<4xf32>
// SOFTMAX-NOT: -> f32
// SOFTMAX-LABEL: gpu.func @softmax_rows_g0_rows_narrow(
// SOFTMAX-NOT: arith.cmpi sgt, %{{.*}}, %c7_i32 : i32
// SOFTMAX: arith.cmpi ule, %{{.*}}, %c2_i64
// SOFTMAX-NEXT: arith.cmpi ule, %{{.*}}, %c16_i64
// SOFTMAX-NEXT: arith.andi
// SOFTMAX-NEXT: arith.select %{{.*}}, %c1_i32
// SOFTMAX: arith.cmpi ule, %{{.*}}, %c1_i64
// SOFTMAX-NEXT: arith.cmpi ule, %{{.*}}, %c8_i64
// SOFTMAX-NEXT: arith.andi
// SOFTMAX-NEXT: arith.select %{{.*}}, %c0_i32
// SOFTMAX: scf.while

// Off the vector path, rank-2 results take groups of at least 8 threads
// (32 bytes of f32 a store instruction): the host's second chain (above)
// stops at 32 rows per block and the vector flag picks between the two;
// the scalar kernel's shift stops at 3.
// SOFTMAX-LABEL: gpu.func @softmax_rows_g0_rows_narrow_scalar(
// SOFTMAX: arith.cmpi ule, %{{.*}}, %c8_i64
// SOFTMAX-NEXT: %[[SS:.*]] = arith.select %{{.*}}, %c3_i32, %{{.*}} : i32
// SOFTMAX-NEXT: arith.extui %[[SS]]
// SOFTMAX: scf.while
// SOFTMAX: arith.addi %{{.*}}, %c7_i32 : i32
// SOFTMAX: arith.cmpi sgt, %{{.*}}, %c7_i32 : i32

// Chunks past the row are skipped, not computed and discarded: a row
// needs ceil(cols / R) of a thread's slots, and chunk j >= 1 of the narrow
// kernels (its loads, its stage elements, its stores) sits under a
// uniform branch on its first column j * R * 4 < cols.
// SKIP-LABEL: gpu.func @logsumexp_rows_g0_rows_narrow(
// SKIP: %[[C32:.*]] = arith.trunci %arg5 : i64 to i32
// SKIP: %[[ST:.*]] = arith.shli %c4_i32, %{{.*}} : i32
// SKIP: %[[N1:.*]] = arith.cmpi slt, %[[ST]], %[[C32]] : i32
// SKIP-NEXT: scf.if %[[N1]] -> (vector<4xf32>) {
// SKIP: llvm.load %{{.*}} -> vector<4xf32>
// SKIP: %[[J2:.*]] = arith.muli %[[ST]], %c2_i32
// SKIP-NEXT: arith.cmpi slt, %[[J2]], %[[C32]] : i32
// SKIP: %[[J3:.*]] = arith.muli %[[ST]], %c3_i32
// SKIP-NEXT: arith.cmpi slt, %[[J3]], %[[C32]] : i32
// The sum of exp(x - max): chunk 0's four exps, then each later chunk's
// under its branch.
// SKIP: math.exp
// SKIP: math.exp
// SKIP: math.exp
// SKIP: math.exp
// SKIP: %[[E1:.*]] = arith.cmpi slt, %{{.*}}, %[[C32]] : i32
// SKIP-NEXT: scf.if %[[E1]] -> (f32) {
// SKIP-NEXT: arith.subf
// SKIP-NEXT: math.exp
// SKIP-LABEL: gpu.func @logsumexp_rows_g0_rows_narrow_scalar(
// SKIP: scf.while
// SKIP: scf.if %{{.*}} -> (vector<4xf32>) {
// SKIP-NEXT: arith.muli
// SKIP-NEXT: arith.cmpi slt
// SKIP-NEXT: scf.if %{{.*}} -> (f32) {
// SKIP: llvm.load %{{.*}} -> f32
// SKIP: llvm.load %{{.*}} -> f32
// SKIP: llvm.load %{{.*}} -> f32
// SKIP: llvm.load %{{.*}} -> f32
// SKIP: gpu.return

// OFF-LABEL: func.func @logsumexp_rows(
// OFF-NOT: arith.ceildivsi %arg2
// OFF-LABEL: gpu.func @logsumexp_rows_g0_rows(
// OFF-NOT: arith.cmpi ugt, %{{.*}}, %c5_i32
// OFF: gpu.return

// Static widths: narrowRows only when a row may need at most half the
// block (1000 columns, not 8192).
// STATIC-LABEL: func @narrow_static
// STATIC: narrowRows = 1
// STATIC-LABEL: func @wide_static
// STATIC-NOT: narrowRows
// STATIC: return
func.func @narrow_static(%x: tensor<64x1000xf32>) -> tensor<64xf32> {
  %s = fuse.group row_reduce (%x) : (tensor<64x1000xf32>) -> tensor<64xf32> {
  ^bb0(%a: tensor<64x1000xf32>):
    %r = fuse.reduce add %a dims [1] : tensor<64x1000xf32> -> tensor<64xf32>
    fuse.yield %r : tensor<64xf32>
  }
  return %s : tensor<64xf32>
}
func.func @wide_static(%x: tensor<64x8192xf32>) -> tensor<64xf32> {
  %s = fuse.group row_reduce (%x) : (tensor<64x8192xf32>) -> tensor<64xf32> {
  ^bb0(%a: tensor<64x8192xf32>):
    %r = fuse.reduce add %a dims [1] : tensor<64x8192xf32> -> tensor<64xf32>
    fuse.yield %r : tensor<64xf32>
  }
  return %s : tensor<64xf32>
}
