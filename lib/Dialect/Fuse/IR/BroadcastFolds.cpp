//===- BroadcastFolds.cpp - ops over broadcasts, computed before them -----===//
//
// An op whose every element along a broadcast's added dimensions sees the
// same inputs computes the same values there: it can run on the
// broadcast's input and broadcast its result instead. The pipeline then
// does the op's work once per input element, not once per element of the
// broadcast (a searchsorted of needles repeated along 8192 rows probes the
// sorted tensor 8192 times less). Each rewrite is exact, like those of
// FuseFolds.cpp, and runs before fusion only: inside a group the sizes are
// the group's operands. Cases in test/Dialect/Fuse/canonicalize.mlir.
//
//===----------------------------------------------------------------------===//

#include "BroadcastFolds.h"

#include "fuse/Dialect/Fuse/IR/FuseOps.h"

using namespace mlir;
using namespace fuse;

namespace {

/// The broadcasts that `ins` all are, or none: each input a broadcast
/// adding the same dimensions of the same sizes (operands and result
/// shape) to its input.
SmallVector<BroadcastOp> commonBroadcasts(ValueRange ins) {
  SmallVector<BroadcastOp> bs;
  for (Value in : ins) {
    auto b = in.getDefiningOp<BroadcastOp>();
    if (!b)
      return {};
    if (!bs.empty() &&
        (b.getDims() != bs[0].getDims() || b.getSizes() != bs[0].getSizes() ||
         cast<RankedTensorType>(b.getType()).getShape() !=
             cast<RankedTensorType>(bs[0].getType()).getShape()))
      return {};
    bs.push_back(b);
  }
  return bs;
}

/// commonBroadcasts of `op`'s inputs, none inside a group (after fusion
/// the sizes are the group's operands).
SmallVector<BroadcastOp> inputBroadcasts(Operation *op, ValueRange inputs) {
  if (op->getParentOfType<GroupOp>())
    return {};
  return commonBroadcasts(inputs);
}

/// How many of the sorted `dims` lie below `d`.
int64_t countBelow(ArrayRef<int64_t> dims, int64_t d) {
  return llvm::count_if(dims, [&](int64_t x) { return x < d; });
}

/// `v` broadcast as `like` was (its dims and sizes) into `type`.
Value rebroadcast(PatternRewriter &rewriter, Location loc, Value v,
                  BroadcastOp like, ArrayRef<int64_t> dims, Type type) {
  return BroadcastOp::create(rewriter, loc, type, v,
                             rewriter.getDenseI64ArrayAttr(dims),
                             like.getSizes());
}

/// Replaces `op` (a reduce or scan) by `n`, which computes its results
/// before the broadcast `like`: the combiner region moves to `n`, and
/// `n`'s results are broadcast along `dims`.
void replaceByBroadcast(PatternRewriter &rewriter, Operation *op, Operation *n,
                        BroadcastOp like, ArrayRef<int64_t> dims) {
  rewriter.inlineRegionBefore(op->getRegion(0), n->getRegion(0),
                              n->getRegion(0).end());
  n->setDiscardableAttrs(op->getDiscardableAttrDictionary());
  SmallVector<Value> results;
  for (auto [v, r] : llvm::zip(n->getResults(), op->getResults()))
    results.push_back(
        rebroadcast(rewriter, op->getLoc(), v, like, dims, r.getType()));
  rewriter.replaceOp(op, results);
}

/// fuse.searchsorted of broadcast needles: the search of the broadcast's
/// input, broadcast. The positions depend on the needle alone.
struct SearchSortedOfBroadcast : OpRewritePattern<SearchSortedOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(SearchSortedOp op,
                                PatternRewriter &rewriter) const override {
    SmallVector<BroadcastOp> bs = inputBroadcasts(op, op.getValues());
    if (bs.empty())
      return failure();
    BroadcastOp b = bs[0];
    auto inType = cast<RankedTensorType>(b.getInput().getType());
    auto type = RankedTensorType::get(inType.getShape(), rewriter.getI64Type());
    auto s = SearchSortedOp::create(rewriter, op.getLoc(), type, op.getSorted(),
                                    b.getInput(), op.getSideAttr(),
                                    op.getIntegerOrderAttr());
    s->setDiscardableAttrs(op->getDiscardableAttrDictionary());
    rewriter.replaceOp(op, rebroadcast(rewriter, op.getLoc(), s, b, b.getDims(),
                                       op.getType()));
    return success();
  }
};

/// fuse.reduce of broadcasts along none of the added dimensions: every
/// position along those holds the same reduction (same elements, same
/// order), so the reduction of the broadcasts' inputs, broadcast. Any
/// kinds or combiner region.
struct ReduceOfBroadcast : OpRewritePattern<ReduceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ReduceOp op,
                                PatternRewriter &rewriter) const override {
    SmallVector<BroadcastOp> bs = inputBroadcasts(op, op.getInputs());
    if (bs.empty())
      return failure();
    ArrayRef<int64_t> added = bs[0].getDims();
    SmallVector<int64_t> reduced = op.getReducedDims();
    if (reduced.empty() || llvm::any_of(reduced, [&](int64_t r) {
          return llvm::is_contained(added, r);
        }))
      return failure();
    // The reduced dims as dims of the broadcasts' inputs, and the added
    // dims as dims of the reduction's result.
    SmallVector<int64_t> inReduced, outAdded;
    for (int64_t r : reduced)
      inReduced.push_back(r - countBelow(added, r));
    for (int64_t d : added)
      outAdded.push_back(d - countBelow(reduced, d));
    SmallVector<Value> ins;
    SmallVector<Type> types;
    for (auto [b, r] : llvm::zip(bs, op.getResults())) {
      ins.push_back(b.getInput());
      auto t = cast<RankedTensorType>(b.getInput().getType());
      SmallVector<int64_t> shape;
      for (int64_t d = 0; d < t.getRank(); ++d)
        if (!llvm::is_contained(inReduced, d))
          shape.push_back(t.getDimSize(d));
      types.push_back(RankedTensorType::get(
          shape, cast<RankedTensorType>(r.getType()).getElementType()));
    }
    Location loc = op.getLoc();
    auto n = ReduceOp::create(rewriter, loc, types, ins, op.getInits(),
                              op.getKindsAttr(),
                              rewriter.getDenseI64ArrayAttr(inReduced));
    replaceByBroadcast(rewriter, op, n, bs[0], outAdded);
    return success();
  }
};

/// fuse.scan of broadcasts.
///  - Along a dimension of the broadcasts' inputs: every line along the
///    added dimensions is the same line, so the scan of the inputs,
///    broadcast (any kinds or combiner, inclusive or exclusive).
///  - Along an added dimension, inclusive, with idempotent built-in kinds:
///    each line repeats one value x, and x (+) ... (+) x is x, so the
///    result is the input, or `init (+) x` with an init (a map).
struct ScanOfBroadcast : OpRewritePattern<ScanOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ScanOp op,
                                PatternRewriter &rewriter) const override {
    SmallVector<BroadcastOp> bs = inputBroadcasts(op, op.getInputs());
    if (bs.empty())
      return failure();
    ArrayRef<int64_t> added = bs[0].getDims();
    int64_t dim = op.getScanDim();
    Location loc = op.getLoc();
    if (!llvm::is_contained(added, dim))
      return scanInputs(op, bs, dim - countBelow(added, dim), rewriter);
    if (op.getExclusive() || !op.hasBuiltinKinds() ||
        !llvm::all_of(
            llvm::seq<unsigned>(0, op.getInputs().size()),
            [&](unsigned i) { return isIdempotentKind(op.getKind(i)); }))
      return failure();
    if (op.getInits().empty()) {
      // The scan stands for the run-time check of its inputs' sizes.
      if (tiesSizes(op.getInputs()))
        return failure();
      rewriter.replaceOp(op, op.getInputs());
      return success();
    }
    SmallVector<Value> results;
    for (auto [i, in] : llvm::enumerate(op.getInputs())) {
      Value init = op.getInits()[i];
      CombinerKind kind = op.getKind(i);
      results.push_back(
          buildElementwiseMap(rewriter, loc, ValueRange{in}, init.getType(),
                              [&](OpBuilder &b, Location l, ValueRange x) {
                                return buildCombine(b, l, kind, init, x[0]);
                              }));
    }
    rewriter.replaceOp(op, results);
    return success();
  }

  static LogicalResult scanInputs(ScanOp op, MutableArrayRef<BroadcastOp> bs,
                                  int64_t inDim, PatternRewriter &rewriter) {
    Location loc = op.getLoc();
    SmallVector<Value> ins;
    SmallVector<Type> types;
    for (BroadcastOp b : bs) {
      ins.push_back(b.getInput());
      types.push_back(b.getInput().getType());
    }
    auto n = ScanOp::create(
        rewriter, loc, types, ins, op.getInits(), op.getKindsAttr(),
        rewriter.getI64IntegerAttr(inDim), op.getExclusiveAttr());
    replaceByBroadcast(rewriter, op, n, bs[0], bs[0].getDims());
    return success();
  }
};

} // namespace

void SearchSortedOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                                 MLIRContext *ctx) {
  patterns.add<SearchSortedOfBroadcast>(ctx);
}

void fuse::populateReduceOfBroadcastPatterns(RewritePatternSet &patterns,
                                             MLIRContext *ctx) {
  patterns.add<ReduceOfBroadcast>(ctx);
}

void fuse::populateScanOfBroadcastPatterns(RewritePatternSet &patterns,
                                           MLIRContext *ctx) {
  patterns.add<ScanOfBroadcast>(ctx);
}
