//===- FuseFolds.cpp - folds and canonicalizations of the fuse ops --------===//
//
// Every rewrite here is exact: it keeps the value of every result bit for
// bit (NaN payloads, signed zeros and integer wrap-around included), so
// canonicalization never changes what a pipeline computes. Each one has a
// case in test/Dialect/Fuse/canonicalize.mlir.
//
//===----------------------------------------------------------------------===//

#include "fuse/Dialect/Fuse/IR/FuseOps.h"

#include "BroadcastFolds.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace fuse;

//===----------------------------------------------------------------------===//
// MapOp
//===----------------------------------------------------------------------===//

/// The input that result `i` of `op` forwards unchanged (its yield operand
/// is a block argument and the types agree), or null.
static Value forwardedInput(MapOp op, unsigned i) {
  auto arg = dyn_cast<BlockArgument>(op.getYield().getValues()[i]);
  if (!arg || arg.getOwner() != &op.getBody().front())
    return {};
  Value in = op.getInputs()[arg.getArgNumber()];
  if (in.getType() != op.getResult(i).getType())
    return {};
  return in;
}

/// Whether `a` and `b` have one shape without the run time's word: the
/// same value, or `b` of a static shape that `a` has too.
static bool sameShapeKnown(Value a, Value b) {
  auto t = cast<RankedTensorType>(b.getType());
  return a == b ||
         (t.hasStaticShape() &&
          cast<RankedTensorType>(a.getType()).getShape() == t.getShape());
}

/// Whether two of a map's or scan's inputs have one shape only if the run
/// time says so (not sameShapeKnown). The map then stands for that check
/// (map_c2; the entry checks sizes before it runs), so a rewrite may not
/// replace a used result by an input: the check would go with the op.
bool fuse::tiesSizes(ValueRange ins) {
  return llvm::any_of(ins.drop_front(), [&](Value in) {
    return !sameShapeKnown(ins.front(), in);
  });
}

/// A map whose every result forwards an input is that input:
/// `fuse.map %x { ^bb0(%a): fuse.yield %a }` -> `%x`.
LogicalResult MapOp::fold(FoldAdaptor, SmallVectorImpl<OpFoldResult> &res) {
  if (tiesSizes(getInputs()))
    return failure();
  SmallVector<OpFoldResult> out;
  for (unsigned i = 0, e = getNumResults(); i < e; ++i) {
    Value in = forwardedInput(*this, i);
    if (!in)
      return failure();
    out.push_back(in);
  }
  res.append(out.begin(), out.end());
  return success();
}

namespace {

/// Replaces results that forward an input by the input (unless the inputs'
/// sizes need the run time's check), then drops the results nobody uses
/// and the inputs the body never reads whose shape a kept input shows.
/// Erases the op when nothing is left: a size check of an op that computes
/// nothing needed goes with it.
struct SimplifyMap : OpRewritePattern<MapOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MapOp op,
                                PatternRewriter &rewriter) const override {
    bool changed = false;
    for (unsigned i = 0, e = tiesSizes(op.getInputs()) ? 0 : op.getNumResults();
         i < e; ++i) {
      Value in = forwardedInput(op, i);
      if (in && !op.getResult(i).use_empty()) {
        rewriter.replaceAllUsesWith(op.getResult(i), in);
        changed = true;
      }
    }

    Block &body = op.getBody().front();
    SmallVector<unsigned> keptResults, keptInputs;
    for (unsigned i = 0, e = op.getNumResults(); i < e; ++i)
      if (!op.getResult(i).use_empty())
        keptResults.push_back(i);
    if (keptResults.empty()) {
      rewriter.eraseOp(op);
      return success();
    }
    ValueRange ins = op.getInputs();
    for (unsigned i = 0, e = ins.size(); i < e; ++i)
      if (!body.getArgument(i).use_empty())
        keptInputs.push_back(i);
    // An input the body never reads still says that its shape is the
    // others' (map_c2, checked at run time for dynamic sizes): it goes
    // only where a kept input shows that already, being the same value or
    // of the same static shape.
    auto shown = [&](unsigned i) {
      return llvm::any_of(keptInputs, [&](unsigned k) {
        return sameShapeKnown(ins[k], ins[i]);
      });
    };
    for (unsigned i = 0, e = ins.size(); i < e; ++i)
      if (body.getArgument(i).use_empty() && !shown(i))
        keptInputs.push_back(i);
    llvm::sort(keptInputs);
    if (keptResults.size() == op.getNumResults() &&
        keptInputs.size() == op.getInputs().size())
      return success(changed);

    SmallVector<Value> inputs;
    for (unsigned i : keptInputs)
      inputs.push_back(op.getInputs()[i]);
    SmallVector<Type> resultTypes;
    for (unsigned i : keptResults)
      resultTypes.push_back(op.getResult(i).getType());
    auto newOp = MapOp::create(rewriter, op.getLoc(), resultTypes, inputs);
    newOp->setDiscardableAttrs(op->getDiscardableAttrDictionary());
    rewriter.inlineRegionBefore(op.getBody(), newOp.getBody(),
                                newOp.getBody().end());
    Block &nb = newOp.getBody().front();
    // Drop the unread block arguments, last first.
    for (int i = static_cast<int>(op.getInputs().size()) - 1; i >= 0; --i)
      if (!llvm::is_contained(keptInputs, static_cast<unsigned>(i)))
        nb.eraseArgument(i);
    auto yield = cast<YieldOp>(nb.getTerminator());
    SmallVector<Value> yielded;
    for (unsigned i : keptResults)
      yielded.push_back(yield.getValues()[i]);
    rewriter.modifyOpInPlace(
        yield, [&] { yield.getValuesMutable().assign(yielded); });

    SmallVector<Value> replacements(op.getNumResults(), Value());
    for (auto [j, i] : llvm::enumerate(keptResults))
      replacements[i] = newOp.getResult(j);
    // Unused results get no replacement: replaceOp needs a value per
    // result, so erase after rewiring the used ones.
    for (auto [i, v] : llvm::enumerate(replacements))
      if (v)
        rewriter.replaceAllUsesWith(op.getResult(i), v);
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void MapOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                        MLIRContext *ctx) {
  patterns.add<SimplifyMap>(ctx);
}

//===----------------------------------------------------------------------===//
// Combiner regions that spell out built-in kinds
//===----------------------------------------------------------------------===//

/// The built-in kind whose combine (buildCombine) is `op`, or none.
static std::optional<CombinerKind> combineKindOf(Operation *op) {
  using K = std::optional<CombinerKind>;
  return llvm::TypeSwitch<Operation *, K>(op)
      .Case<arith::AddFOp, arith::AddIOp>(
          [](auto) { return CombinerKind::Add; })
      .Case<arith::MulFOp, arith::MulIOp>(
          [](auto) { return CombinerKind::Mul; })
      .Case<arith::MinimumFOp, arith::MinSIOp>(
          [](auto) { return CombinerKind::Min; })
      .Case<arith::MaximumFOp, arith::MaxSIOp>(
          [](auto) { return CombinerKind::Max; })
      .Case<arith::AndIOp>([](auto) { return CombinerKind::And; })
      .Case<arith::OrIOp>([](auto) { return CombinerKind::Or; })
      .Case<arith::XOrIOp>([](auto) { return CombinerKind::Xor; })
      .Case<arith::MinUIOp>([](auto) { return CombinerKind::UMin; })
      .Case<arith::MaxUIOp>([](auto) { return CombinerKind::UMax; })
      .Default([](Operation *) { return K(); });
}

/// The built-in kinds a combiner region of `k` accumulators spells out:
/// yield value i is one op of a kind on accumulator i and element i, and
/// the block holds nothing else. Integer ops may take their operands in
/// either order (each kind is commutative on integers); float ops only as
/// `acc (+) x`, the built-in combine, since which NaN's payload an op
/// passes on can depend on the order. f16 and bf16 add and mul are left
/// alone: built-in kinds accumulate those in f32
/// (fuse-widen-accumulators), a region in the type itself.
static std::optional<SmallVector<CombinerKind>> builtinKindsOf(Region &combiner,
                                                               unsigned k) {
  if (!combiner.hasOneBlock())
    return std::nullopt;
  Block &b = combiner.front();
  if (b.getNumArguments() != 2 * k ||
      b.getOperations().size() != static_cast<size_t>(k) + 1)
    return std::nullopt;
  auto yield = dyn_cast<YieldOp>(b.getTerminator());
  if (!yield || yield.getValues().size() != k)
    return std::nullopt;
  SmallVector<CombinerKind> kinds;
  for (unsigned i = 0; i < k; ++i) {
    Operation *op = yield.getValues()[i].getDefiningOp();
    if (!op || op->getBlock() != &b || op->getNumOperands() != 2 ||
        op->getNumResults() != 1 || !op->getResult(0).hasOneUse())
      return std::nullopt;
    std::optional<CombinerKind> kind = combineKindOf(op);
    if (!kind)
      return std::nullopt;
    Value acc = b.getArgument(i), x = b.getArgument(k + i);
    Type t = acc.getType();
    bool isFloat = isa<FloatType>(t);
    bool inOrder = op->getOperand(0) == acc && op->getOperand(1) == x;
    bool swapped = op->getOperand(0) == x && op->getOperand(1) == acc;
    if (!(inOrder || (!isFloat && swapped)))
      return std::nullopt;
    if ((t.isF16() || t.isBF16()) &&
        (*kind == CombinerKind::Add || *kind == CombinerKind::Mul))
      return std::nullopt;
    if (!isKindValidForType(*kind, t))
      return std::nullopt;
    kinds.push_back(*kind);
  }
  return kinds;
}

namespace {

/// A combiner region that is one built-in kind per result becomes that
/// list of kinds, inits kept: both mean `init (+) x0 (+) x1 ...` with the
/// same ops, and the GPU has kernels for built-in kinds that combiner
/// regions lack (row groups, scattered dims) or run slower.
template <typename OpTy> struct CombinerToKinds : OpRewritePattern<OpTy> {
  CombinerToKinds(MLIRContext *ctx, unsigned *count)
      : OpRewritePattern<OpTy>(ctx), count(count) {}

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    if (op.hasBuiltinKinds())
      return failure();
    std::optional<SmallVector<CombinerKind>> kinds =
        builtinKindsOf(op.getCombiner(), op.getInputs().size());
    if (!kinds)
      return failure();
    SmallVector<Attribute> attrs;
    for (CombinerKind kind : *kinds)
      attrs.push_back(CombinerKindAttr::get(op.getContext(), kind));
    rewriter.modifyOpInPlace(
        op, [&] { op.setKindsAttr(rewriter.getArrayAttr(attrs)); });
    rewriter.eraseBlock(&op.getCombiner().front());
    if (count)
      ++*count;
    return success();
  }

  unsigned *count;
};

} // namespace

void fuse::populateCombinerToKindsPatterns(RewritePatternSet &patterns,
                                           unsigned *count) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<CombinerToKinds<ReduceOp>, CombinerToKinds<ScanOp>,
               CombinerToKinds<SegmentedReduceOp>>(ctx, count);
}

//===----------------------------------------------------------------------===//
// ReduceOp
//===----------------------------------------------------------------------===//

bool fuse::isIdempotentKind(CombinerKind kind) {
  switch (kind) {
  case CombinerKind::Min:
  case CombinerKind::Max:
  case CombinerKind::UMin:
  case CombinerKind::UMax:
  case CombinerKind::And:
  case CombinerKind::Or:
    return true;
  default:
    return false;
  }
}

namespace {

/// A reduction over no dimensions (`dims []`, or a full reduction of a
/// rank-0 tensor) combines each element once with the init: it is the map
/// `y = init (+) x`. With built-in kinds and no init the kind's identity
/// is combined in, which is exact (`0.0 + -0.0` is `0.0`, not `-0.0`).
struct ReduceNoDimsToMap : OpRewritePattern<ReduceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ReduceOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getReducedDims().empty())
      return failure();
    Location loc = op.getLoc();
    auto map = MapOp::create(rewriter, loc, op.getResultTypes(),
                             op.getInputs());
    SmallVector<Type> elemTypes;
    SmallVector<Location> locs;
    for (Value in : op.getInputs()) {
      elemTypes.push_back(cast<RankedTensorType>(in.getType()).getElementType());
      locs.push_back(loc);
    }
    Block *block =
        rewriter.createBlock(&map.getBody(), map.getBody().end(), elemTypes,
                             locs);
    rewriter.setInsertionPointToStart(block);
    SmallVector<Value> accs;
    if (!op.getInits().empty()) {
      accs.append(op.getInits().begin(), op.getInits().end());
    } else {
      for (auto [i, t] : llvm::enumerate(elemTypes))
        accs.push_back(arith::ConstantOp::create(
            rewriter, loc, getKindIdentity(op.getKind(i), t)));
    }
    SmallVector<Value> yielded;
    if (op.hasBuiltinKinds()) {
      for (auto [i, acc] : llvm::enumerate(accs))
        yielded.push_back(buildCombine(rewriter, loc, op.getKind(i), acc,
                                       block->getArgument(i)));
    } else {
      Block &comb = op.getCombiner().front();
      IRMapping mapping;
      mapping.map(comb.getArguments().take_front(accs.size()), accs);
      mapping.map(comb.getArguments().drop_front(accs.size()),
                  block->getArguments());
      for (Operation &inner : comb.without_terminator())
        rewriter.clone(inner, mapping);
      for (Value v : cast<YieldOp>(comb.getTerminator()).getValues())
        yielded.push_back(mapping.lookupOrDefault(v));
    }
    YieldOp::create(rewriter, loc, yielded);
    rewriter.replaceOp(op, map.getResults());
    return success();
  }
};

/// Whether `size` is known to be 0 or 1: a static 0 or 1, or the
/// `arith.minui %s, 1` that ReduceIdempotentIota makes.
static bool atMostOne(int64_t staticSize, Value size) {
  if (!ShapedType::isDynamic(staticSize))
    return staticSize <= 1;
  auto min = size.getDefiningOp<arith::MinUIOp>();
  return min && (matchPattern(min.getLhs(), m_One()) ||
                 matchPattern(min.getRhs(), m_One()));
}

/// A min, max, and or or reduction (signed or unsigned) of iotas along
/// dimensions other than the iotas' own: every position of such a
/// dimension holds the same values, and these kinds ignore how often a
/// value occurs, so the reduction over its first position alone gives the
/// same bits. Those dimensions shrink to min(size, 1), which keeps an
/// empty tensor empty (the result is then the init): a full reduction of
/// an iota over [B, N, C] along dimension 1 reads N elements, not B x N x C.
/// The result type is unchanged (only reduced dimensions shrink).
struct ReduceIdempotentIota : OpRewritePattern<ReduceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ReduceOp op,
                                PatternRewriter &rewriter) const override {
    // Inside a group the sizes are the group's operands and its kernels
    // take no index arithmetic between them: before fusion only.
    if (!op.hasBuiltinKinds() || op->getParentOfType<GroupOp>())
      return failure();
    SmallVector<IotaOp> iotas;
    for (auto [i, in] : llvm::enumerate(op.getInputs())) {
      auto iota = in.getDefiningOp<IotaOp>();
      // Iotas of other size values stand for the run-time check that the
      // sizes are equal (reduce_c2), which rebuilding them from the
      // first's would drop.
      if (!iota || !isIdempotentKind(op.getKind(i)) ||
          (!iotas.empty() && iota.getSizes() != iotas[0].getSizes()))
        return failure();
      iotas.push_back(iota);
    }
    auto type = cast<RankedTensorType>(op.getInputs()[0].getType());
    // Every input has this shape (reduce_c2): the sizes of the first.
    SmallVector<Value> sizes(type.getRank());
    for (unsigned d = 0, k = 0; d < type.getRank(); ++d)
      if (type.isDynamicDim(d))
        sizes[d] = iotas[0].getSizes()[k++];
    SmallVector<int64_t> shape(type.getShape());
    bool shrinks = false;
    Location loc = op.getLoc();
    for (int64_t d : op.getReducedDims()) {
      if (llvm::any_of(iotas, [&](IotaOp t) { return t.getIotaDim() == d; }) ||
          atMostOne(shape[d], sizes[d]))
        continue;
      shrinks = true;
      if (!type.isDynamicDim(d)) {
        shape[d] = 1;
        continue;
      }
      Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
      sizes[d] = arith::MinUIOp::create(rewriter, loc, sizes[d], one);
    }
    if (!shrinks)
      return failure();
    SmallVector<Value> dynSizes;
    for (unsigned d = 0; d < type.getRank(); ++d)
      if (ShapedType::isDynamic(shape[d]))
        dynSizes.push_back(sizes[d]);
    SmallVector<Value> inputs;
    for (IotaOp iota : iotas) {
      auto t = RankedTensorType::get(
          shape, cast<RankedTensorType>(iota.getType()).getElementType());
      inputs.push_back(IotaOp::create(rewriter, iota.getLoc(), t, dynSizes,
                                      iota.getDimAttr()));
    }
    rewriter.modifyOpInPlace(op, [&] { op.getInputsMutable().assign(inputs); });
    return success();
  }
};

} // namespace

void ReduceOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                           MLIRContext *ctx) {
  patterns.add<ReduceNoDimsToMap>(ctx);
  patterns.add<ReduceIdempotentIota>(ctx);
  patterns.add<CombinerToKinds<ReduceOp>>(ctx, nullptr);
  populateReduceOfBroadcastPatterns(patterns, ctx);
}

//===----------------------------------------------------------------------===//
// FilterOp
//===----------------------------------------------------------------------===//

namespace {

/// A predicate that is the constant `true` keeps every element: each
/// result is its input (cast to the dynamic result type).
struct FilterKeepAll : OpRewritePattern<FilterOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(FilterOp op,
                                PatternRewriter &rewriter) const override {
    auto yield = cast<YieldOp>(op.getPredicate().front().getTerminator());
    if (!matchPattern(yield.getValues()[0], m_One()))
      return failure();
    SmallVector<Value> results;
    for (auto [in, res] : llvm::zip_equal(op.getInputs(), op.getResults())) {
      if (in.getType() == res.getType())
        results.push_back(in);
      else
        results.push_back(
            tensor::CastOp::create(rewriter, op.getLoc(), res.getType(), in));
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

void FilterOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                           MLIRContext *ctx) {
  patterns.add<FilterKeepAll>(ctx);
}

//===----------------------------------------------------------------------===//
// BroadcastOp
//===----------------------------------------------------------------------===//

/// A broadcast that adds no dimension is its input (broadcast_c4 makes the
/// types equal).
OpFoldResult BroadcastOp::fold(FoldAdaptor) {
  if (getDims().empty() && getInput().getType() == getResult().getType())
    return getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// ScanOp, SegmentedReduceOp
//===----------------------------------------------------------------------===//

/// An inclusive scan whose combiner returns the element it is given, each
/// accumulator dropped (`^bb0(%acc, %x): fuse.yield %x`), is its inputs:
/// y[i] = x[i], whatever the init. Not where the inputs' sizes need the
/// run time's check (see tiesSizes).
LogicalResult ScanOp::fold(FoldAdaptor, SmallVectorImpl<OpFoldResult> &res) {
  if (getExclusive() || hasBuiltinKinds() || getCombiner().empty() ||
      tiesSizes(getInputs()))
    return failure();
  Block &body = getCombiner().front();
  unsigned k = getInputs().size();
  auto yield = dyn_cast<YieldOp>(body.getTerminator());
  if (!yield || yield.getValues().size() != k)
    return failure();
  for (unsigned i = 0; i < k; ++i)
    if (yield.getValues()[i] != body.getArgument(k + i))
      return failure();
  for (Value in : getInputs())
    res.push_back(in);
  return success();
}

void ScanOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                         MLIRContext *ctx) {
  patterns.add<CombinerToKinds<ScanOp>>(ctx, nullptr);
  populateScanOfBroadcastPatterns(patterns, ctx);
}

void SegmentedReduceOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                                    MLIRContext *ctx) {
  patterns.add<CombinerToKinds<SegmentedReduceOp>>(ctx, nullptr);
}

//===----------------------------------------------------------------------===//
// SortOp
//===----------------------------------------------------------------------===//

namespace {

/// A sort whose carried result (values or positions) is never read sorts
/// its keys alone: the same keys (the sort is stable either way) with half
/// the bytes moved. Not where the values' length needs the run time's
/// check against the keys' (see tiesSizes).
struct SortUnusedCarry : OpRewritePattern<SortOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(SortOp op,
                                PatternRewriter &rewriter) const override {
    Value carried = op.getCarried();
    if (!carried || !carried.use_empty())
      return failure();
    if (Value v = op.getValues(); v && tiesSizes(ValueRange{op.getKeys(), v}))
      return failure();
    auto ns = SortOp::create(
        rewriter, op.getLoc(), TypeRange{op.getResult(0).getType()},
        op.getKeys(), Value(), op.getOrderAttr(), op.getIntegerOrderAttr(),
        SortCarryAttr::get(op.getContext(), SortCarry::Operand));
    ns->setDiscardableAttrs(op->getDiscardableAttrDictionary());
    rewriter.inlineRegionBefore(op.getComparator(), ns.getComparator(),
                                ns.getComparator().end());
    rewriter.replaceAllUsesWith(op.getResult(0), ns.getResult(0));
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void SortOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                         MLIRContext *ctx) {
  patterns.add<SortUnusedCarry>(ctx);
}
