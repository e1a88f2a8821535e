// REQUIRES: cuda-toolkit
// fuse-tile compact-filter=1 (off by default: no faster on the H200 at any
// tile shape measured, docs/performance.md): filter
// kernels keep the per-item flags packed in one word (behind an opaque
// mov, so LLVM cannot unpack it) and the scatter positions as 32-bit tile
// offsets. Tiles of 512 threads x 32 items in registers then fit in 128
// registers with at most a few bytes of spills (120 without). Scans and the
// default filter are unchanged.
// RUN: fuse-opt %s --fuse-fusion --fuse-tile=compact-filter=1 | FileCheck %s --check-prefix=ATTR
// RUN: fuse-opt %s --fuse-fusion --fuse-tile | FileCheck %s --check-prefix=ATTR0
// RUN: fuse-opt %s --fuse-fusion --fuse-tile="block-threads=512 stage-tiles=0 items-per-thread=32 compact-filter=1" -o %t.c.mlir
// RUN: fuse-compile %t.c.mlir --no-fusion --emit=ptx -o %t.c.ptx
// RUN: FileCheck %s < %t.c.ptx
// RUN: ptxas -v -arch=sm_90 %t.c.ptx -o %t.c.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: fuse-compile %s --emit=ptx -o %t.d.ptx
// RUN: not grep "inline asm" %t.d.ptx

// ATTR: fuse.group "filter"{{.*}}compact_filter = 1
// ATTR-NOT: compact_filter
// ATTR0-NOT: compact_filter

// CHECK-LABEL: .entry compact_select_g0_filter(
// CHECK: .maxntid 512, 1, 1
// CHECK: begin inline asm
// CHECK-NEXT: mov.b32
// CHECK: vote.sync.ballot.b32
// CHECK: st.global.{{b32|f32}}
// PTXAS-LABEL: 'compact_select_g0_filter'
// PTXAS: {{[0-8]}} bytes spill stores

func.func @compact_select(%x: tensor<?xf32>) -> tensor<?xf32> {
  %zero = arith.constant 0.0 : f32
  %y = fuse.filter %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %p = arith.cmpf ogt, %a, %zero : f32
    fuse.yield %p : i1
  }
  return %y : tensor<?xf32>
}

func.func @cumsum(%x: tensor<?xf32>) -> tensor<?xf32> {
  %y = fuse.scan inclusive add %x : tensor<?xf32> -> tensor<?xf32>
  return %y : tensor<?xf32>
}
