//===- FuseToLoops.cpp - lower fuse ops to scf loops over tensors ---------===//
//
// The reference lowering of the dialect: plain loop nests reading elements
// with tensor.extract and building results with tensor.insert. It defines
// what every op computes, drives the CPU backend and is the oracle that the
// fused and GPU paths are checked against.
//
//===----------------------------------------------------------------------===//

#include "Accumulate.h"

#include "fuse/Conversion/Passes.h"
#include "fuse/Dialect/Fuse/IR/FuseOps.h"
#include "fuse/Dialect/Fuse/Utils/Search.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace fuse {
#define GEN_PASS_DEF_CONVERTFUSETOLOOPSPASS
#include "fuse/Conversion/Passes.h.inc"
} // namespace fuse

using namespace mlir;
using namespace fuse;

namespace {

/// The sizes of every dimension of `tensor`, as index values.
SmallVector<Value> dimSizes(OpBuilder &b, Location loc, Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < type.getRank(); ++d)
    sizes.push_back(tensor::DimOp::create(b, loc, tensor, d));
  return sizes;
}

/// The sizes of `op`'s results (all of one shape), by the dialect's shape
/// rule (ReifyRankedShapedTypeOpInterface, Shapes.h).
SmallVector<Value> resultSizes(OpBuilder &b, Location loc, Operation *op) {
  ReifiedRankedShapedTypeDims shapes;
  SmallVector<Value> sizes;
  if (failed(reifyResultShapes(b, op, shapes)))
    return sizes;
  for (OpFoldResult s : shapes.front())
    sizes.push_back(getValueOrCreateConstantIndexOp(b, loc, s));
  return sizes;
}

/// Builds a loop nest over `sizes` (outermost first) carrying `iterArgs`.
/// `body` gets the induction variables and the current iter values and
/// returns the next ones. Returns the final values. With no sizes, `body`
/// runs once with no induction variables.
using NestBody = function_ref<SmallVector<Value>(OpBuilder &, Location,
                                                 ValueRange, ValueRange)>;
SmallVector<Value> buildNest(OpBuilder &b, Location loc, ValueRange sizes,
                             ValueRange iterArgs, NestBody body) {
  return buildLoopNest(b, loc, sizes, iterArgs,
                       [&](OpBuilder &nb, ValueRange ivs, ValueRange iters) {
                         return body(nb, loc, ivs, iters);
                       });
}

/// Initial accumulators of a reduce or scan: its inits or the identities.
template <typename OpTy>
SmallVector<Value> initialAccumulators(OpBuilder &b, Location loc, OpTy op) {
  if (!op.getInits().empty())
    return SmallVector<Value>(op.getInits());
  SmallVector<Value> accs;
  for (auto [i, in] : llvm::enumerate(op.getInputs())) {
    Type et = cast<RankedTensorType>(in.getType()).getElementType();
    accs.push_back(arith::ConstantOp::create(
        b, loc, getKindIdentity(op.getKind(i), et)));
  }
  return accs;
}

/// `accs (+) xs` with the op's built-in kinds or its combiner region.
template <typename OpTy>
SmallVector<Value> combine(OpBuilder &b, Location loc, OpTy op,
                           ValueRange accs, ValueRange xs) {
  if (op.hasBuiltinKinds()) {
    SmallVector<Value> out;
    for (unsigned i = 0; i < accs.size(); ++i)
      out.push_back(buildCombine(b, loc, op.getKind(i), accs[i], xs[i]));
    return out;
  }
  SmallVector<Value> args(accs);
  args.append(xs.begin(), xs.end());
  return inlineBody(b, op.getCombiner(), args);
}

SmallVector<Value> extractAll(OpBuilder &b, Location loc, ValueRange tensors,
                              ValueRange ivs) {
  SmallVector<Value> out;
  for (Value t : tensors)
    out.push_back(tensor::ExtractOp::create(b, loc, t, ivs));
  return out;
}

/// The first `n` elements of rank-1 `t` (n <= its size), as `type`.
Value firstElements(OpBuilder &b, Location loc, RankedTensorType type, Value t,
                    Value n) {
  return tensor::ExtractSliceOp::create(
      b, loc, type, t, ValueRange{}, ValueRange{n}, ValueRange{},
      b.getDenseI64ArrayAttr({0}),
      b.getDenseI64ArrayAttr({ShapedType::kDynamic}),
      b.getDenseI64ArrayAttr({1}));
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

struct MapToLoops : OpRewritePattern<MapOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MapOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<Value> sizes = resultSizes(rewriter, loc, op);
    SmallVector<Value> results = buildElementwise(
        rewriter, loc, op.getResultTypes(), sizes,
        [&](OpBuilder &b, Location l, ValueRange ivs) {
          return inlineBody(b, op.getBody(),
                            extractAll(b, l, op.getInputs(), ivs));
        });
    rewriter.replaceOp(op, results);
    return success();
  }
};

struct ReduceToLoops : OpRewritePattern<ReduceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReduceOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<Value> sizes = dimSizes(rewriter, loc, op.getInputs()[0]);
    SmallVector<int64_t> reduced = op.getReducedDims();
    SmallVector<int64_t> kept;
    for (int64_t d = 0; d < static_cast<int64_t>(sizes.size()); ++d)
      if (!llvm::is_contained(reduced, d))
        kept.push_back(d);
    SmallVector<Value> keptSizes, reducedSizes;
    for (int64_t d : kept)
      keptSizes.push_back(sizes[d]);
    for (int64_t d : reduced)
      reducedSizes.push_back(sizes[d]);

    // Kept dimensions outside, reduced ones inside with scalar accumulators
    // (blocked for floats, see Accumulate.h).
    bool blocked = isBlockedReduction(op);
    SmallVector<Value> results = buildElementwise(
        rewriter, loc, op.getResultTypes(), keptSizes,
        [&](OpBuilder &b, Location l, ValueRange keptIvs) {
          SmallVector<Value> init = initialAccumulators(b, l, op);
          FailureOr<SmallVector<Value>> accs = buildReductionLoops(
              b, l, reducedSizes, init, ValueRange{}, blocked,
              [&](OpBuilder &ib, ValueRange redIvs, ValueRange,
                  SmallVectorImpl<Value> &) -> FailureOr<SmallVector<Value>> {
                SmallVector<Value> idx(sizes.size());
                for (auto [d, iv] : llvm::zip_equal(kept, keptIvs))
                  idx[d] = iv;
                for (auto [d, iv] : llvm::zip_equal(reduced, redIvs))
                  idx[d] = iv;
                return extractAll(ib, l, op.getInputs(), idx);
              },
              [&](OpBuilder &ib, ValueRange a, ValueRange xs) {
                return combine(ib, l, op, a, xs);
              });
          // The element function never fails.
          return *accs;
        });
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// Segment s folds the elements at [lo, hi) in order, blocked like a
/// reduction (Accumulate.h), with lo and hi its offsets clamped to the
/// input: lo = clamp(starts[s], 0, n), hi = clamp(ends[s], lo, n).
struct SegmentedReduceToLoops : OpRewritePattern<SegmentedReduceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SegmentedReduceOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value n = tensor::DimOp::create(rewriter, loc, op.getInputs()[0], 0);
    bool blocked = isBlockedReduction(op);
    SmallVector<Value> results = buildElementwise(
        rewriter, loc, op.getResultTypes(), resultSizes(rewriter, loc, op),
        [&](OpBuilder &b, Location l, ValueRange ivs) {
          auto offset = [&](Value t) {
            Value v = tensor::ExtractOp::create(b, l, t, ivs);
            return arith::IndexCastOp::create(b, l, b.getIndexType(), v);
          };
          Value zero = arith::ConstantIndexOp::create(b, l, 0);
          Value lo = arith::MinSIOp::create(
              b, l, arith::MaxSIOp::create(b, l, offset(op.getStarts()), zero),
              n);
          Value hi = arith::MinSIOp::create(
              b, l, arith::MaxSIOp::create(b, l, offset(op.getEnds()), lo), n);
          Value len = arith::SubIOp::create(b, l, hi, lo);
          FailureOr<SmallVector<Value>> accs = buildReductionLoops(
              b, l, ValueRange{len}, initialAccumulators(b, l, op),
              ValueRange{}, blocked,
              [&](OpBuilder &ib, ValueRange k, ValueRange,
                  SmallVectorImpl<Value> &) -> FailureOr<SmallVector<Value>> {
                Value at = arith::AddIOp::create(ib, l, lo, k[0]);
                return extractAll(ib, l, op.getInputs(), ValueRange{at});
              },
              [&](OpBuilder &ib, ValueRange a, ValueRange xs) {
                return combine(ib, l, op, a, xs);
              });
          // The element function never fails.
          return *accs;
        });
    rewriter.replaceOp(op, results);
    return success();
  }
};

struct ScanToLoops : OpRewritePattern<ScanOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ScanOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<Value> sizes = dimSizes(rewriter, loc, op.getInputs()[0]);
    int64_t dim = op.getScanDim();
    unsigned k = op.getInputs().size();
    SmallVector<Value> outerSizes;
    for (int64_t d = 0; d < static_cast<int64_t>(sizes.size()); ++d)
      if (d != dim)
        outerSizes.push_back(sizes[d]);

    SmallVector<Value> empties;
    for (Type t : op.getResultTypes()) {
      auto rt = cast<RankedTensorType>(t);
      empties.push_back(
          tensor::EmptyOp::create(rewriter, loc, rt, dynamicSizes(rt, sizes)));
    }
    bool exclusive = op.getExclusive();
    SmallVector<Value> results = buildNest(
        rewriter, loc, outerSizes, empties,
        [&](OpBuilder &b, Location l, ValueRange outerIvs, ValueRange tensors) {
          // The running prefix, carried in f64 for narrower float add
          // scans (see Accumulate.h).
          SmallVector<Value> iters =
              scanWiden(b, l, op, initialAccumulators(b, l, op));
          iters.append(tensors.begin(), tensors.end());
          SmallVector<Value> fin = buildNest(
              b, l, ValueRange{sizes[dim]}, iters,
              [&](OpBuilder &ib, Location il, ValueRange scanIv,
                  ValueRange cur) {
                SmallVector<Value> idx(outerIvs.begin(), outerIvs.end());
                idx.insert(idx.begin() + dim, scanIv[0]);
                ValueRange accs = cur.take_front(k);
                SmallVector<Value> next = scanStep(
                    ib, il, op, accs, extractAll(ib, il, op.getInputs(), idx),
                    [&](OpBuilder &cb, ValueRange a, ValueRange xs) {
                      return combine(cb, il, op, a, xs);
                    });
                SmallVector<Value> stored =
                    scanNarrow(ib, il, op, exclusive ? accs : ValueRange(next));
                SmallVector<Value> out(next);
                for (unsigned i = 0; i < k; ++i)
                  out.push_back(tensor::InsertOp::create(ib, il, stored[i],
                                                         cur[k + i], idx));
                return out;
              });
          return SmallVector<Value>(ArrayRef<Value>(fin).drop_front(k));
        });
    rewriter.replaceOp(op, results);
    return success();
  }
};

struct FilterToLoops : OpRewritePattern<FilterOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(FilterOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value n = tensor::DimOp::create(rewriter, loc, op.getInputs()[0], 0);
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    SmallVector<Value> iters{zero};
    for (Type t : op.getResultTypes())
      iters.push_back(tensor::EmptyOp::create(
          rewriter, loc, cast<RankedTensorType>(t), ValueRange{n}));
    SmallVector<Value> fin = buildNest(
        rewriter, loc, ValueRange{n}, iters,
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange cur) {
          SmallVector<Value> xs = extractAll(b, l, op.getInputs(), ivs);
          Value keep = inlineBody(b, op.getPredicate(), xs)[0];
          auto ifOp = scf::IfOp::create(
              b, l, keep,
              [&](OpBuilder &tb, Location tl) {
                SmallVector<Value> out{
                    arith::AddIOp::create(tb, tl, cur[0], one)};
                for (auto [x, t] : llvm::zip_equal(xs, cur.drop_front()))
                  out.push_back(
                      tensor::InsertOp::create(tb, tl, x, t, cur[0]));
                scf::YieldOp::create(tb, tl, out);
              },
              [&](OpBuilder &eb, Location el) {
                scf::YieldOp::create(eb, el, cur);
              });
          return SmallVector<Value>(ifOp.getResults());
        });
    SmallVector<Value> results;
    for (auto [t, type] :
         llvm::zip_equal(ArrayRef<Value>(fin).drop_front(),
                         op.getResultTypes()))
      results.push_back(firstElements(rewriter, loc,
                                      cast<RankedTensorType>(type), t, fin[0]));
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// Converts an index value to `type` (an integer or float type).
Value castIndex(OpBuilder &b, Location loc, Value idx, Type type) {
  if (isa<IntegerType>(type))
    return arith::IndexCastOp::create(b, loc, type, idx);
  Value i64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), idx);
  return arith::SIToFPOp::create(b, loc, type, i64);
}

/// The first clamp(count, 0, size) elements: a slice of the source.
struct PrefixToSlice : OpRewritePattern<PrefixOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(PrefixOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType st = op.getSource().getType();
    if (st.getDimSize(0) == 0) {
      // Nothing to take (a slice of a static empty tensor is invalid IR).
      Value none = tensor::EmptyOp::create(rewriter, loc, ArrayRef<int64_t>{0},
                                           st.getElementType());
      rewriter.replaceOpWithNewOp<tensor::CastOp>(op, op.getType(), none);
      return success();
    }
    Value size = tensor::DimOp::create(rewriter, loc, op.getSource(), 0);
    Value count = arith::IndexCastOp::create(
        rewriter, loc, rewriter.getIndexType(),
        tensor::ExtractOp::create(rewriter, loc, op.getCount(), ValueRange{}));
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value n = arith::MinSIOp::create(
        rewriter, loc, arith::MaxSIOp::create(rewriter, loc, count, zero),
        size);
    rewriter.replaceOp(
        op, firstElements(rewriter, loc, op.getType(), op.getSource(), n));
    return success();
  }
};

struct IotaToLoops : OpRewritePattern<IotaOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(IotaOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getResult().getType();
    SmallVector<Value> sizes = resultSizes(rewriter, loc, op);
    int64_t dim = op.getIotaDim();
    SmallVector<Value> results = buildElementwise(
        rewriter, loc, TypeRange{type}, sizes,
        [&](OpBuilder &b, Location l, ValueRange ivs) {
          return SmallVector<Value>{
              castIndex(b, l, ivs[dim], type.getElementType())};
        });
    rewriter.replaceOp(op, results);
    return success();
  }
};

struct GatherToLoops : OpRewritePattern<GatherOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GatherOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value src = op.getSource();
    Type et = op.getResult().getType().getElementType();
    Value n = tensor::DimOp::create(rewriter, loc, src, 0);
    Value n64 = arith::IndexCastOp::create(rewriter, loc,
                                           rewriter.getI64Type(), n);
    Value zero64 = arith::ConstantIntOp::create(rewriter, loc, 0, 64);
    Value zeroElt = arith::ConstantOp::create(
        rewriter, loc, cast<TypedAttr>(rewriter.getZeroAttr(et)));
    SmallVector<Value> sizes = resultSizes(rewriter, loc, op);
    SmallVector<Value> results = buildElementwise(
        rewriter, loc, TypeRange{op.getResult().getType()}, sizes,
        [&](OpBuilder &b, Location l, ValueRange ivs) {
          Value raw = tensor::ExtractOp::create(b, l, op.getIndices(), ivs);
          Value i64 = raw.getType().isInteger(64)
                          ? raw
                          : arith::ExtSIOp::create(b, l, b.getI64Type(), raw)
                                .getResult();
          Value geZero = arith::CmpIOp::create(
              b, l, arith::CmpIPredicate::sge, i64, zero64);
          Value ltN = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt,
                                            i64, n64);
          Value inBounds = arith::AndIOp::create(b, l, geZero, ltN);
          auto ifOp = scf::IfOp::create(
              b, l, inBounds,
              [&](OpBuilder &tb, Location tl) {
                Value idx = arith::IndexCastOp::create(
                    tb, tl, tb.getIndexType(), i64);
                Value v = tensor::ExtractOp::create(tb, tl, src, idx);
                scf::YieldOp::create(tb, tl, v);
              },
              [&](OpBuilder &eb, Location el) {
                scf::YieldOp::create(eb, el, zeroElt);
              });
          return SmallVector<Value>{ifOp.getResult(0)};
        });
    rewriter.replaceOp(op, results);
    return success();
  }
};

struct SearchSortedToLoops : OpRewritePattern<SearchSortedOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SearchSortedOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value sorted = op.getSorted();
    Value n = tensor::DimOp::create(rewriter, loc, sorted, 0);
    SmallVector<Value> sizes = resultSizes(rewriter, loc, op);
    SmallVector<Value> results = buildElementwise(
        rewriter, loc, TypeRange{op.getResult().getType()}, sizes,
        [&](OpBuilder &b, Location l, ValueRange ivs) {
          Value needle = tensor::ExtractOp::create(b, l, op.getValues(), ivs);
          OpenSearch search = openSearch(b, l, op, n, needle);
          Value element = tensor::ExtractOp::create(b, l, sorted, search.mid);
          return SmallVector<Value>{closeSearch(b, l, search, element)};
        });
    rewriter.replaceOp(op, results);
    return success();
  }
};

struct HistogramToLoops : OpRewritePattern<HistogramOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(HistogramOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value counts = emitZeroCounts(rewriter, loc, op.getResult().getType(),
                                  resultSizes(rewriter, loc, op).front());
    Value in = op.getIndices();
    SmallVector<Value> results =
        buildNest(rewriter, loc, dimSizes(rewriter, loc, in), {counts},
                  [&](OpBuilder &b, Location l, ValueRange ivs,
                      ValueRange cur) {
                    Value bin = tensor::ExtractOp::create(b, l, in, ivs);
                    return SmallVector<Value>{emitCount(b, l, cur[0], bin)};
                  });
    rewriter.replaceOp(op, results);
    return success();
  }
};

struct BroadcastToLoops : OpRewritePattern<BroadcastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BroadcastOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    RankedTensorType type = op.getResult().getType();
    ArrayRef<int64_t> added = op.getDims();
    SmallVector<Value> sizes = resultSizes(rewriter, loc, op);
    SmallVector<Value> results = buildElementwise(
        rewriter, loc, TypeRange{type}, sizes,
        [&](OpBuilder &b, Location l, ValueRange ivs) {
          SmallVector<Value> idx;
          for (int64_t d = 0; d < type.getRank(); ++d)
            if (!llvm::is_contained(added, d))
              idx.push_back(ivs[d]);
          return SmallVector<Value>{
              tensor::ExtractOp::create(b, l, op.getInput(), idx)};
        });
    rewriter.replaceOp(op, results);
    return success();
  }
};

struct ConvertFuseToLoopsPass
    : fuse::impl::ConvertFuseToLoopsPassBase<ConvertFuseToLoopsPass> {
  void runOnOperation() override {
    // A constant tensor.dim index past the rank is undefined behaviour that
    // later folds would turn into a silent poison value: reject it here.
    WalkResult badDim = getOperation()->walk([&](tensor::DimOp dim) {
      std::optional<int64_t> d = dim.getConstantIndex();
      auto t = dyn_cast<RankedTensorType>(dim.getSource().getType());
      if (d && t && (*d < 0 || *d >= t.getRank())) {
        dim.emitOpError("index ")
            << *d << " is out of range for a tensor of rank " << t.getRank();
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (badDim.wasInterrupted())
      return signalPassFailure();
    // Fused groups first, as whole loop nests (the walk visits nested ops
    // first, so the per-op patterns would otherwise lower their bodies).
    RewritePatternSet groupPatterns(&getContext());
    fuse::populateFuseGroupToLoopsPatterns(groupPatterns);
    walkAndApplyPatterns(getOperation(), std::move(groupPatterns));
    RewritePatternSet patterns(&getContext());
    fuse::populateFuseToLoopsPatterns(patterns);
    walkAndApplyPatterns(getOperation(), std::move(patterns));
    // Every fuse op has a pattern; anything left is a bug or a fuse op in
    // a place the patterns cannot reach.
    WalkResult left = getOperation()->walk([&](Operation *op) {
      if (isa_and_nonnull<FuseDialect>(op->getDialect()) && !isa<YieldOp>(op)) {
        op->emitError() << "could not lower this op to loops";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (left.wasInterrupted())
      return signalPassFailure();
    // A function's recorded size checks (fuse.size_checks, verified against
    // its tensor arguments) are the fuse program's: the callers evaluate
    // them on the program before lowering (fuse-run), and bufferization
    // turns the arguments they name into memrefs.
    getOperation()->walk([](FunctionOpInterface fn) {
      fn->removeAttr(SizeCheckAttr::getAttrName());
    });
  }
};

} // namespace

void fuse::populateFuseToLoopsPatterns(RewritePatternSet &patterns) {
  patterns
      .add<MapToLoops, ReduceToLoops, ScanToLoops, FilterToLoops, IotaToLoops,
           GatherToLoops, SearchSortedToLoops, HistogramToLoops,
           SegmentedReduceToLoops, BroadcastToLoops, PrefixToSlice>(
          patterns.getContext());
  populateFuseGroupToLoopsPatterns(patterns);
  populateSortToLoopsPatterns(patterns);
  populateShardToCallsPatterns(patterns);
}
