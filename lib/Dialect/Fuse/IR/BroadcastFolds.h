//===- BroadcastFolds.h - ops over broadcasts, computed before them -*- C++
//-*-===//
//
// Canonicalizations that move work from after a fuse.broadcast to before
// it (BroadcastFolds.cpp), shared with FuseFolds.cpp's pattern lists.
//
//===----------------------------------------------------------------------===//

#ifndef FUSE_LIB_DIALECT_FUSE_IR_BROADCASTFOLDS_H
#define FUSE_LIB_DIALECT_FUSE_IR_BROADCASTFOLDS_H

#include "fuse/Dialect/Fuse/IR/FuseOps.h"
#include "mlir/IR/PatternMatch.h"

namespace fuse {

/// Whether two of `ins` have one shape only if the run time says so: the
/// op over them then stands for that check (FuseFolds.cpp).
bool tiesSizes(mlir::ValueRange ins);

/// Whether a kind's result depends only on which values occur, not on how
/// often: x (+) x == x (min, max, umin, umax, and, or).
bool isIdempotentKind(CombinerKind kind);

/// fuse.reduce of broadcasts along dimensions it keeps, and fuse.scan of
/// broadcasts (see BroadcastFolds.cpp).
void populateReduceOfBroadcastPatterns(mlir::RewritePatternSet &patterns,
                                       mlir::MLIRContext *ctx);
void populateScanOfBroadcastPatterns(mlir::RewritePatternSet &patterns,
                                     mlir::MLIRContext *ctx);

} // namespace fuse

#endif // FUSE_LIB_DIALECT_FUSE_IR_BROADCASTFOLDS_H
