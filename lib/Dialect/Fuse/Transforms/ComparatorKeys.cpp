//===- ComparatorKeys.cpp - comparator sorts as sorts of a computed key ---===//
//
// fuse-comparator-keys (the GPU pipeline): a `fuse.sort` whose comparator
// compares one function of each key, `k(a) < k(b)` (or `>`), orders the
// keys as the key order of k(x) does. It becomes a sort of the computed
// keys with their positions (the runtime's radix sort instead of the
// generated merge sort's log2(n) passes of a comparator) and gathers of
// the operands at those positions. Both sorts are stable, so the results
// are the same permutation wherever the comparator is a strict weak order
// (fuse.sort leaves the order unspecified elsewhere).
//
//===----------------------------------------------------------------------===//

#include "fuse/Dialect/Fuse/Transforms/Passes.h"

#include "fuse/Dialect/Fuse/IR/FuseOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace fuse {
#define GEN_PASS_DEF_FUSECOMPARATORKEYSPASS
#include "fuse/Dialect/Fuse/Transforms/Passes.h.inc"
} // namespace fuse

using namespace mlir;
using namespace fuse;

namespace {

/// Whether `v` is computed from a block argument of `region`.
bool readsArguments(Value v, Region &region, unsigned depth = 0) {
  if (auto arg = dyn_cast<BlockArgument>(v))
    return arg.getParentRegion() == &region;
  Operation *def = v.getDefiningOp();
  if (!region.isAncestor(def->getParentRegion()))
    return false;
  if (depth > 64 || def->getNumRegions())
    return true; // (too deep or nested: taken as reading them)
  return llvm::any_of(def->getOperands(), [&](Value o) {
    return readsArguments(o, region, depth + 1);
  });
}

/// Whether `x` computes of `a` what `y` computes of `b`: the same
/// side-effect-free ops without regions, attributes and types, operand by
/// operand, `a` in place of `b`; a value that reads neither argument may
/// be used by both.
bool sameFunction(Value x, Value y, Value a, Value b, Region &region,
                  unsigned depth = 0) {
  if (x == a || y == b)
    return x == a && y == b;
  if (x == y)
    return !readsArguments(x, region);
  auto rx = dyn_cast<OpResult>(x), ry = dyn_cast<OpResult>(y);
  if (!rx || !ry || depth > 64 || rx.getResultNumber() != ry.getResultNumber())
    return false;
  Operation *ox = rx.getOwner(), *oy = ry.getOwner();
  if (ox->getName() != oy->getName() || ox->getNumRegions() ||
      oy->getNumRegions() || !isMemoryEffectFree(ox) ||
      ox->getNumOperands() != oy->getNumOperands() ||
      ox->getResultTypes() != oy->getResultTypes() ||
      ox->getAttrDictionary() != oy->getAttrDictionary())
    return false;
  for (auto [p, q] : llvm::zip(ox->getOperands(), oy->getOperands()))
    if (!sameFunction(p, q, a, b, region, depth + 1))
      return false;
  return true;
}

/// Whether `v` is NaN exactly when `a` is: `a` through unary float ops
/// that keep NaN and make no NaN of a number (|x|, -x, widening and
/// narrowing: a narrowed number overflows to infinity, not NaN).
bool nanExactlyWhen(Value v, Value a) {
  for (int steps = 0; steps < 16; ++steps) {
    if (v == a)
      return true;
    Operation *def = v.getDefiningOp();
    if (!isa_and_nonnull<math::AbsFOp, arith::NegFOp, arith::ExtFOp,
                         arith::TruncFOp>(def))
      return false;
    v = def->getOperand(0);
  }
  return false;
}

/// `p` is `x != x` or `uno(x, x)` (isNaN) when `nan`, else `x == x` or
/// `ord(x, x)`; returns x.
Value nanTestOf(Value p, bool nan) {
  auto c = p.getDefiningOp<arith::CmpFOp>();
  if (!c || c.getLhs() != c.getRhs())
    return {};
  using P = arith::CmpFPredicate;
  P pred = c.getPredicate();
  bool ok = nan ? (pred == P::UNE || pred == P::UNO)
                : (pred == P::OEQ || pred == P::ORD);
  return ok ? c.getLhs() : Value();
}

/// The key order a comparator spells: k(a) < k(b) (ascending) or
/// k(a) > k(b) (descending), either way round, where for floats the
/// comparison is ordered (olt/ogt) and may be joined by "a NaN goes last"
/// (`lt | (!isNaN(k(a)) & isNaN(k(b)))`, the tests on k(a), k(b) or on
/// a, b where k keeps NaN exactly). NaN goes after +inf in the key order
/// too, and the rewrite makes every NaN key the same one, so NaNs keep
/// their input order as the comparator's ties do.
struct KeyOrder {
  Value keyOfA;            // k(a) in the region
  bool descending = false; // the order of k(x) reversed
  bool isUnsigned = false; // integer keys compared as unsigned
  bool nanLast = false;    // with the "a NaN goes last" clause
};

std::optional<KeyOrder> matchKeyOrder(SortOp sort) {
  Region &region = sort.getComparator();
  Block &block = region.front();
  Value a = block.getArgument(0), b = block.getArgument(1);
  Value lt = cast<YieldOp>(block.getTerminator()).getValues()[0];
  // "NaN last": lt | (ord(k(a)) & uno(k(b))), in any operand order.
  Value nanA, nanB;
  if (auto orOp = lt.getDefiningOp<arith::OrIOp>()) {
    for (int side = 0; side < 2 && !nanA; ++side) {
      auto andOp = orOp->getOperand(1 - side).getDefiningOp<arith::AndIOp>();
      if (!andOp)
        continue;
      for (int s = 0; s < 2 && !nanA; ++s) {
        Value x = nanTestOf(andOp->getOperand(s), /*nan=*/false);
        Value y = nanTestOf(andOp->getOperand(1 - s), /*nan=*/true);
        if (x && y) {
          nanA = x, nanB = y;
          lt = orOp->getOperand(side);
        }
      }
    }
    if (!nanA)
      return std::nullopt;
  }
  KeyOrder order;
  Value lhs, rhs;
  bool greater;
  if (auto c = lt.getDefiningOp<arith::CmpFOp>()) {
    using P = arith::CmpFPredicate;
    if (c.getPredicate() != P::OLT && c.getPredicate() != P::OGT)
      return std::nullopt;
    lhs = c.getLhs(), rhs = c.getRhs(), greater = c.getPredicate() == P::OGT;
  } else if (auto c = lt.getDefiningOp<arith::CmpIOp>()) {
    using P = arith::CmpIPredicate;
    switch (c.getPredicate()) {
    case P::slt:
      greater = false;
      break;
    case P::sgt:
      greater = true;
      break;
    case P::ult:
      greater = false, order.isUnsigned = true;
      break;
    case P::ugt:
      greater = true, order.isUnsigned = true;
      break;
    default:
      return std::nullopt;
    }
    lhs = c.getLhs(), rhs = c.getRhs();
  } else {
    return std::nullopt;
  }
  // The keys the runtime's radix sort takes (i1 compares as signed here).
  Type kt = lhs.getType();
  bool floatKey = kt.isF16() || kt.isBF16() || kt.isF32() || kt.isF64();
  bool intKey =
      kt.isInteger() &&
      llvm::is_contained(std::initializer_list<unsigned>{8, 16, 32, 64},
                         kt.getIntOrFloatBitWidth());
  if (!floatKey && !intKey)
    return std::nullopt;
  // k(a) on the left: a goes first when k(a) < k(b); on the right
  // (k(b) < k(a)), when k(b) < k(a): the reversed order.
  bool swapped;
  if (sameFunction(lhs, rhs, a, b, region))
    swapped = false;
  else if (sameFunction(lhs, rhs, b, a, region))
    swapped = true;
  else
    return std::nullopt;
  Value ka = swapped ? rhs : lhs, kb = swapped ? lhs : rhs;
  if (nanA) {
    // NaN last is the key order's own place for a (positive) NaN key:
    // ascending only, with the tests on k(a) and k(b) or on a and b.
    bool onKeys = nanA == ka && nanB == kb;
    bool onArgs = nanA == a && nanB == b && nanExactlyWhen(ka, a);
    if (greater != swapped || !(onKeys || onArgs))
      return std::nullopt;
  }
  order.keyOfA = ka;
  order.descending = greater != swapped;
  order.nanLast = static_cast<bool>(nanA);
  return order;
}

/// The ops of the region that k(a) is computed from, in order.
SmallVector<Operation *> keySlice(Value ka, Region &region) {
  llvm::SetVector<Operation *> seen;
  SmallVector<Value> work{ka};
  while (!work.empty()) {
    Operation *def = work.pop_back_val().getDefiningOp();
    if (!def || !region.isAncestor(def->getParentRegion()) || !seen.insert(def))
      continue;
    llvm::append_range(work, def->getOperands());
  }
  SmallVector<Operation *> ops(seen.begin(), seen.end());
  llvm::sort(ops,
             [](Operation *x, Operation *y) { return x->isBeforeInBlock(y); });
  return ops;
}

/// fuse.map of the keys to k(x), every NaN key made one positive quiet NaN
/// (the key order puts it last; NaNs of other bits would sort among
/// themselves by their bits, where the comparator keeps input order).
Value buildKeyMap(OpBuilder &b, SortOp sort, const KeyOrder &order) {
  Location loc = sort.getLoc();
  Region &region = sort.getComparator();
  Value a = region.front().getArgument(0);
  auto keysTy = cast<RankedTensorType>(sort.getKeys().getType());
  Type kt = order.keyOfA.getType();
  auto map = MapOp::create(b, loc, TypeRange{keysTy.clone(kt)},
                           ValueRange{sort.getKeys()});
  OpBuilder::InsertionGuard guard(b);
  Block *blk =
      b.createBlock(&map.getBody(), {}, {keysTy.getElementType()}, {loc});
  IRMapping m;
  m.map(a, blk->getArgument(0));
  for (Operation *op : keySlice(order.keyOfA, region))
    b.clone(*op, m);
  Value k = m.lookupOrDefault(order.keyOfA);
  if (auto ft = dyn_cast<FloatType>(kt)) {
    Value isNan =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, k, k);
    Value nan = arith::ConstantOp::create(
        b, loc, FloatAttr::get(ft, APFloat::getQNaN(ft.getFloatSemantics())));
    k = arith::SelectOp::create(b, loc, isNan, nan, k);
  }
  YieldOp::create(b, loc, ValueRange{k});
  return map.getResult(0);
}

struct FuseComparatorKeysPass
    : fuse::impl::FuseComparatorKeysPassBase<FuseComparatorKeysPass> {
  void runOnOperation() override {
    SmallVector<std::pair<SortOp, KeyOrder>> sorts;
    getOperation()->walk([&](SortOp s) {
      if (!s.hasComparator())
        return;
      // (The gathers take the keys' shape: values typed with another
      // static or dynamic shape keep the comparator.)
      Value v = s.getValues();
      if (v && cast<RankedTensorType>(v.getType()).getShape() !=
                   s.getKeys().getType().getShape())
        return;
      if (std::optional<KeyOrder> o = matchKeyOrder(s))
        sorts.push_back({s, *o});
    });
    for (auto &[s, order] : sorts) {
      OpBuilder b(s);
      Location loc = s.getLoc();
      MLIRContext *ctx = s.getContext();
      // `descending` sorts by the reversed comparator: the key order
      // reversed once more.
      auto orderAttr = SortOrderAttr::get(
          ctx, order.descending != s.isDescending() ? SortOrder::Descending
                                                    : SortOrder::Ascending);
      auto intAttr =
          IntegerOrderAttr::get(ctx, order.isUnsigned ? IntegerOrder::Unsigned
                                                      : IntegerOrder::Signed);
      Value a = s.getComparator().front().getArgument(0);
      // k(x) = x: the key order itself (a NaN-last comparator of floats
      // still needs its NaNs made one, below).
      if (order.keyOfA == a &&
          !(order.nanLast && isa<FloatType>(a.getType()))) {
        auto ns =
            SortOp::create(b, loc, s.getResultTypes(), s.getKeys(),
                           s.getValues(), orderAttr, intAttr, s.getCarryAttr());
        ns->setDiscardableAttrs(s->getDiscardableAttrDictionary());
        s.replaceAllUsesWith(ns.getResults());
        s.erase();
        continue;
      }
      Value keys = s.getKeys();
      Value computed = buildKeyMap(b, s, order);
      auto keysTy = cast<RankedTensorType>(computed.getType());
      auto posTy = keysTy.clone(b.getI64Type());
      auto ns = SortOp::create(b, loc, TypeRange{keysTy, posTy}, computed,
                               Value(), orderAttr, intAttr,
                               SortCarryAttr::get(ctx, SortCarry::Positions));
      ns->setDiscardableAttrs(s->getDiscardableAttrDictionary());
      Value pos = ns.getResult(1);
      auto gather = [&](Value src) -> Value {
        return GatherOp::create(b, loc, src.getType(), src, pos);
      };
      if (!s.getResult(0).use_empty())
        s.getResult(0).replaceAllUsesWith(gather(keys));
      if (Value carried = s.getCarried())
        carried.replaceAllUsesWith(s.hasPositions() ? pos
                                                    : gather(s.getValues()));
      s.erase();
    }
  }
};

} // namespace
