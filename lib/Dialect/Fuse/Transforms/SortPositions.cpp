//===- SortPositions.cpp - argsorts without an iota tensor ----------------===//
//
// fuse-sort-positions (the GPU pipeline): `fuse.sort %k, fuse.iota(len(k))`
// becomes `fuse.sort positions %k`, so that no kernel writes the positions
// for the sort to read back, and the lowerings move 4-byte positions.
//
//===----------------------------------------------------------------------===//

#include "fuse/Dialect/Fuse/Transforms/Passes.h"

#include "fuse/Dialect/Fuse/IR/FuseOps.h"
#include "fuse/Dialect/Fuse/IR/Shapes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

namespace fuse {
#define GEN_PASS_DEF_FUSESORTPOSITIONSPASS
#include "fuse/Dialect/Fuse/Transforms/Passes.h.inc"
} // namespace fuse

using namespace mlir;
using namespace fuse;

namespace {

/// Where a length ends up when its origins are followed: (tensor,
/// dimension) or an index scalar (dim -1); the static size when known.
struct Root {
  Value value;
  int64_t dim = -1;
  std::optional<int64_t> size;
  bool operator==(const Root &o) const {
    if (size || o.size)
      return size == o.size;
    return value && value == o.value && dim == o.dim;
  }
};

Root rootOf(Value v, int64_t d) {
  for (int steps = 0; steps < 64; ++steps) {
    if (auto t = dyn_cast<RankedTensorType>(v.getType());
        t && !t.isDynamicDim(d))
      return {Value(), -1, t.getDimSize(d)};
    DimOrigin o = dimOrigin(v, d);
    if (o.kind == DimOrigin::Kind::Static)
      return {Value(), -1, o.size};
    if (o.kind == DimOrigin::Kind::Dim && !o.bound) {
      v = o.value, d = o.dim;
      continue;
    }
    if (o.kind == DimOrigin::Kind::Scalar) {
      auto dim = o.value.getDefiningOp<tensor::DimOp>();
      std::optional<int64_t> idx = dim ? dim.getConstantIndex() : std::nullopt;
      if (!idx)
        return {o.value, -1, std::nullopt};
      v = dim.getSource(), d = *idx;
      continue;
    }
    break;
  }
  return {v, d, std::nullopt};
}

/// Whether `values` is an i64 iota along dimension 0 as long as `keys`.
bool isPositionsOf(Value values, Value keys) {
  auto iota = values.getDefiningOp<IotaOp>();
  if (!iota || iota.getIotaDim() != 0)
    return false;
  auto t = iota.getResult().getType();
  if (t.getRank() != 1 || !t.getElementType().isInteger(64))
    return false;
  return rootOf(values, 0) == rootOf(keys, 0);
}

struct FuseSortPositionsPass
    : fuse::impl::FuseSortPositionsPassBase<FuseSortPositionsPass> {
  void runOnOperation() override {
    SmallVector<SortOp> sorts;
    getOperation()->walk([&](SortOp s) {
      if (s.getValues() && isPositionsOf(s.getValues(), s.getKeys()))
        sorts.push_back(s);
    });
    for (SortOp s : sorts) {
      OpBuilder b(s);
      auto ns = SortOp::create(
          b, s.getLoc(), s.getResultTypes(), s.getKeys(), Value(),
          s.getOrderAttr(), s.getIntegerOrderAttr(),
          SortCarryAttr::get(s.getContext(), SortCarry::Positions));
      ns->setDiscardableAttrs(s->getDiscardableAttrDictionary());
      ns.getComparator().takeBody(s.getComparator());
      s.replaceAllUsesWith(ns.getResults());
      Operation *iota = s.getValues().getDefiningOp();
      s.erase();
      if (iota->use_empty())
        iota->erase();
    }
  }
};

} // namespace
