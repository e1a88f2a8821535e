// RUN: fuse-opt %s --split-input-file --fuse-tile | FileCheck %s
// RUN: fuse-opt %s --split-input-file --fuse-tile="block-threads=128 items-per-thread=8 vector-width=2 grid=7" | FileCheck %s --check-prefix=OVR

// RUN: not fuse-opt %s --split-input-file --fuse-tile="finish-prefetch=9" 2>&1 | FileCheck %s --check-prefix=BADFP
// RUN: fuse-opt %s --split-input-file --fuse-tile="finish-prefetch=0" | FileCheck %s --check-prefix=NOFP
// RUN: not fuse-opt %s --split-input-file --fuse-tile="long-row-items=33" 2>&1 | FileCheck %s --check-prefix=BADLR
// RUN: fuse-opt %s --split-input-file --fuse-tile="block-threads=128 items-per-thread=8 long-row-items=0" | FileCheck %s --check-prefix=NOLR
// RUN: not fuse-opt %s --split-input-file --fuse-tile="long-row-stage-items=0" 2>&1 | FileCheck %s --check-prefix=BADLRS
// RUN: fuse-opt %s --split-input-file --fuse-tile="block-threads=128 items-per-thread=8 long-row-stage-items=4 one-walk-variance=1" | FileCheck %s --check-prefix=LRS
// RUN: not fuse-opt %s --split-input-file --fuse-tile="wide-row-threads=100" 2>&1 | FileCheck %s --check-prefix=BADWRT
// RUN: fuse-opt %s --split-input-file --fuse-tile="block-threads=128 items-per-thread=8 wide-row-threads=0" | FileCheck %s --check-prefix=NOWIDE
// RUN: fuse-opt %s --split-input-file --fuse-tile="block-threads=128 items-per-thread=8 wide-row-threads=512" | FileCheck %s --check-prefix=WIDE512
// RUN: not fuse-opt %s --split-input-file --fuse-tile="narrow-rows=3" 2>&1 | FileCheck %s --check-prefix=BADNR
// RUN: not fuse-opt %s --split-input-file --fuse-tile="narrow-rows=64" 2>&1 | FileCheck %s --check-prefix=BADNR64

// BADFP: error: fuse-tile: finish-prefetch must be 0-8, not 9
// NOFP-NOT: finishPrefetch
// BADLR: error: fuse-tile: long-row-items must be 0-32, not 33
// BADLRS: error: fuse-tile: long-row-stage-items must be 1-32, not 0
// LRS-LABEL: func @rows
// LRS: longRowItems = 8, longRowStageItems = 4, onlineMaxSum = true, oneWalkVariance = true
// BADWRT: error: fuse-tile: wide-row-threads must be 0 or a multiple of 32 up to the target's threads per block (1024), not 100
// NOWIDE-LABEL: func @rows
// NOWIDE-NOT: wideRowThreads
// 512 threads of 8 items hold rows of 4096, not of 8192.
// WIDE512-LABEL: func @rows
// WIDE512: wideRowThreads = 512
// WIDE512-LABEL: func @wide_rows
// WIDE512-NOT: wideRowThreads
// BADNR: error: fuse-tile: narrow-rows must be 0 or a power of two up to 32, not 3
// BADNR64: error: fuse-tile: narrow-rows must be 0 or a power of two up to 32, not 64

// Dynamic f32 reduce: 16-byte vectors of 4, 64 bytes in flight per thread
// (16 items), persistent grid 132 SMs * (2048 / 256) blocks.
// CHECK-LABEL: func @dyn
// CHECK: fuse.tiling = #fuse.tiling<blockThreads = 256, grid = 1056, itemsPerThread = 16, vectorWidth = 4, finishPrefetch = 4>
// OVR-LABEL: func @dyn
// OVR: fuse.tiling = #fuse.tiling<blockThreads = 128, grid = 7, itemsPerThread = 8, vectorWidth = 2, finishPrefetch = 4>
func.func @dyn(%x: tensor<?xf32>) -> tensor<f32> {
  %s = fuse.group reduce (%x) : (tensor<?xf32>) -> tensor<f32> {
  ^bb0(%a: tensor<?xf32>):
    %r = fuse.reduce add %a : tensor<?xf32> -> tensor<f32>
    fuse.yield %r : tensor<f32>
  }
  return %s : tensor<f32>
}

// -----

// Static 4096 f32: one block of 256 threads * 16 items covers it.
// CHECK-LABEL: func @small
// CHECK: fuse.tiling = #fuse.tiling<blockThreads = 256, grid = 1, itemsPerThread = 16, vectorWidth = 4, finishPrefetch = 4>
func.func @small(%x: tensor<4096xf32>) -> tensor<f32> {
  %s = fuse.group reduce (%x) : (tensor<4096xf32>) -> tensor<f32> {
  ^bb0(%a: tensor<4096xf32>):
    %r = fuse.reduce add %a : tensor<4096xf32> -> tensor<f32>
    fuse.yield %r : tensor<f32>
  }
  return %s : tensor<f32>
}

// -----

// Static but 2^29 f32 (2 GiB of bytes): offsets reach 2^31, so 64-bit.
// f64 dot: 2 elements per 16-byte vector, 16 bytes per element over two
// inputs: 4 items.
// CHECK-LABEL: func @big
// CHECK: fuse.tiling = #fuse.tiling<blockThreads = 256, grid = 1056, itemsPerThread = 4, vectorWidth = 2, finishPrefetch = 4>
func.func @big(%x: tensor<536870912xf64>, %y: tensor<536870912xf64>) -> tensor<f64> {
  %s = fuse.group reduce (%x, %y) : (tensor<536870912xf64>, tensor<536870912xf64>) -> tensor<f64> {
  ^bb0(%a: tensor<536870912xf64>, %b: tensor<536870912xf64>):
    %p = fuse.map %a, %b : tensor<536870912xf64>, tensor<536870912xf64> -> tensor<536870912xf64> {
    ^bb0(%u: f64, %v: f64):
      %m = arith.mulf %u, %v : f64
      fuse.yield %m : f64
    }
    %r = fuse.reduce add %p : tensor<536870912xf64> -> tensor<f64>
    fuse.yield %r : tensor<f64>
  }
  return %s : tensor<f64>
}

// -----

// Row-wise with static rows of 4096 f32: the dynamic widths' tiles (256
// threads x 32 items, 128 bytes of loads a thread for groups whose results
// are all per row: the row fits the register path, and needs 128 threads,
// so narrow rows may take it, two rows a block), grid capped at the 64
// rows. (One vector a thread, 1024 threads, ran 2.3x slower.)
// CHECK-LABEL: func @rows
// CHECK: fuse.tiling = #fuse.tiling<blockThreads = 256, grid = 64, itemsPerThread = 32, vectorWidth = 4, narrowRows = 1>
// With 128 threads of 8 items a row of 4096 no longer fits; it is half of
// what wide-row-threads (1024) hold, under the wide kernel's range, so the
// row is walked: the output walk in steps of long-row-items (8) elements
// a thread, the reductions' walks in steps of long-row-stage-items (8), a
// max and a sum of exp(x - max) in one walk (onlineMaxSum), a sum and the
// squared deviations from its mean in one walk (oneWalkVariance).
// OVR-LABEL: func @rows
// OVR: fuse.tiling = #fuse.tiling<blockThreads = 128, grid = 7, itemsPerThread = 8, vectorWidth = 2, longRowItems = 8, longRowStageItems = 8, onlineMaxSum = true, oneWalkVariance = true>
// NOLR-LABEL: func @rows
// NOLR-NOT: longRowItems
func.func @rows(%x: tensor<64x4096xf32>) -> tensor<64xf32> {
  %s = fuse.group row_reduce (%x) : (tensor<64x4096xf32>) -> tensor<64xf32> {
  ^bb0(%a: tensor<64x4096xf32>):
    %r = fuse.reduce max %a dims [1] : tensor<64x4096xf32> -> tensor<64xf32>
    fuse.yield %r : tensor<64xf32>
  }
  return %s : tensor<64xf32>
}

// -----

// Static rows of 1000 f32: the same tiles; a row needs ceil(1000 / 32) =
// 32 threads, at most half the block: several rows per block
// (narrowRows). Rows of 8192 (@wide_rows) need the whole block.
// CHECK-LABEL: func @narrow_rows
// CHECK: fuse.tiling = #fuse.tiling<blockThreads = 256, grid = 1056, itemsPerThread = 32, vectorWidth = 4, narrowRows = 1>
func.func @narrow_rows(%x: tensor<5000x1000xf32>) -> tensor<5000xf32> {
  %s = fuse.group row_reduce (%x) : (tensor<5000x1000xf32>) -> tensor<5000xf32> {
  ^bb0(%a: tensor<5000x1000xf32>):
    %r = fuse.reduce add %a dims [1] : tensor<5000x1000xf32> -> tensor<5000xf32>
    fuse.yield %r : tensor<5000xf32>
  }
  return %s : tensor<5000xf32>
}

// -----

// Static rows of 8192 f32, results per row: the register path holds them
// (256 threads x 32 items); a row needs the whole block: no narrow rows.
// CHECK-LABEL: func @wide_rows
// CHECK: fuse.tiling = #fuse.tiling<blockThreads = 256, grid = 64, itemsPerThread = 32, vectorWidth = 4>
func.func @wide_rows(%x: tensor<64x8192xf32>) -> tensor<64xf32> {
  %s = fuse.group row_reduce (%x) : (tensor<64x8192xf32>) -> tensor<64xf32> {
  ^bb0(%a: tensor<64x8192xf32>):
    %r = fuse.reduce max %a dims [1] : tensor<64x8192xf32> -> tensor<64xf32>
    fuse.yield %r : tensor<64xf32>
  }
  return %s : tensor<64xf32>
}

// -----

// Per-row results of other widths: at most 32 elements and 128 bytes a
// thread (f64: 16, the same 32 registers of elements as f32's 32; f16:
// 32, one element a register).
// CHECK-LABEL: func @rows_f64
// CHECK: fuse.tiling = #fuse.tiling<blockThreads = 256, grid = 1056, itemsPerThread = 16, vectorWidth = 2, narrowRows = 1>
// CHECK-LABEL: func @rows_f16
// CHECK: fuse.tiling = #fuse.tiling<blockThreads = 256, grid = 1056, itemsPerThread = 32, vectorWidth = 8, narrowRows = 1>
func.func @rows_f64(%x: tensor<5000x1000xf64>) -> tensor<5000xf64> {
  %s = fuse.group row_reduce (%x) : (tensor<5000x1000xf64>) -> tensor<5000xf64> {
  ^bb0(%a: tensor<5000x1000xf64>):
    %r = fuse.reduce add %a dims [1] : tensor<5000x1000xf64> -> tensor<5000xf64>
    fuse.yield %r : tensor<5000xf64>
  }
  return %s : tensor<5000xf64>
}
func.func @rows_f16(%x: tensor<5000x1000xf16>) -> tensor<5000xf16> {
  %s = fuse.group row_reduce (%x) : (tensor<5000x1000xf16>) -> tensor<5000xf16> {
  ^bb0(%a: tensor<5000x1000xf16>):
    %r = fuse.reduce add %a dims [1] : tensor<5000x1000xf16> -> tensor<5000xf16>
    fuse.yield %r : tensor<5000xf16>
  }
  return %s : tensor<5000xf16>
}

// -----

// Rows with a rank-2 result (softmax's shape): 64 bytes of loads a thread
// (16 f32), since the mapped values stay live to the stores; ceil(1000 /
// 16) = 63 threads a row: narrow rows.
// CHECK-LABEL: func @rows_wide_result
// CHECK: fuse.tiling = #fuse.tiling<blockThreads = 256, grid = 1056, itemsPerThread = 16, vectorWidth = 4, narrowRows = 1>
func.func @rows_wide_result(%x: tensor<5000x1000xf32>) -> tensor<5000x1000xf32> {
  %s = fuse.group row_reduce (%x) : (tensor<5000x1000xf32>) -> tensor<5000x1000xf32> {
  ^bb0(%a: tensor<5000x1000xf32>):
    %m = fuse.reduce max %a dims [1] : tensor<5000x1000xf32> -> tensor<5000xf32>
    %mb = fuse.broadcast %m dims [1] : tensor<5000xf32> -> tensor<5000x1000xf32>
    %d = fuse.map %a, %mb : tensor<5000x1000xf32>, tensor<5000x1000xf32> -> tensor<5000x1000xf32> {
    ^bb0(%u: f32, %v: f32):
      %t = arith.subf %u, %v : f32
      fuse.yield %t : f32
    }
    fuse.yield %d : tensor<5000x1000xf32>
  }
  return %s : tensor<5000x1000xf32>
}

// -----

// The same with a per-column scale (layer norm's shape): the vector the
// rows broadcast does not count toward the 64 bytes, so a thread still
// holds 16 f32 of the row (rows of 4096 in registers), not 8.
// CHECK-LABEL: func @rows_scaled
// CHECK: fuse.tiling = #fuse.tiling<blockThreads = 256, grid = 1056, itemsPerThread = 16, vectorWidth = 4, narrowRows = 1>
func.func @rows_scaled(%x: tensor<5000x1000xf32>, %w: tensor<1000xf32>) -> tensor<5000x1000xf32> {
  %s = fuse.group row_reduce (%x, %w) : (tensor<5000x1000xf32>, tensor<1000xf32>) -> tensor<5000x1000xf32> {
  ^bb0(%a: tensor<5000x1000xf32>, %v: tensor<1000xf32>):
    %m = fuse.reduce max %a dims [1] : tensor<5000x1000xf32> -> tensor<5000xf32>
    %mb = fuse.broadcast %m dims [1] : tensor<5000xf32> -> tensor<5000x1000xf32>
    %wb = fuse.broadcast %v dims [0] : tensor<1000xf32> -> tensor<5000x1000xf32>
    %d = fuse.map %a, %mb, %wb : tensor<5000x1000xf32>, tensor<5000x1000xf32>, tensor<5000x1000xf32> -> tensor<5000x1000xf32> {
    ^bb0(%u: f32, %t: f32, %c: f32):
      %e = arith.subf %u, %t : f32
      %f = arith.mulf %e, %c : f32
      fuse.yield %f : f32
    }
    fuse.yield %d : tensor<5000x1000xf32>
  }
  return %s : tensor<5000x1000xf32>
}

// -----

// Elementwise, dynamic: one 16-byte vector per thread and as many blocks as
// that takes, sized on the host (grid 0).
// CHECK-LABEL: func @ew_dyn
// CHECK: fuse.tiling = #fuse.tiling<blockThreads = 256, grid = 0, itemsPerThread = 4, vectorWidth = 4>
// OVR-LABEL: func @ew_dyn
// OVR: fuse.tiling = #fuse.tiling<blockThreads = 128, grid = 7, itemsPerThread = 8, vectorWidth = 2>
func.func @ew_dyn(%x: tensor<?xf32>) -> tensor<?xf32> {
  %s = fuse.group elementwise (%x) : (tensor<?xf32>) -> tensor<?xf32> {
  ^bb0(%a: tensor<?xf32>):
    %m = fuse.map %a : tensor<?xf32> -> tensor<?xf32> {
    ^bb0(%u: f32):
      %v = arith.negf %u : f32
      fuse.yield %v : f32
    }
    fuse.yield %m : tensor<?xf32>
  }
  return %s : tensor<?xf32>
}

// -----

// Elementwise, static 10^6 f32: one vector per thread, ceil(10^6 / (256 *
// 4)) = 977 blocks.
// CHECK-LABEL: func @ew_static
// CHECK: fuse.tiling = #fuse.tiling<blockThreads = 256, grid = 977, itemsPerThread = 4, vectorWidth = 4>
func.func @ew_static(%x: tensor<1000000xf32>) -> tensor<1000000xf32> {
  %s = fuse.group elementwise (%x) : (tensor<1000000xf32>) -> tensor<1000000xf32> {
  ^bb0(%a: tensor<1000000xf32>):
    %m = fuse.map %a : tensor<1000000xf32> -> tensor<1000000xf32> {
    ^bb0(%u: f32):
      %v = arith.negf %u : f32
      fuse.yield %v : f32
    }
    fuse.yield %m : tensor<1000000xf32>
  }
  return %s : tensor<1000000xf32>
}

// -----

// Filters: 80 bytes of loads a thread (20 f32, 10 f64), staged, with the
// look-back delays and the shared-scatter buffer; scans: 512 threads x 128
// bytes (32 f32) in registers (no stageTiles).
// CHECK-LABEL: func @filters
// CHECK: fuse.group filter{{.*}}fuse.tiling = #fuse.tiling<blockThreads = 256, grid = 1056, itemsPerThread = 20, vectorWidth = 4, stageTiles = true, sharedScatter = true>
// CHECK: fuse.group filter{{.*}}fuse.tiling = #fuse.tiling<blockThreads = 256, grid = 1056, itemsPerThread = 10, vectorWidth = 2, stageTiles = true, sharedScatter = true>
// CHECK: fuse.group scan{{.*}}fuse.tiling = #fuse.tiling<blockThreads = 512, grid = 528, itemsPerThread = 32, vectorWidth = 4>
func.func @filters(%x: tensor<?xf32>, %d: tensor<?xf64>) -> (tensor<?xf32>, tensor<?xf64>, tensor<?xf32>) {
  %y = fuse.group filter (%x) : (tensor<?xf32>) -> tensor<?xf32> {
  ^bb0(%a: tensor<?xf32>):
    %zero = arith.constant 0.0 : f32
    %f = fuse.filter %a : tensor<?xf32> -> tensor<?xf32> {
    ^bb0(%u: f32):
      %p = arith.cmpf ogt, %u, %zero : f32
      fuse.yield %p : i1
    }
    fuse.yield %f : tensor<?xf32>
  }
  %e = fuse.group filter (%d) : (tensor<?xf64>) -> tensor<?xf64> {
  ^bb0(%a: tensor<?xf64>):
    %zd = arith.constant 0.0 : f64
    %f = fuse.filter %a : tensor<?xf64> -> tensor<?xf64> {
    ^bb0(%u: f64):
      %p = arith.cmpf ogt, %u, %zd : f64
      fuse.yield %p : i1
    }
    fuse.yield %f : tensor<?xf64>
  }
  %s = fuse.group scan (%x) : (tensor<?xf32>) -> tensor<?xf32> {
  ^bb0(%a: tensor<?xf32>):
    %c = fuse.scan inclusive add %a : tensor<?xf32> -> tensor<?xf32>
    fuse.yield %c : tensor<?xf32>
  }
  return %y, %e, %s : tensor<?xf32>, tensor<?xf64>, tensor<?xf32>
}
