//===- SizeAnalysis.cpp - which dynamic sizes are equal -------------------===//

#include "fuse/Dialect/Fuse/Utils/SizeAnalysis.h"
#include "fuse/Dialect/Fuse/IR/FuseOps.h"
#include "fuse/Dialect/Fuse/IR/Shapes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace fuse;

static int64_t rankOf(Value v) {
  if (auto t = dyn_cast<RankedTensorType>(v.getType()))
    return t.getRank();
  return -1;
}

SizeAnalysis::SizeAnalysis(Operation *root) {
  root->walk([&](Operation *op) { visit(op); });
}

void SizeAnalysis::unite(Dim a, Dim b) { classes.unionSets(a, b); }

/// Unites every dimension of `a` and `b` (same rank).
static void uniteAll(SizeAnalysis &sa, Value a, Value b) {
  int64_t r = rankOf(a);
  if (r < 0 || r != rankOf(b))
    return;
  for (int64_t d = 0; d < r; ++d)
    sa.unite({a, d}, {b, d});
}

/// Unites each dimension of tensor `v` with the one it follows (dimOrigin);
/// a filter's kept count is only bounded by its input's length.
static void uniteWithOrigin(SizeAnalysis &sa, Value v) {
  for (int64_t d = 0; d < rankOf(v); ++d) {
    DimOrigin o = dimOrigin(v, d);
    if (o.kind == DimOrigin::Kind::Dim && !o.bound)
      sa.unite({v, d}, {o.value, o.dim});
    else if (o.kind == DimOrigin::Kind::Scalar)
      sa.unite({v, d}, {o.value, -1});
  }
}

void SizeAnalysis::visit(Operation *op) {
  // What the ops require equal among their operands.
  if (isa<MapOp, ReduceOp, ScanOp>(op)) {
    ValueRange inputs = isa<MapOp>(op)      ? cast<MapOp>(op).getInputs()
                        : isa<ReduceOp>(op) ? cast<ReduceOp>(op).getInputs()
                                            : cast<ScanOp>(op).getInputs();
    for (Value v : inputs)
      uniteAll(*this, inputs.front(), v);
  } else if (auto filter = dyn_cast<FilterOp>(op)) {
    Value first = filter.getInputs().front();
    for (Value v : filter.getInputs())
      unite({first, 0}, {v, 0});
    Value r0 = filter.getResults().front();
    for (Value r : filter.getResults())
      unite({r0, 0}, {r, 0});
  } else if (auto seg = dyn_cast<SegmentedReduceOp>(op)) {
    // One length of inputs; one of offsets (the results follow the starts).
    for (Value v : seg.getInputs())
      unite({seg.getInputs().front(), 0}, {v, 0});
    unite({seg.getStarts(), 0}, {seg.getEnds(), 0});
  } else if (auto sort = dyn_cast<SortOp>(op)) {
    // The values move with the keys: one length.
    if (Value values = sort.getValues())
      unite({sort.getKeys(), 0}, {values, 0});
  } else if (auto group = dyn_cast<GroupOp>(op)) {
    Block &body = group.getBody().front();
    for (auto [operand, arg] :
         llvm::zip(group.getOperands(), body.getArguments())) {
      if (isa<IndexType>(operand.getType()))
        unite({operand, -1}, {arg, -1});
      else
        uniteWithOrigin(*this, arg);
    }
  } else if (auto c = dyn_cast<tensor::CollapseShapeOp>(op)) {
    // A dimension that no other joins keeps its size (fuse-collapse-rows'
    // views); merged ones are products, which the classes do not hold.
    for (auto [d, group] : llvm::enumerate(c.getReassociationIndices()))
      if (group.size() == 1)
        unite({c.getResult(), static_cast<int64_t>(d)}, {c.getSrc(), group[0]});
  } else if (auto e = dyn_cast<tensor::ExpandShapeOp>(op)) {
    for (auto [d, group] : llvm::enumerate(e.getReassociationIndices()))
      if (group.size() == 1)
        unite({e.getResult(), group[0]}, {e.getSrc(), static_cast<int64_t>(d)});
    // Each result dimension is its output_shape size (a collapsed row's
    // expand back to rank 3 takes the argument's tensor.dim values).
    for (auto [d, size] : llvm::enumerate(e.getMixedOutputShape()))
      if (auto v = dyn_cast<Value>(size))
        unite({e.getResult(), static_cast<int64_t>(d)}, {v, -1});
  } else if (isByteView(op)) {
    uniteAll(*this, op->getResult(0), op->getOperand(0));
  } else if (auto dim = dyn_cast<tensor::DimOp>(op)) {
    if (std::optional<int64_t> d = dim.getConstantIndex())
      if (*d >= 0 && *d < rankOf(dim.getSource()))
        unite({dim.getResult(), -1}, {dim.getSource(), *d});
  }
  // Where each result dimension comes from.
  if (isa_and_nonnull<FuseDialect>(op->getDialect()))
    for (Value r : op->getResults())
      uniteWithOrigin(*this, r);
}

SizeAnalysis::Dim SizeAnalysis::leader(Value v, int64_t d) const {
  Dim key{v, d};
  auto it = classes.findLeader(key);
  if (it == classes.member_end())
    return key;
  return *it;
}

bool SizeAnalysis::sameDim(Value a, int64_t da, Value b, int64_t db) const {
  auto ta = dyn_cast<RankedTensorType>(a.getType());
  auto tb = dyn_cast<RankedTensorType>(b.getType());
  if (!ta || !tb)
    return false;
  if (!ta.isDynamicDim(da) && !tb.isDynamicDim(db))
    return ta.getDimSize(da) == tb.getDimSize(db);
  if (ta.isDynamicDim(da) != tb.isDynamicDim(db))
    return false;
  if (a == b && da == db)
    return true;
  return leader(a, da) == leader(b, db);
}

bool SizeAnalysis::sameShape(Value a, Value b) const {
  int64_t r = rankOf(a);
  if (r < 0 || r != rankOf(b))
    return false;
  for (int64_t d = 0; d < r; ++d)
    if (!sameDim(a, d, b, d))
      return false;
  return true;
}

Operation *fuse::countingFilter(Value v) {
  Value kept = filterCountSource(v);
  return kept ? kept.getDefiningOp() : nullptr;
}

Value fuse::filterCountSource(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  if (!t || t.getRank() != 1 || !t.isDynamicDim(0))
    return Value();
  // Each step moves to a value defined earlier or to an enclosing op's
  // operand, so the walk ends. A reduce's or a broadcast's kept dimension
  // is not followed: the count only sizes values that keep a filter's
  // result as their (only) dimension.
  while (v) {
    Operation *def = v.getDefiningOp();
    if (isa_and_nonnull<FilterOp, PrefixOp>(def))
      return v;
    DimOrigin o = dimOrigin(v, 0);
    if (o.kind == DimOrigin::Kind::Dim &&
        !isa_and_nonnull<ReduceOp, BroadcastOp>(def)) {
      v = o.value;
      continue;
    }
    if (o.kind != DimOrigin::Kind::Scalar)
      return Value();
    // An iota or broadcast sized by a scalar: follow it to
    // `tensor.dim %t, 0` (through group scalar arguments), go on with %t.
    Value n = o.value;
    while (Value outer = groupOperandOf(n))
      n = outer;
    auto dim = n.getDefiningOp<tensor::DimOp>();
    std::optional<int64_t> d = dim ? dim.getConstantIndex() : std::nullopt;
    if (!d || *d != 0)
      return Value();
    v = dim.getSource();
  }
  return Value();
}
