// REQUIRES: cuda-toolkit
// fuse-tile stage-tiles=1 (experimental): scan and filter kernels copy the
// block's next tile into shared memory with cp.async (16-byte vectors,
// one commit group, wait_group 0 before the read-back) instead of holding
// it in registers, and ask for 4 resident blocks of 256 threads (64
// registers). Without the option no cp.async is emitted.
// RUN: fuse-opt %s --fuse-fusion --fuse-tile=stage-tiles=1 | FileCheck %s --check-prefix=ATTR
// RUN: fuse-opt %s --fuse-fusion --fuse-tile=stage-tiles=1 -o %t.mlir
// RUN: fuse-compile %t.mlir --no-fusion --emit=ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -v -arch=sm_90 %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: fuse-compile %s --emit=ptx -o %t.default.ptx
// RUN: not grep cp.async %t.default.ptx

// ATTR: fuse.group "scan"{{.*}}stage_tiles = 1
// ATTR: fuse.group "filter"{{.*}}stage_tiles = 1

// CHECK-LABEL: .entry staged_scan_g0_scan(
// CHECK: .minnctapersm 4
// CHECK: cp.async.wait_group {{.*}}0;
// CHECK: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16;
// CHECK: cp.async.commit_group;
// CHECK-LABEL: .entry staged_select_g0_filter(
// CHECK: cp.async.cg.shared.global
// PTXAS: Used {{[0-9]+}} registers, used 1 barriers, 1{{[0-9][0-9][0-9][0-9]}} bytes smem

func.func @staged_scan(%x: tensor<?xf32>) -> tensor<?xf32> {
  %y = fuse.scan inclusive add %x : tensor<?xf32> -> tensor<?xf32>
  return %y : tensor<?xf32>
}

func.func @staged_select(%x: tensor<?xf32>) -> tensor<?xf32> {
  %zero = arith.constant 0.0 : f32
  %y = fuse.filter %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %p = arith.cmpf ogt, %a, %zero : f32
    fuse.yield %p : i1
  }
  return %y : tensor<?xf32>
}
