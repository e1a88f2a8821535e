// fuse.tiling is a #fuse.tiling whose verifier bounds every field; an
// override of fuse-tile that asks for what no kernel builds is an error at
// the group, not a value the conversion would quietly change.
// RUN: not fuse-opt %s --fuse-fusion --fuse-tile=block-threads=100 2>&1 | FileCheck %s --check-prefix=THREADS
// RUN: not fuse-opt %s --fuse-fusion --fuse-tile=vector-width=3 2>&1 | FileCheck %s --check-prefix=VW
// RUN: not fuse-opt %s --fuse-fusion --fuse-tile=poll-delay=2000000 2>&1 | FileCheck %s --check-prefix=POLL
// RUN: not fuse-opt %s --fuse-tile=staged-rows=-2 2>&1 | FileCheck %s --check-prefix=STAGED
// RUN: not fuse-opt %s --fuse-fusion=max-row-bytes=-2 2>&1 | FileCheck %s --check-prefix=ROW
// THREADS: error: 'fuse.group' op fuse-tile:
// THREADS: tiling blockThreads must be a multiple of 32 from 32 to 1024, not 100
// VW: tiling vectorWidth must be a power of two up to 16, not 3
// POLL: fuse-tile: poll-delay and lookback-delay must be 0 to 1000000 ns, not 2000000 and 1500
// STAGED: fuse-tile: staged-rows must be -1 (the target's), 0 (off) or a byte count, not -2
// ROW: fuse-fusion: max-row-bytes must be -1 (the target's) or a byte count, not -2
func.func @sumsq(%x: tensor<?xf32>) -> tensor<f32> {
  %sq = fuse.map %x : tensor<?xf32> -> tensor<?xf32> {
  ^bb0(%a: f32):
    %m = arith.mulf %a, %a : f32
    fuse.yield %m : f32
  }
  %s = fuse.reduce add %sq : tensor<?xf32> -> tensor<f32>
  return %s : tensor<f32>
}
