//===- Accumulate.h - loops and summation order of the CPU lowering -*- C++ -*-===//
//
// The loop nests of the CPU lowering (convert-fuse-to-loops, fused and
// unfused) and the order in which it combines the elements of reductions
// and scans. Shared by FuseToLoops.cpp and GroupToLoops.cpp so both paths
// build loops one way and round the same way.
//
// Reductions over floats are *blocked*: the elements, in row-major index
// order over the reduced dimensions, are cut into consecutive chunks of
// kReduceBlock; each chunk is combined left to right starting from its
// first element, and the chunk results are combined left to right into the
// running accumulator, which starts at the init:
//   init (+) (x0 (+) ... (+) x1023) (+) (x1024 (+) ... ) (+) ...
// Operands are regrouped (combiners are associative) but never reordered.
// A float32 sum of n elements then has an error of about (n/1024 + 1024)
// ulp instead of n ulp.
//
// Scans stay sequential (every prefix is an output), but float add scans
// narrower than f64 carry the running prefix in f64 and round each output
// to the element type.
//
//===----------------------------------------------------------------------===//
#ifndef FUSE_LIB_CONVERSION_FUSETOLOOPS_ACCUMULATE_H
#define FUSE_LIB_CONVERSION_FUSETOLOOPS_ACCUMULATE_H

#include "fuse/Dialect/Fuse/IR/FuseOps.h"

#include "mlir/IR/Builders.h"

namespace fuse {

/// Clones the single block of `region` at the builder's point with its
/// arguments replaced by `args`; returns the values its fuse.yield yields.
SmallVector<Value> inlineBody(OpBuilder &b, Region &region, ValueRange args);

/// A loop nest over `sizes` (outermost first) carrying `iters`: `body` gets
/// the induction variables and the current values and returns the next
/// ones. Returns the final values; with no sizes, `body` runs once.
using LoopNestFn = function_ref<SmallVector<Value>(OpBuilder &, ValueRange ivs,
                                                   ValueRange iters)>;
SmallVector<Value> buildLoopNest(OpBuilder &b, Location loc, ValueRange sizes,
                                 ValueRange iters, LoopNestFn body);

/// The same with a body that may fail (to abandon emission): then the
/// nest's result is failure (the loops built so far stay, for the caller
/// to erase with its rewrite).
using FailableLoopNestFn = function_ref<FailureOr<SmallVector<Value>>(
    OpBuilder &, ValueRange ivs, ValueRange iters)>;
FailureOr<SmallVector<Value>> buildFailableLoopNest(OpBuilder &b, Location loc,
                                                    ValueRange sizes,
                                                    ValueRange iters,
                                                    FailableLoopNestFn body);

/// The dynamic sizes of `type` picked out of all `sizes`.
SmallVector<Value> dynamicSizes(RankedTensorType type, ValueRange sizes);

/// Builds tensors of `resultTypes`, all of shape `sizes`, where `elements`
/// gives the scalars at each index (a loop nest inserting them).
using ElementFn =
    function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange ivs)>;
SmallVector<Value> buildElementwise(OpBuilder &b, Location loc,
                                    TypeRange resultTypes, ValueRange sizes,
                                    ElementFn elements);

/// Elements per chunk of a blocked reduction.
constexpr int64_t kReduceBlock = 1024;

/// True when `reduce` is lowered blocked: some input has a float element
/// type and the combiner is a region or some built-in kind is add or mul
/// (min and max are exact in any grouping).
bool isBlockedReduction(ReduceOp reduce);
/// The same rule for the segments of a segmented_reduce.
bool isBlockedReduction(SegmentedReduceOp reduce);

/// Emits the element of every input at `ivs` (one index per reduced
/// dimension) and returns them, threading `extras` (values carried by the
/// loops, e.g. output tensors written on the way) through: it appends the
/// updated extras to `newExtras`. Returns failure to abandon emission.
using ReduceElementFn = function_ref<FailureOr<SmallVector<Value>>(
    OpBuilder &, ValueRange ivs, ValueRange extras,
    SmallVectorImpl<Value> &newExtras)>;
/// `accs (+) xs` at the builder's point.
using ReduceCombineFn = function_ref<SmallVector<Value>(
    OpBuilder &, ValueRange accs, ValueRange xs)>;

/// A reduction over the row-major iteration space `sizes` starting from
/// `inits`, blocked as described in the file comment when `blocked` (and
/// `sizes` is not empty), a plain loop nest otherwise. Returns the final
/// accumulators followed by the final extras.
FailureOr<SmallVector<Value>>
buildReductionLoops(OpBuilder &b, Location loc, ValueRange sizes,
                    ValueRange inits, ValueRange extras, bool blocked,
                    ReduceElementFn element, ReduceCombineFn combine);

/// The type a scan carries its running prefix `i` in: f64 for the built-in
/// add kind on floats narrower than f64, the element type otherwise.
Type scanCarryType(ScanOp scan, unsigned i);

/// One step of a scan with carried accumulators `carry` (of
/// scanCarryType): returns the next carried values. `combine` combines in
/// the element types (used when no input is widened, or for a region).
SmallVector<Value> scanStep(OpBuilder &b, Location loc, ScanOp scan,
                            ValueRange carry, ValueRange xs,
                            ReduceCombineFn combine);

/// Converts carried values to or from the element types (extf / truncf
/// where the carry is wider, the value itself otherwise).
SmallVector<Value> scanWiden(OpBuilder &b, Location loc, ScanOp scan,
                             ValueRange values);
SmallVector<Value> scanNarrow(OpBuilder &b, Location loc, ScanOp scan,
                              ValueRange carry);

/// The counts of a fuse.histogram before any element: a tensor of
/// `type` (rank 1) of `bins` zeros.
Value emitZeroCounts(OpBuilder &b, Location loc, RankedTensorType type,
                     Value bins);

/// One element of a fuse.histogram: `counts` with 1 added at `bin` (an
/// integer, read as signed) when 0 <= bin < size(counts), else `counts`.
Value emitCount(OpBuilder &b, Location loc, Value counts, Value bin);

} // namespace fuse

#endif // FUSE_LIB_CONVERSION_FUSETOLOOPS_ACCUMULATE_H
