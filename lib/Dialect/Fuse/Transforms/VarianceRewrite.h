//===- VarianceRewrite.h - fuse-fusion's Welford rewrite ---------*- C++
//-*-===//
//
// Internal to fuse-fusion (Fusion.cpp): the optional rewrite of a two-pass
// variance into one Welford tuple reduction (see FuseFusionPass in
// Passes.td).
//
//===----------------------------------------------------------------------===//
#ifndef FUSE_LIB_DIALECT_FUSE_TRANSFORMS_VARIANCEREWRITE_H
#define FUSE_LIB_DIALECT_FUSE_TRANSFORMS_VARIANCEREWRITE_H

#include "fuse/Dialect/Fuse/IR/FuseOps.h"

namespace fuse {

/// When `r` is `sum(map(x, broadcast(c0)) { (a - f(b))^2 })` with c0
/// computed from a full reduction of x (two passes as written), replaces
/// it with one pass: a Welford reduction of x and a 0-d map that applies
/// the centre. Returns whether it rewrote (then `r` is erased).
bool rewriteVarianceToWelford(ReduceOp r);

} // namespace fuse

#endif // FUSE_LIB_DIALECT_FUSE_TRANSFORMS_VARIANCEREWRITE_H
