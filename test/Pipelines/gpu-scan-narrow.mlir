// REQUIRES: cuda-toolkit
// Scans of narrow elements keep the cost model's 512-thread tiles in
// registers like f32 (stageTiles = false: one block per SM, up to 128
// registers): staged, their 16 KiB tiles ran two blocks per SM at 64
// registers and spilled 440 (i8) and 442 (i16) bytes. With block-threads
// set, stage-tiles decides (the 256-thread tile is staged).
// RUN: fuse-opt %s --fuse-fusion --fuse-tile | FileCheck %s --check-prefix=ATTR
// RUN: fuse-opt %s --fuse-fusion --fuse-tile=block-threads=256 | FileCheck %s --check-prefix=ATTR256
// RUN: fuse-compile %s --emit=ptx -o %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: ptxas -v -arch=sm_90 %t.ptx -o %t.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS

// ATTR: fuse.group scan{{.*}}blockThreads = 512,{{.*}}itemsPerThread = 32, vectorWidth = 16>
// ATTR: fuse.group scan{{.*}}blockThreads = 512,{{.*}}itemsPerThread = 32, vectorWidth = 8>
// ATTR256: fuse.group scan{{.*}}blockThreads = 256{{.*}}stageTiles = true

// CHECK-LABEL: .entry cumsum_i8_g0_scan(
// CHECK: .minnctapersm 1
// CHECK-NOT: cp.async
// CHECK-LABEL: .entry cumsum_i16_g0_scan(
// CHECK: .minnctapersm 1
// CHECK-NOT: cp.async

// PTXAS-DAG: Compiling entry function 'cumsum_i8_g0_scan'
// PTXAS-DAG: Compiling entry function 'cumsum_i16_g0_scan'
// PTXAS-NOT: {{[1-9][0-9]*}} bytes spill stores

func.func @cumsum_i8(%x: tensor<?xi8>) -> tensor<?xi8> {
  %y = fuse.scan inclusive add %x : tensor<?xi8> -> tensor<?xi8>
  return %y : tensor<?xi8>
}

func.func @cumsum_i16(%x: tensor<?xi16>) -> tensor<?xi16> {
  %y = fuse.scan inclusive add %x : tensor<?xi16> -> tensor<?xi16>
  return %y : tensor<?xi16>
}
