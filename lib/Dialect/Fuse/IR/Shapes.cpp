//===- Shapes.cpp - where each dimension of a fuse value comes from -------===//
//
// dimOrigin (the dialect's one shape rule) and the ops'
// ReifyRankedShapedTypeOpInterface, which is that rule with tensor.dim and
// size operands as leaves.
//
//===----------------------------------------------------------------------===//

#include "fuse/Dialect/Fuse/IR/Shapes.h"
#include "fuse/Dialect/Fuse/IR/FuseOps.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace fuse;

Value fuse::groupOperandOf(Value v) {
  auto a = dyn_cast<BlockArgument>(v);
  if (!a)
    return Value();
  auto g = dyn_cast_or_null<GroupOp>(a.getOwner()->getParentOp());
  if (!g || a.getArgNumber() >= g->getNumOperands())
    return Value();
  return g->getOperand(a.getArgNumber());
}

static DimOrigin dimOf(Value v, int64_t d, bool bound = false) {
  DimOrigin o;
  o.kind = DimOrigin::Kind::Dim;
  o.value = v;
  o.dim = d;
  o.bound = bound;
  return o;
}

static DimOrigin staticOf(int64_t size) {
  DimOrigin o;
  o.kind = DimOrigin::Kind::Static;
  o.size = size;
  return o;
}

static DimOrigin scalarOf(Value v) {
  DimOrigin o;
  o.kind = DimOrigin::Kind::Scalar;
  o.value = v;
  return o;
}

/// Dimension `d` of a result whose dimensions `added` are static or take,
/// in order, the size operands `sizes` when dynamic; the other dimensions
/// are `input`'s, in order.
static DimOrigin addedOrKept(RankedTensorType type, int64_t d,
                             ArrayRef<int64_t> added, ValueRange sizes,
                             Value input) {
  int64_t kept = 0, dyn = 0;
  for (int64_t i = 0; i < d; ++i) {
    if (!llvm::is_contained(added, i))
      ++kept;
    else if (type.isDynamicDim(i))
      ++dyn;
  }
  if (!llvm::is_contained(added, d))
    return input ? dimOf(input, kept) : DimOrigin();
  if (!type.isDynamicDim(d))
    return staticOf(type.getDimSize(d));
  if (dyn >= int64_t(sizes.size()))
    return DimOrigin();
  return scalarOf(sizes[dyn]);
}

DimOrigin fuse::dimOrigin(Value v, int64_t d) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || d < 0 || d >= type.getRank())
    return DimOrigin();
  if (Value outer = groupOperandOf(v))
    return dimOf(outer, d);
  auto r = dyn_cast<OpResult>(v);
  if (!r)
    return DimOrigin();
  Operation *op = r.getOwner();
  if (auto g = dyn_cast<GroupOp>(op))
    return dimOf(g.getYield().getValues()[r.getResultNumber()], d);
  if (isByteView(op))
    return dimOf(op->getOperand(0), d);
  if (auto m = dyn_cast<MapOp>(op))
    return m.getInputs().empty() ? DimOrigin() : dimOf(m.getInputs()[0], d);
  if (auto s = dyn_cast<ScanOp>(op))
    return dimOf(s.getInputs()[0], d);
  if (auto f = dyn_cast<FilterOp>(op))
    return dimOf(f.getInputs()[0], d, /*bound=*/true);
  if (auto p = dyn_cast<PrefixOp>(op))
    return dimOf(p.getSource(), d, /*bound=*/true);
  if (auto g = dyn_cast<GatherOp>(op))
    return dimOf(g.getIndices(), d);
  if (auto s = dyn_cast<SearchSortedOp>(op))
    return dimOf(s.getValues(), d);
  if (auto s = dyn_cast<SortOp>(op))
    return dimOf(s.getKeys(), d);
  if (auto s = dyn_cast<SegmentedReduceOp>(op))
    return dimOf(s.getStarts(), d);
  if (auto h = dyn_cast<HistogramOp>(op))
    return type.isDynamicDim(d) && h.getBins() ? scalarOf(h.getBins())
                                                : staticOf(type.getDimSize(d));
  if (auto red = dyn_cast<ReduceOp>(op)) {
    SmallVector<int64_t> reduced = red.getReducedDims();
    Value input = red.getInputs()[0];
    int64_t k = 0, rank = cast<RankedTensorType>(input.getType()).getRank();
    for (int64_t i = 0; i < rank; ++i)
      if (!llvm::is_contained(reduced, i) && k++ == d)
        return dimOf(input, i);
    return DimOrigin();
  }
  if (auto bc = dyn_cast<BroadcastOp>(op))
    return addedOrKept(type, d, bc.getDims(), bc.getSizes(), bc.getInput());
  if (auto io = dyn_cast<IotaOp>(op)) {
    SmallVector<int64_t> all =
        llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
    return addedOrKept(type, d, all, io.getSizes(), Value());
  }
  return DimOrigin();
}

/// reifyResultShapes of an op whose every result follows dimOrigin with
/// operands and size operands as leaves.
static LogicalResult reifyByOrigin(Operation *op, OpBuilder &b,
                                   ReifiedRankedShapedTypeDims &shapes) {
  for (Value r : op->getResults()) {
    auto type = cast<RankedTensorType>(r.getType());
    SmallVector<OpFoldResult> dims;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      if (!type.isDynamicDim(d)) {
        dims.push_back(b.getIndexAttr(type.getDimSize(d)));
        continue;
      }
      DimOrigin o = dimOrigin(r, d);
      switch (o.kind) {
      case DimOrigin::Kind::Static:
        dims.push_back(b.getIndexAttr(o.size));
        break;
      case DimOrigin::Kind::Dim:
        dims.push_back(
            b.createOrFold<tensor::DimOp>(op->getLoc(), o.value, o.dim));
        break;
      case DimOrigin::Kind::Scalar:
        dims.push_back(o.value);
        break;
      case DimOrigin::Kind::None:
        return failure();
      }
    }
    shapes.push_back(std::move(dims));
  }
  return success();
}

#define FUSE_REIFY_BY_ORIGIN(Op)                                               \
  LogicalResult Op::reifyResultShapes(OpBuilder &b,                            \
                                      ReifiedRankedShapedTypeDims &shapes) {   \
    return reifyByOrigin(getOperation(), b, shapes);                           \
  }
FUSE_REIFY_BY_ORIGIN(MapOp)
FUSE_REIFY_BY_ORIGIN(ReduceOp)
FUSE_REIFY_BY_ORIGIN(ScanOp)
FUSE_REIFY_BY_ORIGIN(GatherOp)
FUSE_REIFY_BY_ORIGIN(SearchSortedOp)
FUSE_REIFY_BY_ORIGIN(SortOp)
FUSE_REIFY_BY_ORIGIN(HistogramOp)
FUSE_REIFY_BY_ORIGIN(SegmentedReduceOp)
FUSE_REIFY_BY_ORIGIN(BroadcastOp)
FUSE_REIFY_BY_ORIGIN(IotaOp)
#undef FUSE_REIFY_BY_ORIGIN
