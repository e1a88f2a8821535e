// The target description: fuse-attach-target puts a chip's figures on the
// module, and fusion and tiling read them. An A100 (sm_80: 108 SMs, 163 KiB
// a block) gets A100 tilings; a module without fuse.target gets sm_90's
// (H100 and H200 SXM: 132 SMs, 227 KiB).
// RUN: fuse-opt %s --fuse-attach-target=chip=sm_80 --fuse-fusion --fuse-tile | FileCheck %s --check-prefix=A100
// RUN: fuse-opt %s --fuse-fusion --fuse-tile | FileCheck %s --check-prefix=H200
// RUN: fuse-opt %s --fuse-attach-target=chip=sm_90 --fuse-fusion --fuse-tile | FileCheck %s --check-prefix=H200
// RUN: fuse-opt %s --fuse-attach-target="chip=sm_90 sm-count=114" --fuse-fusion --fuse-tile | FileCheck %s --check-prefix=PCIE
// A module without fuse ops (the fuse dialect not loaded by the parser)
// gets the attribute too; the pass used to abort there:
// RUN: echo 'func.func @f(%%x: f32) -> f32 { return %%x : f32 }' | fuse-opt --fuse-attach-target | FileCheck %s --check-prefix=NOFUSE
// NOFUSE: module attributes {fuse.target = #fuse.target<chip = "sm_90"
// The GPU pipelines (fuse-compile and fuse-run --chip) attach their chip's
// target first:
// RUN: fuse-opt %s --fuse-to-ptx=chip=sm_80 --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=PIPE
// PIPE: builtin.module(
// PIPE-NEXT: fuse-attach-target{chip=sm_80
// PIPE-NEXT: resolve-ranked-shaped-type-result-dims
// PIPE-NEXT: canonicalize
// PIPE-NEXT: fuse-builtin-combiners
// PIPE-NEXT: fuse-widen-accumulators
// PIPE-NEXT: fuse-sort-positions
// PIPE-NEXT: fuse-comparator-keys
// PIPE-NEXT: fuse-searchsorted-table
// PIPE-NEXT: fuse-split-reductions
// PIPE-NEXT: fuse-collapse-rows
// PIPE-NEXT: fuse-merge-reductions
// PIPE-NEXT: fuse-fusion
// PIPE-NEXT: fuse-bool-bytes
// RUN: not fuse-opt %s --fuse-attach-target=chip=sm_70 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not fuse-opt %s --fuse-attach-target="chip=sm_90 sm-count=-1" 2>&1 | FileCheck %s --check-prefix=NEG

// A100: module attributes {fuse.target = #fuse.target<chip = "sm_80", smCount = 108, maxThreadsPerBlock = 1024, maxThreadsPerSM = 2048, sharedMemoryPerBlock = 166912, sharedMemoryPerSM = 167936, registersPerSM = 65536, l2Bytes = 41943040, vectorBytes = 16>}
// H200-NOT: smCount = 108
// PCIE: smCount = 114
// BAD: error: unsupported GPU architecture 'sm_70' (--chip): fuse compiles for sm_75, sm_80,
// NEG: error: fuse-attach-target: sm-count must not be negative, not -1

// A static reduction: the persistent grid is SMs x 8 blocks of 256 threads.
// A100-LABEL: func.func @sumsq
// A100: grid = 864
// H200-LABEL: func.func @sumsq
// H200: grid = 1056
// PCIE-LABEL: func.func @sumsq
// PCIE: grid = 912
func.func @sumsq(%x: tensor<16777216xf32>) -> tensor<f32> {
  %sq = fuse.map %x : tensor<16777216xf32> -> tensor<16777216xf32> {
  ^bb0(%a: f32):
    %m = arith.mulf %a, %a : f32
    fuse.yield %m : f32
  }
  %s = fuse.reduce add %sq : tensor<16777216xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// Softmax over rows of dynamic width: staged rows up to what a block may
// opt in to.
// A100-LABEL: func.func @softmax
// A100: stagedRows = 166912
// H200-LABEL: func.func @softmax
// H200: stagedRows = 232448
func.func @softmax(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = tensor.dim %x, %c0 : tensor<?x?xf32>
  %c = tensor.dim %x, %c1 : tensor<?x?xf32>
  %m = fuse.reduce max %x dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %mb = fuse.broadcast %m dims [1] (%c) : tensor<?xf32> -> tensor<?x?xf32>
  %e = fuse.map %x, %mb : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32> {
  ^bb0(%a: f32, %b: f32):
    %d = arith.subf %a, %b : f32
    %v = math.exp %d : f32
    fuse.yield %v : f32
  }
  %s = fuse.reduce add %e dims [1] : tensor<?x?xf32> -> tensor<?xf32>
  %sb = fuse.broadcast %s dims [1] (%c) : tensor<?xf32> -> tensor<?x?xf32>
  %o = fuse.map %e, %sb : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<?x?xf32> {
  ^bb0(%a: f32, %b: f32):
    %q = arith.divf %a, %b : f32
    fuse.yield %q : f32
  }
  return %o : tensor<?x?xf32>
}

// Rows of 50000 f32 (200000 bytes) fit a block's shared memory on sm_90
// (232448) but not on sm_80 (166912): there the row reduction and the map
// that reads its result per row are not fused.
// A100-LABEL: func.func @wide_rows
// A100: fuse.not_fused = [{{.*}}above max-row-bytes=166912
// H200-LABEL: func.func @wide_rows
// H200-NOT: fuse.not_fused
// H200: return
func.func @wide_rows(%x: tensor<8x50000xf32>) -> tensor<8x50000xf32> {
  %m = fuse.reduce max %x dims [1] : tensor<8x50000xf32> -> tensor<8xf32>
  %mb = fuse.broadcast %m dims [1] : tensor<8xf32> -> tensor<8x50000xf32>
  %o = fuse.map %x, %mb : tensor<8x50000xf32>, tensor<8x50000xf32> -> tensor<8x50000xf32> {
  ^bb0(%a: f32, %b: f32):
    %d = arith.subf %a, %b : f32
    fuse.yield %d : f32
  }
  return %o : tensor<8x50000xf32>
}
