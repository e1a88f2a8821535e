//===- ShiftedWelford.h - Welford reductions in the flat reduce kernels ---===//
//
// Internal to convert-fuse-to-gpu. fuse-fusion's Welford reduction
// (count, mean, M2 with Chan's merge) accumulated by the flat reduce
// kernels (Kernels.cpp) as shifted sums: see isShiftedWelford.
//
//===----------------------------------------------------------------------===//
#ifndef FUSE_LIB_CONVERSION_FUSETOGPU_SHIFTEDWELFORD_H
#define FUSE_LIB_CONVERSION_FUSETOGPU_SHIFTEDWELFORD_H

#include "FlatKernel.h"

namespace fuse {
namespace gpugen {

/// Whether `r` is fuse-fusion's Welford tuple reduction whose combiner is
/// exactly Chan's merge, which the reduce kernels accumulate as shifted
/// sums with the built-in kinds' layout (ShiftedWelford.cpp says how).
bool isShiftedWelford(ReduceOp r);

/// The type of the shifted sums: f32 for narrower floats, else x's type.
FloatType welfordAccType(ReduceOp r);

/// `v` converted to the float type `to` (itself when it has it).
Value castFloat(OpBuilder &b, Location loc, Value v, Type to);

/// The Welford reduction's x at flat index `idx` (i64) as type `at`, or 0
/// when `guard` is false (nothing is loaded then).
Value emitGuardedX(FlatKernel &k, OpBuilder &b, ReduceOp r, FloatType at,
                   Value idx, Value guard);

/// The shifts of one thread (type `at`): {thread shift, grid base}.
std::pair<Value, Value> emitWelfordShifts(FlatKernel &k, OpBuilder &b,
                                          ReduceOp r, FloatType at, Value n,
                                          Value nchunks, int64_t vw);

/// One thread's (count, mean - base, M2) from its shifted sums.
SmallVector<Value> welfordFromSums(OpBuilder &b, Location loc, ReduceOp r,
                                   Value shift, Value base, Value count,
                                   Value s1, Value s2);

/// (count, mean - base, M2) -> (count, mean, M2).
SmallVector<Value> welfordAddBase(OpBuilder &b, Location loc,
                                  ArrayRef<Value> acc, Value base);

} // namespace gpugen
} // namespace fuse

#endif // FUSE_LIB_CONVERSION_FUSETOGPU_SHIFTEDWELFORD_H
