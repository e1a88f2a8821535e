//===- EntryGroups.cpp - an entry function as a sequence of groups --------===//

#include "fuse/Dialect/Fuse/Utils/EntryGroups.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

namespace fuse {

GroupKind groupKindFor(Operation *op) {
  if (auto r = dyn_cast<ReduceOp>(op)) {
    switch (reduceShape(r)) {
    case ReduceShape::Full:
      return GroupKind::Reduce;
    case ReduceShape::Lines:
      return GroupKind::LineReduce;
    case ReduceShape::Rows:
    case ReduceShape::Other:
      return GroupKind::RowReduce;
    }
  }
  if (isa<ScanOp>(op))
    return GroupKind::Scan;
  if (isa<FilterOp>(op))
    return GroupKind::Filter;
  if (isa<HistogramOp>(op))
    return GroupKind::Histogram;
  if (isa<SegmentedReduceOp>(op))
    return GroupKind::SegmentedReduce;
  return GroupKind::Elementwise;
}

/// Result `i` of elementwise group `g` yielded a second time, as a new last
/// result (the group is rebuilt with it; its kernel writes both outputs in
/// its one pass).
static Value yieldAgain(GroupOp g, unsigned i) {
  OpBuilder b(g);
  SmallVector<Type> types(g.getResultTypes());
  types.push_back(g.getResult(i).getType());
  auto n = GroupOp::create(b, g.getLoc(), types, g.getKind(), g.getOperands());
  n->setDiscardableAttrs(g->getDiscardableAttrDictionary());
  n.getBody().takeBody(g.getBody());
  YieldOp y = n.getYield();
  y->insertOperands(y->getNumOperands(), y.getValues()[i]);
  g->replaceAllUsesWith(n.getResults().drop_back());
  g->erase();
  return n.getResults().back();
}

void copyReturnedArguments(func::FuncOp fn) {
  auto ret = cast<func::ReturnOp>(fn.getBody().front().getTerminator());
  for (OpOperand &use : ret->getOpOperands()) {
    Value v = use.get();
    auto t = dyn_cast<RankedTensorType>(v.getType());
    // Returned by an earlier operand: read from the return itself, since
    // yieldAgain replaces the group (and so those operands' value).
    bool again = llvm::is_contained(
        ret->getOperands().take_front(use.getOperandNumber()), v);
    auto g = v.getDefiningOp<GroupOp>();
    if (t && again && g && g.getKind() == GroupKind::Elementwise) {
      use.set(yieldAgain(g, cast<OpResult>(v).getResultNumber()));
      continue;
    }
    if (!t || !(again || isa<BlockArgument>(v) || v.getDefiningOp<PrefixOp>()))
      continue;
    Location loc = ret.getLoc();
    OpBuilder b(ret);
    use.set(
        buildElementwiseMap(b, loc, v, t.getElementType(),
                            [](OpBuilder &, Location, Value x) { return x; }));
  }
}

bool isEntryFunction(func::FuncOp fn) {
  if (fn.isExternal())
    return false;
  auto isTensor = [](Type t) { return isa<TensorType>(t); };
  if (llvm::any_of(fn.getArgumentTypes(), isTensor) ||
      llvm::any_of(fn.getResultTypes(), isTensor))
    return true;
  return fn
      .walk([](Operation *op) {
        return isa_and_nonnull<FuseDialect>(op->getDialect())
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

void wrapLooseOps(func::FuncOp fn) {
  SmallVector<Operation *> loose;
  for (Operation &op : fn.getBody().front())
    if (isa_and_nonnull<FuseDialect>(op.getDialect()) &&
        !isa<GroupOp, SortOp, PrefixOp, ShardRankOp, AllGatherOp, AllConcatOp>(
            op))
      loose.push_back(&op);
  for (Operation *op : loose) {
    llvm::SetVector<Value> operands(op->getOperands().begin(),
                                    op->getOperands().end());
    llvm::SetVector<Value> captured;
    for (Region &r : op->getRegions())
      getUsedValuesDefinedAbove(r, captured);
    operands.insert(captured.begin(), captured.end());
    OpBuilder b(op);
    auto g = GroupOp::create(b, op->getLoc(), op->getResultTypes(),
                             groupKindFor(op), operands.getArrayRef());
    Block *body = b.createBlock(&g.getBody());
    IRMapping map;
    for (Value v : operands)
      map.map(v, body->addArgument(v.getType(), v.getLoc()));
    Operation *clone = b.clone(*op, map);
    YieldOp::create(b, op->getLoc(), clone->getResults());
    op->replaceAllUsesWith(g.getResults());
    op->erase();
  }
}

} // namespace fuse
