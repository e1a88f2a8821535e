//===- ShardPlan.cpp - which values of an entry are split into shards -----===//

#include "fuse/Dialect/Fuse/Utils/ShardPlan.h"
#include "fuse/Dialect/Fuse/IR/FuseOps.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace fuse;

bool ShardPlan::isSplitDim(Value v, int64_t d) const {
  SizeAnalysis::Dim mine = sizes->leader(v, d);
  return llvm::any_of(classes, [&](const SizeAnalysis::Dim &c) {
    return sizes->leader(c.first, c.second) == mine;
  });
}

bool ShardPlan::isSplit(Value v) const {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && t.getRank() >= 1 && isSplitDim(v, 0);
}

/// Checks that the split sizes appear only as leading dimensions (fuse-shard
/// makes static ones dynamic).
static LogicalResult checkValue(const ShardPlan &plan, Value v, Operation *at) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  if (!t)
    return success();
  for (int64_t d = 0; d < t.getRank(); ++d) {
    if (!plan.isSplitDim(v, d))
      continue;
    if (d > 0)
      return at->emitError()
             << "cannot run sharded: dimension " << d << " of " << t
             << " is the split size (shards split leading dimensions: "
                "elements of 1-d arrays, rows of 2-d ones)";
  }
  return success();
}

FailureOr<ShardPlan> fuse::planShards(func::FuncOp fn,
                                      std::optional<unsigned> splitArg) {
  ShardPlan plan;
  plan.sizes = std::make_unique<SizeAnalysis>(fn);
  Block &body = fn.getBody().front();
  if (!splitArg) {
    for (BlockArgument a : body.getArguments()) {
      auto t = dyn_cast<RankedTensorType>(a.getType());
      if (t && t.getRank() >= 1) {
        splitArg = a.getArgNumber();
        break;
      }
    }
  }
  if (splitArg) {
    if (*splitArg >= body.getNumArguments())
      return fn.emitError()
             << "cannot run sharded: no argument #" << *splitArg << " to split";
    BlockArgument a = body.getArgument(*splitArg);
    auto t = dyn_cast<RankedTensorType>(a.getType());
    if (!t || t.getRank() < 1)
      return fn.emitError() << "cannot run sharded: argument #" << *splitArg
                            << " is not a tensor of rank 1 or more";
    plan.classes.push_back({a, 0});
  }
  // Kept elements and prefixes of split values are split too (each shard
  // keeps its own).
  fn.walk([&](Operation *op) {
    if (auto f = dyn_cast<FilterOp>(op);
        f && plan.isSplit(f.getInputs().front()))
      plan.classes.push_back({f->getResult(0), 0});
    if (auto p = dyn_cast<PrefixOp>(op); p && plan.isSplit(p.getSource()))
      plan.classes.push_back({p.getResult(), 0});
  });

  plan.splitArg = splitArg;
  for (BlockArgument a : body.getArguments()) {
    bool localSize = isa<IndexType>(a.getType()) && plan.isSplitDim(a, -1);
    SizeAnalysis::Dim primary =
        plan.classes.empty() ? SizeAnalysis::Dim() : plan.classes.front();
    if (localSize && plan.sizes->leader(a, -1) !=
                         plan.sizes->leader(primary.first, primary.second))
      return fn.emitError()
             << "cannot run sharded: `index` argument #" << a.getArgNumber()
             << " is the size of a filter's kept elements, "
                "which each shard knows only once it ran";
    plan.localSizeArgs.push_back(localSize);
    if (failed(checkValue(plan, a, fn)))
      return failure();
    plan.splitArgs.push_back(plan.isSplit(a));
  }
  WalkResult walk = fn.walk([&](Operation *op) {
    for (Value r : op->getResults())
      if (failed(checkValue(plan, r, op)))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  for (Value r : body.getTerminator()->getOperands())
    plan.splitResults.push_back(plan.isSplit(r));
  return plan;
}
