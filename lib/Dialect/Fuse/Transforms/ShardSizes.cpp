//===- ShardSizes.cpp - static split sizes and whole arrays in fuse-shard ===//
//
// Each shard holds its own number of rows, so a split size cannot stay
// static in the sharded entry. Before the rewrite, every split dimension
// written as a static size becomes dynamic: arguments, results and the
// values between them. The ops that took the size from their type get it
// as an operand instead (iota, broadcast, tensor.empty: the local rows of
// the split argument).
//
// Values that no split value feeds, but that the pipeline ties to the
// split size (a constant array zipped with the split data, an `index`
// constant that sizes a tensor), are whole arrays and totals, the same on
// every shard. A whole array is replaced by the shard's own part of it (a
// gather at the shard's start); an `index` constant sizes tensors with the
// local rows and stays the total in arithmetic.
//
//===----------------------------------------------------------------------===//

#include "ShardRewrite.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/ScopeExit.h"

using namespace mlir;
using namespace fuse;

/// Whether `op` makes a tensor from nothing split: its results are whole
/// arrays even where the pipeline ties them to the split size. Iota,
/// broadcast and tensor.empty take their sizes from operands, which the
/// rewrite makes local.
static bool makesWholeArrays(Operation *op, const ShardPlan &plan) {
  if (isa<IotaOp, BroadcastOp, tensor::EmptyOp, ShardRankOp>(op))
    return false;
  return op->getNumResults() > 0 &&
         llvm::none_of(op->getOperands(),
                       [&](Value v) { return plan.isSplit(v); });
}

Value ShardRewriter::localRows(Location loc) {
  Value arg = fn.getBody().front().getArgument(*plan.splitArg);
  return tensor::DimOp::create(b, loc, arg, 0);
}

bool ShardRewriter::inPrimaryClass(Value v, int64_t d) const {
  SizeAnalysis::Dim primary = plan.classes.front();
  return plan.sizes->leader(v, d) ==
         plan.sizes->leader(primary.first, primary.second);
}

/// Sets `v`'s leading dimension dynamic where it is a static split size;
/// true when it changed.
static bool makeDynamic(Value v, const ShardPlan &plan) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  if (!t || t.getRank() == 0 || t.isDynamicDim(0) || !plan.isSplitDim(v, 0))
    return false;
  v.setType(dynamicLeading(t));
  return true;
}

/// `sizes` with `size` inserted at `pos`.
static SmallVector<Value> insertSize(ValueRange sizes, unsigned pos,
                                     Value size) {
  SmallVector<Value> out(sizes);
  out.insert(out.begin() + pos, size);
  return out;
}

LogicalResult ShardRewriter::dynamicSplitSizes() {
  Block &body = fn.getBody().front();
  for (BlockArgument a : body.getArguments())
    makeDynamic(a, plan);
  WalkResult walk = fn.walk([&](Operation *op) {
    if (makesWholeArrays(op, plan))
      return WalkResult::advance();
    bool changed = false;
    for (Value r : op->getResults())
      changed |= makeDynamic(r, plan);
    if (!changed)
      return WalkResult::advance();
    Location loc = op->getLoc();
    auto needsSize = [&](Operation *sized) -> LogicalResult {
      if (inPrimaryClass(sized->getResult(0), 0))
        return success();
      return sized->emitError()
             << "cannot run sharded: the static size of this result is the "
                "count of split data, which each shard knows only once it ran";
    };
    b.setInsertionPoint(op);
    if (auto i = dyn_cast<IotaOp>(op)) {
      if (failed(needsSize(op)))
        return WalkResult::interrupt();
      i.getSizesMutable().assign(insertSize(i.getSizes(), 0, localRows(loc)));
    } else if (auto bc = dyn_cast<BroadcastOp>(op)) {
      // A kept leading dimension follows the input, which changed with it.
      if (bc.getDims().empty() || bc.getDims().front() != 0)
        return WalkResult::advance();
      if (failed(needsSize(op)))
        return WalkResult::interrupt();
      bc.getSizesMutable().assign(insertSize(bc.getSizes(), 0, localRows(loc)));
    } else if (auto e = dyn_cast<tensor::EmptyOp>(op)) {
      if (failed(needsSize(op)))
        return WalkResult::interrupt();
      e.getDynamicSizesMutable().assign(
          insertSize(e.getDynamicSizes(), 0, localRows(loc)));
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

LogicalResult ShardRewriter::wholeArrays(Operation *op) {
  if (auto c = dyn_cast<arith::ConstantOp>(op);
      c && isa<IndexType>(c.getType()) && plan.isSplitDim(c, -1)) {
    // The total: it stays in arithmetic, and sizes tensors with the local
    // rows.
    if (!inPrimaryClass(c, -1))
      return success();
    SmallVector<OpOperand *> sizing;
    for (OpOperand &use : c->getUses())
      if (isa<BroadcastOp, IotaOp, tensor::EmptyOp>(use.getOwner()))
        sizing.push_back(&use);
    for (OpOperand *use : sizing) {
      b.setInsertionPoint(use->getOwner());
      use->set(localRows(op->getLoc()));
    }
    return success();
  }
  if (!makesWholeArrays(op, plan))
    return success();
  Location loc = op->getLoc();
  for (Value r : op->getResults()) {
    if (!plan.isSplit(r))
      continue;
    if (!inPrimaryClass(r, 0))
      return op->emitError()
             << "cannot run sharded: this array has the size of a filter's "
                "kept elements of split data, which each shard keeps apart";
    if (cast<RankedTensorType>(r.getType()).getRank() != 1)
      return op->emitError()
             << "cannot run sharded: this array of rank 2 or more has the "
                "split rows but no split input (only rank-1 arrays are cut "
                "into the shards' parts)";
    b.setInsertionPointAfter(op);
    SmallVector<OpOperand *> uses;
    for (OpOperand &use : r.getUses())
      uses.push_back(&use);
    Value split = fn.getBody().front().getArgument(*plan.splitArg);
    Value part =
        gatherPart(loc, r, partIndices(loc, split), plan.classes.front());
    for (OpOperand *use : uses)
      use->set(part);
  }
  return success();
}

Value ShardRewriter::partIndices(Location loc, Value of) {
  Value start = startOf(loc, of);
  Value rows = tensor::DimOp::create(b, loc, of, 0);
  auto idxType = RankedTensorType::get({ShapedType::kDynamic}, b.getI64Type());
  Value local =
      IotaOp::create(b, loc, idxType, ValueRange{rows}, IntegerAttr());
  return buildElementwiseMap(
      b, loc, local, b.getI64Type(), [&](OpBuilder &mb, Location l, Value i) {
        return arith::AddIOp::create(mb, l, i, start).getResult();
      });
}

const ShardRewriter::PrimarySizes &ShardRewriter::primarySizes() {
  if (primary.start)
    return primary;
  // Made once, at the top of the entry, from one gather of every shard's
  // rows. The rewrite skips these ops: made before its walk (for an
  // `index` argument's total), it would take their tensor.dim for one of
  // the pipeline's.
  struct Record : OpBuilder::Listener {
    llvm::DenseSet<Operation *> &ops;
    explicit Record(llvm::DenseSet<Operation *> &ops) : ops(ops) {}
    void notifyOperationInserted(Operation *op,
                                 OpBuilder::InsertPoint) override {
      ops.insert(op);
    }
  } record(ownOps);
  OpBuilder::InsertionGuard g(b);
  OpBuilder::Listener *previous = b.getListener();
  b.setListener(&record);
  auto restore = llvm::make_scope_exit([&] { b.setListener(previous); });
  b.setInsertionPointAfter(shardRank);
  Location loc = fn.getLoc();
  Value all = gatherAll(loc, sizeTensor(loc, localRows(loc))).front();
  auto scalar = [&](Value t) {
    return tensor::ExtractOp::create(b, loc, t, ValueRange{}).getResult();
  };
  primary.start =
      scalar(foldGathered(loc, all, CombinerKind::Add, /*before=*/true));
  primary.total = arith::IndexCastOp::create(
      b, loc, b.getIndexType(),
      scalar(foldGathered(loc, all, CombinerKind::Add, /*before=*/false)));
  return primary;
}

Value ShardRewriter::startOf(Location loc, Value v) {
  if (inPrimaryClass(v, 0))
    return primarySizes().start;
  Value rows = tensor::DimOp::create(b, loc, v, 0);
  return tensor::ExtractOp::create(
      b, loc, foldBefore(loc, sizeTensor(loc, rows), CombinerKind::Add),
      ValueRange{});
}

Value ShardRewriter::totalOf(Location loc, Value size) {
  if (inPrimaryClass(size, -1))
    return primarySizes().total;
  Value sum = tensor::ExtractOp::create(
      b, loc, foldShards(loc, sizeTensor(loc, size), CombinerKind::Add),
      ValueRange{});
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), sum);
}

Value ShardRewriter::gatherPart(Location loc, Value whole, Value at,
                                SizeAnalysis::Dim rowsOf) {
  auto t = dynamicLeading(cast<RankedTensorType>(whole.getType()));
  // A gather makes a fresh array, not a view of the whole one.
  Value part = GatherOp::create(b, loc, t, whole, at);
  plan.sizes->unite({part, 0}, rowsOf);
  return part;
}
