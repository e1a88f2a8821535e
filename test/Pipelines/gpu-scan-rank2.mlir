// REQUIRES: cuda-toolkit
// Scans over rank > 1 tensors compile for the GPU (were rejected: "a scan
// group over rank > 1 tensors is not supported yet"): one line-scan kernel
// per group over the outer x len x inner view around the scanned
// dimension, with the group's prologue and epilogue maps evaluated per
// element. Along another dimension than the last, a thread takes a line
// (grid-stride over lines, a sequential loop along the line); along the
// last (rows, inner = 1) a warp takes a row: each lane reads 16 bytes of
// items a chunk, the lanes' totals are scanned with shfl.up and the
// chunk's total goes to the next chunk with shfl.idx from lane 31; a
// lane stores its 4 items with one 16-byte store where rows are a
// multiple of 4 long and the result aligned, else one by one. The host
// computes lines = outer * inner, len and inner from the scan's input
// sizes, launches lines threads (a warp a row for rows: lines * 32) and
// nothing when either is 0. Lines too few to fill the GPU are split into
// chunks: a partials kernel (linescanpart, launched only when a line has
// more than one chunk, its partials in a temporary) and the scan kernel,
// a thread a (line, chunk) from the partials before its chunk.
// test/Integration/GPU/extra/scan_rank2.mlir and scan_rows_warp.mlir
// compare GPU and CPU values (scripts/gpu).
// RUN: fuse-compile %s --emit=ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: FileCheck %s --check-prefix=VEC < %t.ptx
// RUN: ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: fuse-opt %s --fuse-fusion --fuse-tile --convert-fuse-to-gpu | FileCheck %s --check-prefix=HOST
// A thread reads 16 bytes of its line's narrow elements before it combines
// and stores them (loads, then a store, one load in flight, kept a column
// of bytes under half the bandwidth): 16 loads of the i8 column's bytes
// come before the kernel's first store.
// RUN: %python -c "import re, sys; t = open(sys.argv[1]).read().split('.entry bool_col_scan_g0_linescan(')[1].split('.entry')[0]; first = t.index('st.global'); assert len(re.findall(r'ld\.global\.b8', t[:first])) >= 16, t[:first]" %t.ptx
// RUN: fuse-run %s --entry col_scan --arg rand:9x5 --print > %t.cpu.txt
// RUN: fuse-run %s --entry col_scan --arg rand:9x5 --print --no-fusion > %t.cpu-unfused.txt
// RUN: diff %t.cpu.txt %t.cpu-unfused.txt

// CHECK-LABEL: .entry col_scan_g0_linescan(
// CHECK: .maxntid 256, 1, 1
// CHECK: div.u64
// CHECK: max.s32
// CHECK: st.global.b32
// CHECK-LABEL: .entry col_scan_g0_linescanpart(
// CHECK-DAG: cvt.rzi.s32.f32
// CHECK-DAG: max.s32
// CHECK-DAG: st.global.b32
// CHECK-LABEL: .entry row_scan_g0_linescan(
// CHECK: .maxntid 256, 1, 1
// CHECK: shfl.sync.idx.b32 {{.*}}, 31, 31, -1;
// CHECK-COUNT-4: ld.global.b32
// CHECK-COUNT-5: shfl.sync.up.b32
// CHECK: shfl.sync.up.b32 {{.*}}, 1, 0, -1;
// CHECK: add.rn.f32
// CHECK: st.global.b32
// VEC-LABEL: .entry row_scan_g0_linescan(
// VEC: st.global.v4.b32

// HOST-LABEL: func.func @col_scan(
// HOST: arith.muli
// HOST: arith.cmpi sgt
// HOST: call @fuse_malloc
// HOST: call @fuse_launch
// HOST: call @fuse_launch
// HOST: call @fuse_free
// HOST-LABEL: func.func @row_scan(
// HOST: %[[W:.+]] = arith.constant 32 : i64
// HOST: arith.muli %{{.+}}, %[[W]] : i64
// HOST: call @fuse_launch

func.func @col_scan(%x: tensor<?x?xf32>) -> tensor<?x?xi32> {
  %q = fuse.map %x : tensor<?x?xf32> -> tensor<?x?xi32> {
  ^bb0(%a: f32):
    %k = arith.constant 100.0 : f32
    %s = arith.mulf %a, %k : f32
    %i = arith.fptosi %s : f32 to i32
    fuse.yield %i : i32
  }
  %init = arith.constant 3 : i32
  %m = fuse.scan exclusive max %q init(%init : i32) dim 0 : tensor<?x?xi32> -> tensor<?x?xi32>
  return %m : tensor<?x?xi32>
}

func.func @row_scan(%x: tensor<4x?xf32>) -> tensor<4x?xf32> {
  %s = fuse.scan inclusive add %x dim 1 : tensor<4x?xf32> -> tensor<4x?xf32>
  return %s : tensor<4x?xf32>
}

func.func @bool_col_scan(%x: tensor<?x?xi8>) -> tensor<?x?xi16> {
  %b = fuse.map %x : tensor<?x?xi8> -> tensor<?x?xi1> {
  ^bb0(%a: i8):
    %z = arith.constant 0 : i8
    %c = arith.cmpi ne, %a, %z : i8
    fuse.yield %c : i1
  }
  %s = fuse.scan inclusive and %b dim 0 : tensor<?x?xi1> -> tensor<?x?xi1>
  %w = fuse.map %s : tensor<?x?xi1> -> tensor<?x?xi16> {
  ^bb0(%a: i1):
    %e = arith.extsi %a : i1 to i16
    fuse.yield %e : i16
  }
  return %w : tensor<?x?xi16>
}
