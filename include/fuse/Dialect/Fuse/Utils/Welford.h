//===- Welford.h - the Welford tuple reduction's combiner -------*- C++ -*-===//
//
// fuse-fusion rewrites two-pass variances to a tuple reduction of
// (count, mean, M2) whose combiner is Chan et al.'s merge; the GPU reduce
// kernels accumulate exactly that reduction as per-thread shifted sums.
// The combiner is built here once, and the code generator compares a
// reduction's combiner region with it before relying on its meaning, so
// no attribute carries the semantics.
//
//===----------------------------------------------------------------------===//
#ifndef FUSE_DIALECT_FUSE_UTILS_WELFORD_H
#define FUSE_DIALECT_FUSE_UTILS_WELFORD_H

#include "fuse/Dialect/Fuse/IR/FuseOps.h"

namespace fuse {

/// Builds Chan's merge of (na, ma, qa) and (nb, mb, qb), types (i64, ft,
/// ft) each, as the single block of the empty `region`, ending in
/// fuse.yield of (n, mean, M2). The builder's insertion point is kept.
void buildChanMerge(OpBuilder &b, Location loc, FloatType ft, Region &region);

/// True when `r`'s combiner region is the one buildChanMerge builds for its
/// second input's element type (same ops, attributes and types; names and
/// locations aside), on three inputs of types (i64, ft, ft).
bool isChanMergeCombiner(ReduceOp r);

/// A map of squared deviations from a centre: one result, two inputs, a
/// body computing `(a - f(b))^2` (or `(f(b) - a)^2`) where a is argument
/// `x` and the centre f(b) reads only argument `c` and values from outside
/// the body (no memory effects, no regions), and nothing else.
struct SquaredDeviation {
  unsigned x;         // the map input of the data
  unsigned c;         // the map input the centre is computed from
  mlir::Value centre; // f(b), inside the body (b itself when f is identity)
};

/// The matches of `map` (at most two: either input as the data).
llvm::SmallVector<SquaredDeviation, 2> matchSquaredDeviation(MapOp map);

/// Builds the centre of `m` in `map` at the builder's insertion point,
/// with its argument `c` as `cValue` and each value from outside the body
/// as `outside(v)`.
mlir::Value buildCentre(mlir::OpBuilder &b, MapOp map,
                        const SquaredDeviation &m, mlir::Value cValue,
                        llvm::function_ref<mlir::Value(mlir::Value)> outside);

} // namespace fuse

#endif // FUSE_DIALECT_FUSE_UTILS_WELFORD_H
