//===- Shard.cpp - entries that run once a shard --------------------------===//
//
// See FuseShardPass in Passes.td and ShardPlan.h. Each op that crosses the
// split dimension becomes its local form plus a combination of the shards'
// partial results through `fuse.all_gather`, folded in shard order:
//
//   reduce over the split dim    local reduce (init on shard 0) -> gather
//                                -> reduce over the shards
//   scan along the split dim     local scan (init on shard 0); local total
//                                (a row of them for rank 2 and more) ->
//                                gather -> fold of the shards before ->
//                                combined into every element (a map)
//   histogram of split indices   local counts -> gather -> sum
//   iota along the split dim     + the shard's start (sizes gathered)
//   prefix of split data         the count less the shard's start
//   tensor.dim of a split size   the local size where it sizes a tensor,
//                                the total (sizes gathered) elsewhere
//   element of split rank-1 data read by its shard, or-ed as bits
//
// The collectives are ordinary fuse ops on small tensors, so fusion and
// the backends treat the folds as any other reduction.
//
//===----------------------------------------------------------------------===//

#include "ShardRewrite.h"

#include "fuse/Dialect/Fuse/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

namespace fuse {
#define GEN_PASS_DEF_FUSESHARDPASS
#include "fuse/Dialect/Fuse/Transforms/Passes.h.inc"
} // namespace fuse

using namespace mlir;
using namespace fuse;

namespace {

RankedTensorType scalarTensor(Type elem) {
  return RankedTensorType::get({}, elem);
}

/// The uses of `v` that `keep` selects, taken before new uses are made.
SmallVector<OpOperand *> usesOf(Value v,
                                function_ref<bool(OpOperand &)> keep = {}) {
  SmallVector<OpOperand *> out;
  for (OpOperand &use : v.getUses())
    if (!keep || keep(use))
      out.push_back(&use);
  return out;
}

} // namespace

LogicalResult ShardRewriter::run() {
  Block &body = fn.getBody().front();
  b.setInsertionPointToStart(&body);
  shardRank = ShardRankOp::create(b, fn.getLoc());
  if (plan.splitArg && failed(dynamicSplitSizes()))
    return failure();
  // An `index` argument that is the split size is the shard's own size.
  for (auto [a, local] : llvm::zip(body.getArguments(), plan.localSizeArgs))
    if (local)
      totalWhereArithmetic(a, fn.getLoc());
  for (Operation &op : llvm::make_early_inc_range(body.without_terminator()))
    if (&op != shardRank && !ownOps.contains(&op) && failed(visit(&op)))
      return failure();
  for (Operation *op : llvm::reverse(replaced))
    op->erase();
  // Split results are dynamic now.
  fn.setType(FunctionType::get(fn.getContext(), body.getArgumentTypes(),
                               body.getTerminator()->getOperandTypes()));
  return success();
}

Value ShardRewriter::onFirstShard(Location loc) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rank(), zero);
}

LogicalResult ShardRewriter::visit(Operation *op) {
  auto splitOperand = [&]() {
    return llvm::any_of(op->getOperands(),
                        [&](Value v) { return plan.isSplit(v); });
  };
  auto refuse = [&](const Twine &what) {
    return op->emitError() << "cannot run sharded: " << what;
  };
  if (plan.splitArg && failed(wholeArrays(op)))
    return failure();
  capturedReads(op);
  if (auto r = dyn_cast<ReduceOp>(op))
    return reduce(r);
  if (auto s = dyn_cast<ScanOp>(op))
    return scan(s);
  if (auto h = dyn_cast<HistogramOp>(op)) {
    if (plan.isSplit(h.getIndices()))
      histogram(h);
    return success();
  }
  if (auto i = dyn_cast<IotaOp>(op)) {
    if (plan.isSplit(i.getResult()) && i.getIotaDim() == 0)
      iota(i);
    return success();
  }
  if (auto d = dyn_cast<tensor::DimOp>(op)) {
    std::optional<int64_t> k = d.getConstantIndex();
    if (k && plan.isSplitDim(d.getSource(), *k))
      this->dim(d);
    return success();
  }
  if (isa<MapOp, BroadcastOp, FilterOp>(op))
    return success();
  // Ops that read split data at positions of the whole array read the
  // whole array (fuse.all_concat): a gather's source, a searchsorted's
  // table, a segmented reduction's inputs, an element read.
  if (auto g = dyn_cast<GatherOp>(op)) {
    wholeOperand(g.getSourceMutable());
    return success();
  }
  if (auto s = dyn_cast<SearchSortedOp>(op)) {
    wholeOperand(s.getSortedMutable());
    return success();
  }
  if (auto s = dyn_cast<SegmentedReduceOp>(op)) {
    for (OpOperand &in : s.getInputsMutable())
      wholeOperand(in);
    return success();
  }
  if (auto e = dyn_cast<tensor::ExtractOp>(op)) {
    auto t = cast<RankedTensorType>(e.getTensor().getType());
    if (plan.isSplit(e.getTensor()) && t.getRank() == 1)
      elementRead(e);
    else
      wholeOperand(e.getTensorMutable());
    return success();
  }
  if (auto s = dyn_cast<SortOp>(op)) {
    if (plan.isSplit(s.getKeys()))
      sort(s);
    return success();
  }
  if (auto p = dyn_cast<PrefixOp>(op)) {
    if (plan.isSplit(p.getSource()))
      prefix(p);
    return success();
  }
  if (isa<GroupOp>(op) && splitOperand())
    return refuse(Twine("'") + op->getName().getStringRef() +
                  "' of split data is not sharded yet");
  if (splitOperand())
    return refuse(Twine("'") + op->getName().getStringRef() +
                  "' reads split data at positions of the whole array");
  return success();
}

void ShardRewriter::elementRead(tensor::ExtractOp op) {
  // One element of a split rank-1 array: the shard that holds it reads it
  // (a gather at its local position reads zero elsewhere, an empty shard
  // too), and the shards' reads are or-ed as bits, so the element comes
  // through exactly (a -0.0 and a NaN's payload too) without moving the
  // array.
  Location loc = op.getLoc();
  b.setInsertionPoint(op);
  Value x = op.getTensor();
  Type elem = cast<RankedTensorType>(x.getType()).getElementType();
  Value at = arith::IndexCastOp::create(b, loc, b.getI64Type(),
                                        op.getIndices().front());
  Value local = arith::SubIOp::create(b, loc, at, startOf(loc, x));
  Value mine = GatherOp::create(
      b, loc, scalarTensor(elem), x,
      tensor::FromElementsOp::create(b, loc, scalarTensor(b.getI64Type()),
                                     ValueRange{local}));
  Type bits = elem;
  if (isa<FloatType>(elem)) {
    bits = b.getIntegerType(elem.getIntOrFloatBitWidth());
    mine = buildElementwiseMap(
        b, loc, mine, bits, [&](OpBuilder &mb, Location l, Value v) {
          return arith::BitcastOp::create(mb, l, bits, v).getResult();
        });
  }
  Value all = foldShards(loc, mine, CombinerKind::Or);
  if (bits != elem)
    all = buildElementwiseMap(
        b, loc, all, elem, [&](OpBuilder &mb, Location l, Value v) {
          return arith::BitcastOp::create(mb, l, elem, v).getResult();
        });
  op.getResult().replaceAllUsesWith(
      tensor::ExtractOp::create(b, loc, all, ValueRange{}).getResult());
  replaced.push_back(op);
}

void ShardRewriter::capturedReads(Operation *op) {
  // A body (a map's, a combiner) that reads a split value of the entry
  // from above reads it at positions of the whole array: an element of it
  // reads the whole array, its size is the total.
  SmallVector<OpOperand *> captured;
  op->walk([&](Operation *inner) {
    if (inner == op)
      return;
    for (OpOperand &use : inner->getOpOperands())
      if (plan.isSplit(use.get()) &&
          !op->isAncestor(use.get().getParentRegion()->getParentOp()))
        captured.push_back(&use);
  });
  Location loc = op->getLoc();
  DenseMap<Value, Value> whole;
  for (OpOperand *use : captured) {
    Value v = use->get();
    b.setInsertionPoint(op);
    auto d = dyn_cast<tensor::DimOp>(use->getOwner());
    std::optional<int64_t> k = d ? d.getConstantIndex() : std::nullopt;
    if (k && plan.isSplitDim(v, *k)) {
      Value local = tensor::DimOp::create(b, loc, v, *k);
      plan.sizes->unite({local, -1}, {v, *k});
      d.getResult().replaceAllUsesWith(totalOf(loc, local));
      continue;
    }
    Value &all = whole[v];
    if (!all)
      all = allConcat(loc, v);
    use->set(all);
  }
}

void ShardRewriter::wholeOperand(OpOperand &use) {
  Value v = use.get();
  if (!plan.isSplit(v))
    return;
  b.setInsertionPoint(use.getOwner());
  use.set(allConcat(use.getOwner()->getLoc(), v));
}

Value ShardRewriter::allConcat(Location loc, Value v) {
  ++collectives;
  return AllConcatOp::create(
      b, loc, dynamicLeading(cast<RankedTensorType>(v.getType())), v);
}

void ShardRewriter::sort(SortOp op) {
  // Each shard sorts the whole array and keeps its own part of the result
  // (the sizes of the parts do not change); positions a sort returns are
  // positions in the whole array.
  Location loc = op.getLoc();
  b.setInsertionPoint(op);
  Value keys = op.getKeys();
  op.getKeysMutable().assign(allConcat(loc, keys));
  if (Value vals = op.getValues())
    op.getValuesMutable().assign(allConcat(loc, vals));
  b.setInsertionPointAfter(op);
  Value at = partIndices(loc, keys);
  for (Value r : op.getResults()) {
    SmallVector<OpOperand *> uses = usesOf(r);
    Value part = gatherPart(loc, r, at, {keys, 0});
    for (OpOperand *use : uses)
      use->set(part);
  }
}

Value ShardRewriter::onFirstShard(Location loc, Value v, CombinerKind kind) {
  Value first = onFirstShard(loc);
  Value id =
      arith::ConstantOp::create(b, loc, getKindIdentity(kind, v.getType()));
  return arith::SelectOp::create(b, loc, first, v, id);
}

Value ShardRewriter::foldShards(Location loc, Value partial,
                                CombinerKind kind) {
  return foldGathered(loc, gatherAll(loc, partial).front(), kind,
                      /*before=*/false);
}

Value ShardRewriter::foldBefore(Location loc, Value partial,
                                CombinerKind kind) {
  return foldGathered(loc, gatherAll(loc, partial).front(), kind,
                      /*before=*/true);
}

Value ShardRewriter::foldGathered(Location loc, Value all, CombinerKind kind,
                                  bool before) {
  auto t = withoutLeading(
      all.getType(), cast<RankedTensorType>(all.getType()).getElementType());
  if (before && t.getRank() > 0) {
    // Rows of the shards from this one on become the identity (a prefix
    // takes rank-1 arrays only).
    Value mask = beforeThisShard(loc, all);
    Value id = arith::ConstantOp::create(
        b, loc, getKindIdentity(kind, t.getElementType()));
    all = buildElementwiseMap(
        b, loc, ValueRange{all, mask}, t.getElementType(),
        [&](OpBuilder &mb, Location l, ValueRange x) {
          return arith::SelectOp::create(mb, l, x[1], x[0], id).getResult();
        });
  } else if (before) {
    all = PrefixOp::create(b, loc, all.getType(), all, shardCountBefore(loc));
  }
  return ReduceOp::create(
             b, loc, TypeRange{t}, ValueRange{all}, ValueRange{},
             b.getArrayAttr({CombinerKindAttr::get(b.getContext(), kind)}),
             b.getDenseI64ArrayAttr({0}))
      .getResult(0);
}

Value ShardRewriter::beforeThisShard(Location loc, Value gathered) {
  auto t = cast<RankedTensorType>(gathered.getType());
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < t.getRank(); ++d)
    if (t.isDynamicDim(d))
      sizes.push_back(tensor::DimOp::create(b, loc, gathered, d));
  Value shard =
      IotaOp::create(b, loc, t.clone(b.getI64Type()), sizes, IntegerAttr());
  Value mine = arith::IndexCastOp::create(b, loc, b.getI64Type(), rank());
  return buildElementwiseMap(
      b, loc, shard, b.getI1Type(), [&](OpBuilder &mb, Location l, Value i) {
        return arith::CmpIOp::create(mb, l, arith::CmpIPredicate::slt, i, mine)
            .getResult();
      });
}

Value ShardRewriter::sizeTensor(Location loc, Value size) {
  Value i64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), size);
  return tensor::FromElementsOp::create(b, loc, scalarTensor(b.getI64Type()),
                                        ValueRange{i64});
}

Value ShardRewriter::combineInto(Location loc, Value offset, Value y,
                                 CombinerKind kind) {
  auto t = cast<RankedTensorType>(y.getType());
  Value n = tensor::DimOp::create(b, loc, y, 0);
  Value spread = BroadcastOp::create(
      b, loc, t, offset, b.getDenseI64ArrayAttr({0}), ValueRange{n});
  auto map = MapOp::create(b, loc, TypeRange{t}, ValueRange{spread, y});
  Type elem = t.getElementType();
  Block *blk = b.createBlock(&map.getBody(), {}, {elem, elem}, {loc, loc});
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(blk);
  YieldOp::create(
      b, loc,
      buildCombine(b, loc, kind, blk->getArgument(0), blk->getArgument(1)));
  return map.getResult(0);
}

LogicalResult ShardRewriter::reduce(ReduceOp op) {
  if (!plan.isSplit(op.getInputs().front()) ||
      !llvm::is_contained(op.getReducedDims(), 0))
    return success();
  if (!op.hasBuiltinKinds())
    return regionReduce(op);
  Location loc = op.getLoc();
  initsOnFirstShard(op);
  b.setInsertionPointAfter(op);
  for (auto [i, r] : llvm::enumerate(op.getResults())) {
    SmallVector<OpOperand *> uses = usesOf(r);
    Value total = foldShards(loc, r, op.getKind(i));
    for (OpOperand *use : uses)
      use->set(total);
  }
  return success();
}

RankedTensorType fuse::withoutLeading(Type t, Type elem) {
  auto rt = cast<RankedTensorType>(t);
  return RankedTensorType::get(rt.getShape().drop_front(), elem);
}

RankedTensorType fuse::dynamicLeading(RankedTensorType t) {
  SmallVector<int64_t> shape(t.getShape());
  shape[0] = ShapedType::kDynamic;
  return t.clone(shape);
}

LogicalResult ShardRewriter::scan(ScanOp op) {
  if (!plan.isSplit(op.getInputs().front()) || op.getScanDim() != 0)
    return success();
  if (!op.hasBuiltinKinds())
    return regionScan(op);
  Location loc = op.getLoc();
  initsOnFirstShard(op);
  // The shard's total (a row of them for rank 2 and more): what an
  // inclusive scan ends with (the init too).
  SmallVector<Type> totalTypes;
  for (Value in : op.getInputs())
    totalTypes.push_back(withoutLeading(
        in.getType(), cast<RankedTensorType>(in.getType()).getElementType()));
  auto totals =
      ReduceOp::create(b, loc, totalTypes, op.getInputs(), op.getInits(),
                       op.getKindsAttr(), b.getDenseI64ArrayAttr({0}));
  b.setInsertionPointAfter(op);
  for (auto [i, r] : llvm::enumerate(op.getResults())) {
    SmallVector<OpOperand *> uses = usesOf(r);
    Value before = foldBefore(loc, totals.getResult(i), op.getKind(i));
    Value y = combineInto(loc, before, r, op.getKind(i));
    plan.sizes->unite({y, 0}, {r, 0});
    for (OpOperand *use : uses)
      use->set(y);
  }
  return success();
}

void ShardRewriter::prefix(PrefixOp op) {
  // The whole array's first `count` elements: on each shard, its local
  // elements before `count - start` (the op clamps to [0, rows]), so the
  // result stays split.
  Location loc = op.getLoc();
  b.setInsertionPoint(op);
  Value start = startOf(loc, op.getSource());
  Value count = tensor::ExtractOp::create(b, loc, op.getCount(), ValueRange{});
  // A negative count takes nothing; clamped first so that the difference
  // cannot wrap.
  Value zero = arith::ConstantIntOp::create(b, loc, b.getI64Type(), 0);
  count = arith::MaxSIOp::create(b, loc, count, zero);
  Value local = arith::SubIOp::create(b, loc, count, start);
  op.getCountMutable().assign(tensor::FromElementsOp::create(
      b, loc, scalarTensor(b.getI64Type()), ValueRange{local}));
}

void ShardRewriter::histogram(HistogramOp op) {
  b.setInsertionPointAfter(op);
  SmallVector<OpOperand *> uses = usesOf(op.getResult());
  Value total = foldShards(op.getLoc(), op.getResult(), CombinerKind::Add);
  for (OpOperand *use : uses)
    use->set(total);
}

void ShardRewriter::iota(IotaOp op) {
  b.setInsertionPoint(op);
  Location loc = op.getLoc();
  auto t = op.getResult().getType();
  auto it = t.clone(b.getI64Type());
  auto local = IotaOp::create(b, loc, it, op.getSizes(), op.getDimAttr());
  plan.sizes->unite({local.getResult(), 0}, {op.getResult(), 0});
  Value start = startOf(loc, local.getResult());
  Type elem = t.getElementType();
  Value global =
      buildElementwiseMap(b, loc, local.getResult(), elem,
                          [&](OpBuilder &mb, Location l, Value i) -> Value {
                            Value g = arith::AddIOp::create(mb, l, i, start);
                            if (isa<FloatType>(elem))
                              return arith::SIToFPOp::create(mb, l, elem, g);
                            if (isa<IndexType>(elem))
                              return arith::IndexCastOp::create(mb, l, elem, g);
                            unsigned w = elem.getIntOrFloatBitWidth();
                            if (w < 64)
                              return arith::TruncIOp::create(mb, l, elem, g);
                            return g;
                          });
  // The local iota stays split.
  plan.sizes->unite({global, 0}, {op.getResult(), 0});
  op.getResult().replaceAllUsesWith(global);
  replaced.push_back(op);
}

void ShardRewriter::dim(tensor::DimOp op) {
  b.setInsertionPointAfter(op);
  totalWhereArithmetic(op.getResult(), op.getLoc());
}

void ShardRewriter::totalWhereArithmetic(Value size, Location loc) {
  // Sizes of tensors stay local; every other use (arithmetic, in bodies
  // too) sees the whole array's size.
  SmallVector<OpOperand *> total = usesOf(size, [](OpOperand &use) {
    return !isa<BroadcastOp, IotaOp, HistogramOp, tensor::EmptyOp>(
        use.getOwner());
  });
  if (total.empty())
    return;
  Value n = totalOf(loc, size);
  for (OpOperand *use : total)
    use->set(n);
}

namespace {

struct FuseShardPass : fuse::impl::FuseShardPassBase<FuseShardPass> {
  using Base::Base;
  void runOnOperation() override {
    for (auto fn : getOperation().getOps<func::FuncOp>()) {
      if (fn.isDeclaration() || !fn.isPublic())
        continue;
      std::optional<unsigned> arg;
      if (splitArg >= 0)
        arg = unsigned(splitArg);
      FailureOr<ShardPlan> plan = planShards(fn, arg);
      if (failed(plan))
        return signalPassFailure();
      ShardRewriter s(fn, *plan);
      if (failed(s.run()))
        return signalPassFailure();
      numCollectives += s.collectives;
    }
  }
};

} // namespace
