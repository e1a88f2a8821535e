// REQUIRES: cuda-toolkit
// Staged tiles (fuse-tile stage-tiles=1, the default): scan and filter
// kernels whose tile fits in 32 KiB copy the block's next tile into shared
// memory with cp.async (16-byte vectors, one commit group, wait_group 0
// before the read-back) instead of holding it in registers, and ask for 4
// resident blocks of 256 threads (64 registers). Scans default to 512
// threads x 32 items, held in registers at one block per SM (128
// registers; fuse-tile leaves stageTiles off for them, narrow elements
// included); at 256 threads x 16 items they are staged too. stage-tiles=0 holds tiles in registers at 3
// blocks per SM without spills and emits no cp.async. The look-back delays
// (poll-delay, lookback-delay) reach the PTX as nanosleep; 0 drops them.
// RUN: fuse-opt %s --fuse-fusion --fuse-tile | FileCheck %s --check-prefix=ATTR
// RUN: fuse-compile %s --emit=ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -v -arch=sm_90 %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: fuse-opt %s --fuse-fusion --fuse-tile="block-threads=256 items-per-thread=16" -o %t.256.mlir
// RUN: fuse-compile %t.256.mlir --no-fusion --emit=ptx -o %t.256.ptx
// RUN: FileCheck %s --check-prefix=STAGED < %t.256.ptx
// RUN: fuse-opt %s --fuse-fusion --fuse-tile="block-threads=256 items-per-thread=16 stage-tiles=0 poll-delay=0 lookback-delay=0" | FileCheck %s --check-prefix=ATTR0
// RUN: fuse-opt %s --fuse-fusion --fuse-tile="block-threads=256 items-per-thread=16 stage-tiles=0 poll-delay=0 lookback-delay=0" -o %t.reg.mlir
// RUN: fuse-compile %t.reg.mlir --no-fusion --emit=ptx -o %t.reg.ptx
// RUN: FileCheck %s --check-prefix=REG < %t.reg.ptx
// RUN: not grep -E "cp.async|nanosleep" %t.reg.ptx
// RUN: ptxas -v -arch=sm_90 %t.reg.ptx -o %t.reg.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS-REG
// RUN: fuse-opt %s --fuse-fusion --fuse-tile --convert-fuse-to-gpu | FileCheck %s --check-prefix=HOST

// ATTR: fuse.group scan{{.*}}blockThreads = 512,{{.*}}itemsPerThread = 32, vectorWidth = 4>
// ATTR: fuse.group filter{{.*}}blockThreads = 256,{{.*}}stageTiles = true, sharedScatter = true>
// ATTR0: fuse.group scan{{.*}}vectorWidth = 4, pollDelay = 0, lookbackDelay = 0>

// The select's staging buffer is dynamic shared memory (the launch passes
// its size); the scan stages nothing.
// CHECK-NOT: .extern .shared
// CHECK: .extern .shared .align 16 .b8 staged_select_g0_filter_stage[];
// CHECK-NOT: .extern .shared
// CHECK-LABEL: .entry staged_scan_g0_scan(
// CHECK: .maxntid 512, 1, 1
// CHECK: .minnctapersm 1
// CHECK-NOT: cp.async
// CHECK: nanosleep.u32 {{.*}}1500;
// CHECK: nanosleep.u32 {{.*}}500;
// CHECK-NOT: cp.async
// CHECK-LABEL: .entry staged_select_g0_filter(
// CHECK: .maxntid 256, 1, 1
// CHECK: .minnctapersm 4
// CHECK: cp.async.wait_group {{.*}}0;
// CHECK: nanosleep.u32 {{.*}}1500;
// CHECK: nanosleep.u32 {{.*}}500;
// CHECK: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16;
// CHECK: cp.async.commit_group;
// PTXAS-LABEL: 'staged_select_g0_filter'
// PTXAS: Used {{[0-9]+}} registers, used 1 barriers, {{[0-9]+}} bytes smem

// 256 threads x 20 f32 = 20 KiB of dynamic shared memory for the select
// (and as much again for its shared-scatter buffer),
// none for the 512-thread scan (64 KiB: held in registers).
// HOST-LABEL: func.func @staged_scan(
// HOST: call @fuse_launch({{.*}}, %c512_i32, %{{[^,]*}}, %{{[^,]*}}, %c0_i32{{[_0-9]*}}, %{{[^,]*}}, %{{[^,]*}}) :
// HOST-LABEL: func.func @staged_select(
// HOST: %[[S:.*]] = arith.constant 40960 : i32
// HOST: call @fuse_launch({{.*}}, %c256_i32, %{{[^,]*}}, %{{[^,]*}}, %[[S]], %{{[^,]*}}, %{{[^,]*}}) :

// STAGED-LABEL: .entry staged_scan_g0_scan(
// STAGED: .minnctapersm 4
// STAGED: cp.async.cg.shared.global

// REG-LABEL: .entry staged_scan_g0_scan(
// REG: .minnctapersm 3
// PTXAS-REG-LABEL: 'staged_scan_g0_scan'
// PTXAS-REG: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

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
