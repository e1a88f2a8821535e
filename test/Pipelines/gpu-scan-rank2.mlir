// REQUIRES: cuda-toolkit
// Scans over rank > 1 tensors compile for the GPU (were rejected: "a scan
// group over rank > 1 tensors is not supported yet"): one line-scan kernel
// per group, a thread per line of the outer x len x inner view around the
// scanned dimension (grid-stride over lines, a sequential loop along the
// line), with the group's prologue and epilogue maps evaluated per
// element. The host computes lines = outer * inner, len and inner from the
// scan's input sizes and launches nothing when either is 0.
// test/Integration/GPU/extra/scan_rank2.mlir compares GPU and CPU values
// (scripts/gpu).
// RUN: fuse-compile %s --emit=ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: fuse-opt %s --fuse-fusion --fuse-tile --convert-fuse-to-gpu | FileCheck %s --check-prefix=HOST
// RUN: fuse-run %s --entry col_scan --arg rand:9x5 --print > %t.cpu.txt
// RUN: fuse-run %s --entry col_scan --arg rand:9x5 --print --no-fusion > %t.cpu-unfused.txt
// RUN: diff %t.cpu.txt %t.cpu-unfused.txt

// CHECK-LABEL: .entry col_scan_g0_linescan(
// CHECK: .maxntid 256, 1, 1
// CHECK: div.u64
// CHECK: max.s32
// CHECK: st.global.b32
// CHECK-LABEL: .entry row_scan_g0_linescan(
// CHECK: add.rn.f32
// CHECK: st.global.b32

// HOST-LABEL: func.func @col_scan(
// HOST: arith.muli
// HOST: arith.cmpi sgt
// HOST: call @fuse_launch
// HOST-LABEL: func.func @row_scan(

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
