//===- MergeReductions.cpp - sibling partial reductions in one op ---------===//
//
// fuse-merge-reductions: partial reductions of one tensor over the same
// dimensions, which fusion does not group (only full reductions and
// rank-2 rows have sibling groups), become one multi-input fuse.reduce, so
// that the line kernel (GPU) or the loop nest (CPU) reads the tensor once.
//
//===----------------------------------------------------------------------===//

#include "fuse/Dialect/Fuse/Transforms/Passes.h"

#include "fuse/Dialect/Fuse/IR/FuseOps.h"

#include "mlir/IR/Builders.h"

namespace fuse {
#define GEN_PASS_DEF_FUSEMERGEREDUCTIONSPASS
#include "fuse/Dialect/Fuse/Transforms/Passes.h.inc"
} // namespace fuse

using namespace mlir;
using namespace fuse;

namespace {

/// A reduction this pass may merge: built-in kinds, no inits, of the
/// shapes fusion does not group with siblings (a line_reduce group holds
/// one reduction; full reductions and rows it groups with siblings).
bool mergeable(ReduceOp r) {
  ReduceShape s = reduceShape(r);
  return r.hasBuiltinKinds() && r.getInits().empty() &&
         (s == ReduceShape::Lines || s == ReduceShape::Other);
}

/// Whether `v` is defined before `op` in op's block (or is an argument of
/// a block enclosing it).
bool definedBefore(Value v, Operation *op) {
  if (auto a = dyn_cast<BlockArgument>(v))
    return a.getOwner()->getParentOp()->isAncestor(op);
  Operation *def = v.getDefiningOp();
  return def->getBlock() == op->getBlock() && def->isBeforeInBlock(op);
}

/// Merges `first` and `rest` (mergeable, the same first input and dims,
/// each later in the block) into one reduce at `first`'s place.
void merge(ReduceOp first, ArrayRef<ReduceOp> rest) {
  SmallVector<Value> inputs;
  SmallVector<Type> types;
  SmallVector<Attribute> kinds;
  SmallVector<ReduceOp> all{first};
  all.append(rest.begin(), rest.end());
  for (ReduceOp r : all) {
    inputs.append(r.getInputs().begin(), r.getInputs().end());
    types.append(r.getResultTypes().begin(), r.getResultTypes().end());
    kinds.append(r.getKindsAttr().begin(), r.getKindsAttr().end());
  }
  OpBuilder b(first);
  auto merged = ReduceOp::create(b, first.getLoc(), types, inputs, ValueRange{},
                                 b.getArrayAttr(kinds), first.getDimsAttr());
  merged->setDiscardableAttrs(first->getDiscardableAttrDictionary());
  unsigned next = 0;
  for (ReduceOp r : all) {
    r.replaceAllUsesWith(merged.getResults().slice(next, r.getNumResults()));
    next += r.getNumResults();
    r.erase();
  }
}

struct FuseMergeReductionsPass
    : fuse::impl::FuseMergeReductionsPassBase<FuseMergeReductionsPass> {
  void runOnOperation() override {
    SmallVector<Block *> blocks;
    getOperation()->walk([&](Block *blk) { blocks.push_back(blk); });
    for (Block *blk : blocks)
      mergeIn(*blk);
  }

  void mergeIn(Block &blk) {
    SmallVector<ReduceOp> candidates;
    for (Operation &op : blk)
      if (auto r = dyn_cast<ReduceOp>(op); r && mergeable(r))
        candidates.push_back(r);
    DenseSet<Operation *> taken;
    for (auto [i, first] : llvm::enumerate(candidates)) {
      if (taken.contains(first))
        continue;
      SmallVector<ReduceOp> rest;
      for (ReduceOp later : ArrayRef(candidates).drop_front(i + 1)) {
        if (taken.contains(later) ||
            later.getInputs()[0] != first.getInputs()[0] ||
            later.getReducedDims() != first.getReducedDims() ||
            !llvm::all_of(later.getInputs(),
                          [&](Value v) { return definedBefore(v, first); }))
          continue;
        rest.push_back(later);
        taken.insert(later);
      }
      if (!rest.empty())
        merge(first, rest);
    }
  }
};

} // namespace
