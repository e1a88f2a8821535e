//===- SizeAnalysis.cpp - which dynamic sizes are equal -------------------===//

#include "fuse/Dialect/Fuse/Utils/SizeAnalysis.h"
#include "fuse/Dialect/Fuse/IR/FuseOps.h"

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

void SizeAnalysis::visit(Operation *op) {
  if (auto map = dyn_cast<MapOp>(op)) {
    Value first = map.getInputs().front();
    for (Value v : map.getInputs())
      uniteAll(*this, first, v);
    for (Value v : map.getResults())
      uniteAll(*this, first, v);
  } else if (auto red = dyn_cast<ReduceOp>(op)) {
    Value first = red.getInputs().front();
    for (Value v : red.getInputs())
      uniteAll(*this, first, v);
    SmallVector<int64_t> reduced = red.getReducedDims();
    for (Value r : red.getResults()) {
      int64_t k = 0;
      for (int64_t d = 0; d < rankOf(first); ++d)
        if (!llvm::is_contained(reduced, d))
          unite({r, k++}, {first, d});
    }
  } else if (auto scan = dyn_cast<ScanOp>(op)) {
    Value first = scan.getInputs().front();
    for (Value v : scan.getInputs())
      uniteAll(*this, first, v);
    for (Value v : scan.getResults())
      uniteAll(*this, first, v);
  } else if (auto filter = dyn_cast<FilterOp>(op)) {
    Value first = filter.getInputs().front();
    for (Value v : filter.getInputs())
      unite({first, 0}, {v, 0});
    Value r0 = filter.getResults().front();
    for (Value r : filter.getResults())
      unite({r0, 0}, {r, 0});
  } else if (auto bc = dyn_cast<BroadcastOp>(op)) {
    auto type = bc.getResult().getType();
    int64_t kept = 0, dyn = 0;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      if (!llvm::is_contained(bc.getDims(), d))
        unite({bc.getResult(), d}, {bc.getInput(), kept++});
      else if (type.isDynamicDim(d))
        unite({bc.getResult(), d}, {bc.getSizes()[dyn++], -1});
    }
  } else if (auto iota = dyn_cast<IotaOp>(op)) {
    auto type = iota.getResult().getType();
    int64_t dyn = 0;
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (type.isDynamicDim(d))
        unite({iota.getResult(), d}, {iota.getSizes()[dyn++], -1});
  } else if (auto gather = dyn_cast<GatherOp>(op)) {
    uniteAll(*this, gather.getIndices(), gather.getResult());
  } else if (auto group = dyn_cast<GroupOp>(op)) {
    Block &body = group.getBody().front();
    for (auto [operand, arg] :
         llvm::zip(group.getOperands(), body.getArguments())) {
      if (isa<IndexType>(operand.getType()))
        unite({operand, -1}, {arg, -1});
      else
        uniteAll(*this, operand, arg);
    }
    if (auto yield = dyn_cast<YieldOp>(body.getTerminator()))
      for (auto [v, r] : llvm::zip(yield.getValues(), group.getResults()))
        uniteAll(*this, v, r);
  } else if (auto dim = dyn_cast<tensor::DimOp>(op)) {
    if (std::optional<int64_t> d = dim.getConstantIndex())
      if (*d >= 0 && *d < rankOf(dim.getSource()))
        unite({dim.getResult(), -1}, {dim.getSource(), *d});
  }
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

/// The group operand a group body argument stands for, or null.
static Value groupOperandOf(BlockArgument a) {
  auto g = dyn_cast_or_null<GroupOp>(a.getOwner()->getParentOp());
  if (!g || a.getArgNumber() >= g->getNumOperands())
    return Value();
  return g->getOperand(a.getArgNumber());
}

Value fuse::filterCountSource(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  if (!t || t.getRank() != 1 || !t.isDynamicDim(0))
    return Value();
  // Each step moves to a value defined earlier or to an enclosing op's
  // operand, so the walk ends.
  while (v) {
    if (auto r = dyn_cast<OpResult>(v)) {
      Operation *op = r.getOwner();
      if (isa<FilterOp>(op))
        return v;
      if (auto g = dyn_cast<GroupOp>(op)) {
        v = g.getYield().getValues()[r.getResultNumber()];
      } else if (auto m = dyn_cast<MapOp>(op)) {
        v = m.getInputs().empty() ? Value() : m.getInputs().front();
      } else if (auto sc = dyn_cast<ScanOp>(op)) {
        v = sc.getInputs().empty() ? Value() : sc.getInputs().front();
      } else if (auto ga = dyn_cast<GatherOp>(op)) {
        v = ga.getIndices();
      } else if (isa<IotaOp, BroadcastOp>(op)) {
        // Sized by a scalar: follow it to `tensor.dim %t, 0` (through
        // group scalar arguments) and go on with %t.
        ValueRange sizes = isa<IotaOp>(op) ? cast<IotaOp>(op).getSizes()
                                           : cast<BroadcastOp>(op).getSizes();
        if (sizes.size() != 1)
          return Value();
        Value n = sizes.front();
        while (auto a = dyn_cast_or_null<BlockArgument>(n))
          n = groupOperandOf(a);
        auto dim = n ? n.getDefiningOp<tensor::DimOp>() : tensor::DimOp();
        std::optional<int64_t> d = dim ? dim.getConstantIndex() : std::nullopt;
        if (!d || *d != 0)
          return Value();
        v = dim.getSource();
      } else {
        return Value();
      }
      continue;
    }
    v = groupOperandOf(cast<BlockArgument>(v));
  }
  return Value();
}
