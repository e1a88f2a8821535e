//===- FuseDialect.h - the fuse dialect -------------------------*- C++ -*-===//
#ifndef FUSE_DIALECT_FUSE_IR_FUSEDIALECT_H
#define FUSE_DIALECT_FUSE_IR_FUSEDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dialect.h"
#include "fuse/Support/LLVM.h"

#include "fuse/Dialect/Fuse/IR/FuseOpsDialect.h.inc"

namespace fuse {

/// Scan and filter look-back tiles: the default nanoseconds a tile sleeps
/// between reads of a window that is not ready, and after publishing its
/// aggregate before its first read. The one source of fuse-tile's
/// poll-delay and lookback-delay (Passes.td), of #fuse.tiling's pollDelay
/// and lookbackDelay when absent (FuseDialect.td) and of the GPU code
/// generator's Tiling; docs/performance.md has the measurements.
constexpr int64_t kDefaultPollDelay = 500;
constexpr int64_t kDefaultLookbackDelay = 1500;

/// segmented_reduce groups: the elements of a piece when long segments are
/// split over several blocks (0: never split). The one source of fuse-tile's
/// segment-piece, #fuse.tiling's segmentPiece when absent and the GPU code
/// generator's Tiling (docs/gpu-codegen.md, "Segmented reductions").
constexpr int64_t kDefaultSegmentPiece = 8192;

} // namespace fuse

#endif // FUSE_DIALECT_FUSE_IR_FUSEDIALECT_H
