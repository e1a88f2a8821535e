//===- SplitReductions.cpp - one GPU-shaped reduction at a time -----------===//
//
// fuse-split-reductions: a reduction with built-in kinds over several (not
// all) dimensions that are not a leading or trailing block becomes a
// reduction over its last dimension followed by one over the rest. The GPU
// kernels take a reduction over one dimension (the line kernel, or rows
// for the last) and, through fuse-collapse-rows, over an edge block; the
// chain reaches those shapes. Built-in kinds only: the first reduction
// starts from the kind's identity and the second from the original inits,
// which needs an identity; a combiner region has none in general.
//
//===----------------------------------------------------------------------===//

#include "fuse/Dialect/Fuse/Transforms/Passes.h"

#include "fuse/Dialect/Fuse/IR/FuseOps.h"

#include "mlir/IR/Builders.h"

namespace fuse {
#define GEN_PASS_DEF_FUSESPLITREDUCTIONSPASS
#include "fuse/Dialect/Fuse/Transforms/Passes.h.inc"
} // namespace fuse

using namespace mlir;
using namespace fuse;

namespace {

/// Whether reducing `dims` (sorted) of a rank-`rank` tensor needs a split:
/// several dims, not all, neither [0, k) nor [k, rank).
bool needsSplit(ArrayRef<int64_t> dims, int64_t rank) {
  int64_t k = dims.size();
  if (k < 2 || k == rank)
    return false;
  bool contiguous = dims.back() - dims.front() == k - 1;
  return !contiguous || (dims.front() != 0 && dims.back() != rank - 1);
}

/// Splits `op` into a reduction over its last dimension and one over the
/// others (those keep their positions: they all come before it). Returns
/// the second, which may need splitting again.
ReduceOp splitLast(ReduceOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  SmallVector<int64_t> dims = op.getReducedDims();
  int64_t last = dims.pop_back_val();
  SmallVector<Type> inner;
  for (Value in : op.getInputs()) {
    auto t = cast<RankedTensorType>(in.getType());
    SmallVector<int64_t> shape(t.getShape());
    shape.erase(shape.begin() + last);
    inner.push_back(RankedTensorType::get(shape, t.getElementType()));
  }
  auto first =
      ReduceOp::create(b, loc, inner, op.getInputs(), ValueRange{},
                       op.getKindsAttr(), b.getDenseI64ArrayAttr({last}));
  auto second = ReduceOp::create(
      b, loc, op.getResultTypes(), first.getResults(), op.getInits(),
      op.getKindsAttr(), b.getDenseI64ArrayAttr(dims));
  for (ReduceOp r : {first, second})
    r->setDiscardableAttrs(op->getDiscardableAttrDictionary());
  op->replaceAllUsesWith(second->getResults());
  op->erase();
  return second;
}

struct FuseSplitReductionsPass
    : fuse::impl::FuseSplitReductionsPassBase<FuseSplitReductionsPass> {
  void runOnOperation() override {
    SmallVector<ReduceOp> work;
    getOperation()->walk([&](ReduceOp r) { work.push_back(r); });
    for (ReduceOp r : work) {
      while (
          r.hasBuiltinKinds() &&
          needsSplit(
              r.getReducedDims(),
              cast<RankedTensorType>(r.getInputs()[0].getType()).getRank())) {
        r = splitLast(r);
        ++numSplit;
      }
    }
  }
};

} // namespace
